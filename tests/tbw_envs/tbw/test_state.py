"""Rules of the TBW game core (``TBWState``) on all three board topologies: the turn structure, the
end of the game, the action encoding, state queries and bad actions.

Expected values are worked out by hand, never by the code under test. Small scenarios are built as
dicts (``tests/helpers/tbw_builders.py``); ``make`` returns the initial state."""

from __future__ import annotations

import random

import numpy as np
import pytest
import yaml

from tbw_envs.tbw import END_TURN, IllegalActionError, ScenarioError, TBWState, load_scenario
from tests.helpers.tbw_builders import (
    FREED,
    FREED_UNITS,
    TOPOLOGIES,
    check_action_invariants,
    make,
    open_rows,
    reach,
    snapshot,
    unit_actions,
    ut,
)
from tests.helpers.tbw_builders import (
    scenario as scenario_dict,
)

# =============================================================================== the first position


def test_initial_starts_a_scenario_or_what_load_scenario_takes(tmp_path):
    scenario = load_scenario("duel_5v5_8x8")
    first = TBWState.initial(scenario)
    assert first.scenario is scenario
    assert [u.pos for u in first.units] == [(u.row, u.col) for u in scenario.units]
    assert first.turn == 1 and first.current_player == scenario.first_side
    assert not first.is_terminal() and not any(u.acted for u in first.units)
    strip = scenario_dict(open_rows(1, 3), [(0, "soldier", (0, 0)), (1, "statue", (0, 2))])
    path = tmp_path / "strip.yaml"
    path.write_text(yaml.safe_dump(strip), encoding="utf-8")
    for spec in ("duel_5v5_8x8", path, strip):
        assert snapshot(TBWState.initial(spec)) == snapshot(TBWState.initial(load_scenario(spec)))
    with pytest.raises(ScenarioError, match="scenario must be a name, a path or a dict, got int"):
        TBWState.initial(3)


# =============================================================================== turn structure


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_each_unit_acts_at_most_once(topology):
    state = make(open_rows(3, 5), [(0, "soldier", (1, 0)), (0, "soldier", (1, 1)),
                                   (1, "statue", (1, 4))], topology=topology)
    assert unit_actions(state, 0) and unit_actions(state, 1)
    act = state.encode_action(0, (0, 0), None)
    state.apply(act)
    assert state.current_player == 0
    assert state.units[0].acted and not state.units[1].acted
    assert unit_actions(state, 0) == set()
    assert unit_actions(state, 1)
    with pytest.raises(IllegalActionError, match="already acted"):
        state.apply(state.encode_action(0, (0, 0), None))


def final_positions(state, order):
    """All position tuples reachable when the units in ``order`` act in that order."""
    if not order:
        return {tuple(u.pos for u in state.units)}
    out = set()
    for a in state.legal_actions():
        d = state.decode_action(a)
        if d != END_TURN and d[0] == order[0]:
            child = state.clone()
            child.apply(a)
            out |= final_positions(child, order[1:])
    return out


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_order_matters_blocking(topology):
    # Figure 7: unit 1 stands on unit 0's only destination; unit 0 can take it only if unit 1
    # moves away first.
    types = {"u": ut(move=1)}
    state = make(["..."], [(0, "u", (0, 0)), (0, "u", (0, 1))], topology=topology,
                 unit_types=types, win="none")
    first0 = final_positions(state, (0, 1))
    first1 = final_positions(state, (1, 0))
    assert first0 == {((0, 0), (0, 1)), ((0, 0), (0, 2))}
    assert first1 == {((0, 0), (0, 1)), ((0, 0), (0, 2)), ((0, 1), (0, 2))}


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_order_matters_kill_opens_path(topology):
    state = make(FREED, FREED_UNITS, topology=topology)
    runner_last = {p[1] for p in final_positions(state, (0, 1))}
    runner_first = {p[1] for p in final_positions(state, (1, 0))}
    assert runner_last == {(0, 0), (0, 2), (0, 3)}
    assert runner_first == {(0, 0)}


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_turn_passes_after_last_unit_acts(topology):
    state = make(open_rows(3, 5), [(0, "soldier", (1, 0)), (0, "soldier", (1, 1)),
                                   (1, "statue", (1, 4))], topology=topology)
    state.apply(state.encode_action(0, (0, 0), None))
    assert state.current_player == 0
    state.apply(state.encode_action(1, (1, 1), None))
    assert state.current_player == 1
    assert state.turn == 1
    assert [u.acted for u in state.units] == [False, False, False]
    assert {d[0] for d in map(state.decode_action, state.legal_actions()) if d != END_TURN} == {2}


