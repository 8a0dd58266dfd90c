"""Rules of the TBW game core, on all three board topologies.

Expected values are worked out by hand (or, for the randomised cross-check at the end, by an
independent reference implementation written here from the rules text), never by the code under
test. Small scenarios are built as dicts; ``make`` returns the initial state.
"""

from __future__ import annotations

import heapq
import random
from collections import deque

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tbw_envs.tbw import END_TURN, IllegalActionError, load_scenario

TOPOLOGIES = ("square4", "square8", "hex")

TERRAIN = {
    "plain": {"cost": 1},
    "forest": {"cost": 2},
    "hill": {"passable": False},
    "lake": {"passable": False, "shoot_over": True},
    "marsh": {"cost": {"foot": 2, "cavalry": 3}},
    "bog": {"cost": {"default": 1, "cavalry": None}},
    "mud": {"cost": 2.5},
    "road": {"cost": 0.5},
}
LEGEND = {
    ".": "plain", "F": "forest", "H": "hill", "L": "lake", "S": "marsh", "B": "bog",
    "M": "mud", "r": "road",
}


def ut(move=2, rng=(1, 1), hp=10, atk=4, cls=None):
    spec = {"hp": hp, "atk": atk, "move": move, "range": list(rng)}
    if cls is not None:
        spec["move_class"] = cls
    return spec


TYPES = {
    "soldier": ut(move=2),
    "statue": ut(move=0),  # cannot move: isolates attack rules
    "killer": ut(move=0, atk=10),
    "runner": ut(move=3),
    "archer": ut(move=0, rng=(2, 2), hp=8, atk=3),
    "longbow": ut(move=0, rng=(2, 3), hp=8, atk=3),
}


def scenario(rows, units, topology="square4", win="annihilation", max_turns=10,
             unit_types=None, terrain_types=None, legend=None, rules=None, first_side=0):
    """A scenario dict; ``units`` are ``(side, type, (row, col))`` or ``(..., {extra})``."""
    unit_specs = []
    for u in units:
        side, utype, (r, c), *extra = u
        spec = {"side": side, "type": utype, "pos": [r, c]}
        if extra:
            spec.update(extra[0])
        unit_specs.append(spec)
    data = {
        "board": {"topology": topology, "terrain": list(rows), "legend": legend or LEGEND},
        "terrain": terrain_types or TERRAIN,
        "unit_types": unit_types or TYPES,
        "units": unit_specs,
        "win": win,
        "max_turns": max_turns,
        "first_side": first_side,
    }
    if rules is not None:
        data["rules"] = rules
    return data


def make(rows, units, **kw):
    return load_scenario(scenario(rows, units, **kw)).initial_state()


def open_rows(n_rows, n_cols, char="."):
    return [char * n_cols] * n_rows


def reach(state, uid):
    """movement_range as {(row, col): cost}."""
    cols = state.scenario.board.cols
    return {divmod(t, cols): cost for t, cost in state.movement_range(uid).items()}


def unit_actions(state, uid):
    """The decoded legal actions of one unit: a set of (dest, target)."""
    out = set()
    for a in state.legal_actions():
        d = state.decode_action(a)
        if d != END_TURN and d[0] == uid:
            out.add((d[1], d[2]))
    return out


def targets_from(state, uid, dest):
    return {t for d, t in unit_actions(state, uid) if d == dest and t is not None}


def snapshot(state):
    return (state.legal_actions(), state.units, state.current_side, state.turn,
            state.is_terminal(), state.winner)


def pos(state, uid):
    return state.units[uid].pos


# =============================================================================== board geometry


def board(topology, rows=5, cols=5):
    return make(open_rows(rows, cols), [(0, "statue", (0, 0))], topology=topology,
                win="none").scenario.board


def neighbor_rcs(b, r, c):
    return {divmod(t, b.cols) for t in b.neighbors[r * b.cols + c]}


