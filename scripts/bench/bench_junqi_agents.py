"""Search speed of the Junqi MCTS agents: iterations per second on one core.

    python scripts/bench/bench_junqi_agents.py [--positions 20] [--iterations 300] \\
        [--profile [AGENT]]

Each agent searches the same positions (mid-game views from seeded random games, plies 20-120)
with an iteration budget; the rate counts the whole move (belief built, determinizations drawn,
tree searched). Also times a belief build and one determinization per tracker.

``--profile`` (default agent: ismcts) then runs that agent once more under cProfile and prints
where its moves' time goes, by component (``PROFILE_GROUPS``): each function's own time goes to
the component whose code it is; built-ins, library calls (``max``, ``sorted``, ``random``) and
comprehensions go to the component of their callers, in proportion to the time each caller
spent in them. cProfile adds a fixed cost to every call, so call-heavy components look somewhat
larger than they are.
"""

from __future__ import annotations

import argparse
import cProfile
import platform
import pstats
import random
import sys
import time
from pathlib import Path

from agents.junqi import ISMCTSAgent, MCTSAgent, UCBMCTSAgent
from agents.junqi.belief import BELIEFS
from tbw_envs.junqi import JunqiState

AGENTS = {"mcts": MCTSAgent, "ucbmcts": UCBMCTSAgent, "ismcts": ISMCTSAgent}

MOVE_GENERATION = "move generation"
DETERMINIZATION = "determinization (sampling, building the state)"
EVALUATION = "evaluation (features, weights, leaf scores)"
LEAF_VALUE = "leaf value (state value or value network)"
APPLYING = "applying moves"
TREE = "tree bookkeeping (search loop, selection, rollout loop)"
BELIEF_BUILD = "belief build (once per move)"
OTHER = "other"

# (component, file path ending, function names or None for every function of the file); the
# first matching row wins.
PROFILE_GROUPS = (
    (MOVE_GENERATION, "tbw_envs/junqi/rules.py", None),
    (BELIEF_BUILD, "agents/junqi/belief/sampling.py", {"complete_assignment", "feasible_masks",
                                                       "__init__"}),
    (DETERMINIZATION, "agents/junqi/belief/sampling.py", None),
    (DETERMINIZATION, "agents/junqi/belief/trackers.py", {"sample_tokens", "sample",
                                                          "sample_state"}),
    (BELIEF_BUILD, "agents/junqi/belief/", None),
    (DETERMINIZATION, "tbw_envs/junqi/state.py", {"determinize", "opponent_posts",
                                                  "_determinize_template", "__init__",
                                                  "clone"}),
    (APPLYING, "tbw_envs/junqi/state.py", None),
    (APPLYING, "tbw_envs/junqi/actions.py", None),
    (APPLYING, "tbw_envs/core/contract.py", None),
    (EVALUATION, "agents/junqi/evaluation.py", None),
    (LEAF_VALUE, "agents/junqi/value_net.py", None),
    (LEAF_VALUE, "agents/junqi/state_value.py", None),
    (EVALUATION, "agents/junqi/mcts/leaf.py", {"credit", "score", "balance", "origin"}),
    (TREE, "agents/junqi/mcts/", None),
)
GROUP_ORDER = (MOVE_GENERATION, DETERMINIZATION, EVALUATION, LEAF_VALUE, APPLYING, TREE,
               BELIEF_BUILD, OTHER)


def midgame_views(count: int, seed: int = 0):
    rand = random.Random(seed)
    views = []
    while len(views) < count:
        state = JunqiState.random_initial(rand)
        for _ in range(rand.randrange(20, 120)):
            if state.is_terminal():
                break
            state.apply(rand.choice(state.legal_actions()))
        if not state.is_terminal():
            views.append(state.view(state.current_player))
    return views


def _own_group(func) -> str | None:
    filename, _, name = func
    if name.startswith("<"):  # a comprehension or lambda: its callers' component
        return None
    path = filename.replace("\\", "/")
    for group, ending, names in PROFILE_GROUPS:
        in_file = ending in path if ending.endswith("/") else path.endswith(ending)
        if in_file and (names is None or name in names):
            return group
    return None


