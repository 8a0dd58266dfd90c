"""Junqi throughput: core random play (legal moves + apply), clone, and the env() loop.

    python scripts/bench/bench_junqi.py [seconds]

``bench_junqi(seconds)`` returns the figures as a dict (and prints them).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from collections import Counter

import numpy as np

from tbw_envs import junqi_v0
from tbw_envs.junqi import JunqiState


def core_random_play(seconds: float, rules: str = "ccgc") -> dict:
    rand = random.Random(0)
    plies = games = 0
    reasons: Counter = Counter()
    play_time = 0.0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        state = JunqiState.random_initial(rand, rules=rules)
        start = time.perf_counter()
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply(actions[rand.randrange(len(actions))])
            plies += 1
        play_time += time.perf_counter() - start
        games += 1
        reasons[state.end_reason] += 1
    return {
        "core_plies_per_s": plies / play_time,
        "core_games": games,
        "core_mean_plies": plies / games,
        "end_reason_share": {reason: count / games for reason, count in reasons.most_common()},
    }


def _clone_rate(seconds: float) -> float:
    rand = random.Random(1)
    state = JunqiState.random_initial(rand)
    for _ in range(20):  # a mid-game state with some history
        actions = state.legal_actions()
        state.apply(actions[rand.randrange(len(actions))])
    clones = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(1000):
            state.clone()
        clones += 1000
    return clones / (time.perf_counter() - start)


def _env_random_play(seconds: float) -> dict:
    env = junqi_v0.env()
    rng = np.random.default_rng(0)
    plies = episodes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=episodes)
        episodes += 1
        for _agent in env.agent_iter():
            observation, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            plies += 1
    return {"env_plies_per_s": plies / (time.perf_counter() - start), "env_episodes": episodes}


def bench_junqi(seconds: float = 5.0) -> dict:
    """Run every measurement for about ``seconds`` each; print and return the figures."""
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    results = core_random_play(seconds)
    results["clones_per_s"] = _clone_rate(min(seconds, 2.0))
    results.update(_env_random_play(seconds))
    print(
        f"junqi core random play: {results['core_plies_per_s']:,.0f} plies/s "
        f"({results['core_games']} games, mean {results['core_mean_plies']:.0f} plies; "
        f"target 30,000)"
    )
    print(f"junqi clone: {results['clones_per_s']:,.0f} clones/s")
    print(
        f"junqi env() with observations and masks: {results['env_plies_per_s']:,.0f} plies/s "
        f"({results['env_episodes']} episodes; target 5,000)"
    )
    shares = ", ".join(f"{k} {v:.1%}" for k, v in results["end_reason_share"].items())
    print(f"junqi random games end by: {shares}")
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seconds", nargs="?", type=float, default=5.0,
                        help="seconds per measurement (default 5)")
    args = parser.parse_args(argv)
    if not (0 < args.seconds <= 3600):
        parser.error(f"seconds must be in (0, 3600], got {args.seconds}")
    bench_junqi(args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
