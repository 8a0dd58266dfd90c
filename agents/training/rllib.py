"""Multi-agent PPO for TBW and Junqi on RLlib (Ray): the env creator, the masking RLModule, the
policy mapping of self-play and of a frozen opponent, the metrics callbacks, the ``PPOConfig``,
the greedy evaluation, and the connection to Ray (``scripts/train_rllib.py``,
``agents.training.rllib_training``).

Ray is an optional dependency with its own environment (``pip install -c constraints.txt -e
".[rllib]"``): it is imported only inside the functions that need it, so this module imports
without it (argument checks, ``seat_of_learner``).

Environment: RLlib's ``PettingZooEnv`` over our AEC ``env()``, not ``ParallelPettingZooEnv``
over ``parallel_env()``. The AEC adapter hands RLlib only the observation of the agent to move,
so every recorded step is a real decision; the turn-based parallel env gives both agents an
observation every step, and RLlib would record a forced, ignored END_TURN/no-op step for the
waiting agent at every ply: half the samples would be noise and the discounting would count the
opponent's plies. No observation adapter: ``MaskedPPOModule`` reads our Dict observations
``{"observation": planes, "action_mask": int8}`` directly (the planes flattened into an MLP,
masked actions' logits set to the float minimum).
"""

from __future__ import annotations

import os
import zlib
from typing import Any

import gymnasium as gym
import numpy as np

from agents.arena import check_game, check_ray_address, connect_ray
from agents.registry import make_agent
from tbw_envs.games import get_game

__all__ = [
    "AGENTS", "ENV_NAME", "FROZEN", "LEARNER", "RAY_MISSING", "build_config",
    "check_training_arguments", "connect", "env_runner_node", "evaluate",
    "frozen_opponent_mapping", "greedy_action", "import_rllib", "make_env",
    "make_pettingzoo_env", "masked_ppo_module_class", "refresh_frozen", "seat_of_learner",
    "self_play_metrics_class", "shared_policy_mapping",
]

ENV_NAME = "tbw_envs_rllib"
LEARNER = "shared"  # the trained policy; in self-play both seats map to it
FROZEN = "frozen"  # opponent "frozen": a copy of LEARNER, refreshed every few iterations
AGENTS = ("player_0", "player_1")
OPPONENTS = ("self", "frozen")
RAY_MISSING = ('ray[rllib] is not installed; it needs its own environment: pip install -c '
               'constraints.txt -e ".[rllib]" (docs/integrations.md, "RLlib")')


def import_rllib() -> Any:
    try:
        import ray
        import ray.rllib  # noqa: F401
    except ImportError as exc:
        raise ImportError(RAY_MISSING) from exc
    return ray


def env_runner_node(runner) -> str:
    """The Ray node an env runner lives on (run inside the env runner's actor)."""
    import ray

    return ray.get_runtime_context().get_node_id()