def test_turn_passes_after_last_living_unit_acts_first_side_1():
    # Side 1 moves first and kills one of side 0's two units; side 0's survivor then acts
    # once and the turn passes.
    state = make(["...."], [(0, "statue", (0, 0)), (0, "statue", (0, 2), {"hp": 4}),
                            (1, "statue", (0, 3))], first_side=1, max_turns=5)
    assert (state.current_player, state.turn) == (1, 1)
    state.apply(state.encode_action(2, (0, 3), 1))
    assert not state.units[1].alive
    assert (state.current_player, state.turn) == (0, 1)
    state.apply(state.encode_action(0, (0, 0), None))
    assert (state.current_player, state.turn) == (1, 2)


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_end_turn_is_always_legal_and_leaves_the_rest(topology):
    state = make(open_rows(3, 5), [(0, "soldier", (1, 0)), (0, "soldier", (1, 1)),
                                   (1, "statue", (1, 4))], topology=topology)
    end = state.encode_action(END_TURN)
    assert end == state.num_actions - 1
    assert state.legal_actions()[-1] == end
    assert state.decode_action(end) == END_TURN
    state.apply(state.encode_action(0, (2, 0), None))
    assert state.legal_actions()[-1] == end
    before = [(u.pos, u.hp) for u in state.units]
    state.apply(end)
    assert [(u.pos, u.hp) for u in state.units] == before
    assert state.current_player == 1
    assert [u.acted for u in state.units] == [False, False, False]
    # side 1 can end its turn at once too
    assert state.legal_actions()[-1] == end
    state.apply(end)
    assert (state.current_player, state.turn) == (0, 2)


def test_acted_flags_reset_for_the_next_turn():
    state = make(open_rows(3, 5), [(0, "soldier", (1, 0)), (0, "soldier", (1, 1)),
                                   (1, "soldier", (1, 4)), (1, "soldier", (0, 4))])
    end = state.encode_action(END_TURN)
    state.apply(state.encode_action(0, (0, 0), None))
    state.apply(end)
    state.apply(state.encode_action(2, (1, 3), None))
    assert [u.acted for u in state.units] == [False, False, True, False]
    state.apply(end)
    assert [u.acted for u in state.units] == [False, False, False, False]
    assert unit_actions(state, 0) and unit_actions(state, 1)


@pytest.mark.parametrize("first_side", [0, 1])
def test_turn_counts_rounds(first_side):
    state = make(["...."], [(0, "statue", (0, 0)), (1, "statue", (0, 3))],
                 first_side=first_side, max_turns=10)
    end = state.encode_action(END_TURN)
    seen = [(state.turn, state.current_player)]
    for _ in range(5):
        state.apply(end)
        seen.append((state.turn, state.current_player))
    f, o = first_side, 1 - first_side
    assert seen == [(1, f), (1, o), (2, f), (2, o), (3, f), (3, o)]


def test_first_side_1_moves_first():
    state = make(["...."], [(0, "soldier", (0, 0)), (1, "soldier", (0, 3))], first_side=1)
    assert state.current_player == 1
    assert {state.decode_action(a)[0] for a in state.legal_actions()[:-1]} == {1}
    with pytest.raises(ValueError, match="belongs to side 0"):
        state.encode_action(0, (0, 1), None)