@pytest.mark.parametrize(
    "topology, cell, expected",
    [
        ("square4", (0, 0), 2), ("square4", (0, 4), 2), ("square4", (4, 4), 2),
        ("square4", (0, 2), 3), ("square4", (2, 0), 3), ("square4", (2, 2), 4),
        ("square8", (0, 0), 3), ("square8", (4, 0), 3), ("square8", (0, 2), 5),
        ("square8", (2, 4), 5), ("square8", (2, 2), 8),
        # hex, odd-r: even-row corners (0, 0) and (4, 0) lose the left diagonals too.
        ("hex", (0, 0), 2), ("hex", (0, 4), 3), ("hex", (4, 0), 2), ("hex", (4, 4), 3),
        ("hex", (0, 2), 4), ("hex", (2, 0), 3), ("hex", (2, 4), 5), ("hex", (1, 0), 5),
        ("hex", (1, 4), 3), ("hex", (2, 2), 6), ("hex", (1, 2), 6),
    ],
)
def test_neighbor_counts(topology, cell, expected):
    assert len(board(topology).neighbors[cell[0] * 5 + cell[1]]) == expected


@pytest.mark.parametrize(
    "topology, cell, expected",
    [
        ("square4", (2, 2), {(1, 2), (3, 2), (2, 1), (2, 3)}),
        ("square8", (2, 2), {(1, 1), (1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2), (3, 3)}),
        ("square8", (0, 0), {(0, 1), (1, 0), (1, 1)}),
        ("hex", (2, 2), {(1, 1), (1, 2), (2, 1), (2, 3), (3, 1), (3, 2)}),  # even row
        ("hex", (1, 2), {(0, 2), (0, 3), (1, 1), (1, 3), (2, 2), (2, 3)}),  # odd row
        ("hex", (1, 4), {(0, 4), (1, 3), (2, 4)}),
        ("hex", (0, 0), {(0, 1), (1, 0)}),
    ],
)
def test_neighbor_sets(topology, cell, expected):
    assert neighbor_rcs(board(topology), *cell) == expected


def test_neighbors_are_symmetric():
    for topology in TOPOLOGIES:
        b = board(topology, 6, 7)
        for t in range(b.size):
            for n in b.neighbors[t]:
                assert t in b.neighbors[n], (topology, b.rc(t), b.rc(n))


@pytest.mark.parametrize(
    "topology, a, b, expected",
    [
        ("square4", (0, 0), (0, 0), 0), ("square4", (0, 0), (2, 3), 5),
        ("square4", (1, 4), (3, 1), 5), ("square4", (4, 4), (0, 0), 8),
        ("square4", (0, 0), (1, 1), 2),
        ("square8", (0, 0), (2, 3), 3), ("square8", (1, 4), (3, 1), 3),
        ("square8", (4, 4), (0, 0), 4), ("square8", (0, 0), (1, 1), 1),
        ("hex", (0, 0), (0, 3), 3), ("hex", (0, 0), (1, 0), 1), ("hex", (1, 0), (0, 1), 1),
        ("hex", (0, 0), (1, 1), 2), ("hex", (0, 0), (2, 1), 2), ("hex", (0, 0), (2, 2), 3),
        ("hex", (2, 0), (0, 2), 3), ("hex", (4, 4), (0, 0), 6), ("hex", (2, 2), (1, 3), 2),
        ("hex", (2, 2), (0, 0), 3),
    ],
)
def test_distances(topology, a, b, expected):
    brd = board(topology)
    ta, tb = brd.tile(*a), brd.tile(*b)
    assert brd.distance(ta, tb) == expected
    assert brd.distance(tb, ta) == expected


def test_tile_indexing_is_row_major():
    b = board("hex", 4, 6)
    assert b.tile(2, 3) == 15
    assert b.rc(15) == (2, 3)
    assert b.size == 24