def connect(address: str, num_env_runners: int, threads: int) -> bool:
    """Connect to Ray (``agents.arena.connect_ray``); a local Ray gets at least one CPU per env
    runner, so K runners start on a smaller machine too (oversubscribed). Every Ray worker
    process starts with ``OMP_NUM_THREADS``/``MKL_NUM_THREADS`` = ``threads``. True if this call
    connected."""
    threads_env = {name: str(threads) for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    num_cpus = max(os.cpu_count() or 1, num_env_runners) if address == "local" else None
    return connect_ray(address, num_cpus=num_cpus, runtime_env={"env_vars": threads_env})


# ====================================================================== checks


def check_training_arguments(game: str, variant: str, address: str, opponent: str,
                             eval_games: int, eval_opponent: str,
                             counts: dict[str, tuple[Any, int]]) -> None:
    """Raise ValueError for what a run cannot start with, before Ray is imported: the game and
    its variant (loaded), the Ray address, ``counts`` (``{name: (value, lowest)}``: whole
    numbers, not bools, at least ``lowest``), the opponent, and the evaluation opponent's spec
    (built, so a bad spec fails here, not mid-run)."""
    check_game(game, variant)
    check_ray_address(address)
    for name, (value, low) in counts.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    if opponent not in OPPONENTS:
        raise ValueError(f"opponent must be 'self' or 'frozen', got {opponent!r}")
    if eval_games and eval_opponent != "random":
        make_agent(eval_opponent, seed=0, game=game)


# ====================================================================== environment


def make_pettingzoo_env(game: str, variant: str):
    """Our AEC ``env()`` (PettingZoo's standard wrappers: an illegal action ends the game with
    -1) for ``game`` on ``variant`` (TBW scenario or Junqi rule set)."""
    description = get_game(game)
    return description.env(**description.variant_kwargs(variant))


def make_env(env_config: dict) -> Any:
    """The env creator RLlib calls in every env runner (``register_env``): sets this process's
    torch threads, then wraps the AEC env in RLlib's ``PettingZooEnv``."""
    import torch
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    torch.set_num_threads(int(env_config.get("threads", 1)))
    return PettingZooEnv(make_pettingzoo_env(env_config["game"], env_config["variant"]))


# ====================================================================== RL module

_DEFINED: dict[str, type] = {}  # the classes that subclass Ray's, once defined


def masked_ppo_module_class() -> type:
    """``MaskedPPOModule``, defined on first use so that this module imports without Ray (and
    without paying for RLlib's import) for ``--help`` and argument errors."""
    if "MaskedPPOModule" in _DEFINED:
        return _DEFINED["MaskedPPOModule"]
    import torch
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
        DefaultPPOTorchRLModule,
    )
    from ray.rllib.core.columns import Columns
    from ray.rllib.utils.torch_utils import FLOAT_MIN

    class _MaskedPPOModule(DefaultPPOTorchRLModule):
        """PPO's default torch module (MLP encoder, pi and vf heads) over our Dict observation
        ``{"observation": Box(C, H, W), "action_mask": Box(n,) int8}``: the catalog builds the
        networks for the planes flattened to ``C * H * W`` inputs, every forward pass flattens
        them and sets the logits of actions the mask forbids to the float minimum, so they are
        never sampled and carry no probability in the loss. An all-zero mask (the AEC
        convention for an agent that cannot act, seen only on terminal observations, which PPO
        never acts on) gives finite, uniform logits."""

        def __init__(self, *, observation_space=None, **kwargs):
            if not (isinstance(observation_space, gym.spaces.Dict)
                    and set(observation_space.spaces) == {"observation", "action_mask"}):
                raise ValueError(
                    "MaskedPPOModule needs the Dict observation space of tbw_v0/junqi_v0, "
                    "{'observation': Box(C, H, W), 'action_mask': Box(n,)}, got "
                    f"{observation_space}")
            self.observation_space_with_mask = observation_space
            planes = observation_space["observation"]
            self._plane_dims = len(planes.shape)
            flat = gym.spaces.Box(float(np.min(planes.low)), float(np.max(planes.high)),
                                  (int(np.prod(planes.shape)),), np.float32)
            super().__init__(observation_space=flat, **kwargs)

        def setup(self):
            super().setup()  # builds the networks for the flat Box
            self.observation_space = self.observation_space_with_mask

        def _split(self, batch: dict) -> tuple[dict, Any]:
            obs = batch[Columns.OBS]
            if not isinstance(obs, dict) or "action_mask" not in obs or "observation" not in obs:
                raise ValueError("MaskedPPOModule expects batch['obs'] to be a dict with "
                                 "'observation' and 'action_mask' (our PettingZoo envs' "
                                 "observations); got "
                                 f"{sorted(obs) if isinstance(obs, dict) else type(obs)}")
            planes = obs["observation"]
            inner = dict(batch)
            inner[Columns.OBS] = planes.flatten(start_dim=planes.dim() - self._plane_dims).float()
            return inner, obs["action_mask"]

        @staticmethod
        def _mask(out: dict, mask) -> dict:
            logits = out[Columns.ACTION_DIST_INPUTS]
            out[Columns.ACTION_DIST_INPUTS] = torch.where(
                mask.to(torch.bool), logits, torch.full_like(logits, FLOAT_MIN))
            return out

        def _forward(self, batch, **kwargs):
            inner, mask = self._split(batch)
            return self._mask(super()._forward(inner, **kwargs), mask)

        def _forward_train(self, batch, **kwargs):
            inner, mask = self._split(batch)
            return self._mask(super()._forward_train(inner, **kwargs), mask)

        def compute_values(self, batch, embeddings=None):
            if embeddings is None:
                batch, _ = self._split(batch)
            return super().compute_values(batch, embeddings)

    # Named as a module attribute (``__getattr__`` below), so pickle finds it by reference: a
    # Ray worker or a process loading a checkpoint that imports this module gets the class.
    _MaskedPPOModule.__name__ = _MaskedPPOModule.__qualname__ = "MaskedPPOModule"
    _DEFINED["MaskedPPOModule"] = _MaskedPPOModule
    return _MaskedPPOModule


