"""How well each Junqi belief tracker predicts the opponent's hidden piece types.

``score_trackers`` scores every tracker of ``agents.junqi.belief`` (``BELIEFS``) on the views of
games (``(starting state, actions)`` pairs: ``random_play_games``, or recorded arena games), at
each ply count of ``plies`` (only games still going after that many plies), from the views of
the seats ``readers`` names per game (``reading_seats``: only the views facing one agent):

- log-loss: mean of -log p(true type) over the opponent's living pieces (p clipped at
  ``CLIP``), pooled over all (view, piece) pairs; also split into the pieces standing on a
  headquarters and the rest;
- flag top-1: the living opponent piece with the highest P(flag) is the flag (ties go to the
  lowest post number);
- marshal top-1: the same for the marshal, over the views where the opponent's marshal lives;
- build and sample time (``time_trackers``): ``from_view``, ``sample_tokens`` and
  ``sample_state`` on the first ``timing_views`` views of each ply count. The ``model`` tracker
  caches the scores of the opponent's past plies per game: its ``from_view`` is timed with an
  empty cache (every past ply scored), and again with the game already cached (what an agent
  that rebuilds its belief every move pays, besides scoring the one new opponent ply).

The log-loss reductions of count vs paper and of model vs count come with a 95% interval from a
bootstrap over games (``relative_reduction``: the trackers are scored on the same views, so
games are resampled whole). ``model_grid`` scores the ``model`` tracker at every combination of
its constants on the same views (how they are fitted, on games disjoint from the ones it is
judged on), and ``agents.junqi.belief.references`` gives the ceilings. ``results_markdown``
writes the tables; ``scripts/research/eval_beliefs.py`` is the command line.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

import numpy as np

from agents.junqi.belief import BELIEFS, CountBelief, ModelBelief, clear_cache
from agents.junqi.belief.references import clipped_loss, reference_losses
from tbw_envs.junqi import HEADQUARTERS, JunqiState, random_layout
from tbw_envs.junqi.board import NUM_POSTS
from tbw_envs.junqi.pieces import FLAG, MARSHAL

BOOTSTRAP_DRAWS = 2000


def random_play_games(count: int, seed: int, rules: str, longest: int,
                      progress: bool = False) -> list[tuple[JunqiState, list[int]]]:
    """``count`` games of uniform random play from uniformly random layouts, each kept up to
    ``longest`` plies (or its end): ``(starting state, actions)`` pairs."""
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


def reading_seats(records: Sequence[dict], label: str) -> list[tuple[int, ...]]:
    """For each arena record, the seats whose views read the pieces of the agent labelled
    ``label``: the other seat in a game it played, none in the rest. Raises ``ValueError`` if it
    played none of them."""
    seats = [tuple(1 - seat for seat in (0, 1) if record["agents"][seat] == label)
             for record in records]
    if not any(seats):
        raise ValueError(f"no Junqi game of these records was played by an agent labelled "
                         f"{label!r}")
    return seats


def running_states(start: JunqiState, actions: Sequence[int],
                   plies: Sequence[int]) -> dict[int, JunqiState]:
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


class TrackerScores:
    """Running sums for one tracker at one ply count, kept per game for a paired bootstrap."""

    def __init__(self) -> None:
        self.loss_by_game: dict[int, list[float]] = {}
        self.headquarters_losses: list[float] = []
        self.other_losses: list[float] = []
        self.flag_hits = self.flag_views = 0
        self.marshal_hits = self.marshal_views = 0

    def add(self, game: int, belief, state: JunqiState, player: int) -> None:
        """Score ``belief`` (of ``player``'s view in game number ``game``) on ``state``'s true
        types of the opponent's living pieces."""
        matrix = belief.matrix()
        opponent = 1 - player
        posts = [post for post in range(NUM_POSTS) if state.owner[post] == opponent]
        losses = self.loss_by_game.setdefault(game, [])
        for post in posts:
            loss = clipped_loss(matrix[post, state.kind[post]])
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


def relative_reduction(better: TrackerScores, worse: TrackerScores,
                       rand: np.random.Generator) -> dict:
    """1 - loss(better) / loss(worse), with a 95% interval from a bootstrap over games (both
    trackers scored on the same views, so the games are resampled together)."""
    games = sorted(worse.loss_by_game)
    sums = np.array([[sum(better.loss_by_game[g]), sum(worse.loss_by_game[g])] for g in games])
    point = 1.0 - sums[:, 0].sum() / sums[:, 1].sum()
    draws = rand.integers(0, len(games), size=(BOOTSTRAP_DRAWS, len(games)))
    ratios = 1.0 - sums[draws, 0].sum(axis=1) / sums[draws, 1].sum(axis=1)
    low, high = np.percentile(ratios, [2.5, 97.5])
    return {"reduction": float(point), "ci95": [float(low), float(high)]}


def model_grid(views_and_states, temperatures, betas, weights, progress: bool = False) -> dict:
    """Log-loss of the ``model`` tracker at every (T, beta, weights) on the same
    ``(ply, view, true state)`` triples: per ply count and pooled over them, and the
    combination with the lowest pooled log-loss."""
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
            loss = sum(clipped_loss(table[t, kind]) for t, kind in living)
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


def time_trackers(views: list, rand: random.Random, samples: int) -> dict:
    """Mean wall time of every tracker's ``from_view`` (and, for ``model``, again with the game
    cached), ``sample_tokens`` and ``sample_state`` over ``views`` (``samples`` draws a view)."""
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


def score_trackers(games: Sequence, readers: Sequence[tuple[int, ...]], plies: Sequence[int], *,
                   seed: int = 0, timing_views: int = 20, timing_samples: int = 200,
                   ceiling_views: int = 0, chain_steps: int = 60_000,
                   model_temperatures=None, model_betas=None, model_weights=None,
                   progress: bool = False) -> dict:
    """Every tracker scored on the views of ``games`` (``(starting state, actions)`` pairs) at
    each ply count of ``plies`` (sorted, distinct), from the seats ``readers[game]`` of each game
    (none: the game is skipped): ``{"by_ply": {ply: block}}``, and ``"model_grid"`` when any of
    ``model_temperatures``, ``model_betas``, ``model_weights`` is given (the others at the
    tracker's own). A block holds the games still going and their views, each tracker's
    ``TrackerScores.summary``, the count-vs-paper and model-vs-count reductions (bootstraps
    seeded by ``seed``), with ``ceiling_views`` the references of the first that many views
    (``reference_losses``, chains of ``chain_steps``), and the timings of the first
    ``timing_views`` views. A ply count no game reached has no block."""
    from tqdm import tqdm

    scores = {ply: {name: TrackerScores() for name in BELIEFS} for ply in plies}
    going = {ply: 0 for ply in plies}
    views = {ply: 0 for ply in plies}
    timed_views: dict[int, list] = {ply: [] for ply in plies}
    reference_views: dict[int, list] = {ply: [] for ply in plies}
    grid_views: list = []
    grid_given = [model_temperatures, model_betas, model_weights]
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
                if len(timed_views[ply]) < timing_views:
                    timed_views[ply].append(view)
                if len(reference_views[ply]) < ceiling_views:
                    reference_views[ply].append((view, state))
                if any(value is not None for value in grid_given):
                    grid_views.append((ply, view, state))
                for name, cls in BELIEFS.items():
                    scores[ply][name].add(number, cls.from_view(view), state, player)

    bootstrap = np.random.default_rng(seed)
    # A stream of its own, so the count-vs-paper intervals stay those of earlier runs.
    model_bootstrap = np.random.default_rng([seed, 1])
    results: dict = {"by_ply": {}}
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
                random.Random(seed + ply),
                chain_steps,
            )
        block["timing"] = time_trackers(timed_views[ply], random.Random(seed), timing_samples)
        results["by_ply"][str(ply)] = block
    if grid_views:
        results["model_grid"] = model_grid(
            grid_views,
            model_temperatures or [ModelBelief.temperature],
            model_betas or [ModelBelief.beta],
            model_weights or [ModelBelief.weights],
            progress,
        )
    return results


def results_markdown(results: dict, plies: Sequence[int]) -> str:
    """The tables of ``score_trackers``' results: the trackers by ply count, the reductions
    with their intervals, the references and timings where measured, and the model grid."""
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
