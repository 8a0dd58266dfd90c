"""``agents.junqi.belief.scoring``: the games it plays and the states it reads, each tracker's
log-loss and top-1 scores on the true hidden types, the bootstrap of a reduction, and the model
grid, checked against hand counts and plain replays."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from agents.junqi.belief import BELIEFS, ModelBelief, UniformBelief
from agents.junqi.belief.references import CLIP
from agents.junqi.belief.scoring import (
    TrackerScores,
    random_play_games,
    reading_seats,
    relative_reduction,
    results_markdown,
    running_states,
    score_trackers,
)
from tbw_envs.junqi import HEADQUARTERS, JunqiState, random_layout
from tbw_envs.junqi.pieces import FLAG


def played(state: JunqiState, actions) -> JunqiState:
    state = state.clone()
    for action in actions:
        state.apply(action)
    return state


def board(state: JunqiState):
    return list(state.owner), list(state.kind), state.current_player


def test_random_play_games_start_from_the_seeds_layouts_and_stop_at_the_longest():
    games = random_play_games(3, seed=9, rules="ccgc", longest=25)
    rand = random.Random(9)
    first_layouts = (random_layout(rand), random_layout(rand))
    assert board(games[0][0]) == board(JunqiState.initial(first_layouts, "ccgc"))
    for start, actions in games:
        assert len(actions) <= 25
        end = played(start, actions)  # every action legal, or apply raises
        assert len(actions) == 25 or end.is_terminal()
    again = random_play_games(3, seed=9, rules="ccgc", longest=25)
    assert [actions for _, actions in again] == [actions for _, actions in games]


def test_running_states_are_those_of_a_plain_replay_while_the_game_goes_on():
    rand = random.Random(2)
    start = JunqiState.random_initial(rand)
    state, actions = start.clone(), []
    for _ in range(12):
        actions.append(rand.choice(state.legal_actions()))
        state.apply(actions[-1])
    found = running_states(start, actions, [0, 5, 12, 20])
    assert sorted(found) == [0, 5, 12]  # ply 20 is past the recorded actions
    for ply, running in found.items():
        assert board(running) == board(played(start, actions[:ply]))
    # A finished game has no state at the ply it ended on.
    state, actions = start.clone(), []
    while not state.is_terminal():
        actions.append(rand.choice(state.legal_actions()))
        state.apply(actions[-1])
    assert sorted(running_states(start, actions, [3, len(actions)])) == [3]


def midgame(seed: int, plies: int) -> JunqiState:
    rand = random.Random(seed)
    state = JunqiState.random_initial(rand)
    for _ in range(plies):
        state.apply(rand.choice(state.legal_actions()))
    assert not state.is_terminal()
    return state


def test_the_scores_are_those_of_the_true_types():
    state = midgame(5, 12)
    scores = TrackerScores()
    belief = BELIEFS["count"].from_view(state.view(0))
    scores.add(0, belief, state, 0)
    matrix = belief.matrix()
    opponent = [post for post in range(60) if state.owner[post] == 1]
    expected = [-math.log(max(matrix[post][state.kind[post]], CLIP)) for post in opponent]
    assert scores.log_loss() == pytest.approx(float(np.mean(expected)))
    summary = scores.summary()
    headquarters = [post for post in opponent if post in HEADQUARTERS]
    assert summary["pieces"] == len(opponent)
    assert summary["log_loss_headquarters"] == pytest.approx(
        float(np.mean([expected[opponent.index(post)] for post in headquarters])))
    # The truth itself: no loss, the flag and the marshal found.
    truth = {post: state.kind[post] for post in opponent}
    exact = TrackerScores()
    exact.add(0, belief.toward(truth, 1.0), state, 0)
    assert exact.log_loss() == 0.0
    assert (exact.flag_hits, exact.flag_views, exact.marshal_hits) == (1, 1, 1)


def test_a_flag_tie_goes_to_the_lowest_post():
    """At the start the uniform tracker gives both of the opponent's headquarters the same
    P(flag): it names the lower-numbered one, right when the flag stands there."""
    hits = []
    for seed in range(6):
        state = JunqiState.random_initial(random.Random(seed))
        scores = TrackerScores()
        scores.add(seed, UniformBelief.from_view(state.view(0)), state, 0)
        theirs = sorted(post for post in HEADQUARTERS if state.owner[post] == 1)
        flag = next(post for post in theirs if state.kind[post] == FLAG)
        assert scores.flag_hits == (flag == theirs[0])
        assert scores.marshal_views == 1
        hits.append(scores.flag_hits)
    assert 0 < sum(hits) < len(hits)  # both cases seen


def scores_with(losses_by_game: dict[int, list[float]]) -> TrackerScores:
    scores = TrackerScores()
    scores.loss_by_game = losses_by_game
    return scores


def test_a_reduction_and_its_bootstrap_interval_by_hand():
    # Halving every game's loss is a 50% reduction however the games are resampled.
    halved = relative_reduction(scores_with({0: [1.0], 1: [0.5, 0.5]}),
                                scores_with({0: [2.0], 1: [1.0, 1.0]}),
                                np.random.default_rng(0))
    assert halved["reduction"] == pytest.approx(0.5)
    assert halved["ci95"] == pytest.approx([0.5, 0.5])
    # Game 0 gains 1/4, game 1 1/2: pooled 1 - 4/6 = 1/3, each resample between the two.
    mixed = relative_reduction(scores_with({0: [3.0], 1: [1.0]}),
                               scores_with({0: [4.0], 1: [2.0]}), np.random.default_rng(0))
    assert mixed["reduction"] == pytest.approx(1 / 3)
    low, high = mixed["ci95"]
    assert 0.25 <= low < 1 / 3 < high <= 0.5


def test_reading_seats_are_the_other_seat_of_the_labelled_agent():
    records = [{"agents": ["greedy", "random"]}, {"agents": ["random", "greedy"]},
               {"agents": ["random", "mcts"]}]
    assert reading_seats(records, "greedy") == [(1,), (0,), ()]
    assert reading_seats(records, "random") == [(0,), (1,), (1,)]
    with pytest.raises(ValueError, match="played by an agent labelled 'ppo'"):
        reading_seats(records, "ppo")


@pytest.fixture(scope="module")
def few_games():
    return random_play_games(3, seed=1, rules="ccgc", longest=30)


def test_score_trackers_counts_the_views_and_pieces_of_the_seats_it_reads(few_games):
    readers = [(0, 1), (), (1,)]
    results = score_trackers(few_games, readers, [0, 20], seed=3, timing_views=1,
                             timing_samples=1, model_temperatures=[1.0, ModelBelief.temperature])
    for ply in (0, 20):
        block = results["by_ply"][str(ply)]
        states = [(running_states(start, actions, [ply]).get(ply), seats)
                  for (start, actions), seats in zip(few_games, readers, strict=True) if seats]
        living = sum(sum(owner == 1 - seat for owner in state.owner)
                     for state, seats in states if state is not None for seat in seats)
        assert block["games"] == sum(state is not None for state, _ in states)
        assert block["views"] == sum(len(seats) for state, seats in states if state is not None)
        for name in BELIEFS:
            assert block["trackers"][name]["pieces"] == living
        count, model = (block["trackers"][name]["log_loss"] for name in ("count", "model"))
        assert block["model_vs_count"]["reduction"] == pytest.approx(1 - model / count)
        assert set(block["timing"]) == set(BELIEFS)
    # The grid's row at the tracker's own constants is the model tracker's pooled log-loss.
    own = next(row for row in results["model_grid"]["rows"]
               if row["temperature"] == ModelBelief.temperature)
    blocks = [results["by_ply"][str(ply)]["trackers"]["model"] for ply in (0, 20)]
    pooled = (sum(b["log_loss"] * b["pieces"] for b in blocks)
              / sum(b["pieces"] for b in blocks))
    assert own["log_loss"] == pytest.approx(pooled)
    assert results["model_grid"]["best"] == min(results["model_grid"]["rows"],
                                                key=lambda row: row["log_loss"])
    assert results["model_grid"]["views"] == 2 * 3  # two ply counts, three views each


def test_a_ply_no_game_reached_has_no_block_and_no_grid_without_its_options(few_games):
    results = score_trackers(few_games, [(0, 1)] * 3, [5, 10_000], timing_views=1,
                             timing_samples=1)
    assert list(results) == ["by_ply"] and list(results["by_ply"]) == ["5"]


def test_the_markdown_shows_every_tracker_and_the_references(few_games):
    results = score_trackers(few_games, [(0, 1)] * 3, [10], timing_views=1, timing_samples=1,
                             ceiling_views=1, chain_steps=500)
    text = results_markdown(results, [10])
    block = results["by_ply"]["10"]
    for name in BELIEFS:
        row = block["trackers"][name]
        assert (f"| 10 | 3 | 6 | {name} | {row['log_loss']:.3f} | "
                f"{row['log_loss_headquarters']:.3f} | ") in text
    reference = block["references"]
    assert reference["views"] == 1
    assert (f"| 10 | 1 | {reference['paper']:.3f} | {reference['independent']:.3f} "
            f"| {reference['count']:.3f} | {reference['exact']:.3f} |") in text
