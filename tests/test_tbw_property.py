"""Random legal games to the end, with invariants, and the fast core held equal to the
reference rules (tests/tbw_reference.py) on every state visited."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tbw_reference import reference_apply, reference_legal_actions, reference_movement_range

from tbw_envs.tbw import END_TURN, load_scenario

TERRAIN = {
    "plain": {"cost": 1},
    "forest": {"cost": {"foot": 2, "cavalry": 3}},
    "marsh": {"cost": 1.5},
    "hill": {"passable": False},
    "lake": {"passable": False, "shoot_over": True},
}
LEGEND = {".": "plain", "F": "forest", "m": "marsh", "H": "hill", "L": "lake"}


@st.composite
def random_scenarios(draw):
    topology = draw(st.sampled_from(["square4", "square8", "hex"]))
    rows = draw(st.integers(3, 7))
    cols = draw(st.integers(3, 7))
    grid = [
        "".join(draw(st.sampled_from("....FmHL")) for _ in range(cols)) for _ in range(rows)
    ]
    unit_types = {
        "melee": {"hp": draw(st.integers(3, 12)), "atk": draw(st.integers(1, 8)),
                  "move": draw(st.sampled_from([0, 1, 2, 2.5, 3])), "range": [1, 1]},
        "archer": {"hp": draw(st.integers(3, 10)), "atk": draw(st.integers(1, 6)),
                   "move": draw(st.integers(1, 3)), "range": [2, draw(st.integers(2, 3))]},
        "rider": {"hp": draw(st.integers(3, 10)), "atk": draw(st.integers(1, 6)),
                  "move": draw(st.integers(2, 5)), "range": [1, 1], "move_class": "cavalry"},
    }
    free = [
        (r, c) for r in range(rows) for c in range(cols) if grid[r][c] in ".Fm"
    ]
    count = draw(st.integers(2, min(8, len(free)))) if len(free) >= 2 else 0
    if count < 2:
        grid[0] = "." + grid[0][1:]
        grid[-1] = grid[-1][:-1] + "."
        free = [(0, 0), (rows - 1, cols - 1)]
        count = 2
    cells = draw(st.permutations(free))[:count]
    units = []
    for i, (r, c) in enumerate(cells):
        units.append({
            "side": i % 2, "type": draw(st.sampled_from(sorted(unit_types))), "pos": [r, c],
            "leader": i < 2,
        })
    return {
        "name": "random",
        "board": {"topology": topology, "terrain": grid, "legend": LEGEND},
        "terrain": TERRAIN,
        "unit_types": unit_types,
        "units": units,
        "first_side": draw(st.integers(0, 1)),
        "max_turns": draw(st.integers(1, 6)),
        "win": draw(st.sampled_from(["annihilation", "leader", "none"])),
        "rules": {"line_of_sight": draw(st.booleans())},
    }


def check_invariants(state):
    sc = state.scenario
    occupied = {}
    for uid in range(len(sc.units)):
        assert 0 <= state.hp[uid] <= sc.units[uid].hp
        if state.hp[uid] > 0:
            tile = state.pos[uid]
            assert tile not in occupied, "two units on one tile"
            occupied[tile] = uid
            assert state.occupant[tile] == uid
            terrain = sc.terrain_types[sc.terrain_grid[tile]]
            assert terrain.cost_for(sc.units[uid].type.move_class) is not None
    assert sum(o >= 0 for o in state.occupant) == len(occupied)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_scenarios(), st.integers(0, 2**32 - 1))
def test_random_games_match_reference_and_keep_invariants(spec, seed):
    state = load_scenario(spec).initial_state()
    rng = random.Random(seed)
    damage_dealt = 0
    for _ in range(400):
        check_invariants(state)
        if state.is_terminal():
            break
        legal = state.legal_actions()
        assert set(legal) == reference_legal_actions(state)
        assert set(map(int, state.legal_action_mask().nonzero()[0])) == set(legal)
        for uid in state.ready_units():
            assert set(state.movement_range(uid)) == reference_movement_range(state, uid)
        action = legal[rng.randrange(len(legal))]
        expected_pos, expected_hp = reference_apply(state, action)
        before_total_hp = sum(state.hp)
        decoded = state.decode_action(action)
        state.apply(action)
        if decoded != END_TURN:
            assert state.hp == expected_hp
            for uid, tile in enumerate(expected_pos):
                if expected_hp[uid] > 0:
                    assert state.pos[uid] == tile
        damage_dealt += before_total_hp - sum(state.hp)
    else:
        raise AssertionError("game exceeded 400 unit actions; the turn limit should end it")
    assert state.is_terminal()
    assert state.legal_actions() == []
    initial_total = sum(u.hp for u in state.scenario.units)
    assert sum(state.hp) == initial_total - damage_dealt
    returns = state.returns()
    assert returns in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
