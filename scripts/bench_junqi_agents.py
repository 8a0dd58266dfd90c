"""Search speed of the Junqi MCTS agents: iterations per second on one core.

    python scripts/bench_junqi_agents.py [--positions 20] [--iterations 300]

Each agent searches the same positions (mid-game views from seeded random games, plies 20-120)
with an iteration budget; the rate counts the whole move (belief built, determinizations drawn,
tree searched). Also times a belief build and one determinization per tracker.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.junqi import ISMCTSAgent, MCTSAgent, UCBMCTSAgent  # noqa: E402
from agents.junqi.belief import BELIEFS  # noqa: E402
from tbw_envs.junqi import JunqiState  # noqa: E402


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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--iterations", type=int, default=300)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
