"""Benchmark OEP's turn planning: generations and evaluations in a time budget, against the exact
optimum of the same evaluation.

    python scripts/bench/bench_oep.py                       # 8 states per scenario, 1 s a turn
    python scripts/bench/bench_oep.py --states 3 --seconds 0.25 --scenarios duel_5v5_8x8

The states are the scenario after 0-40 random plies (seeded), skipping finished games. For each,
``evolve_turn(state, seconds=S)`` runs once and ``plan_turn(state, "exact")`` (no budget) gives
the optimum of the same evaluation. Time budgets buy fewer generations on a loaded machine: the
script prints the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics

from agents.arena import random_opening
from agents.tbw.oep import evolve_turn
from agents.tbw.search import plan_turn
from tbw_envs.tbw import TBWState, load_scenario

SCENARIOS = ["duel_5v5_8x8", "hex_skirmish", "fire_emblem_5v5", "battle_10v10_16x16"]


def random_state(name: str, rng: random.Random, max_plies: int = 40):
    """The scenario after 0-``max_plies`` random plies (the arena's openings); never finished."""
    while True:
        state = TBWState.initial(load_scenario(name))
        random_opening(state, rng.randrange(max_plies + 1), rng.randrange(2**31))
        if not state.is_terminal():
            return state


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", nargs="+", default=SCENARIOS)
    parser.add_argument("--states", type=int, default=8, help="random states per scenario")
    parser.add_argument("--seconds", type=float, default=1.0, help="OEP budget per turn")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"{os.cpu_count()} cpus, load {os.getloadavg()[0]:.1f}; OEP seconds={args.seconds}")
    print("| scenario | generations (median) | evaluations (median) | ms per evaluation "
          "| longest turn | stopped | reached the exact value |")
    print("|---|---:|---:|---:|---:|---|---:|")
    for name in args.scenarios:
        rng = random.Random(f"{args.seed}-{name}")
        results, reached = [], 0
        for _ in range(args.states):
            state = random_state(name, rng)
            result = evolve_turn(state, seconds=args.seconds, rng=random.Random(rng.random()))
            exact = plan_turn(state, "exact", budget=1_000_000)
            reached += result.value >= exact.value - 1e-6 * max(1.0, abs(exact.value))
            results.append(result)
        stopped: dict[str, int] = {}
        for r in results:
            stopped[r.stopped] = stopped.get(r.stopped, 0) + 1
        per_eval = statistics.median(
            1000 * r.seconds / max(1, r.evaluations) for r in results)
        print(f"| `{name}` | {statistics.median(r.generations for r in results):.0f} "
              f"| {statistics.median(r.evaluations for r in results):.0f} | {per_eval:.2f} "
              f"| {max(r.seconds for r in results):.3f} s "
              f"| {', '.join(f'{k} {v}' for k, v in sorted(stopped.items()))} "
              f"| {reached}/{len(results)} |")
    print(f"load {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
