"""Movement ranges of the TBW core (``TBWState.movement_range``, ``tbw_envs.tbw.rules``) on all
three topologies: terrain costs per movement class, allies passed through, enemies blocking,
decimal and fractional costs. Expected tiles are worked out by hand."""

from __future__ import annotations

import pytest

from tbw_envs.tbw import END_TURN
from tests.helpers.tbw_builders import (
    TOPOLOGIES,
    TYPES,
    make,
    open_rows,
    pos,
    reach,
    unit_actions,
    ut,
)


def diamond(center, radius):
    r0, c0 = center
    return {(r, c): abs(r - r0) + abs(c - c0)
            for r in range(r0 - radius, r0 + radius + 1)
            for c in range(c0 - radius, c0 + radius + 1)
            if abs(r - r0) + abs(c - c0) <= radius}


def square(center, radius):
    r0, c0 = center
    return {(r, c): max(abs(r - r0), abs(c - c0))
            for r in range(r0 - radius, r0 + radius + 1)
            for c in range(c0 - radius, c0 + radius + 1)}


# From the odd-row tile (3, 3) of a hex board, listed by hand from the neighbour rules.
HEX_RING1 = {(2, 3), (2, 4), (3, 2), (3, 4), (4, 3), (4, 4)}

HEX_RING2 = {(1, 2), (1, 3), (1, 4), (2, 2), (2, 5), (3, 1), (3, 5), (4, 2), (4, 5),
             (5, 2), (5, 3), (5, 4)}


def hex_disk(radius, step=1):
    out = {(3, 3): 0}
    out.update({t: 1 * step for t in HEX_RING1})
    if radius >= 2:
        out.update({t: 2 * step for t in HEX_RING2})
    return out


@pytest.mark.parametrize(
    "topology, move, expected",
    [
        ("square4", 1, diamond((3, 3), 1)),
        ("square4", 2, diamond((3, 3), 2)),
        ("square8", 1, square((3, 3), 1)),
        ("square8", 2, square((3, 3), 2)),
        ("hex", 1, hex_disk(1)),
        ("hex", 2, hex_disk(2)),
    ],
)
def test_open_board_movement_range(topology, move, expected):
    types = {"u": ut(move=move)}
    state = make(open_rows(7, 7), [(0, "u", (3, 3))], topology=topology, unit_types=types,
                 win="none")
    assert reach(state, 0) == expected


@pytest.mark.parametrize("topology, move, size", [
    ("square4", 1, 5), ("square4", 2, 13), ("square4", 3, 25),
    ("square8", 1, 9), ("square8", 2, 25), ("hex", 1, 7), ("hex", 2, 19), ("hex", 3, 37),
])
def test_open_board_movement_range_sizes(topology, move, size):
    types = {"u": ut(move=move)}
    state = make(open_rows(9, 9), [(0, "u", (4, 4))], topology=topology, unit_types=types,
                 win="none")
    assert len(state.movement_range(0)) == size


@pytest.mark.parametrize("topology, expected", [
    ("square4", {(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0)}),
    ("square8", {(r, c) for r in range(3) for c in range(3)}),
    # hex: (0, 0) -> (0, 1), (1, 0); then (0, 2), (1, 1) from (0, 1) and (2, 0), (2, 1) from (1, 0)
    ("hex", {(0, 0), (0, 1), (1, 0), (0, 2), (1, 1), (2, 0), (2, 1)}),
])
def test_corner_movement_range(topology, expected):
    state = make(open_rows(5, 5), [(0, "soldier", (0, 0))], topology=topology, win="none")
    assert set(reach(state, 0)) == expected


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_move_zero_keeps_own_tile(topology):
    state = make(open_rows(3, 3), [(0, "statue", (1, 1)), (1, "statue", (0, 0))],
                 topology=topology)
    assert reach(state, 0) == {(1, 1): 0}
    # (0, 0) is adjacent to (1, 1) only on square8 (on hex, odd row 1 reaches (0, 1), (0, 2))
    expected = {((1, 1), None)} | ({((1, 1), 1)} if topology == "square8" else set())
    assert unit_actions(state, 0) == expected


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_own_tile_always_included_when_boxed_in(topology):
    # Surrounded by enemies: the unit can only stay.
    state = make(["...", "...", "..."], [(0, "runner", (0, 0)), (1, "statue", (0, 1)),
                                          (1, "statue", (1, 0)), (1, "statue", (1, 1))],
                 topology=topology)
    assert reach(state, 0) == {(0, 0): 0}


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_passes_through_allies_but_cannot_end_on_them(topology):
    # A one-row board is a line in every topology.
    state = make(["....."], [(0, "soldier", (0, 0)), (0, "statue", (0, 1))],
                 topology=topology, win="none")
    assert reach(state, 0) == {(0, 0): 0, (0, 2): 2}
    assert {d for d, _ in unit_actions(state, 0)} == {(0, 0), (0, 2)}


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_enemies_block_movement(topology):
    state = make(["....."], [(0, "runner", (0, 0)), (1, "statue", (0, 2))], topology=topology)
    assert reach(state, 0) == {(0, 0): 0, (0, 1): 1}


