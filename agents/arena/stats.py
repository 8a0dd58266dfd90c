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
# The bootstrap percentiles of a 95% interval.
BOOTSTRAP_PERCENTILES = (2.5, 97.5)
PROFILE_BISECTION_STEPS = 60  # halvings of the bracket of a profile interval's end


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
    model = _PenalisedModel(points, games, prior_games)
    n = model.size
    return model.maximise(np.zeros(n), np.eye(n), np.zeros(n), tolerance, max_iterations)[0]


class _PenalisedModel:
    """The penalised log-likelihood of ``bradley_terry``, maximised over ``offset + basis @ u``
    (the identity basis: the fit; a basis of a hyperplane: a profile)."""

    def __init__(self, points: Any, games: Any, prior_games: float) -> None:
        points = np.asarray(points, dtype=float)
        games = np.asarray(games, dtype=float)
        n = points.shape[0] if points.ndim == 2 else -1
        if points.shape != (n, n) or games.shape != (n, n):
            raise ValueError(f"points and games must be square and alike, got {points.shape} "
                             f"and {games.shape}")
        if not np.allclose(games, games.T) or np.any(np.diag(games) != 0):
            raise ValueError("games must be symmetric with a zero diagonal")
        if not np.allclose(points + points.T, games) or np.any(points < 0):
            raise ValueError("points[i][j] + points[j][i] must equal games[i][j], points >= 0")
        if not prior_games > 0:
            raise ValueError(f"prior_games must be positive, got {prior_games}")
        self.size = n
        self.games = games
        self.prior_games = prior_games
        self.wins = points.sum(axis=1) + prior_games / 2.0

    def log_likelihood(self, theta: np.ndarray) -> float:
        # log(exp(t_i) + exp(t_j)) counted once per ordered pair -> halve it for unordered.
        pair_terms = 0.5 * float((self.games * np.logaddexp(theta[:, None], theta[None, :])).sum())
        prior_terms = float((self.prior_games * np.logaddexp(theta, 0.0)).sum())
        return float(self.wins @ theta) - pair_terms - prior_terms

    def gradient_and_hessian(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        beats = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # P(i beats j)
        beats_reference = 1.0 / (1.0 + np.exp(-theta))
        gradient = (self.wins - (self.games * beats).sum(axis=1)
                    - self.prior_games * beats_reference)
        curvature = self.games * beats * (1.0 - beats)
        hessian = curvature - np.diag(
            curvature.sum(axis=1)
            + self.prior_games * beats_reference * (1.0 - beats_reference)
        )
        return gradient, hessian

    def maximise(self, offset: np.ndarray, basis: np.ndarray, start: np.ndarray,
                 tolerance: float = 1e-10, max_iterations: int = 200,
                 ) -> tuple[np.ndarray, float, np.ndarray]:
        """``(theta, log-likelihood, u)`` at the maximum over ``theta = offset + basis @ u``,
        Newton's method with step halving from ``u = start``."""
        u = start
        theta = offset + basis @ u
        current = self.log_likelihood(theta)
        for _ in range(max_iterations):
            gradient, hessian = self.gradient_and_hessian(theta)
            step = np.linalg.solve(basis.T @ hessian @ basis, -(basis.T @ gradient))
            scale = 1.0
            while True:
                candidate = u + scale * step
                value = self.log_likelihood(offset + basis @ candidate)
                if value >= current - 1e-12 or scale < 1e-8:
                    break
                scale /= 2.0
            u, current = candidate, value
            theta = offset + basis @ u
            if np.max(np.abs(scale * step)) < tolerance:
                break
        return theta, current, u


def elo_ratings(log_strengths: Any, anchor: float = ELO_ANCHOR) -> np.ndarray:
    """Bradley-Terry log-strengths on the Elo scale, the mean of the agents set to ``anchor``."""
    theta = np.asarray(log_strengths, dtype=float)
    return anchor + ELO_PER_NAT * (theta - theta.mean())


def profile_interval(points: Any, games: Any, agent: int, z: float = Z_95,
                     prior_games: float = PRIOR_GAMES) -> tuple[float, float]:
    """The profile-likelihood interval of ``agent``'s Elo rating (``elo_ratings`` of
    ``bradley_terry``): every rating whose penalised log-likelihood, maximised over the other
    agents' strengths, is within ``z ** 2 / 2`` of the maximum (``z = 1.96``: 95%). The prior's
    virtual games make the log-likelihood strictly concave and fall off linearly far out, so
    the interval is finite and holds the fit strictly inside even for a perfect record, whose
    open end the data leave to the prior: wide, as the evidence is. Every game counts as
    independent evidence."""
    model = _PenalisedModel(points, games, prior_games)
    n = model.size
    if n < 2:
        raise ValueError(f"a profile interval needs at least two agents, got {n}: the only "
                         f"agent's rating is the anchor by definition")
    if not 0 <= agent < n:
        raise ValueError(f"agent must be an index in [0, {n}), got {agent}")
    if not (math.isfinite(z) and z > 0):
        raise ValueError(f"z must be positive and finite, got {z}")
    # The rating in nats: gap = t_agent - mean(t) = direction @ t.
    direction = np.full(n, -1.0 / n)
    direction[agent] += 1.0
    basis = np.linalg.svd(direction[None, :])[2][1:].T  # orthonormal, direction @ basis == 0
    fit, top, _ = model.maximise(np.zeros(n), np.eye(n), np.zeros(n))
    best_gap = float(direction @ fit)
    floor = top - z * z / 2.0
    warm = basis.T @ fit

    def above_floor(gap: float) -> float:
        nonlocal warm
        offset = gap * direction / float(direction @ direction)
        _, value, warm = model.maximise(offset, basis, warm)
        return value - floor

    ends = []
    for sign in (-1.0, 1.0):
        inner, reach = best_gap, 1.0
        while above_floor(best_gap + sign * reach) > 0:  # the prior ends this within ~20 steps
            inner, reach = best_gap + sign * reach, 2.0 * reach
        outer = best_gap + sign * reach
        warm = basis.T @ fit
        for _ in range(PROFILE_BISECTION_STEPS):
            middle = 0.5 * (inner + outer)
            if above_floor(middle) > 0:
                inner = middle
            else:
                outer = middle
        ends.append(0.5 * (inner + outer))
        warm = basis.T @ fit
    return ELO_ANCHOR + ELO_PER_NAT * ends[0], ELO_ANCHOR + ELO_PER_NAT * ends[1]


def rating_intervals(points: Any, games: Any, samples: Any,
                     prior_games: float = PRIOR_GAMES) -> tuple[np.ndarray, np.ndarray]:
    """95% intervals ``(lows, highs)`` of the Elo ratings of a round robin's scores, from
    ``samples``, the ``elo_ratings`` of bootstrap resamples (one row per resample).

    An agent's interval is the 2.5 and 97.5 percentiles of its resampled ratings, unless the
    bootstrap cannot see how uncertain that rating is: when the agent won or lost every game
    (no resample can show it losing or winning one), or when the percentiles do not hold its
    rating strictly inside (every resample repeats the same outcome on one side, e.g. a
    zero-width interval from games that always end the same). Such an agent gets the hull of
    its percentile interval and its ``profile_interval``, which the prior keeps finite.
    """
    points = np.asarray(points, dtype=float)
    games = np.asarray(games, dtype=float)
    samples = np.asarray(samples, dtype=float)
    elo = elo_ratings(bradley_terry(points, games, prior_games))
    if samples.ndim != 2 or samples.shape[1] != len(elo) or len(samples) == 0:
        raise ValueError(f"samples must hold one row of {len(elo)} ratings per resample, got "
                         f"shape {samples.shape}")
    lows, highs = np.percentile(samples, BOOTSTRAP_PERCENTILES, axis=0)
    scored, played = points.sum(axis=1), games.sum(axis=1)
    perfect = (played > 0) & ((scored == 0) | (scored == played))
    blind = perfect | ~((lows < elo) & (elo < highs))
    for agent in np.flatnonzero(blind):
        low, high = profile_interval(points, games, int(agent), prior_games=prior_games)
        lows[agent], highs[agent] = min(lows[agent], low), max(highs[agent], high)
    return lows, highs
