"""How much stronger a Junqi search plays when its belief is moved toward the truth.

    python scripts/belief_gap.py --agent ismcts:iterations=400 --opponent ppo:pretrained \\
        --pairs 30 --seed 5 --truth 0 0.3 0.6 1 --out runs/belief-gap

An experiment, not an agent: it tells what a better belief would be worth. Before each of the
search's moves its belief (``belief_of``) is replaced by ``belief.toward(truth, share)``: every
living opponent piece's row becomes ``(1 - share) x its row + share x one-hot(its true type)``.
``share = 0`` is the search as it is; ``share = 1`` draws every determinization as the true state
(an oracle). Every share plays the same pairs of games: each pair starts from one pair of random
layouts, the search as player 0 and then as player 1, with the same agent seeds, so the rows
differ by the belief alone. The table gives, per share, W-D-L, the score with its Wilson 95%
interval, and the belief's log-loss on the true types (the mean over the search's moves of the
mean of -log p(true type) over the opponent's living pieces), before and after the move toward
the truth. ``OUT`` gets ``results.json`` and ``belief_gap.png`` (score against log-loss).

    python scripts/belief_gap.py --merge runs/gap-a runs/gap-b --out runs/gap

joins runs of the same agent, opponent, seed and pairs (say, shares split over two processes)
into one table, ``results.json`` and chart, without playing.

    python scripts/belief_gap.py --know flag --truth 0 1 --pairs 30 --seed 1 --out runs/gap-flag

tells what knowing some types alone is worth: at share 1 the search knows where the opponent's
pieces of those types stand (``belief.knowing``) and nothing more; ``--know`` takes shares 0
and 1 only.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.arena.stats import wilson_interval  # noqa: E402
from agents.junqi.mcts.agents import DeterminizedSearchAgent  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from scripts.arena import non_negative_int, positive_int  # noqa: E402
from tbw_envs.core.contract import short_repr  # noqa: E402
from tbw_envs.junqi import JunqiState  # noqa: E402
from tbw_envs.junqi.pieces import PIECE_NAMES, piece_kind  # noqa: E402

RULES = "ccgc"
CHART_NAME = "belief_gap.png"


def log_loss(belief, state) -> float | None:
    """Mean -log p(true type) over the opponent's living pieces (p clipped at 1e-12)."""
    losses = [-math.log(max(float(belief.probs(post)[state.kind[post]]), 1e-12))
              for post in belief.view.opponent_posts()]
    return sum(losses) / len(losses) if losses else None


class TruthShare:
    """Replaces a search agent's belief by one moved toward the true state, and keeps the
    log-loss of both at each move."""

    def __init__(self, agent: DeterminizedSearchAgent, share: float,
                 know: frozenset[int] | None = None):
        self.share = share
        self.know = know  # at share 1, only the pieces of these types are known
        self.state = None  # the true state, set by the game loop before each move
        self.before: list[float] = []
        self.after: list[float] = []
        self._own = agent.belief_of
        agent.belief_of = self.belief_of

    def belief_of(self, view):
        belief = self._own(view)
        state = self.state
        truth = {post: state.kind[post] for post in view.opponent_posts()}
        if self.know is not None and self.share > 0:
            moved = belief.knowing({post: kind for post, kind in truth.items()
                                    if kind in self.know})
        else:
            moved = belief.toward(truth, self.share)
        before, after = log_loss(belief, state), log_loss(moved, state)
        if before is not None:
            self.before.append(before)
            self.after.append(after)
        return moved


