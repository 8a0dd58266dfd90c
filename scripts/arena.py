"""Pit two agents against each other and print a results table (the README's main job).

    python scripts/arena.py                                  # greedy v random on duel_5v5_8x8
    python scripts/arena.py --agents search:algorithm=exact greedy --games 20
    python scripts/arena.py --scenario hex_skirmish --games 50 --no-render
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.arena import run_match, tbw_game  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from tbw_envs.tbw.render import render_ansi  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=["tbw"], default="tbw")
    parser.add_argument("--scenario", default="duel_5v5_8x8",
                        help="bundled scenario name or YAML path (TBW)")
    parser.add_argument("--agents", nargs=2, default=["greedy", "random"], metavar="AGENT",
                        help="two agent specs, e.g. greedy random, search:algorithm=exact")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-render", action="store_true", help="skip the final board")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    try:
        new_state = tbw_game(args.scenario)
        agent_a = make_agent(args.agents[0], seed=args.seed)
        agent_b = make_agent(args.agents[1], seed=args.seed + 1)
    except ValueError as exc:
        parser.error(str(exc))
    result = run_match(new_state, agent_a, agent_b, args.games, seed=args.seed, progress=True)
    print()
    print(f"{args.game}: {args.scenario}, {args.games} games, seats alternating")
    print(result.table())
    if not args.no_render:
        last = result.games[-1]
        print(f"\nfinal board of the last game ({last.seats[0]} as side 0, "
              f"{last.seats[1]} as side 1):")
        print(render_ansi(last.final_state))
    return 0


if __name__ == "__main__":
    sys.exit(main())