# =============================================================================== end of game


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_annihilation_side0_wins(topology):
    state = make(["...."], [(0, "killer", (0, 0)), (1, "statue", (0, 1))], topology=topology)
    state.apply(state.encode_action(0, (0, 0), 1))
    assert state.is_terminal()
    assert state.winner == 0
    assert state.returns() == [1.0, -1.0]
    assert state.legal_actions() == []
    assert state.legal_action_mask().sum() == 0


def test_annihilation_side1_wins():
    state = make(["...."], [(0, "statue", (0, 0), {"hp": 2}), (1, "statue", (0, 1))],
                 first_side=1)
    state.apply(state.encode_action(1, (0, 1), 0))
    assert state.is_terminal()
    assert state.winner == 1
    assert state.returns() == [-1.0, 1.0]


def test_annihilation_needs_every_unit():
    state = make(["....."], [(0, "killer", (0, 0)), (1, "statue", (0, 1)),
                             (1, "statue", (0, 4))])
    state.apply(state.encode_action(0, (0, 0), 1))
    assert not state.is_terminal()
    assert state.winner is None
    assert state.returns() == [0.0, 0.0]


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_leader_death_ends_the_game(topology):
    state = make(["......"], [(0, "killer", (0, 0), {"leader": True}), (0, "statue", (0, 5)),
                              (1, "statue", (0, 1), {"leader": True}), (1, "statue", (0, 3))],
                 topology=topology, win="leader")
    state.apply(state.encode_action(0, (0, 0), 2))
    assert state.is_terminal()
    assert state.winner == 0
    assert state.returns() == [1.0, -1.0]
    assert state.units[3].alive  # other units remain
    assert state.legal_actions() == []


def test_non_leader_death_does_not_end_leader_game():
    state = make(["......"], [(0, "killer", (0, 0), {"leader": True}), (0, "statue", (0, 5)),
                              (1, "statue", (0, 1)), (1, "statue", (0, 3), {"leader": True})],
                 win="leader")
    state.apply(state.encode_action(0, (0, 0), 2))
    assert not state.units[2].alive
    assert not state.is_terminal()


def test_leader_flag_is_ignored_under_annihilation():
    state = make(["......"], [(0, "killer", (0, 0)), (1, "statue", (0, 1), {"leader": True}),
                              (1, "statue", (0, 3))], win="annihilation")
    state.apply(state.encode_action(0, (0, 0), 1))
    assert not state.units[1].alive
    assert not state.is_terminal()


def test_side1_leader_kills_side0_leader():
    state = make(["....."], [(0, "statue", (0, 0)), (0, "statue", (0, 2), {"leader": True}),
                             (1, "killer", (0, 3), {"leader": True})], win="leader",
                 first_side=1)
    state.apply(state.encode_action(2, (0, 3), 1))
    assert state.is_terminal()
    assert state.returns() == [-1.0, 1.0]


def test_win_none_never_ends_early():
    state = make(["...."], [(0, "killer", (0, 0)), (1, "statue", (0, 1))], win="none",
                 max_turns=2)
    state.apply(state.encode_action(0, (0, 0), 1))
    assert not state.is_terminal()
    assert state.winner is None
    # side 1 has nobody left but the game runs to the turn limit
    assert state.current_player == 1
    assert state.legal_actions() == [state.encode_action(END_TURN)]
    end = state.encode_action(END_TURN)
    state.apply(end)  # back to side 0, round 2
    assert not state.is_terminal()
    assert state.turn == 2
    state.apply(end)
    state.apply(end)
    assert state.is_terminal()
    assert state.winner is None
    assert state.returns() == [0.0, 0.0]