def play_pair(agent_spec: str, opponent_spec: str, share: float, seed: int, pair: int,
              know: frozenset[int] | None = None):
    """The pair's two games (the search as player 0, then 1): the search's returns and the
    log-loss lists of its moves."""
    layouts_rng = random.Random(f"{seed}/{pair}")
    start = JunqiState.random_initial(layouts_rng, RULES)
    returns, before, after = [], [], []
    for seat in (0, 1):
        game_seed = (seed * 100_003 + pair) * 2 + seat
        agent = make_agent(agent_spec, seed=game_seed, game="junqi", variant=RULES)
        opponent = make_agent(opponent_spec, seed=game_seed + 1, game="junqi", variant=RULES)
        wrapped = TruthShare(agent, share, know)
        players = {seat: agent, 1 - seat: opponent}
        state = start.clone()
        while not state.is_terminal():
            mover = state.current_player
            wrapped.state = state
            state.apply(players[mover].act(state.view(mover)))
        returns.append(state.returns()[seat])
        before += wrapped.before
        after += wrapped.after
    return returns, before, after


def check_agent(spec: str) -> None:
    agent = make_agent(spec, seed=0, game="junqi", variant=RULES)
    if not isinstance(agent, DeterminizedSearchAgent):
        raise ValueError(f"--agent {short_repr(spec)} is not a Junqi search with a belief "
                         f"(mcts, ucbmcts or ismcts)")


def share_value(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"a share is a number in [0, 1], got {short_repr(text)}")
    return value


def run(agent: str, opponent: str, shares: list[float], pairs: int, seed: int,
        progress: bool = True, know: frozenset[int] | None = None) -> list[dict]:
    from tqdm import tqdm

    rows = []
    bar = tqdm(total=len(shares) * pairs * 2, desc="belief gap", unit="game", disable=not progress)
    for share in shares:
        points, wins, losses, before, after = 0.0, 0, 0, [], []
        for pair in range(pairs):
            returns, pair_before, pair_after = play_pair(agent, opponent, share, seed, pair,
                                                         know)
            for value in returns:
                points += (value + 1.0) / 2.0
                wins += value > 0
                losses += value < 0
            before += pair_before
            after += pair_after
            bar.update(2)
            bar.set_postfix(share=share, score=f"{points / (2 * pair + 2):.2f}")
        games = 2 * pairs
        low, high = wilson_interval(points, games)
        rows.append({"share": share, "games": games, "wins": wins, "draws": games - wins - losses,
                     "losses": losses, "score": points / games, "ci_95": [low, high],
                     "log_loss_belief": sum(before) / len(before) if before else None,
                     "log_loss_used": sum(after) / len(after) if after else None,
                     "moves": len(before)})
    bar.close()
    return rows


def table(rows: list[dict], agent: str, opponent: str, know: list[str] | None = None) -> str:
    moved = ("its belief moved toward the truth" if know is None
             else f"at share 1 knowing its opponent's {', '.join(know)} alone")
    lines = [f"{agent} against {opponent}, {moved}",
             "| share of the truth | W-D-L | score | Wilson 95% | log-loss of its belief | "
             "log-loss used | moves |", "|---:|---|---:|---|---:|---:|---:|"]
    for row in rows:
        low, high = row["ci_95"]
        lines.append(f"| {row['share']:g} | {row['wins']}-{row['draws']}-{row['losses']} | "
                     f"{row['score']:.3f} | [{low:.3f}, {high:.3f}] | "
                     f"{row['log_loss_belief']:.3f} | {row['log_loss_used']:.3f} | "
                     f"{row['moves']} |")
    return "\n".join(lines)


