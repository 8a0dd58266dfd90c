"""Tianshou recipe: a masked DQN on the single-agent Gymnasium env, trained by Tianshou's trainer.

    pip install -c constraints.txt -e ".[train,integrations]"
    python scripts/integrations/tianshou_single.py --game tbw --steps 2000

Tianshou reads a mask only from an observation Dict with the keys ``"obs"`` and ``"mask"``
(``DiscreteQLearningPolicy`` masks its greedy choice and its epsilon-greedy exploration with
``batch.obs.mask``). Our single-agent env with ``mask_in_obs=True`` gives ``{"observation",
"action_mask"}``, which Tianshou silently ignores: its DQN then plays unmasked, and every episode
ends on an illegal first move. The glue (marked ``# glue``) is one Gymnasium
``TransformObservation`` that renames the two keys (``mask_dtype=bool``, so the mask needs no
cast). The learner plays both seats (``learner_seat="alternate"``) against the random opponent
inside ``step``; a ``Collector`` fills a replay buffer and ``OffPolicyTrainerParams`` /
``run_training`` does the updates. Verified with tianshou 2.0.1 (docs/integrations.md).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from gymnasium import spaces
from gymnasium.wrappers import TransformObservation

from tbw_envs.games import game_names, get_game


def make_env(game: str, **kwargs):
    """The single-agent env with its mask where Tianshou looks: ``obs.obs`` and ``obs.mask``."""
    env = get_game(game).single_agent_env(mask_in_obs=True, mask_dtype=bool,
                                          learner_seat="alternate", **kwargs)
    inner = env.observation_space
    tianshou_space = spaces.Dict({"obs": inner["observation"], "mask": inner["action_mask"]})
    return TransformObservation(  # glue
        env, lambda obs: {"obs": obs["observation"], "mask": obs["action_mask"]},  # glue
        tianshou_space,  # glue
    )


def make_dqn(env, hidden: int = 128, lr: float = 1e-3, eps: float = 0.2):
    """A masked DQN over the observation planes (flattened by Tianshou's ``Net``)."""
    from tianshou.algorithm import DQN
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.utils.net.common import Net

    planes = env.observation_space["obs"].shape
    net = Net(state_shape=planes, action_shape=env.action_space.n, hidden_sizes=[hidden])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                     eps_training=eps, eps_inference=0.0)
    return DQN(policy=policy, optim=AdamOptimizerFactory(lr=lr), gamma=0.99,
               n_step_return_horizon=1, target_update_freq=100)


def run(game: str = "tbw", steps: int = 2000, seed: int = 0, threads: int = 1,
        **env_kwargs) -> dict:
    """Train the DQN for ``steps`` env steps; returns what the test checks: learner moves,
    illegal moves among them, episodes and how many an illegal move ended (from the buffered
    ``info["illegal_action"]``), update steps, whether the weights changed."""
    import torch
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.trainer import OffPolicyTrainerParams

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    np.random.seed(seed)  # Tianshou's epsilon-greedy draws from numpy's global generator
    env = make_env(game, **env_kwargs)
    algorithm = make_dqn(env)
    before = [p.detach().clone() for p in algorithm.parameters()]
    envs = DummyVectorEnv([lambda: make_env(game, **env_kwargs)])
    envs.seed(seed)
    buffer = VectorReplayBuffer(max(steps, 1000), 1)
    collector = Collector(algorithm.policy, envs, buffer, exploration_noise=True)
    collector.reset()
    start = time.perf_counter()
    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=collector,
        max_epochs=1,
        epoch_num_steps=steps,
        collection_step_num_env_steps=50,
        update_step_num_gradient_steps_per_sample=0.2,
        batch_size=64,
        verbose=False,
        show_progress=False,
    ))
    elapsed = time.perf_counter() - start
    data = buffer.sample(0)[0]  # the whole buffer
    legal = data.obs.mask[np.arange(len(data.act)), data.act]
    ended = data.done.astype(bool)
    changed = any(not torch.equal(a, p.detach())
                  for a, p in zip(before, algorithm.parameters(), strict=True))
    return {"moves": len(data.act), "illegal": int((~legal).sum()),
            "games": int(ended.sum()),
            "illegal_endings": int(np.asarray(data.info.illegal_action)[ended].sum()),
            "learner_seats": sorted({int(s) for s in np.asarray(data.info.learner)}),
            "update_steps": int(result.update_step), "weights_changed": changed,
            "seconds": elapsed, "steps_per_second": len(data.act) / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=game_names(), default="tbw")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.steps < 1:
        parser.error("--steps must be >= 1")
    print(run(args.game, args.steps, args.seed))


if __name__ == "__main__":
    main()
