"""The arena's statistics (``agents.arena.stats``): Wilson intervals against published values and
Bradley-Terry ratings (Elo) from the scores of a round robin."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.arena import (
    ELO_PER_NAT,
    bradley_terry,
    elo_ratings,
    wilson_interval,
)


@pytest.mark.parametrize(("successes", "trials", "low", "high"), [
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", method 3.
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
])
def test_wilson_interval_matches_published_values(successes, trials, low, high):
    got = wilson_interval(successes, trials)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_is_symmetric_and_handles_no_games():
    low, high = wilson_interval(7.5, 20)  # draws count as half points
    mirror_low, mirror_high = wilson_interval(12.5, 20)
    assert (low, high) == pytest.approx((1 - mirror_high, 1 - mirror_low))
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_bradley_terry_recovers_strengths_the_scores_imply():
    # Strengths 4 : 2 : 1 predict scores 2/3, 2/3 and 4/5; 30 games per pair hit them exactly,
    # so the maximum-likelihood gaps are ln 2 each, 400 * log10(2) = 120.4 Elo.
    points = [[0, 20, 24], [10, 0, 20], [6, 10, 0]]
    games = [[0, 30, 30], [30, 0, 30], [30, 30, 0]]
    elo = elo_ratings(bradley_terry(points, games, prior_games=1e-6))
    assert elo == pytest.approx([1500 + 400 * math.log10(2), 1500, 1500 - 400 * math.log10(2)],
                                abs=0.01)
    # The default prior only shrinks the gaps a little, keeping the order.
    shrunk = elo_ratings(bradley_terry(points, games))
    assert shrunk[0] > shrunk[1] > shrunk[2]
    assert abs(shrunk[0] - shrunk[1]) == pytest.approx(120.4, abs=2.0)


def test_bradley_terry_symmetric_results_give_equal_ratings():
    points = [[0, 5, 3], [5, 0, 3], [3, 3, 0]]
    games = [[0, 10, 6], [10, 0, 6], [6, 6, 0]]
    assert elo_ratings(bradley_terry(points, games)) == pytest.approx([1500] * 3)
    assert bradley_terry(np.zeros((2, 2)), np.zeros((2, 2))) == pytest.approx([0, 0])


def test_bradley_terry_keeps_a_perfect_record_finite():
    theta = bradley_terry([[0, 20, 20], [0, 0, 20], [0, 0, 0]],
                          [[0, 20, 20], [20, 0, 20], [20, 20, 0]])
    assert np.all(np.isfinite(theta))
    assert theta[0] > theta[1] > theta[2]
    assert ELO_PER_NAT * (theta[0] - theta[2]) < 3000


def test_bradley_terry_rejects_inconsistent_scores():
    with pytest.raises(ValueError, match="must equal games"):
        bradley_terry([[0, 3], [3, 0]], [[0, 4], [4, 0]])
