"""The arena's statistics (``agents.arena.stats``): Wilson intervals against published values,
Bradley-Terry ratings (Elo) from the scores of a round robin, and their 95% intervals: the
bootstrap's, with the profile likelihood where the bootstrap is blind (perfect records, games
that always end the same), checked end to end on synthetic round robins."""

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
from agents.arena.ladder_fit import rating_interval
from agents.arena.records import ArenaGame
from agents.arena.results import RoundRobinResult
from agents.arena.stats import BOOTSTRAP_PERCENTILES, profile_interval, rating_intervals


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


# ---------------------------------------------------------------------- intervals


def _round_robin(labels, outcomes, bootstrap=200):
    """A finished round robin whose pairing ``(a, b)`` played ``outcomes[(a, b)]``: a's points
    per game (1, 0.5 or 0), two games (seats swapped) per seed."""
    games = []
    pairings = list(outcomes)
    for pairing, (a, b) in enumerate(pairings):
        for index, first_points in enumerate(outcomes[(a, b)]):
            swapped = index % 2 == 1
            returns = {1: (1.0, -1.0), 0.5: (0.0, 0.0), 0: (-1.0, 1.0)}[first_points]
            seats = (labels[b], labels[a]) if swapped else (labels[a], labels[b])
            games.append(ArenaGame(
                game="junqi", variant="ccgc", game_id=len(games), pairing=pairing,
                pair=index // 2, swapped=swapped, seed=index // 2, labels=seats, specs=seats,
                agent_seeds=(0, 0), layouts=None, layout_sources=None, actions=[len(games)],
                returns=returns[::-1] if swapped else returns, end_reason="flag", plies=1,
                move_seconds=(0.0, 0.0), max_move_seconds=(0.0, 0.0), moves=(1, 1)))
    return RoundRobinResult(game="junqi", variant="ccgc", seed=0,
                            games_per_pairing=len(outcomes[pairings[0]]), labels=labels,
                            specs=labels, pairings=pairings, games=games, bootstrap=bootstrap)


MIXED = [1, 0, 1, 1, 0.5, 1, 1, 0, 0, 1]
ROUND_ROBINS = {
    # every resample repeats the data: the bootstrap alone gave [1826, 1826] and [1174, 1174]
    "one pair, one side wins every game": (["winner", "loser"], {(0, 1): [1] * 8}),
    # a perfect record among ordinary ones: the bootstrap alone gave a narrow [2226, 2278]
    "an all-win and an all-loss agent": (["all-win", "mid-1", "mid-2", "all-loss"], {
        (0, 1): [1] * 10, (0, 2): [1] * 10, (0, 3): [1] * 10, (1, 2): MIXED,
        (1, 3): [1] * 10, (2, 3): [1] * 10}),
    # a cycle of deterministic pairings: the bootstrap alone gave 1500 [1500, 1500]
    "a cycle of pairings that always end the same": (["a", "b", "c"], {
        (0, 1): [1, 1, 1, 1], (0, 2): [0, 0, 0, 0], (1, 2): [1, 1, 0, 0]}),
    "a lopsided pair and an ordinary one": (["a", "b", "c"], {
        (0, 1): [1, 1, 1, 1, 1, 1, 1, 0, 1, 1], (0, 2): MIXED, (1, 2): MIXED[::-1]}),
}


@pytest.mark.parametrize("name", list(ROUND_ROBINS))
def test_every_interval_has_width_and_holds_its_rating_strictly(name):
    ratings = _round_robin(*ROUND_ROBINS[name]).ratings()
    for r in ratings:
        assert r.low < r.elo < r.high, r
        assert r.high - r.low > 20, r  # a real width, not a rounding error


def test_a_perfect_record_gets_the_profile_interval_and_its_open_end_is_wide():
    result = _round_robin(*ROUND_ROBINS["an all-win and an all-loss agent"])
    all_win, mid_1, mid_2, all_loss = result.ratings()
    points, played = result.score_matrix()
    assert (all_win.low, all_win.high) == pytest.approx(profile_interval(points, played, 0))
    # no data bound the all-win agent from above: the open end is the longer one
    assert all_win.high - all_win.elo > all_win.elo - all_win.low
    assert all_loss.elo - all_loss.low > all_loss.high - all_loss.elo
    # ... yet both ends stay finite and sensible, the prior keeping them in reach
    assert all_win.low > max(mid_1.elo, mid_2.elo) and all_win.high < all_win.elo + 2000
    assert all_loss.high < min(mid_1.elo, mid_2.elo) and all_loss.low > all_loss.elo - 2000


