"""RLlib recipe: multi-agent PPO with action masking on our AEC envs, both seats sharing one
policy (self-play), through RLlib's own example masking module. Verified with ray 2.60.0
(gymnasium 1.2.2): one iteration trains (tests/scripts/integrations/test_rllib_ppo.py, slow).

RLlib pins its own gymnasium (1.2.2 for ray 2.60), so install it in a separate environment:

    python3 -m venv .venv-rllib && . .venv-rllib/bin/activate
    pip install -c constraints.txt torch==2.13.0 && pip install -c constraints.txt -e ".[rllib]"
    python scripts/integrations/rllib_ppo.py --game tbw --iterations 1

RLlib's default encoders reject a Dict observation, and its ``ActionMaskingTorchRLModule`` example
reads ``obs["observations"]`` (flat) and ``obs["action_mask"]``.
``tbw_envs.aec_wrappers.FlatObservationsWrapper`` renames and flattens our
``{"observation": planes, "action_mask": int8}`` into that shape. The glue, marked ``# glue``, is
two lines: wrapping the env in it, and ``disable_env_checking=True`` (RLlib's env pre-check
steps an unmasked random action, illegal in our games). ``scripts/train_rllib.py`` is the full
training script
(its own masking module reads our observations unchanged; env runners, a Ray cluster, a frozen
opponent, checkpoints, a learning curve).
"""

from __future__ import annotations

import argparse

from tbw_envs.aec_wrappers import FlatObservationsWrapper
from tbw_envs.games import game_names, get_game


def make_aec(game: str):
    aec = get_game(game).env()  # the AEC env on the game's default scenario or rule set
    return FlatObservationsWrapper(aec)  # glue 1


def build_config(game: str, num_env_runners: int = 0):
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env

    register_env(f"tbw_envs_{game}", lambda _config: PettingZooEnv(make_aec(game)))
    return (
        PPOConfig()
        # RLlib's env pre-check steps one unmasked random action: illegal in our games.
        .environment(f"tbw_envs_{game}", disable_env_checking=True)  # glue 2
        .env_runners(num_env_runners=num_env_runners)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, *a, **k: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                   model_config={"head_fcnet_hiddens": [64, 64]}),
        }))
        .training(train_batch_size_per_learner=512, minibatch_size=128, num_epochs=1)
    )


def run(game: str = "tbw", iterations: int = 1, num_env_runners: int = 0,
        address: str | None = None) -> dict:
    import ray
    import torch

    torch.set_num_threads(1)  # one torch thread per process (README, "Training")
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, runtime_env={"env_vars": {"OMP_NUM_THREADS": "1"}})
    algo = build_config(game, num_env_runners).build_algo()
    try:
        for _ in range(iterations):
            result = algo.train()
    finally:
        algo.stop()
        if started:
            ray.shutdown()
    runners = result.get("env_runners", {})
    return {"iterations": iterations,
            "env_steps": runners.get("num_env_steps_sampled_lifetime"),
            "episodes": runners.get("num_episodes_lifetime")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=game_names(), default="tbw")
    parser.add_argument("--iterations", type=int, default=1)
    parser.add_argument("--num-env-runners", type=int, default=0)
    parser.add_argument("--address", default=None,
                        help="Ray address: omit for a local Ray, 'auto' or ray://host:port")
    args = parser.parse_args()
    print(run(args.game, args.iterations, args.num_env_runners, args.address))


if __name__ == "__main__":
    main()
