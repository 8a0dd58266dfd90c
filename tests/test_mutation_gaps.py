"""Behaviours that mutation testing (scripts/mutation_check.py, docs/benchmarks.md) found
untested: each test here fails on a mutant that survived the rest of the suite."""

from __future__ import annotations

import numpy as np
import pytest
from quick_games import SKIRMISH

from tbw_envs import tbw_v0
from tbw_envs.core.contract import GameOverError
from tbw_envs.tbw import END_TURN, load_scenario
from tbw_envs.wrappers import make_tbw_single

SEATS = ("player_0", "player_1")


def test_string_infos_name_the_end_reason_the_learner_and_the_active_agent():
    env = tbw_v0.parallel_env(scenario=SKIRMISH, string_infos=True)
    observations, infos = env.reset(seed=0)
    assert infos["player_0"]["end_reason"] == "not_over"
    assert infos["player_0"]["active_agent"] == "player_0"
    rng = np.random.default_rng(0)
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"])))
                   for a in env.agents}
        observations, _, _, _, infos = env.step(actions)
    names = env.unwrapped.metadata["end_reasons"]
    for agent in SEATS:
        assert infos[agent]["end_reason"] in names[1:]
        assert infos[agent]["active_agent"] == ""
    single = make_tbw_single(scenario=SKIRMISH, learner_seat=1, string_infos=True)
    assert single.reset(seed=0)[1]["learner"] == "player_1"


def test_a_bad_string_infos_is_named_in_the_error():
    with pytest.raises(TypeError, match="got 'yes'"):
        tbw_v0.raw_env(scenario=SKIRMISH, string_infos="yes")


def test_reset_from_a_mid_game_state_continues_from_it():
    env = tbw_v0.raw_env(scenario=SKIRMISH)
    env.reset()
    state = env.scenario.initial_state()
    action = next(a for a in state.legal_actions() if a != env.scenario.end_turn_action)
    state.apply(action)
    env.step(env.to_env_action("player_0", action))
    other = tbw_v0.raw_env(scenario=SKIRMISH)
    other.reset(options={"state": state})
    assert np.array_equal(other.state(), env.state())


def test_reset_refuses_a_state_and_a_scenario_together():
    env = tbw_v0.raw_env(scenario=SKIRMISH)
    with pytest.raises(ValueError, match="not both"):
        env.reset(options={"state": env.scenario.initial_state(), "scenario": SKIRMISH})


def test_infos_carry_the_turn_and_a_move_after_the_end_is_refused():
    env = tbw_v0.raw_env(scenario=SKIRMISH)
    env.reset()
    assert env.infos["player_0"]["turn"] == 1
    rng = np.random.default_rng(0)
    while not env.terminations[env.agent_selection]:
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    assert env.infos["player_0"]["turn"] >= 1
    with pytest.raises(GameOverError):
        env.step(env.scenario.end_turn_action)


def test_action_mask_and_observation_spaces_are_int8_and_zero_one():
    env = tbw_v0.raw_env(scenario=SKIRMISH)
    space = env.observation_space("player_0")
    assert space["action_mask"].dtype == np.int8
    assert space["action_mask"].high.max() == 1 and space["observation"].high.max() == 1.0
    assert env.state_space.high.max() == 1.0


# ---------------------------------------------------------------- TBW game core

def strip_state(units, cols, max_turns=2, **extra):
    """A 1 x ``cols`` strip of plain tiles; ``units``: (side, col, hp) of immobile scouts that
    strike next door for 1."""
    return load_scenario({
        "name": "gap_strip",
        "board": {"topology": "square4", "terrain": ["." * cols], "legend": {".": "plain"}},
        "terrain": {"plain": {"cost": 1}},
        "unit_types": {"scout": {"hp": 3, "atk": 1, "move": 0, "range": [1, 1]}},
        "units": [{"side": s, "type": "scout", "pos": [0, c], "hp": hp} for s, c, hp in units],
        "first_side": 0, "max_turns": max_turns, **extra,
    }).initial_state()


def test_core_state_queries_and_a_winning_move():
    state = strip_state([(0, 0, 1), (0, 1, 1), (1, 2, 1)], cols=3)
    # Units on 1 HP are alive; nothing has moved yet.
    assert state.is_terminal() is False and state.last_side is None
    assert state.unit_at(0, 0) == 0 and state.unit_at(0, 2) == 2
    # The mask of a fresh state (before legal_actions() has run) is the legal set, as int8.
    mask = state.legal_action_mask()
    assert mask.dtype == np.int8
    assert set(np.flatnonzero(mask).tolist()) == set(state.legal_actions())
    tile = state.scenario.board.tile
    assert not state.can_attack_from(0, tile(0, 0), 1)  # an ally next door
    assert not state.can_attack_from(0, tile(0, 0), 2)  # an enemy out of range
    assert state.can_attack_from(1, tile(0, 1), 2)
    stay = state.encode_action(0, (0, 0), None)
    assert state.is_legal(stay)
    state.apply(stay)
    state.apply(state.encode_action(1, (0, 1), 2))
    # The winning move ends the game where it stands: the same side, the same turn.
    assert (state.terminal, state.winner, state.current_side, state.turn) == (True, 0, 0, 1)
    assert state.last_side == 0
    assert not state.can_attack_from(1, tile(0, 1), 2)  # a dead target
    copy = state.clone()
    assert (copy.winner, copy.last_side) == (0, 0)


def test_hp_tiebreak_counts_a_dead_unit_as_zero():
    state = strip_state([(0, 0, 2), (0, 2, 1), (1, 3, 3)], cols=4, max_turns=1,
                        rules={"turn_limit_result": "hp"})
    state.apply(state.encode_action(1, (0, 2), 2))
    state.apply(state.encode_action(END_TURN))
    state.apply(state.encode_action(2, (0, 3), 1))  # unit 1 dies; 2 HP left on each side
    assert state.terminal and state.winner is None


def test_win_none_game_ends_by_the_turn_limit_even_with_a_side_wiped_out():
    state = strip_state([(0, 0, 1), (1, 1, 1)], cols=2, max_turns=1, win="none")
    state.apply(state.encode_action(0, (0, 0), 1))
    for _ in range(4):
        if state.terminal:
            break
        state.apply(state.encode_action(END_TURN))
    assert state.terminal and state.end_reason == "turn_limit_draw"


def test_a_mid_game_single_agent_step_is_neither_over_nor_rewarded():
    env = make_tbw_single(scenario="duel_5v5_8x8")
    env.reset(seed=0)
    _, reward, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert (reward, terminated, truncated) == (0.0, False, False)
