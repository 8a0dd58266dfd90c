"""Pit two agents against each other and print a results table (the README's main job).

    python scripts/arena.py                              # exact search v greedy, duel_5v5_8x8
    python scripts/arena.py --agents alg5:budget=200000 random --games 10
    python scripts/arena.py --scenario hex_skirmish --games 50 --no-render
    python scripts/arena.py --game junqi --agents random random --games 100
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.arena import junqi_game, run_match, tbw_game  # noqa: E402
from agents.registry import make_agent  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=["tbw", "junqi"], default="tbw")
    parser.add_argument("--scenario", default="duel_5v5_8x8",
                        help="TBW: bundled scenario name or YAML path")
    parser.add_argument("--rules", default="ccgc", help="Junqi: rule set name or YAML path")
    parser.add_argument("--agents", nargs=2, default=None, metavar="AGENT",
                        help="two agent specs (default: exact greedy for TBW, random random for "
                             "Junqi); e.g. greedy, random, exact, alg5:budget=100000")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-render", action="store_true", help="skip the final board")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    specs = args.agents or (["exact", "greedy"] if args.game == "tbw" else ["random", "random"])
    try:
        if args.game == "tbw":
            new_state, label = tbw_game(args.scenario), args.scenario
        else:
            new_state, label = junqi_game(args.rules), f"rules {args.rules}"
        agent_a = make_agent(specs[0], seed=args.seed, game=args.game)
        agent_b = make_agent(specs[1], seed=args.seed + 1, game=args.game)
    except ValueError as exc:
        parser.error(str(exc))
    result = run_match(new_state, agent_a, agent_b, args.games, seed=args.seed, progress=True)
    print()
    print(f"{args.game}: {label}, {args.games} games, seats alternating")
    print(result.table())
    if not args.no_render:
        last = result.games[-1]
        print(f"\nfinal board of the last game ({last.seats[0]} as player 0, "
              f"{last.seats[1]} as player 1):")
        if args.game == "tbw":
            from tbw_envs.tbw.render import render_ansi
        else:
            from tbw_envs.junqi.render import render_ansi
        print(render_ansi(last.final_state))
    return 0


if __name__ == "__main__":
    sys.exit(main())
