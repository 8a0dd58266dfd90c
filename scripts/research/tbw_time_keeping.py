"""Time keeping of the TBW turn planners: how long each turn takes against its budget, and how
often the single-turn search is cut short.

    python scripts/research/tbw_time_keeping.py --scenario battle_10v10_16x16 \\
        --agents tree:seconds=1 exact:budget=1.0 oep:seconds=1 --games 2 --opening-plies 6

Every pair of agents plays ``--games`` games (seats alternating; both games of a pair start
from the same random opening of ``--opening-plies`` plies, ``agents.arena.random_opening``).
Per agent the table gives the turns, the mean and longest turn, how many turns went over
``--budget`` seconds, how often the single-turn search was cut short, and for ``tree`` the
turns whose search reached depth 2 or more (it looked at the opponent's reply);
``agents.tbw.time_keeping`` says how each planner's result is read.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from itertools import combinations

from agents.arena import random_opening
from agents.registry import make_agent
from agents.tbw.time_keeping import TurnTimes, play_timed, time_keeping_table
from tbw_envs.tbw import TBWState, load_scenario


def play(scenario: str, specs: tuple[str, str], seed: int, opening_plies: int,
         stats: dict[str, TurnTimes]) -> int | None:
    """One game of ``specs`` (by seat) from the random opening of ``seed``; the winner."""
    state = TBWState.initial(load_scenario(scenario))
    random_opening(state, opening_plies, seed)
    agents = [make_agent(spec, seed=seed + k, game="tbw") for k, spec in enumerate(specs)]
    for k, agent in enumerate(agents):
        agent.reset(seed + k)
    return play_timed(state, agents, specs, stats)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="battle_10v10_16x16")
    parser.add_argument("--agents", nargs="+",
                        default=["tree:seconds=1", "exact:budget=1.0", "oep:seconds=1"])
    parser.add_argument("--games", type=int, default=2, help="games per pair of agents")
    parser.add_argument("--opening-plies", type=int, default=6)
    parser.add_argument("--budget", type=float, default=1.0, help="seconds a turn may take")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.games < 1 or args.opening_plies < 0 or len(args.agents) < 2:
        parser.error("--games >= 1, --opening-plies >= 0 and at least two agents")
    for spec in args.agents:
        make_agent(spec, game="tbw")  # a clear error now for a bad spec
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus, "
          f"load {os.getloadavg()[0]:.1f}; {args.scenario}, {args.games} game(s) per pair")
    stats: dict[str, TurnTimes] = {}
    started = time.perf_counter()
    for a, b in combinations(args.agents, 2):
        for g in range(args.games):
            seats = (a, b) if g % 2 == 0 else (b, a)
            # both seatings of a pair start from the same opening, as in the arena
            winner = play(args.scenario, seats, args.seed + g // 2, args.opening_plies, stats)
            print(f"  {seats[0]} v {seats[1]}: winner {winner} "
                  f"({time.perf_counter() - started:.0f} s)", flush=True)
    print()
    print("\n".join(time_keeping_table(stats, args.agents, args.budget)))
    print(f"load {os.getloadavg()[0]:.1f} at the end; {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
