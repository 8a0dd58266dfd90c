"""A multi-agent PPO run on RLlib (``scripts/train_rllib.py``): ``train`` runs the iterations
and writes ``progress.csv`` (one row per iteration, ``row_from_result``), ``learning_curve.png``,
checkpoints and ``summary.json``; the pieces it puts together are in ``agents.training.rllib``.

Ray is imported inside ``train`` only, after every argument is checked.
"""

from __future__ import annotations

import csv
import json
import math
import time
from pathlib import Path
from typing import Any

from agents.training import rllib
from agents.training.rllib import (
    LEARNER,
    build_config,
    check_training_arguments,
    connect,
    env_runner_node,
    evaluate,
    import_rllib,
    refresh_frozen,
)
from tbw_envs.games import get_game

__all__ = ["CURVE_COLUMNS", "LearnerClock", "plot_learning_curve", "progress_line",
           "row_from_result", "train"]

PROJECT_ROOT = Path(__file__).resolve().parents[2]  # the default output goes to its runs/
CURVE_COLUMNS = [
    "iteration", "env_steps", "env_steps_lifetime", "episodes", "episode_len_mean",
    "player_0_score", "learner_score", "illegal_endings", "policy_loss", "vf_loss", "entropy",
    "eval_score", "sample_seconds", "iteration_seconds", "env_steps_per_second",
    "sample_steps_per_second",
]


# ====================================================================== progress


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


# ====================================================================== training


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
    variant = get_game(game).default_variant if variant is None else str(variant)
    counts = {"iterations": (iterations, 1), "num_env_runners": (num_env_runners, 0),
              "freeze_every": (freeze_every, 1), "eval_games": (eval_games, 0),
              "eval_every": (eval_every, 1), "checkpoint_every": (checkpoint_every, 0),
              "threads": (threads, 1), "num_envs_per_env_runner": (num_envs_per_env_runner, 1),
              "train_batch_size": (train_batch_size, 1), "minibatch_size": (minibatch_size, 1),
              "num_epochs": (num_epochs, 1)}
    check_training_arguments(game, variant, address, opponent, eval_games, eval_opponent, counts)
    ray = import_rllib()
    import torch

    torch.set_num_threads(threads)
    out = Path(out) if out is not None else (
        PROJECT_ROOT / "runs" / f"rllib-{game}-{time.strftime('%Y%m%d-%H%M%S')}")
    out.mkdir(parents=True, exist_ok=True)
    # The env creator, module, mappings and callbacks go to the workers by value, as from a
    # script run as __main__: a worker needs only tbw_envs and agents importable.
    ray.cloudpickle.register_pickle_by_value(rllib)
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