def __getattr__(name: str) -> Any:
    if name == "MaskedPPOModule":
        return masked_ppo_module_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ====================================================================== self-play


def seat_of_learner(episode_id: str) -> int:
    """Opponent ``frozen``: the learner's seat in an episode (0 or 1, half the episodes each),
    a stable function of the episode id in every process."""
    return zlib.crc32(str(episode_id).encode("utf-8")) % 2


def shared_policy_mapping(agent_id, episode, **kwargs) -> str:
    """Self-play: both seats play (and train) the one shared policy."""
    return LEARNER


def frozen_opponent_mapping(agent_id, episode, **kwargs) -> str:
    """Learner against its frozen copy, seats alternating by episode."""
    return LEARNER if agent_id == AGENTS[seat_of_learner(episode.id_)] else FROZEN


def self_play_metrics_class() -> type:
    """``SelfPlayMetrics``, RLlib's callbacks of a run, defined on first use (needs Ray)."""
    if "SelfPlayMetrics" in _DEFINED:
        return _DEFINED["SelfPlayMetrics"]
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class SelfPlayMetrics(RLlibCallback):
        """Per finished game: player_0's score (1 win, 0.5 draw, 0 loss), the learner's score
        against the frozen opponent (``--opponent frozen``), and whether the game ended by an
        illegal action (never, with the mask respected)."""

        def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
            if metrics_logger is None:
                return
            infos = episode.get_infos(-1)
            winners = [info["winner"] for info in infos.values()
                       if isinstance(info, dict) and "end_reason" in info]
            if winners:  # the game ended by its rules
                score = 0.5 if winners[0] is None else float(winners[0] == 0)
            else:  # an illegal action ended it: -1 for the offender
                returns = {agent: episode.agent_episodes[agent].get_return()
                           for agent in AGENTS if agent in episode.agent_episodes}
                first, second = returns.get(AGENTS[0], 0.0), returns.get(AGENTS[1], 0.0)
                score = 0.5 if first == second else float(first > second)
            metrics_logger.log_value("player_0_score", score, reduce="mean", window=200)
            metrics_logger.log_value("illegal_endings", 0 if winners else 1, reduce="sum")
            learner = [agent for agent in AGENTS if episode.module_for(agent) == LEARNER]
            if len(learner) == 1:
                mine = score if learner[0] == AGENTS[0] else 1.0 - score
                metrics_logger.log_value("learner_score", mine, reduce="mean", window=200)

    _DEFINED["SelfPlayMetrics"] = SelfPlayMetrics
    return SelfPlayMetrics


# ====================================================================== config