def test_an_ordinary_agent_keeps_its_bootstrap_percentiles():
    rng = np.random.default_rng(3)
    points = np.array([[0, 6, 7], [4, 0, 5.5], [3, 4.5, 0]])
    games = np.array([[0, 10, 10], [10, 0, 10], [10, 10, 0]])
    elo = elo_ratings(bradley_terry(points, games))
    samples = elo + rng.normal(0, 40, size=(200, 3))
    lows, highs = rating_intervals(points, games, samples)
    expected = np.percentile(samples, BOOTSTRAP_PERCENTILES, axis=0)
    assert lows == pytest.approx(expected[0]) and highs == pytest.approx(expected[1])
    # ... and the same samples shifted so that an agent's rating leaves the percentiles:
    shifted = samples + np.array([0.0, 200.0, 0.0])
    lows, highs = rating_intervals(points, games, shifted)
    assert lows[1] < elo[1] < highs[1]
    assert lows[0] == pytest.approx(expected[0][0]) and highs[2] == pytest.approx(expected[1][2])


def test_the_profile_interval_of_two_agents_is_the_one_dimensional_one():
    # Two agents: agent 0's Elo is 1500 + half the gap, and the gap's profile likelihood is
    # the ladder's one-dimensional likelihood of 30 points in 40 games against a pinned 1500.
    points, games = [[0, 30], [10, 0]], [[0, 40], [40, 0]]
    low, high = profile_interval(points, games, 0, prior_games=1e-9)
    ladder_low, _, ladder_high = rating_interval([30], [40], [1500], prior_games=1e-9)
    assert (low, high) == pytest.approx((1500 + (ladder_low - 1500) / 2,
                                         1500 + (ladder_high - 1500) / 2), abs=0.01)
    mirror = profile_interval(points, games, 1, prior_games=1e-9)
    assert mirror == pytest.approx((3000 - high, 3000 - low), abs=0.01)


def _grid_maximum(function, centre, half_width=8.0, zooms=25):
    """The maximum of a concave ``function`` of two variables by a grid search that zooms in:
    slow, but independent of the Newton code under test."""
    centre = np.asarray(centre, dtype=float)
    offsets = np.linspace(-1.0, 1.0, 21)
    for _ in range(zooms):
        grid = [centre + half_width * np.array([x, y]) for x in offsets for y in offsets]
        centre = max(grid, key=function)
        half_width /= 3.0
    return function(centre)


def test_the_profile_interval_ends_where_the_profile_drops_by_the_chi_square_quantile():
    points = np.array([[0, 8, 10], [2, 0, 6], [0, 4, 0]], dtype=float)
    games = np.array([[0, 10, 10], [10, 0, 10], [10, 10, 0]], dtype=float)
    wins = points.sum(axis=1) + 0.25  # half of the 0.5 virtual games won

    def log_likelihood(theta):
        pairs = 0.5 * (games * np.logaddexp(theta[:, None], theta[None, :])).sum()
        return wins @ theta - pairs - 0.5 * np.logaddexp(theta, 0.0).sum()

    top = log_likelihood(bradley_terry(points, games))
    for agent in range(3):
        others = [i for i in range(3) if i != agent]
        for end in profile_interval(points, games, agent):
            gap = (end - 1500) / ELO_PER_NAT  # t_agent - mean(t), held fixed

            def constrained(free, gap=gap, agent=agent, others=others):
                theta = np.zeros(3)
                theta[others] = free
                theta[agent] = (gap * 3 + free.sum()) / 2  # so t_agent - mean(t) == gap
                return log_likelihood(theta)

            assert _grid_maximum(constrained, [0.0, 0.0]) == pytest.approx(
                top - 1.96 ** 2 / 2, abs=1e-6)


def test_interval_inputs_are_checked():
    points, games = [[0, 3], [1, 0]], [[0, 4], [4, 0]]
    with pytest.raises(ValueError, match="one row of 2 ratings"):
        rating_intervals(points, games, np.zeros((5, 3)))
    with pytest.raises(ValueError, match="agent must be an index in"):
        profile_interval(points, games, 2)
    with pytest.raises(ValueError, match="at least two agents"):
        profile_interval([[0]], [[0]], 0)
