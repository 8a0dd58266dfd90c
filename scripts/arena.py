"""Round-robin arena: measure agent strength in paired games (the README's main job).

    python scripts/arena.py                          # TBW round robin, then the Junqi one
    python scripts/arena.py --agents exact alg5:budget=200000 greedy --games 40
    python scripts/arena.py --scenario hex_skirmish --agents greedy random --games 50 --no-render
    python scripts/arena.py --game junqi --agents random random --games 100 --workers 2
    python scripts/arena.py --game tbw --agents exact greedy random --ray auto   # a Ray cluster

Every pair of agents plays --games paired games (both seat assignments from the same start);
games run in --workers processes (or as Ray tasks with --ray) and every seed depends on the
game alone. Tables: wins, draws and losses by seat with Wilson intervals, Bradley-Terry ratings
(Elo scale) with bootstrap intervals, how games ended, time per move. Files (results.json,
games.csv, pairings.csv, ratings.csv, arena.png, games.jsonl for scripts/replay.py) go to --out.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agents.arena import (  # noqa: E402
    check_game,
    check_ray_address,
    default_variant,
    import_ray,
    run_round_robin,
)
from agents.arena import replay_record as replay_final_state  # noqa: E402
from agents.registry import make_agent  # noqa: E402

DEFAULT_TBW_AGENTS = ["exact", "greedy", "random"]
DEFAULT_TBW_GAMES = 100
# The Junqi agents of the no-argument run: the paper's search with the Q-learned weights and enough
# iterations to beat the evaluation's one-ply choice (docs/results.md), that greedy choice with the
# paper's weights, and the random floor. DEFAULT_JUNQI_GAMES keeps the whole no-argument run under
# 5 minutes on 2 cores.
DEFAULT_JUNQI_AGENTS = ["ucbmcts:iterations=400,weights=tuned", "greedy", "random"]
DEFAULT_JUNQI_GAMES = 20


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Without --game: TBW when --scenario or --agents is given, Junqi when only "
               "--rules is, both (TBW first) when none is.",
    )
    parser.add_argument("--game", choices=["tbw", "junqi"], default=None)
    parser.add_argument("--scenario", default=None,
                        help="TBW: bundled scenario name or YAML path (default duel_5v5_8x8)")
    parser.add_argument("--rules", default=None,
                        help="Junqi: rule set name or YAML path (default ccgc)")
    parser.add_argument("--agents", nargs="+", default=None, metavar="AGENT",
                        help="agent specs; every pair plays (one spec plays itself), e.g. exact "
                             "greedy random alg5:budget=100000 (default: "
                             f"{' '.join(DEFAULT_TBW_AGENTS)} for TBW, "
                             f"{' '.join(DEFAULT_JUNQI_AGENTS)} for Junqi)")
    parser.add_argument("--games", type=positive_int, default=None,
                        help="games per pairing, rounded up to even (default "
                             f"{DEFAULT_TBW_GAMES} TBW, {DEFAULT_JUNQI_GAMES} Junqi)")
    parser.add_argument("--seed", type=int, default=0, help="base seed of every game")
    parser.add_argument("--opening-plies", type=non_negative_int, default=0, metavar="N",
                        help="start every game with N random plies, the same for both games "
                             "of a pair (TBW: deterministic agents on a fixed scenario "
                             "otherwise replay one game per seating)")
    parser.add_argument("--workers", type=positive_int, default=None,
                        help="processes playing games (default: all cores); 1 plays in this "
                             "process; with --ray, games in flight at once (default: all the "
                             "cluster's CPUs); results do not depend on it")
    parser.add_argument("--ray", type=ray_address, default=None, metavar="ADDRESS",
                        help="play each game as a Ray task: 'local' starts Ray on this "
                             "machine, 'auto' joins the cluster 'ray start' set up here, "
                             "ray://head:10001 connects through Ray Client; same results as "
                             "without (needs ray: pip install -e \".[rllib]\")")
    parser.add_argument("--out", default=None,
                        help="output folder (default runs/arena-<game>-<YYYYmmdd-HHMMSS>/; "
                             "with both games, DIR/tbw and DIR/junqi)")
    parser.add_argument("--no-render", action="store_true",
                        help="skip the final board of the last game")
    return parser


def ray_address(text: str) -> str:
    try:
        return check_ray_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def games_to_run(args: argparse.Namespace) -> list[str]:
    if args.game:
        return [args.game]
    if args.rules is not None and args.scenario is None:
        return ["junqi"]
    if args.scenario is not None or args.agents is not None:
        return ["tbw"] + (["junqi"] if args.rules is not None else [])
    return ["tbw", "junqi"]


def plan(args: argparse.Namespace, parser: argparse.ArgumentParser) -> list[dict]:
    """One entry per game to run, every input checked up front (argparse errors, not
    tracebacks from a worker process)."""
    if args.ray is not None:
        try:
            import_ray()
        except ImportError as exc:
            parser.error(f"--ray: {exc}")
    runs = []
    stamp = time.strftime("%Y%m%d-%H%M%S")
    games = games_to_run(args)
    for game in games:
        variant = (args.scenario if game == "tbw" else args.rules) or default_variant(game)
        specs = args.agents or (DEFAULT_TBW_AGENTS if game == "tbw" else DEFAULT_JUNQI_AGENTS)
        try:
            check_game(game, variant)
            for spec in specs:
                make_agent(spec, seed=0, game=game)
        except ValueError as exc:
            parser.error(f"{game}: {exc}")
        count = args.games or (DEFAULT_TBW_GAMES if game == "tbw" else DEFAULT_JUNQI_GAMES)
        if args.out is None:
            out = ROOT / "runs" / f"arena-{game}-{stamp}"
        else:
            out = Path(args.out) / game if len(games) > 1 else Path(args.out)
        runs.append({"game": game, "variant": variant, "specs": list(specs), "games": count,
                     "out": out})
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    command = shlex.join(["python", "scripts/arena.py", *argv])
    for index, run in enumerate(plan(args, parser)):
        if index:
            print("\n" + "=" * 100 + "\n")
        if run["games"] % 2:
            print(f"note: {run['games']} games per pairing rounded up to {run['games'] + 1} "
                  f"(paired games)")
        result = run_round_robin(run["game"], run["specs"], run["games"], seed=args.seed,
                                 workers=args.workers, variant=run["variant"], progress=True,
                                 opening_plies=args.opening_plies, ray_address=args.ray)
        print()
        print(result.tables())
        paths = result.write(run["out"], command=command)
        if not args.no_render:
            last = result.games[-1]
            print(f"\nfinal board of the last game ({last.labels[0]} as player 0, "
                  f"{last.labels[1]} as player 1; {last.end_reason}):")
            state = replay_final_state(last.to_record())
            if run["game"] == "tbw":
                from tbw_envs.tbw.render import render_ansi
            else:
                from tbw_envs.junqi.render import render_ansi
            print(render_ansi(state).rstrip())
        print(f"\nresults: {paths['results.json'].parent}/ "
              f"({', '.join(sorted(path.name for path in paths.values()))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
