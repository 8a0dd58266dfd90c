"""Stable-Baselines3 callbacks of a MaskablePPO training run (``scripts/train_ppo.py``):
checkpoints that also write a policy file, and the training loop's progress bar, self-play
snapshots and periodic evaluations. Imports stable-baselines3 (the ``train`` extra)."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback

from agents.training.pools import SnapshotPool
from agents.training.training import PeriodicEvaluation, save_model_and_policy

__all__ = ["PolicyCheckpoints", "TrainingProgress"]

POSTFIX_EVERY = 50  # callback calls between progress-bar postfix updates


class PolicyCheckpoints(CheckpointCallback):
    """SB3's checkpoints (``<prefix>_<steps>_steps.zip``), each with its policy file beside it
    (``save_model_and_policy``)."""

    def __init__(self, save_freq: int, save_path: str, name_prefix: str,
                 game_info: dict[str, Any], source: str | None = None):
        super().__init__(save_freq=save_freq, save_path=save_path, name_prefix=name_prefix)
        self.game_info = game_info
        self.source = source

    def _on_step(self) -> bool:
        if self.n_calls % self.save_freq == 0:
            save_model_and_policy(self.model,
                                  Path(self._checkpoint_path(extension="zip")).with_suffix(""),
                                  self.game_info, self.num_timesteps, source=self.source)
        return True


class TrainingProgress(BaseCallback):
    """Progress bar (tqdm, if installed), self-play snapshots into ``pool`` every
    ``snapshot_every`` steps, and every ``eval_every`` steps (0: never) a round of
    ``evaluations`` followed by ``after_evaluation()`` (e.g. redrawing the learning curve)."""

    def __init__(self, total_steps: int, description: str, show_bar: bool = True,
                 pool: SnapshotPool | None = None, snapshot_every: int | None = None,
                 evaluations: PeriodicEvaluation | None = None, eval_every: int = 0,
                 after_evaluation: Callable[[], Any] | None = None):
        super().__init__()
        self.total_steps = total_steps
        self.description = description
        self.show_bar = show_bar
        self.pool = pool
        self.snapshot_every = snapshot_every
        self.evaluations = evaluations
        self.eval_every = eval_every
        self.after_evaluation = after_evaluation
        self.bar = None
        self.next_snapshot = snapshot_every
        self.next_eval = eval_every if eval_every else math.inf
        self.last_scores: dict[str, float] = {}
        self.done = 0

    def _on_training_start(self) -> None:
        if self.show_bar:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=self.total_steps, unit="step", smoothing=0.05,
                                desc=self.description)
            except ImportError:  # a nicety; pip install tqdm for it
                self.bar = None

    def _on_step(self) -> bool:
        steps = self.num_timesteps
        if self.pool is not None and steps >= self.next_snapshot:
            self.pool.add(self.model.policy, steps)
            self.next_snapshot += self.snapshot_every
        if steps >= self.next_eval:
            for row in self.evaluations.run(self.model.policy, steps):
                self.last_scores[row["opponent"]] = row["score"]
            if self.after_evaluation is not None:
                self.after_evaluation()
            self.next_eval += self.eval_every
        if self.bar is not None:
            self.bar.update(steps - self.done)
            self.done = steps
            if self.n_calls % POSTFIX_EVERY == 0:
                self._show_postfix()
        return True

    def _show_postfix(self) -> None:
        """Mean return and win rate of the recent episodes, the latest evaluation scores."""
        buffer = self.model.ep_info_buffer
        postfix = {}
        if buffer:
            rewards = [e["r"] for e in buffer]
            postfix["return"] = f"{sum(rewards) / len(rewards):+.2f}"
            postfix["win"] = f"{sum(r > 0 for r in rewards) / len(rewards):.2f}"
        for name, score in self.last_scores.items():
            postfix[f"vs {name[:10]}"] = f"{score:.2f}"
        self.bar.set_postfix(postfix, refresh=False)

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()
