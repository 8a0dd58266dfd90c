"""The TBW core held equal to independent references under random play: the reference rules of
``tests/helpers/tbw_reference.py`` on every state of random legal games (with invariants), and a
reference written here from the rules text (neighbours, Dijkstra over terrain costs, hop
distances, the action formula) on scenarios Hypothesis draws."""

from __future__ import annotations

import heapq
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tbw_envs.tbw import END_TURN, TBWState, load_scenario
from tests.helpers.tbw_builders import TOPOLOGIES, check_action_invariants, scenario, ut
from tests.helpers.tbw_reference import (
    reference_apply,
    reference_hop_distances,
    reference_legal_actions,
    reference_movement_range,
    reference_neighbors,
)

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
    state = TBWState.initial(load_scenario(spec))
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
    side = state.current_player
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
            for nb in reference_neighbors(topology, rows, cols, *cell):
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
            hops = reference_hop_distances(topology, rows, cols, dest)
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
    state = TBWState.initial(load_scenario(data))
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
