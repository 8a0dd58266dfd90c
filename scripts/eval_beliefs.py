"""How well each Junqi belief tracker predicts the opponent's hidden piece types.

    python scripts/eval_beliefs.py [--games 500] [--seed 0] [--plies 20 50 100] [--rules ccgc]
    python scripts/eval_beliefs.py --games-from runs/arena-junqi-.../ [--plies 50 100]
    python scripts/eval_beliefs.py --fit-model --games-from runs/beliefs/games-fit
    python scripts/eval_beliefs.py --games-from runs/arena-junqi-.../ --pieces-of ppo:pretrained

Records ``--games`` games of uniform random play from uniformly random layouts (or, with
``--games-from``, reads the games the arena recorded in those ``games.jsonl`` files or run
folders: games played by real agents, each under its own rule set), then at each ply count of
``--plies`` (only games still going after that many plies), from both players' views, scores
every tracker of ``agents.junqi.belief`` (with ``--pieces-of LABEL``, only from the view of the
player facing the agent of that label, in the games it played: how well each tracker reads that
agent's pieces):

- log-loss: mean of -log p(true type) over the opponent's living pieces (p clipped at 1e-12),
  pooled over all (view, piece) pairs; also split into the pieces standing on a headquarters and
  the rest;
- flag top-1: the living opponent piece with the highest P(flag) is the flag (ties go to the
  lowest post number);
- marshal top-1: the same for the marshal, over the views where the opponent's marshal lives;
- build and sample time: ``from_view``, ``sample_tokens`` and ``sample_state`` on the first
  ``--timing-views`` views of each ply count. The ``model`` tracker caches the scores of the
  opponent's past plies per game: its ``from_view`` is timed with an empty cache (every past ply
  scored), and again with the game already cached (what an agent that rebuilds its belief every
  move pays, besides scoring the one new opponent ply).

The log-loss reductions of count vs paper and of model vs count come with a 95% interval from a
bootstrap over games (the trackers are scored on the same views, so games are resampled whole).

``--model-temperatures``/``--model-betas``/``--model-weights``: also score the ``model`` tracker
at every combination (its T, beta and the evaluation weights of the opponent model) on the same
views, and print the grid with the combination of lowest log-loss (pooled over the ply counts);
this is how the tracker's constants are fitted, on games disjoint from the ones it is judged on.

``--fit-model``: instead of scoring, fit the ``model`` tracker's feature weights by maximum
likelihood on the moves of both players of the ``--games-from`` games
(``agents.junqi.belief.model_fit``), print them (with their standard errors) and write them as
JSON; deterministic (Newton's method from zero weights).

Two references put the gap between the trackers in context, on the first ``--ceiling-views``
views of each ply count (default 0: skipped):
- ``independent``: the paper tracker with the exact uniform-layout prior on the headquarters too
  (so the paper/count gap splits into "prior" and "army counting");
- ``exact``: the exact posterior of the same evidence (uniform over all type assignments that fit
  every mask and the army counts, the posterior under uniform layouts when the opponent's move
  choice is ignored), estimated by a Markov chain of swaps and 3-cycles of types.

Prints a markdown table and writes the figures as JSON to ``runs/beliefs/``.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agents.arena.records import game_records, start_and_actions  # noqa: E402
from agents.junqi.belief import (  # noqa: E402
    BELIEFS,
    DEFAULT_BELIEF,
    LAYOUT_MARGINALS,
    CountBelief,
    ModelBelief,
    PaperBelief,
    complete_assignment,
    normalise_rows,
)
from agents.junqi.belief.model_fit import choice_data, fit_weights  # noqa: E402
from agents.junqi.belief.opponent_model import (  # noqa: E402
    FEATURE_CONFIG,
    MODEL_FEATURES,
    clear_cache,
)
from tbw_envs.junqi import HEADQUARTERS, JunqiState, random_layout  # noqa: E402
from tbw_envs.junqi.pieces import ARMY_COUNTS, FLAG, MARSHAL  # noqa: E402

CLIP = 1e-12


def record_games(count: int, seed: int, rules: str, longest: int, progress: bool) -> list:
    """``count`` games of uniform random play, each kept up to ``longest`` plies (or its end):
    ``(starting state, actions)`` pairs."""
    from tqdm import tqdm

    rand = random.Random(seed)
    games = []
    for _ in tqdm(range(count), desc="recording games", disable=not progress):
        layouts = (random_layout(rand), random_layout(rand))
        state = JunqiState.initial(layouts, rules)
        start = state.clone()
        actions = []
        while not state.is_terminal() and len(actions) < longest:
            legal = state.legal_actions()
            action = legal[rand.randrange(len(legal))]
            state.apply(action)
            actions.append(action)
        games.append((start, actions))
    return games


def reading_seats(records: list[dict], label: str) -> list[tuple[int, ...]]:
    """For each record, the seats whose views read the pieces of the agent labelled ``label``:
    the other seat in a game it played, none in the rest. Raises ``ValueError`` if it played
    none of them."""
    seats = [tuple(1 - seat for seat in (0, 1) if record["agents"][seat] == label)
             for record in records]
    if not any(seats):
        raise ValueError(f"no Junqi game of these records was played by an agent labelled "
                         f"{label!r}")
    return seats


def running_states(start: JunqiState, actions, plies: list[int]) -> dict[int, JunqiState]:
    """The state after each ply count in ``plies`` for which the game is still going."""
    state = start.clone()
    found = {}
    for ply in range(max(plies) + 1):
        if state.is_terminal():
            break
        if ply in plies:
            found[ply] = state.clone()
        if ply == len(actions):
            break
        state.apply(actions[ply])
    return found


class Scores:
    """Running sums for one tracker at one ply count, kept per game for a paired bootstrap."""

    def __init__(self) -> None:
        self.loss_by_game: dict[int, list[float]] = {}
        self.headquarters_losses: list[float] = []
        self.other_losses: list[float] = []
        self.flag_hits = self.flag_views = 0
        self.marshal_hits = self.marshal_views = 0

    def add(self, game: int, belief, state: JunqiState, player: int) -> None:
        matrix = belief.matrix()
        opponent = 1 - player
        posts = [post for post in range(60) if state.owner[post] == opponent]
        losses = self.loss_by_game.setdefault(game, [])
        for post in posts:
            loss = -float(np.log(max(matrix[post, state.kind[post]], CLIP)))
            losses.append(loss)
            (self.headquarters_losses if post in HEADQUARTERS else self.other_losses).append(loss)
        kinds = [state.kind[post] for post in posts]
        self.flag_views += 1
        self.flag_hits += kinds[int(np.argmax(matrix[posts, FLAG]))] == FLAG
        if MARSHAL in kinds:
            self.marshal_views += 1
            self.marshal_hits += kinds[int(np.argmax(matrix[posts, MARSHAL]))] == MARSHAL

    def log_loss(self) -> float:
        values = [loss for losses in self.loss_by_game.values() for loss in losses]
        return float(np.mean(values))

    def summary(self) -> dict:
        return {
            "log_loss": self.log_loss(),
            "log_loss_headquarters": float(np.mean(self.headquarters_losses)),
            "log_loss_other_posts": float(np.mean(self.other_losses)),
            "pieces": sum(len(v) for v in self.loss_by_game.values()),
            "flag_top1": self.flag_hits / self.flag_views,
            "flag_views": self.flag_views,
            "marshal_top1": self.marshal_hits / max(self.marshal_views, 1),
            "marshal_views": self.marshal_views,
        }


class IndependentExactPrior(PaperBelief):
    """Reference: independent tables like the paper's, with the exact uniform-layout prior on
    every post (headquarters included) instead of Table 1."""

    name = "independent"

    def _token_probabilities(self) -> np.ndarray:
        masks = self._mask_matrix()
        return normalise_rows(LAYOUT_MARGINALS[list(self.evidence.cells)] * masks, masks)


def exact_posterior(masks, rand: random.Random, steps: int, burn_in: int) -> np.ndarray:
    """Marginals of the uniform distribution over assignments that fit every mask and the army
    counts, by a Markov chain: propose swapping the types of two tokens or rotating three, keep
    it when every mask allows (symmetric proposals, so the uniform law is stationary)."""
    count = len(masks)
    assign = complete_assignment(masks, ARMY_COUNTS)
    visits = np.zeros((count, len(ARMY_COUNTS)))
    tokens = range(count)
    rows = np.arange(count)
    for step in range(steps):
        if rand.random() < 0.5:
            a, b = rand.sample(tokens, 2)
            if masks[a] >> assign[b] & 1 and masks[b] >> assign[a] & 1:
                assign[a], assign[b] = assign[b], assign[a]
        else:
            a, b, c = rand.sample(tokens, 3)
            ka, kb, kc = assign[a], assign[b], assign[c]
            if masks[a] >> kc & 1 and masks[b] >> ka & 1 and masks[c] >> kb & 1:
                assign[a], assign[b], assign[c] = kc, ka, kb
        if step >= burn_in and step % 5 == 0:
            visits[rows, assign] += 1
    # Half a pseudo-visit per allowed type, so a rare type the chain missed is not scored as
    # impossible (the clipped log-loss would be 27.6 for it).
    allowed = np.asarray(masks)[:, None] >> np.arange(len(ARMY_COUNTS)) & 1
    visits += 0.5 * allowed
    return visits / visits.sum(axis=1, keepdims=True)


def reference_losses(views_and_states, rand: random.Random, steps: int) -> dict:
    """Log-loss of paper, independent, count and the exact posterior on the same views."""
    losses: dict[str, list[float]] = {"paper": [], "independent": [], "count": [], "exact": []}
    for view, state in views_and_states:
        count = CountBelief.from_view(view)
        tables = {
            "paper": PaperBelief(view, count.evidence).token_matrix(),
            "independent": IndependentExactPrior(view, count.evidence).token_matrix(),
            "count": count.token_matrix(),
            "exact": exact_posterior(list(count.evidence.masks), rand, steps, steps // 10),
        }
        for token, post in enumerate(count.evidence.posts):
            if post is None:
                continue
            kind = state.kind[post]
            for name, table in tables.items():
                losses[name].append(-float(np.log(max(table[token, kind], CLIP))))
    return {name: float(np.mean(values)) for name, values in losses.items()} | {
        "views": len(views_and_states),
        "pieces": len(losses["exact"]),
        "chain_steps": steps,
    }


def relative_reduction(better: Scores, worse: Scores, rand: np.random.Generator) -> dict:
    """1 - loss(better) / loss(worse), with a 95% interval from a bootstrap over games (both
    trackers scored on the same views, so the games are resampled together)."""
    games = sorted(worse.loss_by_game)
    sums = np.array([[sum(better.loss_by_game[g]), sum(worse.loss_by_game[g])] for g in games])
    point = 1.0 - sums[:, 0].sum() / sums[:, 1].sum()
    draws = rand.integers(0, len(games), size=(2000, len(games)))
    ratios = 1.0 - sums[draws, 0].sum(axis=1) / sums[draws, 1].sum(axis=1)
    low, high = np.percentile(ratios, [2.5, 97.5])
    return {"reduction": float(point), "ci95": [float(low), float(high)]}


def model_grid(views_and_states, temperatures, betas, weights, progress: bool) -> dict:
    """Log-loss of the ``model`` tracker at every (T, beta, weights) on the same views: per ply
    count and pooled over them, and the combination with the lowest pooled log-loss."""
    from tqdm import tqdm

    combos = [(t, b, w) for w in weights for t in temperatures for b in betas]
    sums = {combo: {} for combo in combos}
    for ply, view, state in tqdm(views_and_states, desc="model grid", disable=not progress):
        count = CountBelief.from_view(view)
        living = [
            (t, state.kind[post]) for t, post in enumerate(count.evidence.posts) if post is not None
        ]
        for combo in combos:
            temperature, beta, weight = combo
            table = ModelBelief(
                view, count.evidence, temperature=temperature, beta=beta, weights=weight
            ).token_matrix()
            total, pieces = sums[combo].get(ply, (0.0, 0))
            loss = sum(-float(np.log(max(table[t, kind], CLIP))) for t, kind in living)
            sums[combo][ply] = (total + loss, pieces + len(living))
    rows = []
    for (temperature, beta, weight), by_ply in sums.items():
        total = sum(value for value, _ in by_ply.values())
        pieces = sum(n for _, n in by_ply.values())
        rows.append(
            {
                "temperature": temperature,
                "beta": beta,
                "weights": weight,
                "log_loss": total / max(pieces, 1),
                "by_ply": {str(ply): value / n for ply, (value, n) in sorted(by_ply.items())},
            }
        )
    best = min(rows, key=lambda row: row["log_loss"])
    return {"rows": rows, "best": best, "views": len(views_and_states)}


def fit_model(games) -> dict:
    """``--fit-model``: the maximum-likelihood weights of the ``model`` tracker's features
    (``MODEL_FEATURES`` under ``FEATURE_CONFIG``) on every move of ``games``."""
    data = choice_data(games, FEATURE_CONFIG, MODEL_FEATURES)
    _, summary = fit_weights(data)
    return summary | {"games": len(games), "feature_config": FEATURE_CONFIG}


def fit_markdown(fit: dict) -> str:
    lines = ["| feature | weight | standard error |", "|---|---:|---:|"]
    for name, weight in fit["weights"].items():
        lines.append(f"| {name} | {weight:.6g} | {fit['standard_errors'][name]:.2g} |")
    lines.append("")
    lines.append(
        f"{fit['games']} games, {fit['choices']} choices ({fit['moves']} legal moves), "
        f"{fit['newton_steps']} Newton steps: mean -log P(played move) {fit['mean_nll']:.4f} "
        f"(uniform choice {fit['mean_nll_uniform']:.4f})"
    )
    lines.append("")
    lines.append("FITTED_WEIGHTS = {")
    lines.extend(f'    "{name}": {weight!r},' for name, weight in fit["weights"].items())
    lines.append("}")
    return "\n".join(lines)


def _label(paths: list[str]) -> str:
    source = Path(paths[0])
    return (source if source.is_dir() else source.parent).name


def time_trackers(views: list, rand: random.Random, samples: int) -> dict:
    timings = {}
    for name, cls in BELIEFS.items():
        if cls is ModelBelief:
            # With an empty cache (every past opponent ply scored), then again with the game
            # cached by that build.
            build = cached = 0.0
            beliefs = []
            for view in views:
                clear_cache()
                started = time.perf_counter()
                cls.from_view(view)
                build += time.perf_counter() - started
                started = time.perf_counter()
                beliefs.append(cls.from_view(view))
                cached += time.perf_counter() - started
            build, cached = build / len(views), cached / len(views)
        else:
            started = time.perf_counter()
            beliefs = [cls.from_view(view) for view in views]
            build = cached = (time.perf_counter() - started) / len(views)
        started = time.perf_counter()
        for belief in beliefs:
            for _ in range(samples):
                belief.sample_tokens(rand)
        sample = (time.perf_counter() - started) / (len(views) * samples)
        started = time.perf_counter()
        for belief in beliefs:
            for _ in range(samples):
                belief.sample_state(rand)
        sample_state = (time.perf_counter() - started) / (len(views) * samples)
        timings[name] = {
            "build_ms": build * 1e3,
            "build_cached_ms": cached * 1e3,
            "sample_us": sample * 1e6,
            "sample_state_us": sample_state * 1e6,
        }
    return timings


def markdown(results: dict, plies: list[int]) -> str:
    lines = [
        "| ply | games going | views | tracker | log-loss | log-loss HQ | log-loss other "
        "| flag top-1 | marshal top-1 (views) |",
        "|---:|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for ply in plies:
        block = results["by_ply"].get(str(ply))
        if block is None:
            continue
        for name in BELIEFS:
            row = block["trackers"][name]
            lines.append(
                f"| {ply} | {block['games']} | {block['views']} | {name} | {row['log_loss']:.3f} "
                f"| {row['log_loss_headquarters']:.3f} | {row['log_loss_other_posts']:.3f} "
                f"| {row['flag_top1']:.3f} | {row['marshal_top1']:.3f} ({row['marshal_views']}) |"
            )
    lines.append("")
    lines.append("| ply | count vs paper: log-loss reduction | 95% interval (bootstrap, games) |")
    lines.append("|---:|---:|---|")
    for ply in plies:
        block = results["by_ply"].get(str(ply))
        if block is not None:
            comparison = block["count_vs_paper"]
            low, high = comparison["ci95"]
            lines.append(f"| {ply} | {comparison['reduction']:.1%} | {low:.1%} to {high:.1%} |")
    if any("model_vs_count" in block for block in results["by_ply"].values()):
        lines.append("")
        lines.append(
            "| ply | model vs count: log-loss reduction | 95% interval (bootstrap, games) |"
        )
        lines.append("|---:|---:|---|")
        for ply in plies:
            comparison = results["by_ply"].get(str(ply), {}).get("model_vs_count")
            if comparison is not None:
                low, high = comparison["ci95"]
                lines.append(f"| {ply} | {comparison['reduction']:.1%} | {low:.1%} to {high:.1%} |")
    if any("references" in block for block in results["by_ply"].values()):
        lines.append("")
        lines.append("| ply | views | paper | independent, exact prior | count | exact posterior |")
        lines.append("|---:|---:|---:|---:|---:|---:|")
        for ply in plies:
            block = results["by_ply"].get(str(ply), {})
            ref = block.get("references")
            if ref:
                lines.append(
                    f"| {ply} | {ref['views']} | {ref['paper']:.3f} | {ref['independent']:.3f} "
                    f"| {ref['count']:.3f} | {ref['exact']:.3f} |"
                )
    lines.append("")
    lines.append(
        "| ply | tracker | from_view (ms) | from_view, game cached (ms) "
        "| sample_tokens (us) | sample_state (us) |"
    )
    lines.append("|---:|---|---:|---:|---:|---:|")
    for ply in plies:
        block = results["by_ply"].get(str(ply))
        if block is None:
            continue
        for name, row in block["timing"].items():
            lines.append(
                f"| {ply} | {name} | {row['build_ms']:.2f} | {row['build_cached_ms']:.2f} "
                f"| {row['sample_us']:.0f} | {row['sample_state_us']:.0f} |"
            )
    grid = results.get("model_grid")
    if grid:
        lines.append("")
        lines.append(
            f"model grid ({grid['views']} views): log-loss pooled over the ply counts "
            "(and per ply count)"
        )
        lines.append("")
        lines.append("| weights | T | beta | log-loss | by ply |")
        lines.append("|---|---:|---:|---:|---|")
        for row in grid["rows"]:
            by_ply = ", ".join(f"{ply}: {value:.4f}" for ply, value in row["by_ply"].items())
            lines.append(
                f"| {row['weights']} | {row['temperature']:g} | {row['beta']:g} "
                f"| {row['log_loss']:.4f} | {by_ply} |"
            )
        best = grid["best"]
        lines.append("")
        lines.append(
            f"best: weights={best['weights']} T={best['temperature']:g} "
            f"beta={best['beta']:g} (log-loss {best['log_loss']:.4f})"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plies", type=int, nargs="+", default=[20, 50, 100])
    parser.add_argument("--rules", default="ccgc")
    parser.add_argument("--timing-views", type=int, default=20)
    parser.add_argument("--timing-samples", type=int, default=200)
    parser.add_argument(
        "--ceiling-views",
        type=int,
        default=0,
        help="views per ply count for the independent/exact references",
    )
    parser.add_argument("--chain-steps", type=int, default=60_000)
    parser.add_argument(
        "--games-from",
        nargs="+",
        metavar="PATH",
        help="score views of the games in these arena games.jsonl files or run folders instead "
        "of random play (each game under its own rules; --games and --rules are then unused, "
        "--seed still seeds the bootstraps)",
    )
    parser.add_argument(
        "--pieces-of",
        metavar="LABEL",
        help="with --games-from: score only the views facing the agent of this label (as the "
        "records name it, e.g. ppo:pretrained), in the games it played",
    )
    parser.add_argument("--model-temperatures", type=float, nargs="+", metavar="T")
    parser.add_argument("--model-betas", type=float, nargs="+", metavar="BETA")
    parser.add_argument("--model-weights", nargs="+", metavar="NAME")
    parser.add_argument(
        "--fit-model",
        action="store_true",
        help="fit the model tracker's feature weights by maximum likelihood on the moves of the "
        "--games-from games and write them, instead of scoring the trackers",
    )
    parser.add_argument("--out", default=str(ROOT / "runs" / "beliefs"))
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if args.games < 1 or any(p < 0 for p in args.plies):
        parser.error("--games must be positive and --plies nonnegative")
    grid_given = [args.model_temperatures, args.model_betas, args.model_weights]
    if any(t <= 0 for t in args.model_temperatures or []) or any(
        b < 0 for b in args.model_betas or []
    ):
        parser.error("--model-temperatures must be > 0 and --model-betas >= 0")
    plies = sorted(set(args.plies))
    progress = not args.no_progress

    from tqdm import tqdm

    started = time.perf_counter()
    if args.fit_model and not args.games_from:
        parser.error("--fit-model needs --games-from")
    if args.pieces_of is not None and (not args.games_from or args.fit_model):
        parser.error("--pieces-of needs --games-from and scores trackers (not --fit-model)")
    if args.games_from:
        try:
            records = game_records(args.games_from, "junqi")
            games = [start_and_actions(record) for record in records]
            readers = (reading_seats(records, args.pieces_of)
                       if args.pieces_of is not None else [(0, 1)] * len(games))
        except (OSError, ValueError) as exc:
            parser.error(str(exc))
        if args.fit_model:
            fit = fit_model(games)
            fit["command"] = "python scripts/eval_beliefs.py " + " ".join(
                sys.argv[1:] if argv is None else argv
            )
            print(fit_markdown(fit))
            out = Path(args.out)
            out.mkdir(parents=True, exist_ok=True)
            path = out / f"fit_model_{_label(args.games_from)}.json"
            path.write_text(json.dumps(fit, indent=2) + "\n", encoding="utf-8")
            print(f"\nwrote {path} ({time.perf_counter() - started:.0f} s)")
            return fit
    else:
        games = record_games(args.games, args.seed, args.rules, max(plies), progress)
        readers = [(0, 1)] * len(games)
    scores = {ply: {name: Scores() for name in BELIEFS} for ply in plies}
    going = {ply: 0 for ply in plies}
    views = {ply: 0 for ply in plies}
    timing_views: dict[int, list] = {ply: [] for ply in plies}
    reference_views: dict[int, list] = {ply: [] for ply in plies}
    grid_views: list = []
    for number, (start, actions) in enumerate(
        tqdm(games, desc="scoring views", disable=not progress)
    ):
        if not readers[number]:
            continue
        for ply, state in running_states(start, actions, plies).items():
            going[ply] += 1
            for player in readers[number]:
                views[ply] += 1
                view = state.view(player)
                if len(timing_views[ply]) < args.timing_views:
                    timing_views[ply].append(view)
                if len(reference_views[ply]) < args.ceiling_views:
                    reference_views[ply].append((view, state))
                if any(value is not None for value in grid_given):
                    grid_views.append((ply, view, state))
                for name, cls in BELIEFS.items():
                    scores[ply][name].add(number, cls.from_view(view), state, player)

    bootstrap = np.random.default_rng(args.seed)
    # A stream of its own, so the count-vs-paper intervals stay those of earlier runs.
    model_bootstrap = np.random.default_rng([args.seed, 1])
    results = {
        "command": "python scripts/eval_beliefs.py "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "games": sum(1 for seats in readers if seats),
        "games_from": args.games_from,
        "pieces_of": args.pieces_of,
        "seed": args.seed,
        "rules": args.rules,
        "plies": plies,
        "default_belief": DEFAULT_BELIEF,
        "machine": f"{platform.machine()}, {platform.python_implementation()} "
        f"{platform.python_version()}",
        "by_ply": {},
    }
    for ply in plies:
        if not going[ply]:
            continue
        block = {
            "games": going[ply],
            "views": views[ply],
            "trackers": {name: scores[ply][name].summary() for name in BELIEFS},
            "count_vs_paper": relative_reduction(
                scores[ply]["count"], scores[ply]["paper"], bootstrap
            ),
        }
        if "model" in scores[ply]:
            block["model_vs_count"] = relative_reduction(
                scores[ply]["model"], scores[ply]["count"], model_bootstrap
            )
        if reference_views[ply]:
            block["references"] = reference_losses(
                tqdm(reference_views[ply], desc=f"references at ply {ply}", disable=not progress),
                random.Random(args.seed + ply),
                args.chain_steps,
            )
        block["timing"] = time_trackers(
            timing_views[ply], random.Random(args.seed), args.timing_samples
        )
        results["by_ply"][str(ply)] = block
    if grid_views:
        results["model_grid"] = model_grid(
            grid_views,
            args.model_temperatures or [ModelBelief.temperature],
            args.model_betas or [ModelBelief.beta],
            args.model_weights or [ModelBelief.weights],
            progress,
        )
    results["seconds"] = time.perf_counter() - started

    table = markdown(results, plies)
    print(table)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.games_from:
        reading = ("" if args.pieces_of is None else "_pieces_of_"
                   + "".join(c if c.isalnum() else "-" for c in args.pieces_of))
        path = out / f"eval_games_{_label(args.games_from)}{reading}.json"
    else:
        path = out / f"eval_{args.rules}_g{args.games}_s{args.seed}.json"
    path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {path} ({results['seconds']:.0f} s)")
    return results


if __name__ == "__main__":
    main()
