"""What the weight tuners of both games share (``agents.training.tbw_tuning``,
``agents.training.junqi_tuning``): the learning curve, the training loop with its evaluation
points, resumable checkpoints, and the checks of the tuning configs.

A game's tuner subclasses ``WeightTuner`` and supplies ``warm_up()`` (makes ``self.learner``),
``play_episode(episode) -> mean |TD error|``, ``_record_evaluation()`` and
``_check_learned_weights()``, plus the class attributes ``CHECKPOINT_FORMAT``,
``CONFIG_CLASS``, ``GAME`` (the game's description) and ``LEARNER_FEATURES`` (the learner's
feature names, in order). Its ``__init__`` sets ``config``, and calls ``super().__init__()``
for ``learner``, ``episode`` and ``history``.

Checkpoints are JSON files written by ``save_checkpoint``. ``from_checkpoint`` reads one
through the project's text reader (UTF-8, a size limit) and checks every field before any game
is played: the format, the config (the config class's own checks), the episode (an integer in
``[0, episodes]``), the learner (finite parameters, positive scales, the tuner's feature names)
and the history (one finite TD error per episode played, well-formed evaluation points).
Every error is a ``CheckpointError`` naming the file and the field.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from agents.registry import make_agent
from agents.training.linear_q import LinearQ
from tbw_envs.core.contract import is_integer, is_real_number, kind_of, short_list, short_repr
from tbw_envs.core.yaml_loader import ConfigError, read_text
from tbw_envs.description import Game

__all__ = [
    "CheckpointError", "TuningConfigError", "TuningHistory", "WeightTuner", "check_agent_specs",
    "check_epsilons", "check_int", "check_names", "check_real", "check_text",
]  # fmt: skip

# Checkpoints hold one TD error per episode, so they outgrow the 256 KiB of config files.
MAX_CHECKPOINT_BYTES = 64 * 1024 * 1024
# Ranges shared by both games' tuning configs (documented in scripts/tune_weights.py --help).
MAX_EPISODES = 1_000_000
MAX_GAMES = 100_000  # eval_games, warmup_games
MAX_PLIES = 10_000  # random opening plies
MAX_REWARD = 1e6  # the evaluations' weights stay within 1e6 too
MAX_CONFIG_TEXT_CHARS = 1_000  # each text field: an agent spec, a name or a path


class TuningConfigError(ValueError):
    """A tuning config value out of its range; ``field`` names the config field."""

    def __init__(self, field_name: str, message: str):
        super().__init__(message)
        self.field = field_name


class CheckpointError(ConfigError):
    """A tuning checkpoint that cannot be resumed; the message names the file and field.
    ``field`` is ``"episodes"`` when the episodes asked for on resuming are at fault (fewer
    than the run played, or out of range), else None."""

    def __init__(self, message: str, field_name: str | None = None):
        super().__init__(message)
        self.field = field_name


def linear_epsilon(episode: int, episodes: int, start: float, end: float) -> float:
    """The exploration rate of ``episode``: from ``start`` at the first episode to ``end`` at
    the last, in a straight line."""
    fraction = min(1.0, episode / max(1, episodes - 1))
    return start + fraction * (end - start)


def check_int(name: str, value, low: int, high: int, what: str = "a non-negative integer"):
    """``value`` as a plain int in ``[low, high]`` (never a bool, a float or a string)."""
    if not is_integer(value) or not low <= value <= high:
        raise TuningConfigError(name, f"{name} must be {what} in [{low}, {high}], got "
                                      f"{kind_of(value)} {short_repr(value)}")
    return int(value)


def check_real(name: str, value, low: float, high: float, *, open_low: bool = False,
               what: str | None = None) -> float:
    """``value`` as a finite float in ``[low, high]`` (``(low, high]`` with ``open_low``);
    the message says "``name`` must be ``what`` in ..." or, without ``what``, "must lie in"."""
    ok = is_real_number(value)
    if ok:
        try:
            number = float(value)
        except OverflowError:  # an int too large for a float
            ok = False
        else:
            ok = math.isfinite(number) and (low < number if open_low else low <= number) \
                and number <= high
    if not ok:
        interval = f"({low:g}, {high:g}]" if open_low else f"[{low:g}, {high:g}]"
        rule = "lie in" if what is None else f"be {what} in"
        raise TuningConfigError(name, f"{name} must {rule} {interval}, got "
                                      f"{kind_of(value)} {short_repr(value)}")
    return number


def check_text(name: str, value, max_chars: int = MAX_CONFIG_TEXT_CHARS) -> str:
    """A non-empty string of at most ``max_chars`` characters."""
    if not isinstance(value, str) or not value.strip() or len(value) > max_chars:
        raise TuningConfigError(name, f"{name} must be a non-empty string of at most "
                                      f"{max_chars} characters, got {kind_of(value)} "
                                      f"{short_repr(value)}")
    return value


def check_names(name: str, value, empty: str) -> tuple[str, ...]:
    """A non-empty list or tuple of non-empty strings, as a tuple; ``empty`` is the message
    for an empty one. A bare string is refused (it would split into its letters)."""
    if not isinstance(value, (list, tuple)):
        raise TuningConfigError(name, f"{name} must be a list of strings, got {kind_of(value)} "
                                      f"{short_repr(value)}")
    if not value:
        raise TuningConfigError(name, empty)
    for item in value:
        check_text(name, item)
    return tuple(value)


def check_epsilons(start, end) -> tuple[float, float]:
    start = check_real("epsilon_start", start, 0.0, 1.0)
    end = check_real("epsilon_end", end, 0.0, 1.0)
    if not end <= start:
        raise TuningConfigError("epsilon_end", "need 0 <= epsilon_end <= epsilon_start <= 1, "
                                               f"got {start} and {end}")
    return start, end


def check_agent_specs(config, game: str) -> None:
    """Build every opponent of ``config`` once (``opponents`` and ``eval_opponent``; ``self``
    is the learner), so a spec that cannot be built fails before any game is played."""
    for name, specs in (("opponents", config.opponents), ("eval_opponent",
                                                           (config.eval_opponent,))):
        for spec in dict.fromkeys(specs):
            if spec == "self":
                continue
            try:
                make_agent(spec, seed=0, game=game)
            except (ValueError, TypeError, OSError, ImportError) as exc:
                raise TuningConfigError(
                    name, f"{name}: cannot build the agent {short_repr(spec)}: {exc}") from None


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
    GAME: Game
    LEARNER_FEATURES: tuple[str, ...]

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

    def _check_learned_weights(self) -> None:  # pragma: no cover - interface
        """Raise ValueError if the learner's weights do not make a valid evaluation."""
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
        # allow_nan=False: never write a checkpoint that from_checkpoint would refuse.
        temporary.write_text(json.dumps(data, allow_nan=False), encoding="utf-8")
        temporary.replace(path)  # a crash mid-write never leaves a half checkpoint

    @classmethod
    def from_checkpoint(cls, path: Path, episodes: int | None = None):
        """The tuner saved in ``path``, every field checked (``CheckpointError`` naming the
        file and the field); ``episodes`` raises the run's target (at least the episodes
        already played)."""
        source = str(path)
        data = _read_json(path)

        def fail(message: str, field_name: str | None = None):
            raise CheckpointError(f"{source}: {message}", field_name) from None

        if not isinstance(data, dict):
            fail(f"the top level must be a JSON object, got {kind_of(data)} {short_repr(data)}")
        expected = {"format", "config", "episode", "learner", "history"}
        if set(data) - expected:
            fail(f"unknown field(s) {short_list(set(data) - expected)}; a checkpoint has "
                 f"{sorted(expected)}")
        if expected - set(data):
            fail(f"missing field(s) {sorted(expected - set(data))}")
        if data["format"] != cls.CHECKPOINT_FORMAT:
            fail(f"format: not a {cls.GAME.title} tuning checkpoint (format "
                 f"{short_repr(data['format'])}, expected {cls.CHECKPOINT_FORMAT!r})")
        config_fields = data["config"]
        if not isinstance(config_fields, dict):
            fail(f"config must be a JSON object, got {kind_of(config_fields)} "
                 f"{short_repr(config_fields)}")
        known = {f.name for f in fields(cls.CONFIG_CLASS)}
        if set(config_fields) - known:
            fail(f"config: unknown field(s) {short_list(set(config_fields) - known)}")
        try:
            config = cls.CONFIG_CLASS(**config_fields)
        except (ValueError, TypeError) as exc:
            fail(_in_config(exc))
        episode = data["episode"]
        if not is_integer(episode) or not 0 <= episode <= config.episodes:
            fail(f"episode must be an integer in [0, {config.episodes}] (the run's episodes), "
                 f"got {kind_of(episode)} {short_repr(episode)}")
        episode = int(episode)
        if episodes is not None:
            if is_integer(episodes) and episodes < episode:
                fail(f"the run has already played {episode} episodes; --episodes must be at "
                     f"least that, got {episodes}", "episodes")
            config_fields = dict(config_fields, episodes=episodes)
            try:
                config = cls.CONFIG_CLASS(**config_fields)
            except TuningConfigError as exc:
                fail(f"{exc}", exc.field)
        learner = None
        if data["learner"] is None:
            if episode:
                fail(f"learner is null, but {episode} episodes were played")
        else:
            try:
                learner = LinearQ.from_state_dict(data["learner"], source="learner",
                                                  names=cls.LEARNER_FEATURES)
            except ValueError as exc:
                fail(str(exc))
        history = _check_history(data["history"], episode, cls.LEARNER_FEATURES, fail)
        try:
            tuner = cls(config)
        except ValueError as exc:
            fail(_in_config(exc))
        tuner.episode = episode
        tuner.learner = learner
        tuner.history = history
        if learner is not None:
            try:
                tuner._check_learned_weights()
            except ValueError as exc:
                fail(f"learner: the learned weights do not make a valid evaluation: {exc}")
        return tuner


