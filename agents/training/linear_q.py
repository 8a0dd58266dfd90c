"""Linear action values ``Q(s, a) = w . phi(s, a)``, learned by semi-gradient Q-learning.

The weight tuners of both games share it (``agents.training.weight_tuner``). Features come in very
different units (expected piece values in the hundreds next to alarms in [0, 1]), so one step
size cannot suit them all in raw units. Learning therefore runs on scaled features
``x = phi / scale`` with parameters ``theta = w * scale``: ``theta . x == w . phi``, so the
values and the greedy policy are the same, and the weights the learner reports are always in the
features' own units. The scales are fixed when the learner is made (typically each feature's
size when active, over a warm-up sample), never adapted during learning, so an update's effect
does not drift.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from tbw_envs.core.contract import is_integer, is_real_number, short_list, short_repr


class LinearQ:
    """``Q = w . phi``; ``td_update(phi, target)`` moves ``Q(phi)`` toward ``target``."""

    def __init__(self, weights: Sequence[float], scales: Sequence[float],
                 step_size: float = 0.01, names: Sequence[str] | None = None):
        w = _vector(weights, "weights")
        s = _vector(scales, "scales")
        if w.shape != s.shape:
            raise ValueError(f"{w.size} weights but {s.size} scales")
        if not np.all(np.isfinite(w)):
            raise ValueError(f"weights must be finite, got {short_repr(w.tolist())}")
        if not np.all(np.isfinite(s)) or np.any(s <= 0):
            raise ValueError(f"scales must be positive and finite, got {short_repr(s.tolist())}")
        if not (is_real_number(step_size) and _finite(step_size) and step_size > 0):
            raise ValueError(f"step_size must be positive and finite, got {short_repr(step_size)}")
        if names is not None and len(names) != w.size:
            raise ValueError(f"{len(names)} names for {w.size} weights")
        self.names = tuple(names) if names is not None else None
        self.scales = s
        self.theta = w * s
        self.step_size = float(step_size)

    @property
    def weights(self) -> np.ndarray:
        return self.theta / self.scales

    def value(self, features: Sequence[float]) -> float:
        return float(np.dot(self.weights, features))

    def values(self, feature_matrix: np.ndarray) -> np.ndarray:
        """``Q`` of every row of a ``(moves, features)`` matrix."""
        return np.asarray(feature_matrix, dtype=float) @ self.weights

    def td_update(self, features: Sequence[float], target: float) -> float:
        """One semi-gradient step on ``(target - Q(phi))^2 / 2``; returns the TD error."""
        x = np.asarray(features, dtype=float) / self.scales
        error = float(target) - float(np.dot(self.theta, x))
        if not np.isfinite(error):
            raise FloatingPointError(
                f"TD error {error} (target {target}): the learner diverged; lower the step size"
            )
        self.theta = self.theta + self.step_size * error * x
        return error

    def state_dict(self) -> dict:
        return {"theta": self.theta.tolist(), "scales": self.scales.tolist(),
                "step_size": self.step_size, "names": list(self.names or ())}

    @classmethod
    def from_state_dict(cls, data: dict, source: str = "learner",
                        names: Sequence[str] | None = None) -> LinearQ:
        """The learner ``state_dict()`` saved, every field checked: ``theta`` finite,
        ``scales`` positive and finite (as many), ``step_size`` positive, ``names`` strings
        (``names`` given: exactly those). Errors are ValueErrors naming ``source.field``."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{source} must be a mapping, got {type(data).__name__} "
                             f"{short_repr(data)}")
        expected = {"theta", "scales", "step_size", "names"}
        if set(data) - expected or not {"theta", "scales", "step_size"} <= set(data):
            raise ValueError(f"{source} must have exactly the fields {sorted(expected)} "
                             f"('names' optional), got {short_list(data)}")
        size = len(names) if names is not None else None
        theta = _checked_list(data["theta"], f"{source}.theta", size)
        scales = _checked_list(data["scales"], f"{source}.scales", len(theta))
        if not all(x > 0 for x in scales):
            raise ValueError(f"{source}.scales must all be positive, got {short_repr(scales)}")
        step_size = data["step_size"]
        if not (is_real_number(step_size) and _finite(step_size) and step_size > 0):
            raise ValueError(f"{source}.step_size must be a positive finite number, got "
                             f"{short_repr(step_size)}")
        saved = data.get("names") or None
        if saved is not None and (not isinstance(saved, (list, tuple))
                                  or not all(isinstance(n, str) for n in saved)
                                  or len(saved) != len(theta)):
            raise ValueError(f"{source}.names must be a list of {len(theta)} strings, got "
                             f"{short_repr(saved)}")
        if names is not None and saved is not None and tuple(saved) != tuple(names):
            raise ValueError(f"{source}.names must be {list(names)}, got {short_repr(saved)}")
        theta_array = np.asarray(theta, dtype=float)
        scales_array = np.asarray(scales, dtype=float)
        with np.errstate(over="ignore"):
            weights = theta_array / scales_array
        if not np.all(np.isfinite(weights)):
            raise ValueError(f"{source}: theta / scales overflows, got theta "
                             f"{short_repr(theta)} and scales {short_repr(scales)}")
        learner = cls(weights, scales_array, float(step_size), saved)
        learner.theta = theta_array  # exact, no round trip
        return learner