def test_enemy_forces_a_detour_square4():
    # Enemy at (1, 1); reaching (1, 2) costs 4 around it (up, right, right, down), not 2.
    types = {"u": ut(move=4), "statue": TYPES["statue"]}
    state = make(["...", "...", "..."], [(0, "u", (1, 0)), (1, "statue", (1, 1))],
                 unit_types=types)
    r = reach(state, 0)
    assert r[(1, 2)] == 4
    assert (1, 1) not in r
    assert r == {(1, 0): 0, (0, 0): 1, (2, 0): 1, (0, 1): 2, (2, 1): 2, (0, 2): 3, (2, 2): 3,
                 (1, 2): 4}


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_never_ends_on_an_occupied_tile(topology):
    state = make(open_rows(5, 5), [(0, "runner", (2, 2)), (0, "statue", (2, 3)),
                                   (0, "statue", (1, 2)), (1, "statue", (4, 4)),
                                   (1, "statue", (0, 0))], topology=topology)
    occupied = {u.pos for u in state.units if u.id != 0}
    dests = set(reach(state, 0))
    assert dests and not dests & occupied
    assert (2, 2) in dests


@pytest.mark.parametrize("topology, move, expected", [
    # all-forest boards (cost 2): the reach of move m is that of move m / 2 on plain
    ("square4", 4, {k: 2 * v for k, v in diamond((3, 3), 2).items()}),
    ("square8", 2, {k: 2 * v for k, v in square((3, 3), 1).items()}),
    ("square8", 3, {k: 2 * v for k, v in square((3, 3), 1).items()}),
    ("hex", 2, hex_disk(1, step=2)),
    ("hex", 4, hex_disk(2, step=2)),
])
def test_forest_halves_the_reach(topology, move, expected):
    types = {"u": ut(move=move)}
    state = make(open_rows(7, 7, "F"), [(0, "u", (3, 3))], topology=topology,
                 unit_types=types, win="none")
    assert reach(state, 0) == expected


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_costs_per_movement_class(topology):
    # marsh: {foot: 2, cavalry: 3}
    types = {"foot": ut(move=6), "horse": ut(move=6, cls="cavalry")}
    foot = make(["SSSSSSS"], [(0, "foot", (0, 0))], topology=topology, unit_types=types,
                win="none")
    assert reach(foot, 0) == {(0, 0): 0, (0, 1): 2, (0, 2): 4, (0, 3): 6}
    horse = make(["SSSSSSS"], [(0, "horse", (0, 0))], topology=topology, unit_types=types,
                 win="none")
    assert reach(horse, 0) == {(0, 0): 0, (0, 1): 3, (0, 2): 6}


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_class_specific_impassable_with_default_cost(topology):
    # bog: {default: 1, cavalry: null}: foot walks in at cost 1, cavalry cannot enter.
    types = {"foot": ut(move=3), "horse": ut(move=3, cls="cavalry")}
    state = make([".BB.."], [(0, "foot", (0, 0)), (1, "horse", (0, 4))], topology=topology,
                 unit_types=types, win="none")
    assert reach(state, 0) == {(0, 0): 0, (0, 1): 1, (0, 2): 2, (0, 3): 3}
    state.apply(state.encode_action(END_TURN))
    assert reach(state, 1) == {(0, 4): 0, (0, 3): 1}


def test_cavalry_on_hex_marsh_board():
    types = {"horse": ut(move=3, cls="cavalry")}
    state = make(open_rows(7, 7, "S"), [(0, "horse", (3, 3))], topology="hex",
                 unit_types=types, win="none")
    assert reach(state, 0) == hex_disk(1, step=3)


@pytest.mark.parametrize("topology", TOPOLOGIES)
@pytest.mark.parametrize("blocker", ["H", "L"])
def test_impassable_and_lake_tiles_cannot_be_entered(topology, blocker):
    state = make([f".{blocker}..."], [(0, "runner", (0, 0))], topology=topology, win="none")
    assert reach(state, 0) == {(0, 0): 0}


@pytest.mark.parametrize("topology, expected", [
    ("square4", {(0, 0): 0, (1, 0): 0.5, (1, 1): 1.0, (1, 2): 1.5, (0, 1): 2.5, (0, 2): 2.5}),
    ("square8", {(0, 0): 0, (1, 0): 0.5, (1, 1): 0.5, (1, 2): 1.0, (0, 1): 2.5, (0, 2): 1.5}),
    ("hex", {(0, 0): 0, (1, 0): 0.5, (1, 1): 1.0, (1, 2): 1.5, (0, 1): 2.5, (0, 2): 2.0}),
])
def test_fractional_costs_take_the_cheapest_path(topology, expected):
    # Row 0: plain, mud (2.5), plain; row 1: road (0.5). Move 2.5 from (0, 0).
    # square4: (0, 2) costs 3.5 through the mud (2 tiles) but 2.5 along the road (4 tiles).
    types = {"u": ut(move=2.5)}
    state = make([".M.", "rrr"], [(0, "u", (0, 0))], topology=topology, unit_types=types,
                 win="none")
    assert reach(state, 0) == pytest.approx(expected)


@pytest.mark.parametrize("cost, move, tiles", [(0.2, 0.6, 3), (0.1, 0.3, 3)])
def test_decimal_costs_fill_the_budget_exactly(cost, move, tiles):
    terrain = {"road": {"cost": cost}}
    types = {"u": ut(move=move)}
    state = make(["." * 9], [(0, "u", (0, 0))], legend={".": "road"}, terrain_types=terrain,
                 unit_types=types, win="none")
    assert max(col for _, col in reach(state, 0)) == tiles  # the farthest column reached


def test_cheaper_longer_path_is_the_only_way_in_budget_square4():
    # (0, 2) through the mud would cost 3.5 > 2.5: only the 4-tile road detour fits.
    types = {"u": ut(move=2.5)}
    state = make([".M.", "rrr"], [(0, "u", (0, 0))], unit_types=types, win="none")
    act = state.encode_action(0, (0, 2), None)
    assert act in state.legal_actions()
    state.apply(act)
    assert pos(state, 0) == (0, 2)
