"""Attacks in the TBW core on all three topologies: ranges, attacking after a move, lakes and
hills under the line-of-sight rule, damage, kills and the tiles they free. Expected values are
worked out by hand."""

from __future__ import annotations

import pytest

from tbw_envs.tbw import END_TURN
from tests.helpers.tbw_builders import (
    FREED,
    FREED_UNITS,
    TOPOLOGIES,
    TYPES,
    make,
    open_rows,
    pos,
    reach,
    targets_from,
    unit_actions,
    ut,
)

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