def plot(rows: list[dict], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    x = [row["log_loss_used"] for row in rows]
    y = [row["score"] for row in rows]
    errors = [[row["score"] - row["ci_95"][0] for row in rows],
              [row["ci_95"][1] - row["score"] for row in rows]]
    ax.errorbar(x, y, yerr=errors, fmt="o-", capsize=4)
    for row in rows:
        ax.annotate(f"share {row['share']:g}", (row["log_loss_used"], row["score"]),
                    textcoords="offset points", xytext=(6, 6))
    ax.set_xlabel("log-loss of the belief used (nats a piece)")
    ax.set_ylabel("score (Wilson 95%)")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def piece_type(text: str) -> int:
    try:
        return piece_kind(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def merged_rows(folders: list[str]) -> tuple[dict, list[dict]]:
    """The rows of several runs' ``results.json``, by share; ValueError unless they played the
    same agent, opponent, seed, pairs and known types with different shares."""
    first, rows = None, []
    for folder in folders:
        path = Path(folder) / "results.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            setting = {key: data[key] for key in ("agent", "opponent", "seed", "pairs")}
            setting["know"] = data.get("know")  # runs before --know have none
            found = data["rows"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"--merge: cannot read {path}: {exc}") from exc
        if first is None:
            first = setting
        elif setting != first:
            raise ValueError(f"--merge: {path} played {setting}, not {first}")
        rows += found
    shares = [row["share"] for row in rows]
    if len(set(shares)) != len(shares):
        raise ValueError(f"--merge: a share was played twice ({sorted(shares)})")
    return first, sorted(rows, key=lambda row: row["share"])


def write_outputs(out: Path, command: str, setting: dict, rows: list[dict]) -> None:
    (out / "results.json").write_text(json.dumps(
        {"command": command, **setting, "rows": rows}, indent=2) + "\n", encoding="utf-8")
    try:
        plot(rows, out / CHART_NAME, f"{setting['agent']} v {setting['opponent']}")
        print(f"results and chart written to {out}/")
    except ImportError:
        print(f"results written to {out}/ (no chart: matplotlib is not installed)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="ismcts:iterations=400",
                        help="the search whose belief is moved (default ismcts:iterations=400)")
    parser.add_argument("--opponent", default="ppo:pretrained",
                        help="its opponent (default ppo:pretrained)")
    parser.add_argument("--truth", type=share_value, nargs="+", default=[0.0, 1.0],
                        metavar="SHARE", help="shares of the truth, each in [0, 1] "
                                              "(default 0 1)")
    parser.add_argument("--pairs", type=positive_int, default=30,
                        help="pairs of seat-swapped games per share (default 30)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed (default 0)")
    parser.add_argument("--out", default=None, help="folder for results.json and the chart")
    parser.add_argument("--know", type=piece_type, nargs="+", metavar="TYPE", default=None,
                        help="at share 1 know only the pieces of these types (names or codes: "
                             "flag, marshal, MA...); shares 0 and 1 only")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--merge", nargs="+", metavar="RUN", default=None,
                        help="join these runs' results.json into --out instead of playing")
    args = parser.parse_args(argv)
    command = "python scripts/belief_gap.py " + " ".join(sys.argv[1:] if argv is None else argv)
    if args.out is not None and Path(args.out).exists() and not Path(args.out).is_dir():
        parser.error(f"--out {short_repr(args.out)} is a file; give a folder")
    if args.know is not None and any(share not in (0.0, 1.0) for share in args.truth):
        parser.error("--know takes the shares 0 and 1 only (--truth 0 1)")
    know = None if args.know is None else frozenset(args.know)
    if args.merge is not None:
        if args.out is None:
            parser.error("--merge needs --out")
        try:
            setting, rows = merged_rows(args.merge)
        except ValueError as exc:
            parser.error(str(exc))
        print(table(rows, setting["agent"], setting["opponent"], setting["know"]))
        Path(args.out).mkdir(parents=True, exist_ok=True)
        write_outputs(Path(args.out), command, setting, rows)
        return 0
    try:
        check_agent(args.agent)
        make_agent(args.opponent, seed=0, game="junqi", variant=RULES)
    except ValueError as exc:
        parser.error(str(exc))
    out = None if args.out is None else Path(args.out)
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            parser.error(f"--out: cannot make the folder {short_repr(args.out)}: {exc}")
    try:
        import torch

        torch.set_num_threads(1)  # a learned opponent plays one position at a time
    except ImportError:
        pass
    rows = run(args.agent, args.opponent, args.truth, args.pairs, args.seed,
               progress=not args.no_progress, know=know)
    known_names = None if know is None else sorted(PIECE_NAMES[k] for k in know)
    print(table(rows, args.agent, args.opponent, known_names))
    if out is not None:
        setting = {"agent": args.agent, "opponent": args.opponent, "seed": args.seed,
                   "pairs": args.pairs, "know": known_names}
        write_outputs(out, command, setting, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
