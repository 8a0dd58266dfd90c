"""Tianshou recipe: masked DQN for each seat of our AEC envs, trained by Tianshou's trainer.

    pip install -c constraints.txt -e ".[train]" tianshou
    python scripts/integrations/tianshou_masked.py --game tbw --steps 2000

No glue: ``PettingZooEnv(tbw_v0.env())`` is Tianshou's usual call. Its trainer stops with
``MalformedBufferError`` ("Encountered NaNs in buffer") if a buffered info ever holds None or
changes its keys; ours are ints with the same keys on every step (``tbw_envs.infos``), so the
buffer keeps them (``winner``, ``end_reason``, ``plies``). Tianshou's ``PettingZooEnv`` reads
our ``obs["action_mask"]`` into ``obs.mask``, and its ``DiscreteQLearningPolicy`` masks both
the greedy choice and the epsilon-greedy exploration with it. A
``MultiAgentOffPolicyAlgorithm`` (Tianshou 2's name for the old ``MultiAgentPolicyManager``)
gives each seat its own ``DQN`` (a small MLP Q-network), a ``Collector`` fills a replay buffer,
and ``OffPolicyTrainerParams`` / ``run_training`` does the updates. Verified with tianshou
2.0.1, torch 2.13.0 (docs/integrations.md).

Tianshou's turn-based bookkeeping, not ours: a transition is credited to the agent that moved,
with that agent's reward column, so the side that loses on its opponent's move never sees its
-1 (the winner's +1 is seen). Tianshou's own tic-tac-toe example has the same property.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tbw_envs.games import game_names, get_game


def make_env(game: str, **variant):
    from tianshou.env import PettingZooEnv

    # The AEC env on the game's default scenario or rule set unless ``variant`` names one.
    aec = get_game(game).env(**variant)
    return PettingZooEnv(aec)


def make_dqn(env, hidden: int = 128, lr: float = 1e-3, eps: float = 0.2):
    """A masked DQN over the observation planes (flattened by Tianshou's ``Net``)."""
    from tianshou.algorithm import DQN
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.utils.net.common import Net

    planes = env.observation_space["observation"].shape
    net = Net(state_shape=planes, action_shape=env.action_space.n, hidden_sizes=[hidden])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                     eps_training=eps, eps_inference=0.0)
    return DQN(policy=policy, optim=AdamOptimizerFactory(lr=lr), gamma=0.99,
               n_step_return_horizon=1, target_update_freq=100)


def run(game: str = "tbw", steps: int = 2000, seed: int = 0, threads: int = 1,
        **variant) -> dict:
    """Train both seats' DQNs for ``steps`` env steps; returns what the test checks (moves,
    illegal moves in the buffer, games, update steps, whether the weights changed).
    ``variant``: the game's variant keyword (``scenario=``, ``rules=``)."""
    import torch
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.trainer import OffPolicyTrainerParams

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    np.random.seed(seed)  # Tianshou's epsilon-greedy draws from numpy's global generator
    env = make_env(game, **variant)
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[make_dqn(env) for _ in env.agents], env=env
    )
    before = [p.detach().clone() for p in algorithm.parameters()]
    envs = DummyVectorEnv([lambda: make_env(game, **variant)])
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
        # One score per episode for the trainer's bookkeeping: the first seat's return.
        multi_agent_return_reduction=lambda returns: returns[:, 0],
        verbose=False,
        show_progress=False,
    ))
    elapsed = time.perf_counter() - start
    data = buffer.sample(0)[0]  # the whole buffer
    legal = data.obs.mask[np.arange(len(data.act)), data.act]
    changed = any(not torch.equal(a, p.detach())
                  for a, p in zip(before, algorithm.parameters(), strict=True))
    return {"moves": len(data.act), "illegal": int((~legal).sum()),
            "games": int(data.done.sum()), "update_steps": int(result.update_step),
            "weights_changed": changed, "seconds": elapsed,
            "steps_per_second": len(data.act) / elapsed}


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
