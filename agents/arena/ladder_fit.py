"""The ladder's statistics: one agent's Elo rating against opponents whose ratings are held
fixed, and its 95% interval; pure functions, testable against hand-checkable cases.

The model is the arena's Bradley-Terry model on the Elo scale (``agents.arena.stats``) with
only the candidate's rating ``r`` free: it beats pool member i (pinned rating ``e_i``) with
probability ``1 / (1 + 10 ** ((e_i - r) / 400))``, and a draw counts as half a win and half a
loss. Like ``bradley_terry``, the candidate also plays ``PRIOR_GAMES`` virtual games, half of
them won, against a virtual opponent, here rated at the pool's mean: a weak prior that keeps a
perfect (or perfectly lost) record's rating and interval finite, and negligible next to a few
dozen real games. ``fit_rating`` maximises this penalised log-likelihood, which is strictly
concave in ``r``, so its maximum is where the score equation crosses zero, found by bisection.

The interval is the profile-likelihood (likelihood-ratio) interval: every ``r`` whose
log-likelihood is within ``Z_95 ** 2 / 2`` of the maximum. Unlike a bootstrap it needs no
random draws and stays finite and sensible at a perfect record. It counts every game as
independent and the pinned ratings as exact, so it measures the candidate's own games only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.arena.stats import ELO_PER_NAT, PRIOR_GAMES, Z_95

# Ratings are searched this far beyond the pool's (the prior keeps any fit well inside).
SEARCH_MARGIN = 20_000.0
BISECTION_STEPS = 200


def check_tallies(points: Sequence[float], games: Sequence[float],
                  elos: Sequence[float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    points = np.asarray(points, dtype=float)
    games = np.asarray(games, dtype=float)
    elos = np.asarray(elos, dtype=float)
    if not (points.ndim == games.ndim == elos.ndim == 1) or not (
            len(points) == len(games) == len(elos) >= 1):
        raise ValueError(f"points, games and elos must be equally long, non-empty lists, got "
                         f"shapes {points.shape}, {games.shape} and {elos.shape}")
    if not (np.all(np.isfinite(points)) and np.all(np.isfinite(games))
            and np.all(np.isfinite(elos))):
        raise ValueError("points, games and elos must be finite")
    if np.any(games < 0) or np.any(points < 0) or np.any(points > games):
        raise ValueError("every opponent needs 0 <= points <= games")
    return points, games, elos


def log_likelihood(rating: float, points: np.ndarray, games: np.ndarray, elos: np.ndarray,
                   prior_games: float = PRIOR_GAMES) -> float:
    """The penalised log-likelihood of ``rating`` (module docstring), in nats."""
    margins = (rating - elos) / ELO_PER_NAT  # log-odds of beating each opponent
    prior_margin = (rating - float(elos.mean())) / ELO_PER_NAT
    value = -(points * np.logaddexp(0.0, -margins)).sum()
    value -= ((games - points) * np.logaddexp(0.0, margins)).sum()
    value -= prior_games * 0.5 * (np.logaddexp(0.0, -prior_margin)
                                  + np.logaddexp(0.0, prior_margin))
    return float(value)


def score_gradient(rating: float, points: np.ndarray, games: np.ndarray, elos: np.ndarray,
                   prior_games: float = PRIOR_GAMES) -> float:
    """The log-likelihood's slope (per nat): points scored minus points expected, the virtual
    games included; strictly decreasing in ``rating``."""
    expected = games / (1.0 + np.exp(-(rating - elos) / ELO_PER_NAT))
    prior_expected = prior_games / (1.0 + np.exp(-(rating - float(elos.mean())) / ELO_PER_NAT))
    return float(points.sum() + prior_games / 2.0 - expected.sum() - prior_expected)


def bisect(function, low: float, high: float) -> float:
    """The root of ``function``, positive at ``low`` and negative at ``high``."""
    for _ in range(BISECTION_STEPS):
        middle = 0.5 * (low + high)
        if middle in (low, high):
            break
        if function(middle) > 0:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def fit_rating(points: Sequence[float], games: Sequence[float], elos: Sequence[float],
               prior_games: float = PRIOR_GAMES) -> float:
    """The candidate's maximum a posteriori Elo rating: it scored ``points[i]`` (win 1, draw
    0.5) in ``games[i]`` games against an opponent pinned at ``elos[i]``."""
    if not prior_games > 0:
        raise ValueError(f"prior_games must be positive, got {prior_games}")
    points, games, elos = check_tallies(points, games, elos)
    low, high = elos.min() - SEARCH_MARGIN, elos.max() + SEARCH_MARGIN
    return bisect(lambda r: score_gradient(r, points, games, elos, prior_games), low, high)


def rating_interval(points: Sequence[float], games: Sequence[float], elos: Sequence[float],
                    z: float = Z_95, prior_games: float = PRIOR_GAMES,
                    ) -> tuple[float, float, float]:
    """``(low, rating, high)``: the fit and its profile-likelihood interval, every rating whose
    log-likelihood is within ``z ** 2 / 2`` of the maximum (``z = 1.96``: 95%)."""
    points, games, elos = check_tallies(points, games, elos)
    rating = fit_rating(points, games, elos, prior_games)
    drop = z * z / 2.0
    top = log_likelihood(rating, points, games, elos, prior_games)

    def inside(r: float) -> float:
        return log_likelihood(r, points, games, elos, prior_games) - (top - drop)

    low = bisect(lambda r: -inside(r), rating - 2 * SEARCH_MARGIN, rating)
    high = bisect(inside, rating, rating + 2 * SEARCH_MARGIN)
    return low, rating, high
