"""Multi-agent PPO for TBW and Junqi on RLlib (Ray): self-play, action masking, checkpoints.

    python scripts/train_rllib.py --game tbw --scenario duel_5v5_8x8 --iterations 20
    python scripts/train_rllib.py --game junqi --rules ccgc --num-env-runners 2 --iterations 50
    python scripts/train_rllib.py --game tbw --opponent frozen --freeze-every 5 --iterations 40
    python scripts/train_rllib.py --game tbw --address auto --num-env-runners 32   # a cluster

RLlib's new API stack (RLModule, Learner, EnvRunner, ConnectorV2), PPO with one shared policy
for both seats (self-play), or the learner against a frozen copy of itself refreshed every
``--freeze-every`` iterations (``--opponent frozen``). Each iteration prints a progress line;
``--out`` (default ``runs/rllib-<game>-<time>/``) gets ``progress.csv``, ``learning_curve.png``,
``checkpoints/iter_NNNN/`` every ``--checkpoint-every`` iterations and ``checkpoint/`` at the
end (``Algorithm.from_checkpoint(path)`` restores one; the policy alone is
``RLModule.from_checkpoint(path / "learner_group/learner/rl_module/shared")``).

Environment: RLlib's ``PettingZooEnv`` over our AEC ``env()``, not ``ParallelPettingZooEnv``
over ``parallel_env()``. The AEC adapter hands RLlib only the observation of the agent to move,
so every recorded step is a real decision; the turn-based parallel env gives both agents an
observation every step, and RLlib would record a forced, ignored END_TURN/no-op step for the
waiting agent at every ply: half the samples would be noise and the discounting would count the
opponent's plies. No observation adapter: ``MaskedPPOModule`` reads our Dict observations
``{"observation": planes, "action_mask": int8}`` directly (the planes flattened into an MLP,
masked actions' logits set to the float minimum).

Threads: every process (driver/learner and each env runner) uses ``--threads`` torch threads,
default 1 (README, "Training": torch's default threading is far slower on a shared machine).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import shlex
import sys
import time
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agents.arena import check_game, check_ray_address, default_variant  # noqa: E402
from scripts.arena import ray_address  # noqa: E402  (the --ray/--address argument type)

ENV_NAME = "tbw_envs_rllib"
LEARNER = "shared"  # the trained policy; in self-play both seats map to it
FROZEN = "frozen"  # --opponent frozen: a copy of LEARNER, refreshed every --freeze-every
AGENTS = ("player_0", "player_1")
CURVE_COLUMNS = [
    "iteration", "env_steps", "env_steps_lifetime", "episodes", "episode_len_mean",
    "player_0_score", "learner_score", "illegal_endings", "policy_loss", "vf_loss", "entropy",
    "eval_score", "sample_seconds", "iteration_seconds", "env_steps_per_second",
    "sample_steps_per_second",
]
RAY_MISSING = ('ray[rllib] is not installed; it needs its own environment: pip install -c '
               'constraints.txt -e ".[rllib]" (docs/integrations.md, "RLlib")')


# ====================================================================== environment


def make_pettingzoo_env(game: str, variant: str):
    """Our AEC ``env()`` (PettingZoo's standard wrappers: an illegal action ends the game with
    -1) for ``game`` on ``variant`` (TBW scenario or Junqi rule set)."""
    from tbw_envs import junqi_v0, tbw_v0

    if game == "tbw":
        return tbw_v0.env(scenario=variant)
    return junqi_v0.env(rules=variant)


def make_env(env_config: dict) -> Any:
    """The env creator RLlib calls in every env runner (``register_env``): sets this process's
    torch threads, then wraps the AEC env in RLlib's ``PettingZooEnv``."""
    import torch
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    torch.set_num_threads(int(env_config.get("threads", 1)))
    return PettingZooEnv(make_pettingzoo_env(env_config["game"], env_config["variant"]))


# ====================================================================== RL module

_LAZY: dict[str, type] = {}


