"""Opponent belief trackers (``agents.junqi.belief``) on recorded games: every tracker stays sound
(the true identity of each hidden piece keeps a positive probability) and every sample replays
the public history exactly, under each rule set."""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest

from agents.junqi.belief import (
    DEFAULT_BELIEF,
    CountBelief,
    PaperBelief,
    UniformBelief,
    gather_evidence,
    make_belief,
)
from tbw_envs.junqi import (
    JunqiState,
    Layout,
    encode_action,
    parse_post,
    random_layout,
    validate_layout,
)
from tbw_envs.junqi.layout import (
    DEPLOY_CELLS,
    LAYOUT_CELLS,
)
from tbw_envs.junqi.pieces import FLAG
from tests.helpers.junqi_hand import ARMY

TRACKERS = (PaperBelief, CountBelief, UniformBelief)

NO_ANNOUNCEMENT = "no_announcement"  # ccgc without the flag announcement


def _rules(name: str):
    return {"flag_revealed_on_marshal_death": False} if name == NO_ANNOUNCEMENT else name


@cache
def recorded_games(count: int, seed: int, rules: str = "ccgc") -> tuple:
    """``count`` random-play games: (layouts, actions, rules) with the true layouts kept."""
    rand = random.Random(seed)
    games = []
    for _ in range(count):
        layouts = (random_layout(rand), random_layout(rand))
        state = JunqiState.initial(layouts, _rules(rules))
        actions = []
        while not state.is_terminal():
            legal = state.legal_actions()
            action = legal[rand.randrange(len(legal))]
            state.apply(action)
            actions.append(action)
        games.append((layouts, tuple(actions), rules))
    return tuple(games)


def states_at(layouts, actions, rules, plies):
    """The states of a recorded game after each ply count in ``plies`` (clipped to its end)."""
    wanted = sorted({min(p, len(actions)) for p in plies})
    state = JunqiState.initial(layouts, _rules(rules))
    for ply in range(len(actions) + 1):
        if ply in wanted:
            yield state.clone()
        if ply < len(actions):
            state.apply(actions[ply])


def true_token_types(layouts, evidence) -> list[int]:
    opponent = 1 - evidence.player
    return [layouts[opponent].cells[cell] for cell in evidence.cells]


# ---------------------------------------------------------------------- recorded games
CHECK_PLIES = (0, 1, 7, 25, 60, 120, 10_000)


def _check_soundness(games):
    checked = 0
    for layouts, actions, rules in games:
        for state in states_at(layouts, actions, rules, CHECK_PLIES):
            for player in (0, 1):
                view = state.view(player)
                evidence = gather_evidence(view)
                truth = true_token_types(layouts, evidence)
                for token, kind in enumerate(truth):
                    assert evidence.masks[token] >> kind & 1, "a true type ruled out"
                    post = evidence.posts[token]
                    if post is not None:
                        # At least as sharp as the core's own deductions.
                        assert evidence.masks[token] & ~view.possible[post] == 0
                        assert state.owner[post] == 1 - player
                for cls in TRACKERS:
                    belief = cls.from_view(view)
                    matrix = belief.matrix()
                    for post in range(60):
                        if state.owner[post] == 1 - player:
                            assert matrix[post, state.kind[post]] > 0, (cls.name, post)
                            assert matrix[post].sum() == pytest.approx(1.0)
                        else:
                            assert not matrix[post].any()
                    tokens = belief.token_matrix()
                    assert np.allclose(tokens.sum(axis=1), 1.0)
                    if cls is CountBelief:
                        assert np.allclose(tokens.sum(axis=0), ARMY, atol=1e-4)
                checked += 1
    return checked


def test_trackers_are_sound_on_recorded_games():
    assert _check_soundness(recorded_games(60, seed=11)) > 600


@pytest.mark.parametrize("rules", ["house", NO_ANNOUNCEMENT])
def test_trackers_are_sound_under_other_rules(rules):
    assert _check_soundness(recorded_games(15, seed=13, rules=rules)) > 150


@pytest.mark.slow
def test_trackers_are_sound_on_many_recorded_games():
    assert _check_soundness(recorded_games(400, seed=12)) > 4000
    for rules in ("house", NO_ANNOUNCEMENT, "jj", "qq"):
        assert _check_soundness(recorded_games(60, seed=14, rules=rules)) > 600


