"""The information boundary (``JunqiView``): a view (and the observation built from it) must not
change when the opponent's hidden pieces are rearranged in any way the public history allows, and
the evidence it carries is exactly what the public history proves."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.random_agent import RandomAgent
from tbw_envs.junqi import (
    ATTACKER_LOST,
    ATTACKER_WON,
    BOTH_REMOVED,
    JunqiState,
    parse_post,
    random_layout,
)
from tbw_envs.junqi.layout import DEPLOY_CELLS
from tbw_envs.junqi.observation import OBSERVATION_PLANES, observation_planes, state_planes
from tbw_envs.junqi.pieces import ENGINEER, NO_PIECE
from tbw_envs.junqi.state import deploy_action
from tests.helpers.junqi_games import permuted_layout, random_game
from tests.helpers.junqi_hand import NAMES, move, quiet_position


def _replay_and_compare(layouts, alternative, actions, observer):
    """Replay ``actions`` on both deals while the public history agrees; compare the observer's
    views at every ply. Returns (plies compared, plies where the true states differed)."""
    real = JunqiState.initial(layouts)
    other = JunqiState.initial(alternative)
    compared = differing = 0
    for action in [None, *actions]:
        if action is not None:
            if action not in other.legal_actions():
                break
            real.apply(action)
            other.apply(action)
            if real.history[-1] != other.history[-1] or real.flag_revealed != other.flag_revealed:
                break  # the public record diverged: the observer may now tell them apart
        view_real, view_other = real.view(observer), other.view(observer)
        assert view_real == view_other
        assert np.array_equal(observation_planes(view_real), observation_planes(view_other))
        assert view_real.legal_actions() == view_other.legal_actions()
        agent_a, agent_b = RandomAgent(seed=9), RandomAgent(seed=9)
        if view_real.legal_actions():
            assert agent_a.act(view_real) == agent_b.act(view_other)
        compared += 1
        differing += not np.array_equal(state_planes(real), state_planes(other))
        if real.is_terminal():
            break
    return compared, differing


def test_views_do_not_change_under_consistent_permutations_of_hidden_pieces():
    rand = random.Random(77)
    compared = differing = 0
    for _game in range(60):
        layouts = [random_layout(rand), random_layout(rand)]
        actions = random_game(rand, layouts, plies=rand.randrange(10, 160))
        observer = rand.randrange(2)
        for _trial in range(4):
            alternative = list(layouts)
            alternative[1 - observer] = permuted_layout(layouts[1 - observer], rand,
                                                        rand.randrange(1, 4))
            c, d = _replay_and_compare(layouts, alternative, actions, observer)
            compared += c
            differing += d
    # The test has teeth only if many compared states really differed in hidden identities.
    assert compared > 2000 and differing > 1000


def test_view_carries_no_opponent_identity():
    state = JunqiState.random_initial(3)
    for _ in range(40):
        state.apply(state.legal_actions()[0])
    for player in (0, 1):
        view = state.view(player)
        for post in range(60):
            if view.owner[post] == 1 - player:
                assert view.kind[post] == NO_PIECE
            elif view.owner[post] == player:
                assert view.kind[post] == state.kind[post]
        assert not any(isinstance(v, JunqiState) for v in vars(view).values())


def test_engineer_deduction_from_a_turn():
    state = JunqiState.from_pieces(
        {"K0": (0, "engineer"), "L1": (0, "flag"), "A1": (1, "flag"), "B0": (1, "major")}
    )
    state.apply(state.encode_action("K0", "K4"))  # straight: any mobile piece could do it
    assert state.view(1).possible[parse_post("K4")] != 1 << ENGINEER
    state.apply(state.encode_action("B0", "B1"))
    state.apply(state.encode_action("K4", "G0"))  # a turn: only an engineer
    assert state.view(1).possible[parse_post("G0")] == 1 << ENGINEER


def test_views_in_the_deployment_phase_hide_the_opponents_choices():
    rand = random.Random(4)
    for _ in range(20):
        layouts = [random_layout(rand) for _ in range(2)]
        shuffled = [layouts[0], permuted_layout(layouts[1], rand, 5)]
        states = [JunqiState.new_deployment(), JunqiState.new_deployment()]
        for step in range(50):
            for state, pair in zip(states, (layouts, shuffled), strict=True):
                player = state.current_player
                state.apply(deploy_action(pair[player].cells[DEPLOY_CELLS[step // 2]]))
            assert states[0].view(0) == states[1].view(0)
            assert np.array_equal(
                observation_planes(states[0].view(0)), observation_planes(states[1].view(0))
            )


def test_determinization_is_consistent_with_the_view():
    rand = random.Random(8)
    for seed in range(30):
        state = JunqiState.random_initial(seed)
        for _ in range(rand.randrange(0, 120)):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(legal[rand.randrange(len(legal))])
        if state.is_terminal():
            continue
        view = state.view(state.current_player)
        sample = view.sample_determinization(rand)
        assert sample.legal_actions() == state.legal_actions()
        for post in range(60):
            assert sample.owner[post] == state.owner[post]
            if state.owner[post] == view.player:
                assert sample.kind[post] == state.kind[post]
            elif state.owner[post] == view.opponent:
                assert view.possible[post] >> sample.kind[post] & 1
        # Search runs on: the determinized state plays on independently of the real one.
        sample.apply(sample.legal_actions()[0])
        assert state.ply == view.ply


def test_view_errors():
    state = JunqiState.random_initial(0)
    with pytest.raises(ValueError, match="player must be 0 or 1"):
        state.view(2)
    with pytest.raises(ValueError, match="exactly the posts"):
        state.view(0).determinize({})


# ---------------------------------------------------------------- information boundary
MAY_BE = OBSERVATION_PLANES.index("opponent_may_be_marshal")
LOWER = OBSERVATION_PLANES.index("opponent_rank_lower_bound")
UPPER = OBSERVATION_PLANES.index("opponent_rank_upper_bound")


def _bits(*names):
    return sum(1 << NAMES.index(n) for n in names)


@pytest.mark.audit
def test_audit_evidence_after_a_lost_captain_attack():
    # Our captain attacks an unmoved piece and loses: the defender outranks a captain or is a
    # mine. A bomb would have removed both, so a bomb is ruled out.
    for defender in ("major", "marshal", "mine"):
        state = quiet_position({"H0": (0, "captain"), "G0": (1, defender)})
        assert move(state, "H0", "G0") == ATTACKER_LOST
        view = state.view(0)
        expected = _bits("marshal", "general", "major_general", "brigadier", "colonel", "major",
                         "mine")  # fmt: skip
        assert view.possible[parse_post("G0")] == expected
        obs = observation_planes(view)
        r, c = 6, 0
        bits = [float(expected >> k & 1) for k in range(12)]
        assert list(obs[MAY_BE : MAY_BE + 12, r, c]) == bits
        assert obs[LOWER, r, c] == pytest.approx(0.5) and obs[UPPER, r, c] == pytest.approx(1.0)


@pytest.mark.audit
def test_audit_both_removed_leaves_no_evidence_and_hides_bomb_from_equal_trade():
    # A bomb trade and an equal trade look the same: both pieces gone, nothing else changes.
    observations = []
    for defender in ("bomb", "captain"):
        state = quiet_position({"H0": (0, "captain"), "G0": (1, defender), "F0": (1, "major")})
        assert move(state, "H0", "G0") == BOTH_REMOVED
        view = state.view(0)
        assert view.owner[parse_post("G0")] == -1 and view.possible[parse_post("G0")] == 0
        observations.append(observation_planes(view))
    assert np.array_equal(*observations)


@pytest.mark.audit
def test_audit_winner_of_a_defence_is_known_only_to_outrank_the_attacker():
    # The opponent's piece attacks our lieutenant and wins: it outranks a lieutenant.
    state = quiet_position({"H0": (0, "lieutenant"), "G0": (1, "colonel")}, rules="ccgc")
    state = JunqiState.from_pieces(state.pieces(), to_move=1)
    assert move(state, "G0", "H0") == ATTACKER_WON
    assert state.view(0).possible[parse_post("H0")] == _bits(
        "marshal", "general", "major_general", "brigadier", "colonel", "major", "captain"
    )


@pytest.mark.audit
def test_audit_views_hide_identities_under_swaps_consistent_with_history():
    # Two deals that differ only in the identities of two unmoved opponent pieces of the same
    # deployment class give identical views, observations and legal actions to the observer.
    for a, b in (("marshal", "engineer"), ("bomb", "captain"), ("mine", "flag")):
        views = []
        for x, y in ((a, b), (b, a)):
            pieces = {
                "K4": (0, "major"),
                "L1": (0, "flag"),
                "A1": (1, x),
                "A3": (1, y),
                "B4": (1, "major"),
                "A0": (1, "flag" if "flag" not in (a, b) else "mine"),
            }
            state = JunqiState.from_pieces(pieces)
            move(state, "K4", "K3")
            views.append(state.view(0))
        assert views[0] == views[1]
        assert np.array_equal(observation_planes(views[0]), observation_planes(views[1]))
        assert views[0].legal_actions() == views[1].legal_actions()