def _module_class():
    """``MaskedPPOModule``, defined on first use so that this file imports without Ray (and
    without paying for RLlib's import) for ``--help`` and argument errors."""
    if "MaskedPPOModule" in _LAZY:
        return _LAZY["MaskedPPOModule"]
    import gymnasium as gym
    import numpy as np
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
    _LAZY["MaskedPPOModule"] = _MaskedPPOModule
    return _MaskedPPOModule


def __getattr__(name: str) -> Any:
    if name == "MaskedPPOModule":
        return _module_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ====================================================================== self-play


def seat_of_learner(episode_id: str) -> int:
    """``--opponent frozen``: the learner's seat in an episode (0 or 1, half the episodes
    each), a stable function of the episode id in every process."""
    return zlib.crc32(str(episode_id).encode("utf-8")) % 2


def shared_policy_mapping(agent_id, episode, **kwargs) -> str:
    """Self-play: both seats play (and train) the one shared policy."""
    return LEARNER


def frozen_opponent_mapping(agent_id, episode, **kwargs) -> str:
    """Learner against its frozen copy, seats alternating by episode."""
    return LEARNER if agent_id == AGENTS[seat_of_learner(episode.id_)] else FROZEN


def _callbacks_class():
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
    if opponent not in ("self", "frozen"):
        raise ValueError(f"opponent must be 'self' or 'frozen', got {opponent!r}")
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    register_env(ENV_NAME, make_env)
    module_class = _module_class()
    model_config = {"fcnet_hiddens": list(hidden), "fcnet_activation": "relu",
                    "vf_share_layers": False}
    modules = [LEARNER] if opponent == "self" else [LEARNER, FROZEN]
    return (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        # RLlib's env pre-check steps one *unmasked* random action, which is illegal in our
        # games (PettingZoo then warns "Illegal move made"); tests/test_rllib.py runs the same
        # check (check_multiagent_environments) on a fresh env instead.
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
        .callbacks(_callbacks_class())
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
    from tbw_envs.wrappers import make_junqi_single, make_tbw_single

    if games <= 0:
        return float("nan")
    rival: Any = opponent
    if opponent != "random":
        from agents.registry import make_agent

        rival = make_agent(opponent, seed=seed, game=game)
    env = (make_tbw_single(scenario=variant, opponent=rival, learner_seat="alternate",
                           mask_in_obs=True) if game == "tbw" else
           make_junqi_single(rules=variant, opponent=rival, learner_seat="alternate",
                             mask_in_obs=True))
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


# ====================================================================== training


def _get(result: dict, *path: str, default: Any = float("nan")) -> Any:
    for key in path:
        if not isinstance(result, dict) or key not in result:
            return default
        result = result[key]
    return result


class LearnerClock:
    """Seconds spent in ``algo.learner_group.update`` (wrapped in place). RLlib's own timers
    are exponential moving averages over iterations (coefficient 0.01, so they hardly move
    after the first iteration); this clock lets ``sample_seconds`` be one iteration's wall time
    minus its learner update: sampling, weight sync and bookkeeping."""

    def __init__(self, learner_group) -> None:
        self.seconds = 0.0
        update = learner_group.update

        def timed_update(*args, **kwargs):
            start = time.perf_counter()
            try:
                return update(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        learner_group.update = timed_update

    def lap(self) -> float:
        seconds, self.seconds = self.seconds, 0.0
        return seconds


def row_from_result(result: dict, iteration: int, seconds: float,
                    learner_seconds: float = float("nan")) -> dict[str, Any]:
    """One ``progress.csv`` row from ``algo.train()``'s result dict (RLlib 2.60 key names)."""
    runners = result.get("env_runners", {})
    learner = _get(result, "learners", LEARNER, default={})
    steps = runners.get("num_env_steps_sampled", float("nan"))
    sample_seconds = seconds - learner_seconds
    return {
        "iteration": iteration,
        "env_steps": steps,
        "env_steps_lifetime": runners.get("num_env_steps_sampled_lifetime", float("nan")),
        "episodes": runners.get("num_episodes", float("nan")),
        "episode_len_mean": runners.get("episode_len_mean", float("nan")),
        "player_0_score": runners.get("player_0_score", float("nan")),
        "learner_score": runners.get("learner_score", float("nan")),
        "illegal_endings": runners.get("illegal_endings", 0),
        "policy_loss": learner.get("policy_loss", float("nan")),
        "vf_loss": learner.get("vf_loss", float("nan")),
        "entropy": learner.get("entropy", float("nan")),
        "eval_score": float("nan"),
        "sample_seconds": sample_seconds,
        "iteration_seconds": seconds,
        "env_steps_per_second": steps / seconds if seconds > 0 else float("nan"),
        "sample_steps_per_second": steps / sample_seconds if sample_seconds > 0 else float("nan"),
    }


def _fmt(value: Any, spec: str = ".3f") -> str:
    if isinstance(value, float) and math.isnan(value):
        return "n/a"
    try:
        return format(value, spec)
    except (TypeError, ValueError):
        return str(value)


def progress_line(row: dict[str, Any], iterations: int, opponent: str, eval_opponent: str,
                  ) -> str:
    parts = [
        f"iter {row['iteration']:>{len(str(iterations))}}/{iterations}",
        f"steps {_fmt(row['env_steps'], '.0f')} (total {_fmt(row['env_steps_lifetime'], '.0f')})",
        f"{_fmt(row['env_steps_per_second'], '.0f')} steps/s "
        f"(sampling {_fmt(row['sample_steps_per_second'], '.0f')})",
        f"episodes {_fmt(row['episodes'], '.0f')}",
        f"len {_fmt(row['episode_len_mean'], '.1f')}",
        f"p0 score {_fmt(row['player_0_score'], '.2f')}",
    ]
    if opponent == "frozen":
        parts.append(f"v frozen {_fmt(row['learner_score'], '.2f')}")
    parts += [f"entropy {_fmt(row['entropy'], '.2f')}",
              f"vf loss {_fmt(row['vf_loss'], '.3f')}"]
    if not (isinstance(row["eval_score"], float) and math.isnan(row["eval_score"])):
        parts.append(f"v {eval_opponent} {row['eval_score']:.2f}")
    parts.append(f"illegal {_fmt(row['illegal_endings'], '.0f')}")
    return " | ".join(parts)


def plot_learning_curve(rows: list[dict[str, Any]], path: Path, title: str) -> None:
    """Four panels against env steps: evaluation score (and the learner's score against its
    frozen copy), episode length, entropy and losses, and env steps per second."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [r["env_steps_lifetime"] for r in rows]
    fig, axes = plt.subplots(2, 2, figsize=(11, 7))
    ax = axes[0][0]
    evaluated = [(xi, r["eval_score"]) for xi, r in zip(x, rows, strict=True)
                 if not math.isnan(r["eval_score"])]
    if evaluated:
        ax.plot(*zip(*evaluated, strict=True), "o-", label="score v evaluation opponent")
    if any(not math.isnan(r["learner_score"]) for r in rows):
        ax.plot(x, [r["learner_score"] for r in rows], ".-", label="score v frozen copy")
    ax.plot(x, [r["player_0_score"] for r in rows], ".:", label="player_0 score (self-play)")
    ax.set_ylim(-0.05, 1.05)
    ax.set_ylabel("score (win 1, draw 0.5)")
    ax.legend(fontsize=8)
    axes[0][1].plot(x, [r["episode_len_mean"] for r in rows], ".-")
    axes[0][1].set_ylabel("episode length (plies)")
    ax = axes[1][0]
    ax.plot(x, [r["entropy"] for r in rows], ".-", label="entropy")
    ax.plot(x, [r["policy_loss"] for r in rows], ".-", label="policy loss")
    ax.plot(x, [r["vf_loss"] for r in rows], ".-", label="value loss")
    ax.legend(fontsize=8)
    ax = axes[1][1]
    ax.plot(x, [r["env_steps_per_second"] for r in rows], ".-", label="whole iteration")
    ax.plot(x, [r["sample_steps_per_second"] for r in rows], ".-", label="sampling only")
    ax.set_ylabel("env steps / s")
    ax.legend(fontsize=8)
    for ax in axes.flat:
        ax.set_xlabel("env steps")
        ax.grid(alpha=0.3)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


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
    from agents.arena import connect_ray

    threads_env = {name: str(threads) for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    num_cpus = max(os.cpu_count() or 1, num_env_runners) if address == "local" else None
    return connect_ray(address, num_cpus=num_cpus, runtime_env={"env_vars": threads_env})


def train(game: str = "tbw", variant: str | None = None, iterations: int = 1,
          num_env_runners: int = 0, address: str = "local", out: str | Path | None = None,
          opponent: str = "self", freeze_every: int = 5, eval_games: int = 10,
          eval_opponent: str = "random", eval_every: int = 1, checkpoint_every: int = 0,
          threads: int = 1, num_envs_per_env_runner: int = 4, train_batch_size: int = 2000,
          minibatch_size: int = 256, num_epochs: int = 4, lr: float = 3e-4,
          gamma: float = 0.99, entropy_coeff: float = 0.01,
          hidden: tuple[int, ...] = (256, 256), seed: int = 0, command: str | None = None,
          verbose: bool = True) -> dict[str, Any]:
    """Train ``iterations`` PPO iterations; write ``progress.csv``, ``learning_curve.png``,
    checkpoints and ``summary.json`` to ``out``; return the summary."""
    variant = default_variant(game) if variant is None else str(variant)
    check_game(game, variant)
    check_ray_address(address)
    limits = (("iterations", iterations, 1), ("num_env_runners", num_env_runners, 0),
              ("freeze_every", freeze_every, 1), ("eval_games", eval_games, 0),
              ("eval_every", eval_every, 1), ("checkpoint_every", checkpoint_every, 0),
              ("threads", threads, 1), ("num_envs_per_env_runner", num_envs_per_env_runner, 1),
              ("train_batch_size", train_batch_size, 1), ("minibatch_size", minibatch_size, 1),
              ("num_epochs", num_epochs, 1))
    for name, value, low in limits:
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    if opponent not in ("self", "frozen"):
        raise ValueError(f"opponent must be 'self' or 'frozen', got {opponent!r}")
    if eval_games and eval_opponent != "random":
        from agents.registry import make_agent

        make_agent(eval_opponent, seed=0, game=game)  # a bad spec fails here, not mid-run
    ray = import_rllib()
    import torch

    torch.set_num_threads(threads)
    out = Path(out) if out is not None else (
        ROOT / "runs" / f"rllib-{game}-{time.strftime('%Y%m%d-%H%M%S')}")
    out.mkdir(parents=True, exist_ok=True)
    if __name__ != "__main__":  # imported (tests): ship this module's code to the workers
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    started = connect(address, num_env_runners, threads)
    rows: list[dict[str, Any]] = []
    algo = None
    try:
        config = build_config(
            game, variant, num_env_runners=num_env_runners,
            num_envs_per_env_runner=num_envs_per_env_runner, opponent=opponent,
            train_batch_size=train_batch_size, minibatch_size=minibatch_size,
            num_epochs=num_epochs, lr=lr, gamma=gamma, entropy_coeff=entropy_coeff,
            hidden=hidden, seed=seed, threads=threads)
        algo = config.build_algo()
        if opponent == "frozen":
            refresh_frozen(algo)
        clock = LearnerClock(algo.learner_group)
        runner_nodes = len(set(algo.env_runner_group.foreach_env_runner(
            env_runner_node, local_env_runner=False))) if num_env_runners else 0
        if verbose:
            resources = ray.cluster_resources()
            print(f"{game} ({variant}): PPO on RLlib {ray.__version__}, {num_env_runners} env "
                  f"runner(s) x {num_envs_per_env_runner} env(s) on {runner_nodes} node(s), "
                  f"opponent {opponent}, Ray at {address} with "
                  f"{resources.get('CPU', 0):.0f} CPU(s) on {len(ray.nodes())} node(s); "
                  f"output {out}", flush=True)
        for iteration in range(1, iterations + 1):
            start = time.perf_counter()
            result = algo.train()
            row = row_from_result(result, iteration, time.perf_counter() - start, clock.lap())
            if eval_games and (iteration % eval_every == 0 or iteration == iterations):
                module = algo.get_module(LEARNER)
                module.set_state(algo.learner_group.get_weights(module_ids=[LEARNER])[LEARNER])
                row["eval_score"] = evaluate(module, game, variant, eval_opponent, eval_games,
                                             seed=seed + 1000 * iteration)
            if opponent == "frozen" and iteration % freeze_every == 0:
                refresh_frozen(algo)
            rows.append(row)
            _write_progress(out / "progress.csv", rows)
            if verbose:
                print(progress_line(row, iterations, opponent, eval_opponent), flush=True)
            if checkpoint_every and iteration % checkpoint_every == 0:
                algo.save_to_path(str((out / "checkpoints" / f"iter_{iteration:04d}").resolve()))
        checkpoint = out / "checkpoint"
        algo.save_to_path(str(checkpoint.resolve()))
    finally:
        if algo is not None:
            algo.stop()
        if started:
            ray.shutdown()
    title = (f"RLlib PPO self-play, {game} {variant}, opponent {opponent}, "
             f"{num_env_runners} env runner(s)")
    plot_learning_curve(rows, out / "learning_curve.png", title)
    summary = {
        "command": command, "game": game, "variant": variant, "iterations": iterations,
        "num_env_runners": num_env_runners, "env_runner_nodes": runner_nodes,
        "address": address, "opponent": opponent,
        "env_steps": rows[-1]["env_steps_lifetime"],
        "final_eval_score": rows[-1]["eval_score"], "eval_opponent": eval_opponent,
        "illegal_endings": sum(r["illegal_endings"] for r in rows
                               if isinstance(r["illegal_endings"], (int, float))),
        "mean_env_steps_per_second": _mean([r["env_steps_per_second"] for r in rows]),
        "mean_sample_steps_per_second": _mean([r["sample_steps_per_second"] for r in rows]),
        "checkpoint": str(checkpoint), "files": ["progress.csv", "learning_curve.png",
                                                 "summary.json", "checkpoint/"],
    }
    (out / "summary.json").write_text(json.dumps(_jsonable(summary), indent=2) + "\n",
                                      encoding="utf-8")
    if verbose:
        print(f"results: {out}/ (progress.csv, learning_curve.png, summary.json, checkpoint/"
              f"{', checkpoints/' if checkpoint_every else ''})")
    summary["rows"] = rows
    return summary


def _mean(values: list[Any]) -> float:
    numbers = [v for v in values if isinstance(v, (int, float)) and not math.isnan(v)]
    return sum(numbers) / len(numbers) if numbers else float("nan")


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def _write_progress(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CURVE_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


# ====================================================================== command line


# Caps on what scales with input (the input contract): env runners are processes and envs per
# runner are game copies, so a typo like 100000 would start that many workers.
MAX_ENV_RUNNERS = 64
MAX_ENVS_PER_RUNNER = 256
MAX_COUNT = 10**9


def _int_at_least(low: int, high: int = MAX_COUNT):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text[:80]!r}"
                                             ) from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        if value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high:,}, got {value:,}")
        return value

    return parse


def _real_in(low: float, high: float, low_open: bool = False):
    """A finite decimal number in ``[low, high]`` (``(low, high]`` with ``low_open``)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text[:80]!r}") from None
        below = value <= low if low_open else value < low
        if not math.isfinite(value) or below or value > high:
            interval = f"{'(' if low_open else '['}{low:g}, {high:g}]"
            raise argparse.ArgumentTypeError(f"must be a finite number in {interval}, got "
                                             f"{text[:80]}")
        return value

    return parse


def _non_empty(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=["tbw", "junqi"], default="tbw")
    parser.add_argument("--scenario", type=_non_empty, default=None,
                        help="TBW: bundled scenario name or YAML path (default duel_5v5_8x8)")
    parser.add_argument("--rules", type=_non_empty, default=None,
                        help="Junqi: rule set name or YAML path (default ccgc)")
    parser.add_argument("--iterations", type=_int_at_least(1), default=10)
    parser.add_argument("--num-env-runners", type=_int_at_least(0, MAX_ENV_RUNNERS), default=0,
                        metavar="K",
                        help="Ray actors that step environments (0: sample in this process); "
                             "on a cluster they spread over the nodes")
    parser.add_argument("--num-envs-per-env-runner", type=_int_at_least(1, MAX_ENVS_PER_RUNNER),
                        default=4,
                        help="envs each env runner (or the driver, with K=0) steps, one "
                             "batched forward pass for all (default 4: about 4x the sampling "
                             "rate of 1, docs/benchmarks.md)")
    parser.add_argument("--address", type=ray_address, default="local",
                        help="'local' starts Ray on this machine; 'auto' joins the cluster "
                             "'ray start' set up here; ray://head:10001 connects through Ray "
                             "Client (default local)")
    parser.add_argument("--opponent", choices=["self", "frozen"], default="self",
                        help="self: both seats share the trained policy; frozen: the policy "
                             "plays a frozen copy of itself, refreshed every --freeze-every")
    parser.add_argument("--freeze-every", type=_int_at_least(1), default=5)
    parser.add_argument("--eval-games", type=_int_at_least(0), default=10,
                        help="greedy games against --eval-opponent after each --eval-every "
                             "iterations (0: none)")
    parser.add_argument("--eval-opponent", default="random",
                        help="agent spec (agents.registry): random, greedy, ...")
    parser.add_argument("--eval-every", type=_int_at_least(1), default=1)
    parser.add_argument("--checkpoint-every", type=_int_at_least(0), default=0,
                        help="also checkpoint every N iterations (0: only at the end)")
    parser.add_argument("--train-batch-size", type=_int_at_least(1), default=2000)
    parser.add_argument("--minibatch-size", type=_int_at_least(1), default=256)
    parser.add_argument("--num-epochs", type=_int_at_least(1), default=4)
    parser.add_argument("--lr", type=_real_in(0.0, 1.0, low_open=True), default=3e-4)
    parser.add_argument("--gamma", type=_real_in(0.0, 1.0), default=0.99)
    parser.add_argument("--entropy-coeff", type=_real_in(0.0, 1.0), default=0.01)
    parser.add_argument("--hidden", type=_int_at_least(1, 65536), nargs="+", default=[256, 256])
    parser.add_argument("--threads", type=_int_at_least(1, 256), default=1,
                        help="torch threads per process (default 1)")
    parser.add_argument("--seed", type=_int_at_least(0, 2**31 - 1), default=0)
    parser.add_argument("--out", type=_non_empty, default=None,
                        help="output folder (default runs/rllib-<game>-<YYYYmmdd-HHMMSS>/)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    if args.game == "tbw" and args.rules is not None:
        parser.error("--rules is for --game junqi; TBW takes --scenario")
    if args.game == "junqi" and args.scenario is not None:
        parser.error("--scenario is for --game tbw; Junqi takes --rules")
    if args.minibatch_size > args.train_batch_size:
        parser.error(f"--minibatch-size {args.minibatch_size} is larger than --train-batch-size "
                     f"{args.train_batch_size}")
    if args.out is not None and Path(args.out).exists() and (
            not Path(args.out).is_dir() or any(Path(args.out).iterdir())):
        parser.error(f"--out {args.out!r:.200} exists and is not an empty folder; give a new one")
    variant = (args.scenario if args.game == "tbw" else args.rules) or default_variant(args.game)
    try:
        check_game(args.game, variant)
        if args.eval_games and args.eval_opponent != "random":
            from agents.registry import make_agent

            make_agent(args.eval_opponent, seed=0, game=args.game)
        import_rllib()
    except (ValueError, ImportError) as exc:
        parser.error(str(exc))
    train(args.game, variant, iterations=args.iterations, num_env_runners=args.num_env_runners,
          address=args.address, out=args.out, opponent=args.opponent,
          freeze_every=args.freeze_every, eval_games=args.eval_games,
          eval_opponent=args.eval_opponent, eval_every=args.eval_every,
          checkpoint_every=args.checkpoint_every, threads=args.threads,
          num_envs_per_env_runner=args.num_envs_per_env_runner,
          train_batch_size=args.train_batch_size, minibatch_size=args.minibatch_size,
          num_epochs=args.num_epochs, lr=args.lr, gamma=args.gamma,
          entropy_coeff=args.entropy_coeff, hidden=tuple(args.hidden), seed=args.seed,
          command=shlex.join(["python", "scripts/train_rllib.py", *argv]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