@pytest.mark.parametrize("first_side", [0, 1])
def test_turn_limit_is_a_draw(first_side):
    state = make(["...."], [(0, "statue", (0, 0), {"hp": 9}), (1, "statue", (0, 3))],
                 max_turns=2, first_side=first_side)
    end = state.encode_action(END_TURN)
    for _ in range(3):
        state.apply(end)
        assert not state.is_terminal()
    state.apply(end)
    assert state.is_terminal()
    assert state.turn == 2  # the round counter stops at max_turns
    assert state.winner is None
    assert state.returns() == [0.0, 0.0]
    assert state.legal_actions() == []
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply(end)


@pytest.mark.parametrize("hp0, hp1, winner, returns", [
    (10, 4, 0, [1.0, -1.0]),
    (3, 9, 1, [-1.0, 1.0]),
    (6, 6, None, [0.0, 0.0]),
])
def test_turn_limit_hp_tiebreak(hp0, hp1, winner, returns):
    # Totals per side: side 0 has two units (hp0 and 1), side 1 one unit (hp1 + 1).
    state = make(["....."], [(0, "statue", (0, 0), {"hp": hp0}), (0, "statue", (0, 4),
                                                                   {"hp": 1}),
                             (1, "statue", (0, 2), {"hp": hp1 + 1})],
                 max_turns=1, rules={"turn_limit_result": "hp"})
    end = state.encode_action(END_TURN)
    state.apply(end)
    state.apply(end)
    assert state.is_terminal()
    assert state.winner == winner
    assert state.returns() == returns


def test_turn_limit_hp_tiebreak_counts_damage():
    # Both start at 10; side 0 hits for 4, then the limit: 10 vs 6.
    state = make(["..."], [(0, "statue", (0, 0)), (1, "statue", (0, 1))], max_turns=1,
                 rules={"turn_limit_result": "hp"})
    state.apply(state.encode_action(0, (0, 0), 1))
    assert state.current_player == 1
    state.apply(state.encode_action(END_TURN))
    assert state.is_terminal()
    assert state.returns() == [1.0, -1.0]


def test_apply_after_the_end_raises_and_changes_nothing():
    state = make(["...."], [(0, "killer", (0, 0)), (1, "statue", (0, 1))])
    state.apply(state.encode_action(0, (0, 0), 1))
    before = snapshot(state)
    for action in (0, state.encode_action(END_TURN)):
        with pytest.raises(IllegalActionError, match="game is over"):
            state.apply(action)
    assert snapshot(state) == before


# =============================================================================== actions


def test_action_encoding_formula():
    # N = 2 units per side, T = 5 tiles: 2 * 5 * 3 + 1 = 31 actions, END_TURN = 30.
    state = make(["....."], [(0, "soldier", (0, 0)), (0, "soldier", (0, 1)),
                             (1, "statue", (0, 4))])
    assert state.num_actions == 31
    assert state.encode_action(END_TURN) == 30
    assert state.encode_action(1, (0, 3), 2) == (1 * 5 + 3) * 3 + 0 == 24
    assert state.encode_action(0, (0, 2), None) == (0 * 5 + 2) * 3 + 2 == 8
    assert state.decode_action(24) == (1, (0, 3), 2)
    assert state.decode_action(np.int64(8)) == (0, (0, 2), None)
    assert len(state.legal_action_mask()) == 31


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_encode_decode_round_trip_and_mask(topology):
    state = make(["..H..", ".L...", "....."],
                 [(0, "soldier", (2, 0)), (0, "longbow", (2, 2)), (0, "runner", (0, 0)),
                  (1, "soldier", (0, 4)), (1, "archer", (1, 4))], topology=topology)
    rnd = random.Random(7)
    for _ in range(12):
        check_action_invariants(state)
        if state.is_terminal():
            break
        state.apply(rnd.choice(state.legal_actions()))


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_clone_independence(topology):
    state = make(["....."], [(0, "killer", (0, 1)), (0, "runner", (0, 0)),
                             (1, "statue", (0, 2), {"hp": 5}), (1, "statue", (0, 4))],
                 topology=topology)
    before = snapshot(state)
    mask_before = state.legal_action_mask().copy()
    child = state.clone()
    assert snapshot(child) == before
    child.apply(child.encode_action(0, (0, 1), 2))  # a kill in the clone
    child.apply(child.encode_action(1, (0, 3), 3))
    assert snapshot(state) == before
    assert (state.legal_action_mask() == mask_before).all()
    assert state.units[2].alive and state.unit_at(0, 2) == 2
    assert reach(state, 1) == {(0, 0): 0}
    # and the original still plays on independently
    state.apply(state.encode_action(1, (0, 0), None))
    assert child.units[1].pos == (0, 3) and not child.units[2].alive
    assert state.units[1].pos == (0, 0) and state.units[2].alive