def group_times(stats: dict) -> tuple[dict[str, float], dict]:
    """Seconds per component from ``pstats.Stats(...).stats`` (see the module docstring), and
    each function's shares of the components."""
    shares: dict = {}

    def share(func, visiting=frozenset()) -> dict[str, float]:
        if func in shares:
            return shares[func]
        group = _own_group(func)
        if group is not None:
            result = {group: 1.0}
        else:
            callers = stats[func][4] if func in stats else {}
            total = sum(entry[2] for entry in callers.values())
            result = {}
            if func in visiting or total <= 0.0:
                result = {OTHER: 1.0}
            else:
                for caller, entry in callers.items():
                    for name, part in share(caller, visiting | {func}).items():
                        result[name] = result.get(name, 0.0) + part * entry[2] / total
        shares[func] = result
        return result

    times = dict.fromkeys(GROUP_ORDER, 0.0)
    for func, (_, _, own, _, _) in stats.items():
        for name, part in share(func).items():
            times[name] += own * part
    return times, shares


def profile_agent(name: str, views, iterations: int, top: int = 12) -> None:
    agent = AGENTS[name](iterations=iterations, seed=0)
    profiler = cProfile.Profile()
    profiler.enable()
    for view in views:
        agent.act(view)
    profiler.disable()
    stats = pstats.Stats(profiler).stats
    times, shares = group_times(stats)
    total = sum(times.values())
    width = max(len(group) for group in GROUP_ORDER)
    print(f"\nprofile of {name} ({len(views)} moves x {iterations} iterations, under cProfile: "
          f"{total:.2f} s)")
    print(f"{'component':<{width}}  {'seconds':>7}  {'share':>6}  {'us/iteration':>12}")
    print(f"{'-' * width}  {'-' * 7}  {'-' * 6}  {'-' * 12}")
    for group in GROUP_ORDER:
        print(f"{group:<{width}}  {times[group]:7.3f}  {times[group] / total:6.1%}  "
              f"{times[group] / (len(views) * iterations) * 1e6:12.1f}")
    print("\nlargest own times (calls, seconds, share, component of the most of it)")
    ranked = sorted(stats.items(), key=lambda item: -item[1][2])[:top]
    for (filename, line, name), (_, calls, own, _, _) in ranked:
        where = f"{Path(filename).name}:{line}({name})" if line else name
        group = max(shares[(filename, line, name)].items(), key=lambda item: item[1])[0]
        print(f"  {where[:60]:<60} {calls:8d} {own:7.3f} {own / total:6.1%}  {group}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--profile", nargs="?", const="ismcts", choices=sorted(AGENTS),
                        help="also profile one agent's moves by component (default: ismcts)")
    args = parser.parse_args(argv)
    views = midgame_views(args.positions)
    print(f"{platform.machine()} CPython {platform.python_version()}, {len(views)} positions, "
          f"{args.iterations} iterations per move")
    rand = random.Random(1)
    for name, cls in BELIEFS.items():
        started = time.perf_counter()
        beliefs = [cls.from_view(v) for v in views]
        built = (time.perf_counter() - started) / len(views)
        started = time.perf_counter()
        for belief in beliefs:
            for _ in range(20):
                belief.sample_state(rand)
        sampled = (time.perf_counter() - started) / (20 * len(views))
        print(f"belief {name:<8} build {built * 1e3:6.2f} ms   "
              f"determinization {sampled * 1e6:6.0f} us")
    for cls in (MCTSAgent, UCBMCTSAgent, ISMCTSAgent):
        agent = cls(iterations=args.iterations, seed=0)
        started = time.perf_counter()
        for view in views:
            agent.act(view)
        elapsed = time.perf_counter() - started
        rate = args.iterations * len(views) / elapsed
        print(f"{cls.__name__:<14} {rate:8.0f} iterations/s   {elapsed / len(views) * 1e3:7.1f} ms "
              f"per move")
    if args.profile is not None:
        profile_agent(args.profile, views, args.iterations)
    return 0


if __name__ == "__main__":
    sys.exit(main())