def replay_sample(view, belief, rand) -> None:
    """Rebuild the game from the player's own layout and a sampled opponent layout, replay the
    public history, and check it gives the same record, announcements and final position."""
    kinds = belief.sample_tokens(rand)
    evidence = belief.evidence
    opponent_cells: list[int | None] = [None] * LAYOUT_CELLS
    for token, cell in enumerate(evidence.cells):
        opponent_cells[cell] = kinds[token]
    own_cells: list[int | None] = [None] * LAYOUT_CELLS
    for cell, kind in zip(DEPLOY_CELLS, view.placed, strict=True):
        own_cells[cell] = kind
    layouts = [None, None]
    layouts[view.player] = Layout(tuple(own_cells))
    layouts[1 - view.player] = Layout(tuple(opponent_cells))
    validate_layout(layouts[1 - view.player], "sampled layout")
    state = JunqiState.initial(layouts, view.rules)
    for record in view.history:
        assert not state.is_terminal()
        result = state.apply(encode_action(record.from_post, record.to_post))
        assert result == record.result
        assert state.history[-1] == record
    assert tuple(state.flag_revealed) == view.flag_revealed
    assert tuple(state.flag_revealed_ply) == view.flag_revealed_ply
    assert tuple(state.owner) == view.owner
    sample = {post: kinds[t] for t, post in enumerate(evidence.posts) if post is not None}
    for post in range(60):
        if view.owner[post] == view.player:
            assert state.kind[post] == view.kind[post]
        elif view.owner[post] == 1 - view.player:
            assert state.kind[post] == sample[post]
    if not view.is_terminal():
        # The sampled position goes on: whoever is to move has a legal move.
        assert state.legal_actions() and not state.is_terminal()
        determinized = belief.sample_state(rand)
        assert determinized.legal_actions() and determinized.current_player == view.current_player


def _check_samples(games, seed, per_view):
    rand = random.Random(seed)
    replayed = 0
    for number, (layouts, actions, rules) in enumerate(games):
        plies = (rand.randrange(1, 40), rand.randrange(40, 160), 10_000)
        for state in states_at(layouts, actions, rules, plies):
            for player in (0, 1):
                cls = TRACKERS[(number + player) % len(TRACKERS)]
                belief = cls.from_view(state.view(player))
                for _ in range(per_view):
                    replay_sample(belief.view, belief, rand)
                    replayed += 1
    return replayed


def test_samples_replay_the_public_history():
    assert _check_samples(recorded_games(60, seed=21), seed=1, per_view=2) >= 600


@pytest.mark.parametrize("rules", ["house", NO_ANNOUNCEMENT])
def test_samples_replay_the_public_history_under_other_rules(rules):
    assert _check_samples(recorded_games(20, seed=23, rules=rules), seed=3, per_view=2) >= 200


@pytest.mark.slow
def test_samples_replay_the_public_history_on_many_games():
    assert _check_samples(recorded_games(300, seed=22), seed=2, per_view=3) >= 4000
    for rules in ("house", NO_ANNOUNCEMENT, "jj", "qq"):
        assert _check_samples(recorded_games(60, seed=24, rules=rules), seed=4, per_view=2) >= 600


def test_samples_follow_the_tracker_at_the_start():
    # Before any evidence the flag is in either headquarters about half the time, and each
    # sample is a whole army.
    view = JunqiState.random_initial(9).view(0)
    belief = CountBelief.from_view(view)
    rand = random.Random(3)
    a1 = parse_post("A1")
    hits = 0
    for _ in range(2000):
        sample = belief.sample(rand)
        assert sorted(sample) == view.opponent_posts()
        assert [list(sample.values()).count(k) for k in range(12)] == list(ARMY)
        hits += sample[a1] == FLAG
    assert 0.44 < hits / 2000 < 0.56


def test_opponent_to_move_keeps_a_legal_move():
    # Late positions where the opponent may be nearly out of mobile pieces: samples never leave
    # the side to move without a move.
    rand = random.Random(4)
    checked = 0
    for layouts, actions, rules in recorded_games(60, seed=11):
        if len(actions) < 2:
            continue
        for state in states_at(layouts, actions, rules, (len(actions) - 1, len(actions) - 2)):
            if state.is_terminal():
                continue
            view = state.view(1 - state.current_player)
            belief = make_belief(DEFAULT_BELIEF, view)
            for _ in range(10):
                assert belief.sample_state(rand).legal_actions()
            checked += 1
    assert checked >= 20