# =============================================================================== bad input


def bad_input_state():
    # side 0: soldier 0 (move 2) at (0, 0), soldier 1 at (0, 1); side 1: a statue at (0, 4).
    return make(["....."], [(0, "soldier", (0, 0)), (0, "soldier", (0, 1)),
                            (1, "statue", (0, 4))])


@pytest.mark.parametrize("action, match", [
    (31, r"out of range \[0, 31\)"),
    (10**9, r"out of range"),
    (-1, r"-1 is out of range"),
    (0.0, r"must be an int.*float"),
    (3.5, r"must be an int.*float"),
    ("3", r"must be an int.*str"),
    (None, r"must be an int.*NoneType"),
    (True, r"must be an int.*bool"),
    (np.float64(2.0), r"must be an int"),
])
def test_bad_action_values(action, match):
    state = bad_input_state()
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match=match):
        state.apply(action)
    assert snapshot(state) == before
    assert not state.is_legal(action)


def test_illegal_action_error_is_a_value_error():
    assert issubclass(IllegalActionError, ValueError)


def test_numpy_integer_action_is_accepted():
    state = bad_input_state()
    state.apply(np.int64(state.encode_action(0, (0, 0), None)))
    assert state.units[0].acted


def test_unit_that_already_acted():
    state = bad_input_state()
    state.apply(state.encode_action(0, (0, 0), None))
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="unit 0 has already acted"):
        state.apply(state.encode_action(0, (0, 0), None))
    assert snapshot(state) == before


def test_destination_out_of_range():
    state = bad_input_state()
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match=r"\(0, 3\) is out of unit 0's movement range"):
        state.apply(state.encode_action(0, (0, 3), None))
    assert snapshot(state) == before


def test_destination_on_enemy_is_out_of_range():
    state = make(["..."], [(0, "soldier", (0, 0)), (1, "statue", (0, 1))])
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match=r"\(0, 1\) is out of unit 0's movement"):
        state.apply(state.encode_action(0, (0, 1), None))
    assert snapshot(state) == before


def test_occupied_destination():
    state = bad_input_state()
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match=r"\(0, 1\) is occupied by unit 1"):
        state.apply(state.encode_action(0, (0, 1), None))
    assert snapshot(state) == before


def test_attack_out_of_range_enemy():
    state = bad_input_state()
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match=r"cannot attack unit 2"):
        state.apply(state.encode_action(0, (0, 0), 2))
    assert snapshot(state) == before


def test_attack_dead_enemy():
    state = make(["....."], [(0, "killer", (0, 0)), (0, "statue", (0, 4)),
                             (1, "statue", (0, 1)), (1, "statue", (0, 3))])
    state.apply(state.encode_action(0, (0, 0), 2))
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match=r"cannot attack unit 2"):
        state.apply(state.encode_action(1, (0, 4), 2))
    assert snapshot(state) == before


def test_dead_unit_cannot_act():
    state = make(["....."], [(0, "statue", (0, 0), {"hp": 1}), (0, "statue", (0, 4)),
                             (1, "statue", (0, 1))], first_side=1)
    state.apply(state.encode_action(2, (0, 1), 0))
    assert state.current_player == 0
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="unit 0 is dead"):
        state.apply(state.encode_action(0, (0, 0), None))
    assert snapshot(state) == before


