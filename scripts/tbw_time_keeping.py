"""Time keeping of the TBW turn planners: how long each turn takes against its budget, and how
often the single-turn search is cut short.

    python scripts/tbw_time_keeping.py --scenario battle_10v10_16x16 \\
        --agents tree:seconds=1 exact:budget=1.0 oep:seconds=1 --games 2 --opening-plies 6

Every pair of agents plays ``--games`` games (seats alternating; both games of a pair start
from the same random opening of ``--opening-plies`` plies, ``agents.arena.random_opening``).
A *turn* is all of one side's unit actions; its time is the sum of the agent's ``act`` calls in
it (the first call plans the whole turn). Per agent the table gives the turns, the mean and
longest turn, how many turns went over ``--budget`` seconds, and how often the single-turn
search was cut short:

* ``exact`` / ``alg5`` / ``alg2`` (``TBWSearchAgent``): the turn's search did not finish
  (``SearchResult.complete`` is False; the agent plays the best plan found so far);
* ``tree``: the root's single-turn solve did not finish (``TreeResult.root_complete`` False;
  the tree then plays that solve's best plan so far and searches no deeper); the table also
  counts the turns whose tree search reached depth 2 or more (it looked at the opponent's
  reply);
* ``oep``: the evolution stopped on the clock (``OEPResult.stopped == "time"``) rather than by
  converging.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.arena import random_opening  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from tbw_envs.tbw import TBWState, load_scenario  # noqa: E402


def cut_short(result) -> bool | None:
    """Whether the turn's single-turn search (or evolution) was stopped by its budget."""
    if result is None:
        return None
    if hasattr(result, "root_complete"):
        return not result.root_complete
    if hasattr(result, "complete"):
        return not result.complete
    if hasattr(result, "stopped"):
        return result.stopped == "time"
    return None


def play(scenario: str, specs: tuple[str, str], seed: int, opening_plies: int, stats: dict):
    state = TBWState.initial(load_scenario(scenario))
    random_opening(state, opening_plies, seed)
    agents = [make_agent(spec, seed=seed + k, game="tbw") for k, spec in enumerate(specs)]
    for k, agent in enumerate(agents):
        agent.reset(seed + k)
    while not state.is_terminal():
        side, spent, first = state.current_player, 0.0, None
        while not state.is_terminal() and state.current_player == side:
            started = time.perf_counter()
            action = agents[side].act(state.clone())
            spent += time.perf_counter() - started
            if first is None:
                first = getattr(agents[side], "last_result", None)
            state.apply(action)
        row = stats.setdefault(specs[side], {"turns": [], "cut": 0, "deep": 0})
        row["turns"].append(spent)
        row["cut"] += bool(cut_short(first))
        row["deep"] += getattr(first, "depth", 0) >= 2
    return state.winner


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
    stats: dict = {}
    started = time.perf_counter()
    for a, b in combinations(args.agents, 2):
        for g in range(args.games):
            seats = (a, b) if g % 2 == 0 else (b, a)
            # both seatings of a pair start from the same opening, as in the arena
            winner = play(args.scenario, seats, args.seed + g // 2, args.opening_plies, stats)
            print(f"  {seats[0]} v {seats[1]}: winner {winner} "
                  f"({time.perf_counter() - started:.0f} s)", flush=True)
    print(f"\n| agent | turns | mean turn | longest turn | turns over {args.budget:g} s "
          "| search cut short | tree turns at depth >= 2 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for spec in args.agents:
        row = stats.get(spec, {"turns": [], "cut": 0, "deep": 0})
        turns = row["turns"]
        if not turns:
            continue
        over = sum(t > args.budget for t in turns)
        deep = str(row["deep"]) if spec.startswith("tree") else "-"
        print(f"| `{spec}` | {len(turns)} | {1000 * sum(turns) / len(turns):.0f} ms "
              f"| {1000 * max(turns):.0f} ms | {over} | {row['cut']} | {deep} |")
    print(f"load {os.getloadavg()[0]:.1f} at the end; {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
