"""Tianshou recipe: masked multi-agent collection on our AEC envs.

    pip install -c constraints.txt -e ".[train]" tianshou
    python scripts/integrations/tianshou_masked.py --game junqi --seconds 5

No glue: Tianshou's ``PettingZooEnv`` reads our ``obs["action_mask"]`` into ``obs.mask``; a
``MultiAgentOffPolicyAlgorithm`` (Tianshou 2's name for the old ``MultiAgentPolicyManager``)
gives each seat its own algorithm, here Tianshou's masked random one, and a ``Collector`` plays
whole games. Replace either seat's algorithm with a ``DQN`` over a masked Q-network to train.
Verified with tianshou 2.0.1 (docs/integrations.md).
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def make_env(game: str):
    from tianshou.env import PettingZooEnv

    from tbw_envs import junqi_v0, tbw_v0

    return PettingZooEnv(
        tbw_v0.env(scenario="duel_5v5_8x8") if game == "tbw" else junqi_v0.env()
    )


def run(game: str = "tbw", seconds: float = 3.0, seed: int = 0) -> dict:
    """Collect whole games for about ``seconds``; returns counts the test checks."""
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv

    np.random.seed(seed)  # Tianshou's masked random policy draws from numpy's global generator
    env = make_env(game)
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space)
                    for _ in env.agents],
        env=env,
    )
    envs = DummyVectorEnv([lambda: make_env(game)])
    buffer = VectorReplayBuffer(20_000, 1)
    collector = Collector(algorithm.policy, envs, buffer)
    collector.reset()
    start = time.perf_counter()
    episodes = 0
    while time.perf_counter() - start < seconds:
        episodes += collector.collect(n_episode=1).n_collected_episodes
    elapsed = time.perf_counter() - start
    data = buffer.sample(0)[0]  # the whole buffer
    legal = data.obs.mask[np.arange(len(data.act)), data.act]
    return {"steps": len(data.act), "illegal": int((~legal).sum()), "games": episodes,
            "steps_per_second": len(data.act) / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=["tbw", "junqi"], default="tbw")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(run(args.game, args.seconds, args.seed))


if __name__ == "__main__":
    main()