def feature_scales(samples: np.ndarray, floor: float = 1e-3) -> np.ndarray:
    """Each feature's typical size when it is active: the root-mean-square of its non-zero
    values over the rows of ``samples`` (1 for a feature never seen non-zero). Sparse features
    (an alarm that fires on one move in a hundred) would get a tiny overall RMS, and dividing by
    it would turn their rare non-zero values into huge steps."""
    samples = np.asarray(samples, dtype=float)
    if samples.ndim != 2 or samples.shape[0] == 0:
        raise ValueError(f"need a non-empty (rows, features) sample, got shape {samples.shape}")
    scales = np.ones(samples.shape[1])
    for column in range(samples.shape[1]):
        active = samples[:, column][samples[:, column] != 0]
        if active.size:
            scales[column] = max(float(np.sqrt(np.mean(active**2))), floor)
    return scales


def _finite(value) -> bool:
    try:
        return math.isfinite(float(value))
    except OverflowError:  # an int too large for a float
        return False


def _vector(values, what: str) -> np.ndarray:
    """A 1-D float array from a sequence or array of real numbers (no strings, no bools)."""
    if isinstance(values, np.ndarray):
        if values.dtype.kind not in "iuf":
            raise ValueError(f"{what} must be numbers, got an array of dtype {values.dtype}")
        return values.astype(float).ravel()
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"{what} must be a sequence of numbers, got {type(values).__name__} "
                         f"{short_repr(values)}")
    for value in values:
        # NaN and inf pass here (the caller says "must be finite"); ints too big for a float
        # do not.
        if not is_real_number(value) or (is_integer(value) and not _finite(value)):
            raise ValueError(f"{what} must be numbers, got {type(value).__name__} "
                             f"{short_repr(value)}")
    return np.asarray(values, dtype=float).ravel()


def _checked_list(values, field: str, size: int | None) -> list[float]:
    """A list of ``size`` (any, if None) finite real numbers, as floats."""
    if not isinstance(values, (list, tuple)) or (size is not None and len(values) != size):
        count = "a list of numbers" if size is None else f"a list of {size} numbers"
        raise ValueError(f"{field} must be {count}, got {type(values).__name__} "
                         f"{short_repr(values)}")
    for index, value in enumerate(values):
        if not is_real_number(value) or not _finite(value):
            raise ValueError(f"{field}[{index}] must be a finite number, got "
                             f"{type(value).__name__} {short_repr(value)}")
    return [float(v) for v in values]
