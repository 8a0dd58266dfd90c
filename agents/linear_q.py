"""Linear action values ``Q(s, a) = w . phi(s, a)``, learned by semi-gradient Q-learning.

The weight tuners of both games share it (``agents.weight_tuner``). Features come in very
different units (expected piece values in the hundreds next to alarms in [0, 1]), so one step
size cannot suit them all in raw units. Learning therefore runs on scaled features
``x = phi / scale`` with parameters ``theta = w * scale``: ``theta . x == w . phi``, so the
values and the greedy policy are the same, and the weights the learner reports are always in the
features' own units. The scales are fixed when the learner is made (typically each feature's
size when active, over a warm-up sample), never adapted during learning, so an update's effect
does not drift.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class LinearQ:
    """``Q = w . phi``; ``td_update(phi, target)`` moves ``Q(phi)`` toward ``target``."""

    def __init__(self, weights: Sequence[float], scales: Sequence[float],
                 step_size: float = 0.01, names: Sequence[str] | None = None):
        w = np.asarray(weights, dtype=float).ravel()
        s = np.asarray(scales, dtype=float).ravel()
        if w.shape != s.shape:
            raise ValueError(f"{w.size} weights but {s.size} scales")
        if not np.all(np.isfinite(w)):
            raise ValueError(f"weights must be finite, got {w.tolist()}")
        if not np.all(np.isfinite(s)) or np.any(s <= 0):
            raise ValueError(f"scales must be positive and finite, got {s.tolist()}")
        if not step_size > 0:
            raise ValueError(f"step_size must be positive, got {step_size!r}")
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
    def from_state_dict(cls, data: dict) -> LinearQ:
        scales = np.asarray(data["scales"], dtype=float)
        learner = cls(np.asarray(data["theta"], dtype=float) / scales, scales,
                      data["step_size"], data.get("names") or None)
        learner.theta = np.asarray(data["theta"], dtype=float)  # exact, no round trip
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
