"""What the weight tuners of both games share (``agents.tbw.tuning``, ``agents.junqi.tuning``):
the learning curve, the training loop with its evaluation points, and resumable checkpoints.

A game's tuner subclasses ``WeightTuner`` and supplies ``warm_up()`` (makes ``self.learner``),
``play_episode(episode) -> mean |TD error|`` and ``_record_evaluation()``, plus the class
attributes ``CHECKPOINT_FORMAT``, ``CONFIG_CLASS`` and ``GAME`` (for error messages). Its
``__init__`` sets ``config``, and calls ``super().__init__()`` for ``learner``, ``episode`` and
``history``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from agents.linear_q import LinearQ


@dataclass
class TuningHistory:
    """The learning curve: per evaluation point, the episode, the score against the fixed
    opponent (TBW: overall and per scenario) and the weights; per episode, the mean absolute TD
    error."""

    evaluations: list[dict] = field(default_factory=list)
    td_errors: list[float] = field(default_factory=list)


class WeightTuner:
    CHECKPOINT_FORMAT: str
    CONFIG_CLASS: type
    GAME: str

    def __init__(self) -> None:
        self.learner: LinearQ | None = None
        self.episode = 0
        self.history = TuningHistory()

    def warm_up(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def play_episode(self, episode: int) -> float:  # pragma: no cover - interface
        raise NotImplementedError

    def _record_evaluation(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    # -- the run
    def run(self, on_episode: Callable[[int, float], None] | None = None,
            checkpoint: Path | None = None, until: int | None = None) -> None:
        """Train up to ``config.episodes`` (or stop at episode ``until``, as an interrupted run
        would), saving ``checkpoint`` at every evaluation point and at the end."""
        stop = self.config.episodes if until is None else min(until, self.config.episodes)
        if self.learner is None:
            self.warm_up()
        if self.episode == 0 and not self.history.evaluations:
            self._record_evaluation()
        while self.episode < stop:
            error = self.play_episode(self.episode)
            self.episode += 1
            self.history.td_errors.append(error)
            if self.config.eval_every and self.episode % self.config.eval_every == 0:
                self._record_evaluation()
                if checkpoint is not None:
                    self.save_checkpoint(checkpoint)
            if on_episode is not None:
                on_episode(self.episode, error)
        if checkpoint is not None:
            self.save_checkpoint(checkpoint)

    # -- resuming
    def save_checkpoint(self, path: Path) -> None:
        data = {
            "format": self.CHECKPOINT_FORMAT, "config": asdict(self.config),
            "episode": self.episode,
            "learner": self.learner.state_dict() if self.learner is not None else None,
            "history": asdict(self.history),
        }  # fmt: skip
        path = Path(path)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(data), encoding="utf-8")
        temporary.replace(path)  # a crash mid-write never leaves a half checkpoint

    @classmethod
    def from_checkpoint(cls, path: Path, episodes: int | None = None):
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if data.get("format") != cls.CHECKPOINT_FORMAT:
            raise ValueError(
                f"{path}: not a {cls.GAME} tuning checkpoint ({data.get('format')!r})")
        config_fields = data["config"]
        if episodes is not None:
            config_fields["episodes"] = episodes
        tuner = cls(cls.CONFIG_CLASS(**config_fields))
        tuner.episode = int(data["episode"])
        if data["learner"] is not None:
            tuner.learner = LinearQ.from_state_dict(data["learner"])
        tuner.history = TuningHistory(**data["history"])
        return tuner
