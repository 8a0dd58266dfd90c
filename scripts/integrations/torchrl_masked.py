"""TorchRL recipe: masked rollouts of a learnable masked policy on our AEC envs.

    pip install -c constraints.txt -e ".[train]" torchrl
    python scripts/integrations/torchrl_masked.py --game tbw --seconds 5

The glue is two lines: ``NoInfosWrapper`` (TorchRL tensorises every info value under a spec
fixed at reset; our end-of-game ``end_reason`` string would break it) and
``PettingZooWrapper(..., use_mask=True)``, which TorchRL requires for AEC envs. TorchRL then
puts each agent's legal-action mask at ``(agent, "action_mask")`` (all True for the agent that
is waiting, whose action it does not play) and a ``MaskedCategorical`` actor samples only legal
actions. Verified with torchrl 0.14.1, tensordict 0.14.3, torch 2.13.0 (docs/integrations.md).
"""

from __future__ import annotations

import argparse
import time


def make_env(game: str, seed: int = 0):
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    from tbw_envs import junqi_v0, tbw_v0
    from tbw_envs.aec_wrappers import NoInfosWrapper

    aec = tbw_v0.env(scenario="duel_5v5_8x8") if game == "tbw" else junqi_v0.env()
    return PettingZooWrapper(NoInfosWrapper(aec), use_mask=True, categorical_actions=True,
                             seed=seed)


def make_policy(env):
    """One small actor per agent group: logits from the observation planes, sampled through
    ``MaskedCategorical`` with the group's action mask."""
    from tensordict.nn import TensorDictModule, TensorDictSequential
    from torch import nn
    from torchrl.modules import MaskedCategorical, ProbabilisticActor

    actors = []
    for group in env.group_map:
        n_actions = env.full_action_spec[group, "action"].space.n
        net = nn.Sequential(nn.Flatten(-3), nn.LazyLinear(64), nn.Tanh(), nn.Linear(64, n_actions))
        module = TensorDictModule(net, in_keys=[(group, "observation", "observation")],
                                  out_keys=[(group, "logits")])
        actors.append(ProbabilisticActor(
            module,
            in_keys={"logits": (group, "logits"), "mask": (group, "action_mask")},
            out_keys=[(group, "action")],
            distribution_class=MaskedCategorical,
            return_log_prob=True,
            log_prob_key=(group, "log_prob"),
        ))
    return TensorDictSequential(*actors)


def run(game: str = "tbw", seconds: float = 3.0, seed: int = 0) -> dict:
    """Roll the masked policy for about ``seconds``; returns counts the test checks."""
    import torch

    torch.manual_seed(seed)
    env = make_env(game, seed)
    policy = make_policy(env)
    steps = illegal = games = 0
    start = time.perf_counter()
    with torch.no_grad():
        while time.perf_counter() - start < seconds:
            rollout = env.rollout(200, policy=policy, break_when_any_done=True)
            for group in env.group_map:
                acted = rollout[group, "mask"].squeeze(-1)  # True where this agent moved
                action = rollout[group, "action"][acted]
                mask = rollout[group, "action_mask"][acted]
                illegal += int((~mask.gather(-1, action.unsqueeze(-1))).sum())
                steps += int(acted.sum())
            games += int(rollout["next", "done"].any())
    elapsed = time.perf_counter() - start
    return {"steps": steps, "illegal": illegal, "games": games,
            "steps_per_second": steps / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=["tbw", "junqi"], default="tbw")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(run(args.game, args.seconds, args.seed))


if __name__ == "__main__":
    main()
