"""How much stronger a Junqi search plays when its belief is moved toward the truth.

    python scripts/research/belief_gap.py --agent ismcts:iterations=400 \\
        --opponent ppo:pretrained --pairs 30 --seed 5 --truth 0 0.3 0.6 1 --out runs/belief-gap

Before each of the search's moves its belief is moved toward the true types by a share of the
truth (0: the search as it is, 1: an oracle); every share plays the same seat-swapped pairs of
games (``agents.junqi.mcts.belief_gap`` says how). The table gives, per share, W-D-L, the score
with its Wilson 95% interval, and the belief's log-loss on the true types before and after the
move toward the truth. ``OUT`` gets ``results.json`` and ``belief_gap.png`` (score against
log-loss).

    python scripts/research/belief_gap.py --merge runs/gap-a runs/gap-b --out runs/gap

joins runs of the same agent, opponent, seed and pairs (say, shares split over two processes)
into one table, ``results.json`` and chart, without playing.

    python scripts/research/belief_gap.py --know flag --truth 0 1 --pairs 30 --seed 1 \\
        --out runs/gap-flag

tells what knowing some types alone is worth: at share 1 the search knows where the opponent's
pieces of those types stand (``belief.knowing``) and nothing more; ``--know`` takes shares 0
and 1 only.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from agents.arena.stats import wilson_interval
from agents.cli.common import non_negative_int, positive_int
from agents.junqi.mcts.belief_gap import RULES, is_belief_search, merged_rows, plot, run, table
from agents.registry import make_agent
from tbw_envs.core.contract import short_repr
from tbw_envs.junqi.pieces import PIECE_NAMES, piece_kind

CHART_NAME = "belief_gap.png"
COMMAND = "python scripts/research/belief_gap.py "


def share_value(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"a share is a number in [0, 1], got {short_repr(text)}")
    return value


def piece_type(text: str) -> int:
    try:
        return piece_kind(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def agent_factory(spec: str):
    """Builds the agent of ``spec`` from a seed, for Junqi under ``RULES``."""
    return lambda seed: make_agent(spec, seed=seed, game="junqi", variant=RULES)


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
    command = COMMAND + " ".join(sys.argv[1:] if argv is None else argv)
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
    make_search, make_opponent = agent_factory(args.agent), agent_factory(args.opponent)
    try:
        if not is_belief_search(make_search(0)):
            raise ValueError(f"--agent {short_repr(args.agent)} is not a Junqi search with a "
                             f"belief (mcts, ucbmcts or ismcts)")
        make_opponent(0)
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
    rows = run(make_search, make_opponent, args.truth, args.pairs, args.seed, wilson_interval,
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