def bfs_distances(topology, rows, cols, start):
    """Hop distances over the neighbour rules of the brief (independent of the board code)."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        for n in ref_neighbors(topology, rows, cols, *cell):
            if n not in dist:
                dist[n] = dist[cell] + 1
                queue.append(n)
    return dist


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_distance_equals_hop_count(topology):
    rows, cols = 6, 7
    b = board(topology, rows, cols)
    for r in range(rows):
        for c in range(cols):
            hops = bfs_distances(topology, rows, cols, (r, c))
            for (r2, c2), d in hops.items():
                assert b.distance(b.tile(r, c), b.tile(r2, c2)) == d
            assert neighbor_rcs(b, r, c) == set(ref_neighbors(topology, rows, cols, r, c))


# =============================================================================== movement range


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


# =============================================================================== attacks

# Enemies around an attacker at (2, 2) of a 5 x 5 board, with hand-computed distances:
#            (1,2) (0,2) (2,4) (0,0) (1,3) (0,1) (4,4) (1,1)
# square4      1     2     2     4     2     3     4     2
# square8      1     2     2     2     1     2     2     1
# hex          1     2     2     3     2     2     3     1
RING = [(1, 2), (0, 2), (2, 4), (0, 0), (1, 3), (0, 1), (4, 4), (1, 1)]
ATTACKABLE = {
    ("square4", (1, 1)): {(1, 2)},
    ("square8", (1, 1)): {(1, 2), (1, 3), (1, 1)},
    ("hex", (1, 1)): {(1, 2), (1, 1)},
    ("square4", (2, 2)): {(0, 2), (2, 4), (1, 3), (1, 1)},
    ("square8", (2, 2)): {(0, 2), (2, 4), (0, 0), (0, 1), (4, 4)},
    ("hex", (2, 2)): {(0, 2), (2, 4), (1, 3), (0, 1)},
    ("square4", (2, 3)): {(0, 2), (2, 4), (1, 3), (0, 1), (1, 1)},
    ("square8", (2, 3)): {(0, 2), (2, 4), (0, 0), (0, 1), (4, 4)},
    ("hex", (2, 3)): {(0, 2), (2, 4), (1, 3), (0, 1), (0, 0), (4, 4)},
}


@pytest.mark.parametrize("topology, rng", sorted(ATTACKABLE))
def test_attack_ranges(topology, rng):
    types = {"a": ut(move=0, rng=rng), "statue": TYPES["statue"]}
    units = [(0, "a", (2, 2))] + [(1, "statue", cell) for cell in RING]
    state = make(open_rows(5, 5), units, topology=topology, unit_types=types)
    at = {u.id: u.pos for u in state.units}
    assert {at[t] for t in targets_from(state, 0, (2, 2))} == ATTACKABLE[topology, rng]


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_attack_after_moving(topology):
    # A soldier (move 2, melee) at (0, 0) reaches (0, 2) and attacks the enemy at (0, 3) from
    # there; from (0, 0) and (0, 1) the enemy is out of reach.
    state = make(["....."], [(0, "soldier", (0, 0)), (1, "statue", (0, 3))], topology=topology)
    assert unit_actions(state, 0) == {((0, 0), None), ((0, 1), None), ((0, 2), None),
                                      ((0, 2), 1)}


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_archer_shoots_across_lake(topology):
    types = {"bow": ut(move=2, rng=(2, 3)), "statue": TYPES["statue"]}
    state = make([".LL."], [(0, "bow", (0, 0)), (1, "statue", (0, 3))], topology=topology,
                 unit_types=types)
    assert reach(state, 0) == {(0, 0): 0}  # the archer cannot wade in
    assert unit_actions(state, 0) == {((0, 0), None), ((0, 0), 1)}
    state.apply(state.encode_action(0, (0, 0), 1))
    assert state.units[1].hp == 6


@pytest.mark.parametrize("topology", TOPOLOGIES)
@pytest.mark.parametrize("los", [False, True])
def test_lake_never_blocks_ranged_attack(topology, los):
    state = make([".LL."], [(0, "longbow", (0, 0)), (1, "statue", (0, 3))], topology=topology,
                 rules={"line_of_sight": los})
    assert targets_from(state, 0, (0, 0)) == {1}


# (target, tile on the line between, tile off the line) for an archer at (0, 0), range [2, 2].
LOS_CASES = {
    "square4": ((0, 2), (0, 1), (1, 1)),
    "square8": ((2, 2), (1, 1), (0, 1)),
    "hex": ((2, 1), (1, 0), (0, 1)),  # the midpoint of (0,0)-(2,1) is the centre of (1,0)
}


def los_state(topology, blocker_char, blocker_at, los):
    target, _, _ = LOS_CASES[topology]
    rows = [list("...") for _ in range(3)]
    rows[blocker_at[0]][blocker_at[1]] = blocker_char
    rules = {"line_of_sight": True} if los else None
    return make(["".join(r) for r in rows], [(0, "archer", (0, 0)), (1, "statue", target)],
                topology=topology, rules=rules)


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_hill_does_not_block_ranged_attacks_by_default(topology):
    _, between, _ = LOS_CASES[topology]
    state = los_state(topology, "H", between, los=False)
    assert targets_from(state, 0, (0, 0)) == {1}


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_hill_blocks_ranged_attack_with_line_of_sight(topology):
    _, between, _ = LOS_CASES[topology]
    state = los_state(topology, "H", between, los=True)
    assert targets_from(state, 0, (0, 0)) == set()
    assert state.legal_actions() == [state.encode_action(0, (0, 0), None),
                                     state.encode_action(END_TURN)]


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_lake_between_does_not_block_line_of_sight(topology):
    _, between, _ = LOS_CASES[topology]
    state = los_state(topology, "L", between, los=True)
    assert targets_from(state, 0, (0, 0)) == {1}


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_hill_off_the_line_does_not_block(topology):
    _, _, off = LOS_CASES[topology]
    state = los_state(topology, "H", off, los=True)
    assert targets_from(state, 0, (0, 0)) == {1}


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_line_of_sight_along_a_row(topology):
    # Range [3, 3] along row 1 (odd on hex) of a 3 x 4 board: a hill on (1, 1) or (1, 2)
    # blocks, a hill on (0, 1) or (2, 2) does not.
    types = {"bow": ut(move=0, rng=(3, 3)), "statue": TYPES["statue"]}
    for hill, blocked in [((1, 1), True), ((1, 2), True), ((0, 1), False), ((2, 2), False)]:
        rows = [list("....") for _ in range(3)]
        rows[hill[0]][hill[1]] = "H"
        state = make(["".join(r) for r in rows], [(0, "bow", (1, 0)), (1, "statue", (1, 3))],
                     topology=topology, unit_types=types, rules={"line_of_sight": True})
        assert targets_from(state, 0, (1, 0)) == (set() if blocked else {1}), hill


@pytest.mark.parametrize("topology, shape, target, blocking, clear", [
    # a column on square4, the diagonal on square8, and on hex the line (0,0)-(3,1), whose
    # inner points are exactly the centres of (1, 0) and (2, 1)
    ("square4", (4, 2), (3, 0), [(1, 0), (2, 0)], [(1, 1), (2, 1)]),
    ("square8", (4, 4), (3, 3), [(1, 1), (2, 2)], [(1, 0), (2, 1), (0, 1), (1, 2)]),
    ("hex", (4, 3), (3, 1), [(1, 0), (2, 1)], [(1, 1), (2, 0), (0, 1)]),
])
def test_line_of_sight_long_lines(topology, shape, target, blocking, clear):
    types = {"bow": ut(move=0, rng=(3, 3)), "statue": TYPES["statue"]}
    for hill in blocking + clear:
        rows = [["."] * shape[1] for _ in range(shape[0])]
        rows[hill[0]][hill[1]] = "H"
        grid = ["".join(r) for r in rows]
        units = [(0, "bow", (0, 0)), (1, "statue", target)]
        with_los = make(grid, units, topology=topology, unit_types=types,
                        rules={"line_of_sight": True})
        assert targets_from(with_los, 0, (0, 0)) == (set() if hill in blocking else {1}), hill
        without = make(grid, units, topology=topology, unit_types=types)
        assert targets_from(without, 0, (0, 0)) == {1}, hill


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_melee_is_not_blocked_by_line_of_sight(topology):
    state = make(["H..", "...", "..."], [(0, "statue", (0, 1)), (1, "statue", (1, 1))],
                 topology=topology, rules={"line_of_sight": True})
    assert targets_from(state, 0, (0, 1)) == {1}


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_cannot_attack_own_side(topology):
    state = make(["...."], [(0, "statue", (0, 1)), (0, "statue", (0, 0)),
                            (1, "statue", (0, 2))], topology=topology)
    assert targets_from(state, 0, (0, 1)) == {2}
    assert targets_from(state, 1, (0, 0)) == set()
    with pytest.raises(ValueError, match="acting side"):
        state.encode_action(0, (0, 1), 1)


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_damage_equals_attacker_atk(topology):
    types = {"hitter": ut(move=0, atk=3), "statue": TYPES["statue"]}
    state = make(["..."], [(0, "hitter", (0, 0)), (1, "statue", (0, 1))], topology=topology,
                 unit_types=types)
    state.apply(state.encode_action(0, (0, 0), 1))
    enemy = state.units[1]
    assert (enemy.hp, enemy.max_hp, enemy.alive, enemy.pos) == (7, 10, True, (0, 1))
    assert state.units[0].hp == 10  # no counter-attack


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_kill_removes_unit_at_once(topology):
    state = make(["....."], [(0, "statue", (0, 0)), (0, "statue", (0, 4)),
                             (1, "statue", (0, 1), {"hp": 4}), (1, "statue", (0, 3))],
                 topology=topology)
    state.apply(state.encode_action(0, (0, 0), 2))
    dead = state.units[2]
    assert (dead.alive, dead.hp, dead.pos) == (False, 0, None)
    assert state.unit_at(0, 1) is None
    assert not state.is_terminal()
    # the dead unit is no longer a target for anyone
    assert all(state.decode_action(a) == END_TURN or state.decode_action(a)[2] != 2
               for a in state.legal_actions())


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_overkill_hp_is_zero(topology):
    state = make(["..."], [(0, "killer", (0, 0)), (1, "statue", (0, 1), {"hp": 3}),
                           (1, "statue", (0, 2))], topology=topology)
    state.apply(state.encode_action(0, (0, 0), 1))
    assert state.units[1].hp == 0 and not state.units[1].alive


FREED = ["....."]
FREED_UNITS = [(0, "killer", (0, 1)), (0, "runner", (0, 0)),
               (1, "statue", (0, 2), {"hp": 5}), (1, "statue", (0, 4))]


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_freed_tile_can_be_entered_by_a_later_unit(topology):
    state = make(FREED, FREED_UNITS, topology=topology)
    assert reach(state, 1) == {(0, 0): 0}  # ally on (0, 1) passable, enemy on (0, 2) blocks
    state.apply(state.encode_action(0, (0, 1), 2))
    assert reach(state, 1) == {(0, 0): 0, (0, 2): 2, (0, 3): 3}
    state.apply(state.encode_action(1, (0, 2), None))
    assert pos(state, 1) == (0, 2)


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_freed_tile_opens_a_path(topology):
    state = make(FREED, FREED_UNITS, topology=topology)
    state.apply(state.encode_action(0, (0, 1), 2))
    # through the ally on (0, 1) and the freed (0, 2), then attack the enemy on (0, 4)
    act = state.encode_action(1, (0, 3), 3)
    assert act in state.legal_actions()
    state.apply(act)
    assert pos(state, 1) == (0, 3)
    assert state.units[3].hp == 6


# =============================================================================== turn structure


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_each_unit_acts_at_most_once(topology):
    state = make(open_rows(3, 5), [(0, "soldier", (1, 0)), (0, "soldier", (1, 1)),
                                   (1, "statue", (1, 4))], topology=topology)
    assert unit_actions(state, 0) and unit_actions(state, 1)
    act = state.encode_action(0, (0, 0), None)
    state.apply(act)
    assert state.current_side == 0
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
    assert state.current_side == 0
    state.apply(state.encode_action(1, (1, 1), None))
    assert state.current_side == 1
    assert state.turn == 1
    assert [u.acted for u in state.units] == [False, False, False]
    assert {d[0] for d in map(state.decode_action, state.legal_actions()) if d != END_TURN} == {2}


def test_turn_passes_after_last_living_unit_acts_first_side_1():
    # Side 1 moves first and kills one of side 0's two units; side 0's survivor then acts
    # once and the turn passes.
    state = make(["...."], [(0, "statue", (0, 0)), (0, "statue", (0, 2), {"hp": 4}),
                            (1, "statue", (0, 3))], first_side=1, max_turns=5)
    assert (state.current_side, state.turn) == (1, 1)
    state.apply(state.encode_action(2, (0, 3), 1))
    assert not state.units[1].alive
    assert (state.current_side, state.turn) == (0, 1)
    state.apply(state.encode_action(0, (0, 0), None))
    assert (state.current_side, state.turn) == (1, 2)


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
    assert state.current_side == 1
    assert [u.acted for u in state.units] == [False, False, False]
    # side 1 can end its turn at once too
    assert state.legal_actions()[-1] == end
    state.apply(end)
    assert (state.current_side, state.turn) == (0, 2)


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
    seen = [(state.turn, state.current_side)]
    for _ in range(5):
        state.apply(end)
        seen.append((state.turn, state.current_side))
    f, o = first_side, 1 - first_side
    assert seen == [(1, f), (1, o), (2, f), (2, o), (3, f), (3, o)]


def test_first_side_1_moves_first():
    state = make(["...."], [(0, "soldier", (0, 0)), (1, "soldier", (0, 3))], first_side=1)
    assert state.current_side == 1
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
    assert state.current_side == 1
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
    assert state.current_side == 1
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


def check_action_invariants(state):
    legal = state.legal_actions()
    assert legal == sorted(legal)
    assert len(set(legal)) == len(legal)
    if state.is_terminal():
        assert legal == []
    else:
        assert legal[-1] == state.encode_action(END_TURN) == state.num_actions - 1
    mask = state.legal_action_mask()
    assert mask.shape == (state.num_actions,)
    assert int(mask.sum()) == len(legal)
    assert set(np.flatnonzero(mask).tolist()) == set(legal)
    for a in legal:
        d = state.decode_action(a)
        if d == END_TURN:
            assert state.encode_action(END_TURN) == a
        else:
            assert state.encode_action(*d) == a


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
    assert state.current_side == 0
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


# =============================================================================== cross-check
# An independent reference: neighbours from the brief's rules, Dijkstra over terrain costs,
# hop distances by BFS, the action formula of tbw_envs.tbw.state. Compared to legal_actions()
# on random scenarios and random play.

REF_COSTS = {  # char -> {move class: cost or None}
    ".": {"foot": 1, "cavalry": 1}, "F": {"foot": 2, "cavalry": 2},
    "H": {"foot": None, "cavalry": None}, "L": {"foot": None, "cavalry": None},
    "S": {"foot": 2, "cavalry": 3}, "B": {"foot": 1, "cavalry": None},
    "M": {"foot": 2.5, "cavalry": 2.5}, "r": {"foot": 0.5, "cavalry": 0.5},
}
REF_TYPES = {
    "foot2": (ut(move=2), "foot"),
    "foot35": (ut(move=3.5, rng=(1, 2)), "foot"),
    "bow": (ut(move=1, rng=(2, 3), hp=6, atk=3), "foot"),
    "horse": (ut(move=4, atk=5, cls="cavalry"), "cavalry"),
    "rock": (ut(move=0, atk=7), "foot"),
}


def ref_neighbors(topology, rows, cols, r, c):
    if topology == "square4":
        steps = [(-1, 0), (1, 0), (0, -1), (0, 1)]
    elif topology == "square8":
        steps = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]
    elif r % 2 == 0:
        steps = [(-1, -1), (-1, 0), (0, -1), (0, 1), (1, -1), (1, 0)]
    else:
        steps = [(-1, 0), (-1, 1), (0, -1), (0, 1), (1, 0), (1, 1)]
    return [(r + dr, c + dc) for dr, dc in steps if 0 <= r + dr < rows and 0 <= c + dc < cols]


def ref_legal(data, state):
    topology = data["board"]["topology"]
    grid = data["board"]["terrain"]
    rows, cols = len(grid), len(grid[0])
    specs = data["units"]
    slots, counts = [], [0, 0]
    for s in specs:
        slots.append(counts[s["side"]])
        counts[s["side"]] += 1
    n = max(counts)
    size = rows * cols
    units = state.units
    side = state.current_side
    where = {u.pos: u for u in units if u.alive}
    out = {n * size * (n + 1)}
    for u in units:
        if u.side != side or not u.alive or u.acted:
            continue
        utype, cls = REF_TYPES[specs[u.id]["type"]]
        best = {u.pos: 0}
        heap = [(0, u.pos)]
        while heap:
            d, cell = heapq.heappop(heap)
            if d > best[cell]:
                continue
            for nb in ref_neighbors(topology, rows, cols, *cell):
                cost = REF_COSTS[grid[nb[0]][nb[1]]][cls]
                other = where.get(nb)
                if cost is None or (other is not None and other.side != side):
                    continue
                if d + cost <= utype["move"] and d + cost < best.get(nb, float("inf")):
                    best[nb] = d + cost
                    heapq.heappush(heap, (d + cost, nb))
        dests = {cell: d for cell, d in best.items() if cell not in where or cell == u.pos}
        assert {divmod(t, cols): c for t, c in state.movement_range(u.id).items()} == dests
        rmin, rmax = utype["range"]
        for dest in dests:
            base = (slots[u.id] * size + dest[0] * cols + dest[1]) * (n + 1)
            out.add(base + n)
            hops = bfs_distances(topology, rows, cols, dest)
            for e in units:
                if e.side != side and e.alive and rmin <= hops[e.pos] <= rmax:
                    out.add(base + slots[e.id])
    return sorted(out)


@st.composite
def random_scenarios(draw):
    topology = draw(st.sampled_from(TOPOLOGIES))
    rows = draw(st.integers(1, 5))
    cols = draw(st.integers(2, 5))
    chars = st.sampled_from("......FHLSBMr")
    grid = [[draw(chars) for _ in range(cols)] for _ in range(rows)]
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    n0 = draw(st.integers(1, 3))
    n1 = draw(st.integers(1, 3))
    if n0 + n1 > len(cells):
        n0, n1 = 1, 1
    chosen = draw(st.permutations(cells))[: n0 + n1]
    units = []
    for i, (r, c) in enumerate(chosen):
        grid[r][c] = "."  # units stand on plain
        units.append((0 if i < n0 else 1, draw(st.sampled_from(sorted(REF_TYPES))), (r, c)))
    win = draw(st.sampled_from(["annihilation", "none"]))
    return scenario(["".join(row) for row in grid], units, topology=topology, win=win,
                    max_turns=3, unit_types={k: v[0] for k, v in REF_TYPES.items()},
                    first_side=draw(st.integers(0, 1)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=random_scenarios(), seed=st.integers(0, 2**16))
def test_legal_actions_match_reference(data, seed):
    state = load_scenario(data).initial_state()
    rnd = random.Random(seed)
    for _ in range(40):
        if state.is_terminal():
            assert state.legal_actions() == []
            break
        assert state.legal_actions() == ref_legal(data, state)
        check_action_invariants(state)
        legal = state.legal_actions()
        # prefer unit actions so games actually fight; END_TURN now and then
        action = legal[-1] if rnd.random() < 0.15 else rnd.choice(legal)
        hp_before = {u.id: u.hp for u in state.units}
        decoded = state.decode_action(action)
        state.apply(action)
        if decoded != END_TURN and decoded[2] is not None:
            uid, _, target = decoded
            expected = max(0, hp_before[target] - REF_TYPES[data["units"][uid]["type"]][0]["atk"])
            assert state.units[target].hp == expected
            assert state.units[target].alive == (expected > 0)


def test_square_line_of_sight_counts_every_crossed_tile():
    """(0, 0) -> (1, 2): the straight line crosses (0, 1) and (1, 1); a hill on either blocks."""
    from tbw_envs.tbw import Board

    board = Board("square4", 3, 3)
    crossed = {board.rc(t) for t in board.tiles_between(board.tile(0, 0), board.tile(1, 2))}
    assert crossed == {(0, 1), (1, 1)}
    diagonal = {board.rc(t) for t in board.tiles_between(board.tile(0, 0), board.tile(2, 2))}
    assert diagonal == {(1, 1)}  # grazing the corners of (0, 1) and (1, 0) does not count