def _in_config(exc: Exception) -> str:
    """``config.<field> ...`` for a message that starts with the field's name, else
    ``config: ...``."""
    message = str(exc)
    field_name = getattr(exc, "field", None)
    if field_name and message.startswith(field_name):
        return f"config.{message}"
    return f"config: {message}"


def _read_json(path):
    """The JSON value of a checkpoint file: UTF-8, at most ``MAX_CHECKPOINT_BYTES``, no NaN
    or Infinity, no duplicate keys."""
    source = str(path)
    text = read_text(path, error=CheckpointError, max_bytes=MAX_CHECKPOINT_BYTES)

    def constant(name):
        raise ValueError(f"{name} is not a number a checkpoint may hold")

    def unique(pairs):
        seen = {}
        for key, value in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {short_repr(key)}")
            seen[key] = value
        return seen

    try:
        return json.loads(text, parse_constant=constant, object_pairs_hook=unique)
    except json.JSONDecodeError as exc:
        raise CheckpointError(f"{source}: not valid JSON: {exc}") from None
    except ValueError as exc:
        raise CheckpointError(f"{source}: not a valid checkpoint: {exc}") from None
    except RecursionError:
        raise CheckpointError(f"{source}: not a valid checkpoint: nested too deeply") from None


def _finite(value) -> bool:
    if not is_real_number(value):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _check_history(history, episode: int, names: tuple[str, ...], fail) -> TuningHistory:
    """A ``TuningHistory`` from a checkpoint's ``history`` field, checked."""
    if not isinstance(history, dict) or set(history) != {"evaluations", "td_errors"}:
        fail("history must be a JSON object with exactly 'evaluations' and 'td_errors', got "
             f"{short_repr(history)}")
    td_errors = history["td_errors"]
    if not isinstance(td_errors, list) or len(td_errors) != episode:
        fail(f"history.td_errors must be a list of {episode} numbers (one per episode "
             f"played), got {kind_of(td_errors)} {short_repr(td_errors)}")
    for index, value in enumerate(td_errors):
        if not _finite(value) or value < 0:
            fail(f"history.td_errors[{index}] must be a finite number >= 0 (a mean absolute "
                 f"TD error), got {kind_of(value)} {short_repr(value)}")
    evaluations = history["evaluations"]
    if not isinstance(evaluations, list):
        fail(f"history.evaluations must be a list, got {kind_of(evaluations)} "
             f"{short_repr(evaluations)}")
    for index, point in enumerate(evaluations):
        where = f"history.evaluations[{index}]"
        required, optional = {"episode", "score", "weights"}, {"scenarios"}
        if not isinstance(point, dict) or not required <= set(point) <= required | optional:
            fail(f"{where} must be a JSON object with 'episode', 'score' and 'weights' (and "
                 f"optionally 'scenarios'), got {short_repr(point)}")
        at = point["episode"]
        if not is_integer(at) or not 0 <= at <= episode:
            fail(f"{where}.episode must be an integer in [0, {episode}], got {kind_of(at)} "
                 f"{short_repr(at)}")
        scores = [("score", point["score"])]
        scenarios = point.get("scenarios", {})
        if not isinstance(scenarios, dict):
            fail(f"{where}.scenarios must be a JSON object, got {short_repr(scenarios)}")
        scores += [(f"scenarios[{name!r}]", value) for name, value in scenarios.items()]
        for name, value in scores:
            if not _finite(value) or not 0.0 <= value <= 1.0:
                fail(f"{where}.{name} must be a score in [0, 1], got {kind_of(value)} "
                     f"{short_repr(value)}")
        weights = point["weights"]
        if not isinstance(weights, dict) or set(weights) != set(names):
            fail(f"{where}.weights must map exactly {list(names)} to numbers, got "
                 f"{short_repr(weights)}")
        for name, value in weights.items():
            if not _finite(value):
                fail(f"{where}.weights.{name} must be a finite number, got {kind_of(value)} "
                     f"{short_repr(value)}")
    return TuningHistory(evaluations=evaluations, td_errors=td_errors)