def test_empty_slot_in_action():
    # N = 2 (side 0 has two units) but side 1 only one: enemy slot 1 does not exist.
    state = bad_input_state()
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="side 1 has no unit in slot 1"):
        state.apply((0 * 5 + 0) * 3 + 1)
    assert snapshot(state) == before
    state.apply(state.encode_action(END_TURN))
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="side 1 has no unit in slot 1"):
        state.apply((1 * 5 + 4) * 3 + 2)  # own slot 1 of side 1 does not exist
    assert snapshot(state) == before


def test_encode_action_with_enemy_actor():
    state = bad_input_state()
    before = snapshot(state)
    with pytest.raises(ValueError, match="unit 2 belongs to side 1"):
        state.encode_action(2, (0, 4), None)
    assert snapshot(state) == before


@pytest.mark.parametrize("uid", [3, 99, -1, "0"])
def test_encode_action_unknown_unit(uid):
    state = bad_input_state()
    before = snapshot(state)
    with pytest.raises(ValueError, match="unknown unit id"):
        state.encode_action(uid, (0, 0), None)
    assert snapshot(state) == before


@pytest.mark.parametrize("target", [7, -2])
def test_encode_action_unknown_target(target):
    state = bad_input_state()
    with pytest.raises(ValueError, match="unknown target unit id"):
        state.encode_action(0, (0, 0), target)


@pytest.mark.parametrize("dest", [(0, 5), (1, 0), (-1, 0), None, (0,)])
def test_encode_action_destination_off_board(dest):
    state = bad_input_state()
    with pytest.raises(ValueError, match="destination"):
        state.encode_action(0, dest, None)


# ---------------------------------------------------------------- TBW game core

def strip_state(units, cols, max_turns=2, **extra):
    """A 1 x ``cols`` strip of plain tiles; ``units``: (side, col, hp) of immobile scouts that
    strike next door for 1."""
    return TBWState.initial(load_scenario({
        "name": "gap_strip",
        "board": {"topology": "square4", "terrain": ["." * cols], "legend": {".": "plain"}},
        "terrain": {"plain": {"cost": 1}},
        "unit_types": {"scout": {"hp": 3, "atk": 1, "move": 0, "range": [1, 1]}},
        "units": [{"side": s, "type": "scout", "pos": [0, c], "hp": hp} for s, c, hp in units],
        "first_side": 0, "max_turns": max_turns, **extra,
    }))


@pytest.mark.mutation
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
    assert (state.terminal, state.winner, state.current_player, state.turn) == (True, 0, 0, 1)
    assert state.last_side == 0
    assert not state.can_attack_from(1, tile(0, 1), 2)  # a dead target
    copy = state.clone()
    assert (copy.winner, copy.last_side) == (0, 0)


@pytest.mark.mutation
def test_hp_tiebreak_counts_a_dead_unit_as_zero():
    state = strip_state([(0, 0, 2), (0, 2, 1), (1, 3, 3)], cols=4, max_turns=1,
                        rules={"turn_limit_result": "hp"})
    state.apply(state.encode_action(1, (0, 2), 2))
    state.apply(state.encode_action(END_TURN))
    state.apply(state.encode_action(2, (0, 3), 1))  # unit 1 dies; 2 HP left on each side
    assert state.terminal and state.winner is None


@pytest.mark.mutation
def test_win_none_game_ends_by_the_turn_limit_even_with_a_side_wiped_out():
    state = strip_state([(0, 0, 1), (1, 1, 1)], cols=2, max_turns=1, win="none")
    state.apply(state.encode_action(0, (0, 0), 1))
    for _ in range(4):
        if state.terminal:
            break
        state.apply(state.encode_action(END_TURN))
    assert state.terminal and state.end_reason == "turn_limit_draw"
