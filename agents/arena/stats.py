"""Pure statistics of the arena: Wilson score intervals and Bradley-Terry ratings on the Elo
scale, small functions that can be tested against hand-checkable cases."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

Z_95 = 1.96
# The Elo scale: a rating difference of 400 is odds of 10 to 1.
ELO_PER_NAT = 400.0 / math.log(10.0)
ELO_ANCHOR = 1500.0
# Virtual games each agent plays against a fixed reference agent (half of them won): enough to
# keep a perfect record's rating finite, negligible next to a few dozen real games.
PRIOR_GAMES = 0.5


def wilson_interval(points: float, games: float, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a success rate of ``points / games`` (a draw counts as half a
    point). Unlike the normal approximation it stays inside [0, 1] and is sensible at 0 or 1."""
    if games <= 0:
        return 0.0, 1.0
    rate = points / games
    z2 = z * z
    denominator = 1.0 + z2 / games
    centre = (rate + z2 / (2.0 * games)) / denominator
    half_width = z * math.sqrt(rate * (1.0 - rate) / games + z2 / (4.0 * games * games))
    half_width /= denominator
    return max(0.0, centre - half_width), min(1.0, centre + half_width)


@dataclass(frozen=True)
class WinDrawLoss:
    """One side's games in a pairing: its score counts a draw as half; ``interval`` is the
    score's Wilson 95% interval."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / max(self.games, 1)

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins + 0.5 * self.draws, self.games)


def bradley_terry(points: Any, games: Any, prior_games: float = PRIOR_GAMES,
                  tolerance: float = 1e-10, max_iterations: int = 200) -> np.ndarray:
    """Maximum a posteriori Bradley-Terry log-strengths (natural log) from pairwise scores.

    ``points[i][j]`` is what agent i scored against agent j (win 1, draw 0.5), ``games[i][j]``
    the games they played (symmetric, zero diagonal), so ``points + points.T == games``. The
    model: i beats j with probability ``exp(t_i) / (exp(t_i) + exp(t_j))``; a draw counts as
    half a win and half a loss. Each agent also plays ``prior_games`` virtual games, half of
    them won, against a reference agent of log-strength 0: this keeps the log-likelihood
    strictly concave, so perfect records and agents that never met get finite ratings.
    Newton's method with step halving: a handful of iterations even for lopsided data.
    """
    points = np.asarray(points, dtype=float)
    games = np.asarray(games, dtype=float)
    n = points.shape[0]
    if points.shape != (n, n) or games.shape != (n, n):
        raise ValueError(f"points and games must be square and alike, got {points.shape} and "
                         f"{games.shape}")
    if not np.allclose(games, games.T) or np.any(np.diag(games) != 0):
        raise ValueError("games must be symmetric with a zero diagonal")
    if not np.allclose(points + points.T, games) or np.any(points < 0):
        raise ValueError("points[i][j] + points[j][i] must equal games[i][j], points >= 0")
    if prior_games <= 0:
        raise ValueError(f"prior_games must be positive, got {prior_games}")
    wins = points.sum(axis=1) + prior_games / 2.0

    def log_likelihood(theta: np.ndarray) -> float:
        # log(exp(t_i) + exp(t_j)) counted once per ordered pair -> halve it for unordered.
        pair_terms = 0.5 * float((games * np.logaddexp(theta[:, None], theta[None, :])).sum())
        prior_terms = float((prior_games * np.logaddexp(theta, 0.0)).sum())
        return float(wins @ theta) - pair_terms - prior_terms

    theta = np.zeros(n)
    current = log_likelihood(theta)
    for _ in range(max_iterations):
        beats = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # P(i beats j)
        beats_reference = 1.0 / (1.0 + np.exp(-theta))
        gradient = wins - (games * beats).sum(axis=1) - prior_games * beats_reference
        curvature = games * beats * (1.0 - beats)
        hessian = curvature - np.diag(
            curvature.sum(axis=1) + prior_games * beats_reference * (1.0 - beats_reference)
        )
        step = np.linalg.solve(hessian, -gradient)
        scale = 1.0
        while True:
            candidate = theta + scale * step
            value = log_likelihood(candidate)
            if value >= current - 1e-12 or scale < 1e-8:
                break
            scale /= 2.0
        theta, current = candidate, value
        if np.max(np.abs(scale * step)) < tolerance:
            break
    return theta


def elo_ratings(log_strengths: Any, anchor: float = ELO_ANCHOR) -> np.ndarray:
    """Bradley-Terry log-strengths on the Elo scale, the mean of the agents set to ``anchor``."""
    theta = np.asarray(log_strengths, dtype=float)
    return anchor + ELO_PER_NAT * (theta - theta.mean())
