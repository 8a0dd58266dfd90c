"""A deliberately simple reference implementation of the TBW movement and action rules.

The game core caches regions per turn, inlines range tests and filters cached tuples; this
module recomputes everything from the rules' wording with plain loops, so tests can hold the
fast path equal to it on many random states.
"""

from __future__ import annotations

from collections import deque

from tbw_envs.tbw import END_TURN


def reference_movement_range(state, uid: int) -> set[int]:
    """Bellman-Ford relaxation over the whole board: tiles within movement points, passing
    through own units, never through enemies, never ending on another unit's tile."""
    sc = state.scenario
    board = sc.board
    spec = sc.units[uid]
    costs = sc.move_costs[spec.type.move_class]
    side = spec.side
    occupant_side = {}
    for other in range(len(sc.units)):
        if state.hp[other] > 0:
            occupant_side[state.pos[other]] = sc.units[other].side
    inf = float("inf")
    best = [inf] * board.size
    best[state.pos[uid]] = 0
    changed = True
    while changed:
        changed = False
        for tile in range(board.size):
            if best[tile] == inf:
                continue
            for nxt in board.neighbors[tile]:
                if costs[nxt] is None or occupant_side.get(nxt, side) != side:
                    continue
                total = best[tile] + costs[nxt]
                if total <= spec.type.move + 1e-9 and total < best[nxt]:
                    best[nxt] = total
                    changed = True
    own = state.pos[uid]
    return {
        t for t in range(board.size)
        if best[t] != inf and (t == own or t not in occupant_side)
    }


def reference_can_attack(state, uid: int, tile: int, target: int) -> bool:
    sc = state.scenario
    if state.hp[target] <= 0 or sc.units[target].side == sc.units[uid].side:
        return False
    dist = sc.board.distance(tile, state.pos[target])
    utype = sc.units[uid].type
    if not utype.range_min <= dist <= utype.range_max:
        return False
    if sc.line_of_sight and dist > 1:
        for between in sc.board.tiles_between(tile, state.pos[target]):
            terrain = sc.terrain_types[sc.terrain_grid[between]]
            if not terrain.passable and not terrain.shoot_over:
                return False
    return True


def reference_legal_actions(state) -> set[int]:
    """Every action id whose decoded meaning is allowed by the rules."""
    if state.is_terminal():
        return set()
    sc = state.scenario
    legal = {state.end_turn_action}
    ranges: dict[int, set[int]] = {}  # a unit's range, computed once: not once per action id
    for action in range(sc.num_actions - 1):
        try:
            uid, dest, target = state.decode_action(action)
        except ValueError:
            continue  # slot without a unit in this scenario
        if sc.units[uid].side != state.current_player or state.hp[uid] <= 0 or state.acted[uid]:
            continue
        tile = sc.board.tile(*dest)
        if uid not in ranges:
            ranges[uid] = reference_movement_range(state, uid)
        if tile not in ranges[uid]:
            continue
        if target is None or reference_can_attack(state, uid, tile, target):
            legal.add(action)
    return legal


def reference_apply(state, action):
    """Expected unit positions and Hp after ``action`` (before turn bookkeeping)."""
    pos = list(state.pos)
    hp = list(state.hp)
    decoded = state.decode_action(action)
    if decoded != END_TURN:
        uid, dest, target = decoded
        pos[uid] = state.scenario.board.tile(*dest)
        if target is not None:
            hp[target] = max(0, hp[target] - state.scenario.units[uid].type.atk)
    return pos, hp


def reference_hop_distances(topology, rows, cols, start):
    """Hop distances over the neighbour rules of the brief (independent of the board code)."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        for n in reference_neighbors(topology, rows, cols, *cell):
            if n not in dist:
                dist[n] = dist[cell] + 1
                queue.append(n)
    return dist


def reference_neighbors(topology, rows, cols, r, c):
    if topology == "square4":
        steps = [(-1, 0), (1, 0), (0, -1), (0, 1)]
    elif topology == "square8":
        steps = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]
    elif r % 2 == 0:
        steps = [(-1, -1), (-1, 0), (0, -1), (0, 1), (1, -1), (1, 0)]
    else:
        steps = [(-1, 0), (-1, 1), (0, -1), (0, 1), (1, 0), (1, 1)]
    return [(r + dr, c + dc) for dr, dc in steps if 0 <= r + dr < rows and 0 <= c + dc < cols]