def build_config(game: str, variant: str, *, num_env_runners: int = 0,
                 num_envs_per_env_runner: int = 4, opponent: str = "self",
                 train_batch_size: int = 2000, minibatch_size: int = 256, num_epochs: int = 4,
                 lr: float = 3e-4, gamma: float = 0.99, entropy_coeff: float = 0.01,
                 hidden: tuple[int, ...] = (256, 256), seed: int | None = 0, threads: int = 1):
    """RLlib's ``PPOConfig`` for self-play on ``game``/``variant`` (new API stack, the default
    in ray 2.60): ``opponent="self"`` maps both seats to one trained policy, ``"frozen"`` maps
    one seat (alternating by episode) to the trained policy and the other to a frozen copy."""
    if opponent not in OPPONENTS:
        raise ValueError(f"opponent must be 'self' or 'frozen', got {opponent!r}")
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    register_env(ENV_NAME, make_env)
    module_class = masked_ppo_module_class()
    model_config = {"fcnet_hiddens": list(hidden), "fcnet_activation": "relu",
                    "vf_share_layers": False}
    modules = [LEARNER] if opponent == "self" else [LEARNER, FROZEN]
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        # RLlib's env pre-check steps one *unmasked* random action, which is illegal in our
        # games (PettingZoo then warns "Illegal move made"); tests/agents/training/test_rllib.py
        # runs the same check (check_multiagent_environments) on a fresh env instead.
        .environment(ENV_NAME, env_config={"game": game, "variant": variant,
                                           "threads": threads}, disable_env_checking=True)
        .env_runners(num_env_runners=num_env_runners,
                     num_envs_per_env_runner=num_envs_per_env_runner)
        .learners(num_learners=0)  # the learner runs in the driver process
        .multi_agent(
            policies=set(modules),
            policy_mapping_fn=(shared_policy_mapping if opponent == "self"
                               else frozen_opponent_mapping),
            policies_to_train=[LEARNER],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            module_id: RLModuleSpec(module_class=module_class, model_config=model_config)
            for module_id in modules
        }))
        .training(train_batch_size_per_learner=train_batch_size,
                  minibatch_size=minibatch_size, num_epochs=num_epochs, lr=lr, gamma=gamma,
                  entropy_coeff=entropy_coeff)
        .callbacks(self_play_metrics_class())
        .debugging(seed=seed)
    )


def refresh_frozen(algo) -> None:
    """Copy the trained policy's weights into the frozen one, in the learner and in every env
    runner. Neither PPO's weight sync (it covers only the modules it trained) nor
    ``EnvRunnerGroup.sync_weights`` does it: an env runner ignores weights whose sequence
    number it has already seen, and a copy does not advance the learner's number."""
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE

    weights = algo.learner_group.get_weights(module_ids=[LEARNER])[LEARNER]
    algo.learner_group.set_weights({FROZEN: weights})
    inference = algo.learner_group.get_state(
        components=f"{COMPONENT_LEARNER}/{COMPONENT_RL_MODULE}/{LEARNER}", inference_only=True,
    )[COMPONENT_LEARNER][COMPONENT_RL_MODULE][LEARNER]

    def load(runner) -> None:
        runner.module[FROZEN].set_state(inference)

    algo.env_runner_group.foreach_env_runner(load, local_env_runner=True)


# ====================================================================== evaluation


def greedy_action(module, obs: dict) -> int:
    """The masked policy's most likely action for one Dict observation."""
    import torch
    from ray.rllib.core.columns import Columns

    batch = {Columns.OBS: {key: torch.as_tensor(value)[None] for key, value in obs.items()}}
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    return int(torch.argmax(logits[0]).item())


def evaluate(module, game: str, variant: str, opponent: str = "random", games: int = 10,
             seed: int = 0) -> float:
    """The policy's score (win 1, draw 0.5) over ``games`` games against ``opponent`` (an
    ``agents.registry`` spec), playing greedily, seats alternating (the single-agent wrapper
    with ``learner_seat="alternate"``)."""
    if games <= 0:
        return float("nan")
    rival: Any = opponent
    if opponent != "random":
        rival = make_agent(opponent, seed=seed, game=game)
    description = get_game(game)
    env = description.single_agent_env(**description.variant_kwargs(variant), opponent=rival,
                                       learner_seat="alternate", mask_in_obs=True)
    points = 0.0
    try:
        for g in range(games):
            obs, _ = env.reset(seed=seed + g)
            done = False
            reward = 0.0
            while not done:
                obs, reward, terminated, truncated, _ = env.step(greedy_action(module, obs))
                done = terminated or truncated
            points += 0.5 + 0.5 * float(reward)
    finally:
        env.close()
    return points / games
