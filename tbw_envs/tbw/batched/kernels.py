"""TBW's rules compiled with numba over a batch of games held in arrays.

The twin of ``TBWState.apply`` and ``legal_actions`` (``tbw_envs.tbw.state``), of
``reachable_tiles``, ``in_attack_range`` and ``side_has_lost`` (``tbw_envs.tbw.rules``) and of
``ObservationEncoder.encode`` (``tbw_envs.tbw.observation``), written over flat arrays so a whole
batch steps in one call. The batch is cut into one slice per thread (``step_games`` releases the
GIL; ``tbw_envs.core.threads.ThreadSlices`` runs the slices at once): each game is stepped by one
thread and no game reads another, so no result depends on the thread count.
``tests/tbw_envs/tbw/test_batched.py`` holds them equal to the reference core.

Importing this module imports numba (the ``fast`` extra); ``tbw_envs.tbw.batched`` imports it
only for ``backend="numba"``.

``Tables`` holds one scenario (``compiled.py`` builds it): neighbours padded with -1, entering
costs per movement class (-1: impassable), the distance table, which tile pairs in attack range
the line of sight rule blocks, unit constants, each side's unit ids by slot (-1 padded), the
static planes in both frames and the observation's channel numbers. ``Games`` holds the batch:
the fields of each ``TBWState`` (``winner`` and ``last_side`` -1 for None), the arrays of
``BatchedCore`` (the observation flattened to ``(N, C * H * W)``) and the movement regions of
the side to move.

A unit's region depends only on its tile, the terrain and the enemies' tiles (allies are
passable), and enemies do not move during a turn; so, like ``TBWState``'s cache, the regions
of the units to move are computed when a turn starts or an enemy dies (``regions_fresh``), with
for each tile of a region the enemy slots attackable from it as bits. A step then only filters
the regions by which tiles are free.

Reachability is exact: the kernel's Dijkstra adds the same float64 costs along each path, tests
the same budget (``move + MOVE_EPSILON``) and pops (cost, tile) pairs in heapq's order. Which
tiles are reachable depends only on the cheapest float sum of each tile, which no visiting order
changes (float addition is monotone), so ties cannot tell the two apart.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from tbw_envs.tbw.state import (
    ANNIHILATION,
    END_REASONS,
    LEADER_KILLED,
    MUTUAL_DEFEAT,
    TURN_LIMIT_DRAW,
    TURN_LIMIT_HP,
)
from tbw_envs.tbw.variant import WIN_RULES

Tables = namedtuple("Tables", [
    "size", "n", "num_actions", "first_side", "max_turns", "win_rule", "turn_limit_hp",
    "line_of_sight", "flip", "neighbors", "neighbor_count", "move_cost", "distance",
    "sight_blocked", "units", "unit_budget", "side_units", "side_count", "static_planes",
    "unit_planes", "max_hp", "turn_channel", "own_base", "own_acted", "enemy_base", "own_slot",
    "enemy_slot",
])
Games = namedtuple("Games", [
    "hp", "pos", "occupant", "acted", "current_player", "turn", "winner", "terminated",
    "last_side", "end_reason", "plies", "regions_fresh", "region_len", "region_tiles",
    "region_attacks", "observation", "action_mask",
])

# The columns of ``Tables.units`` (one row a unit id; one int64 table rather than eight arrays
# keeps the kernels' arguments, and their compile time, small).
UNIT_COLUMNS = ("side", "slot", "atk", "hp", "leader", "move_class", "range_min", "range_max")
SIDE, SLOT, ATK, HP, LEADER, MOVE_CLASS, RANGE_MIN, RANGE_MAX = range(len(UNIT_COLUMNS))
WIN_LEADER = WIN_RULES.index("leader")
WIN_NONE = WIN_RULES.index("none")
ANNIHILATION_CODE = 1 + END_REASONS.index(ANNIHILATION)
LEADER_KILLED_CODE = 1 + END_REASONS.index(LEADER_KILLED)
MUTUAL_DEFEAT_CODE = 1 + END_REASONS.index(MUTUAL_DEFEAT)
TURN_LIMIT_HP_CODE = 1 + END_REASONS.index(TURN_LIMIT_HP)
TURN_LIMIT_DRAW_CODE = 1 + END_REASONS.index(TURN_LIMIT_DRAW)

# Helpers called only from compiled code: no Python wrapper, which for functions of the two big
# tuples costs seconds of compile time each.
jit = numba.njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
entry = numba.njit(cache=True)


# --------------------------------------------------------------------------- movement


@jit
def _heap_push(heap_cost, heap_tile, length, cost, tile):
    """Push (cost, tile) onto the binary min-heap of the first ``length`` entries."""
    j = length
    heap_cost[j] = cost
    heap_tile[j] = tile
    while j > 0:
        parent = (j - 1) >> 1
        pc, pt = heap_cost[parent], heap_tile[parent]
        if cost < pc or (cost == pc and tile < pt):
            heap_cost[j], heap_tile[j] = pc, pt
            j = parent
        else:
            break
    heap_cost[j] = cost
    heap_tile[j] = tile
    return length + 1


@jit
def _heap_pop(heap_cost, heap_tile, length):
    """Drop the smallest (cost, tile) entry (read it at index 0 first); the new length."""
    length -= 1
    cost, tile = heap_cost[length], heap_tile[length]
    j = 0
    while True:
        child = 2 * j + 1
        if child >= length:
            break
        if child + 1 < length and (
            heap_cost[child + 1] < heap_cost[child]
            or (heap_cost[child + 1] == heap_cost[child]
                and heap_tile[child + 1] < heap_tile[child])
        ):
            child += 1
        cc, ct = heap_cost[child], heap_tile[child]
        if cc < cost or (cc == cost and ct < tile):
            heap_cost[j], heap_tile[j] = cc, ct
            j = child
        else:
            break
    heap_cost[j] = cost
    heap_tile[j] = tile
    return length


@jit
def _reachable(neighbors, neighbor_count, costs, budget, start, enemy_mark, mark, seen, stamp,
               best, heap_cost, heap_tile, out):
    """``reachable_tiles``: the tiles a unit on ``start`` reaches within ``budget`` without
    entering a tile whose ``enemy_mark`` is ``mark``, written to ``out`` in the order they are
    first reached; their count. ``seen[t] == stamp`` marks the tiles with a cost in ``best``."""
    seen[start] = stamp
    best[start] = 0.0
    out[0] = start
    count = 1
    length = _heap_push(heap_cost, heap_tile, 0, 0.0, start)
    while length > 0:
        spent, tile = heap_cost[0], heap_tile[0]
        length = _heap_pop(heap_cost, heap_tile, length)
        if spent > best[tile]:
            continue
        for j in range(neighbor_count[tile]):
            nxt = neighbors[tile, j]
            step = costs[nxt]
            if step < 0.0 or enemy_mark[nxt] == mark:
                continue
            total = spent + step
            if total <= budget and (seen[nxt] != stamp or total < best[nxt]):
                if seen[nxt] != stamp:
                    # ``out`` holds the largest region of any unit on an empty board, and
                    # enemies only take tiles away; the test only keeps memory safe.
                    if count == out.shape[0]:
                        return count
                    seen[nxt] = stamp
                    out[count] = nxt
                    count += 1
                best[nxt] = total
                length = _heap_push(heap_cost, heap_tile, length, total, nxt)
    return count


def new_scratch(size: int, degree: int):
    """The work arrays of one kernel call (each thread's slice has its own): enemy marks, seen
    stamps, costs, the heap (at most one push per tile and neighbour, and the start) and the two
    stamp counters."""
    return (np.zeros(size, np.int64), np.zeros(size, np.int64), np.zeros(size, np.float64),
            np.zeros(size * degree + 1, np.float64), np.zeros(size * degree + 1, np.int64),
            np.zeros(2, np.int64))


_scratch = jit(new_scratch)


@entry
def largest_region(neighbors, neighbor_count, move_cost, classes, budgets):
    """The most tiles a unit of movement class ``classes[k]`` and budget ``budgets[k]`` reaches
    from any tile of an empty board: an upper bound of every region in play."""
    size = neighbors.shape[0]
    enemy_mark, seen, best, heap_cost, heap_tile, _ = _scratch(size, neighbors.shape[1])
    out = np.zeros(size, np.int64)
    largest = 1
    stamp = 0
    for k in range(classes.shape[0]):
        for start in range(size):
            stamp += 1
            count = _reachable(neighbors, neighbor_count, move_cost[classes[k]], budgets[k],
                               start, enemy_mark, -1, seen, stamp, best, heap_cost, heap_tile,
                               out)
            largest = max(largest, count)
    return largest


@jit
def _build_regions(t, g, i, scratch):
    """The regions of the units to move, and for each tile the enemy slots they may attack."""
    enemy_mark, seen, best, heap_cost, heap_tile, stamps = scratch
    side = g.current_player[i]
    foe = 1 - side
    stamps[0] += 1
    mark = stamps[0]
    for k in range(t.side_count[foe]):
        enemy = t.side_units[foe, k]
        if g.hp[i, enemy] > 0:
            enemy_mark[g.pos[i, enemy]] = mark
    for slot in range(t.side_count[side]):
        uid = t.side_units[side, slot]
        if g.hp[i, uid] <= 0 or g.acted[i, uid]:
            continue
        stamps[1] += 1
        tiles = g.region_tiles[i, slot]
        count = _reachable(t.neighbors, t.neighbor_count, t.move_cost[t.units[uid, MOVE_CLASS]],
                           t.unit_budget[uid], g.pos[i, uid], enemy_mark, mark, seen,
                           stamps[1], best, heap_cost, heap_tile, tiles)
        g.region_len[i, slot] = count
        rmin, rmax = t.units[uid, RANGE_MIN], t.units[uid, RANGE_MAX]
        attacks = g.region_attacks[i, slot]
        for j in range(count):
            tile = tiles[j]
            bits = 0
            for k in range(t.side_count[foe]):
                enemy = t.side_units[foe, k]
                if g.hp[i, enemy] <= 0:
                    continue
                target = g.pos[i, enemy]
                dist = t.distance[tile, target]
                if rmin <= dist <= rmax and (
                    not t.line_of_sight or dist <= 1 or not t.sight_blocked[tile, target]
                ):
                    bits |= np.int64(1) << k
            attacks[j] = bits


# --------------------------------------------------------------------------- arrays


@jit
def _build_mask(t, g, i):
    """``legal_action_mask`` in the mover's frame, from the regions and the free tiles."""
    row = g.action_mask[i]
    row[:] = False
    side = g.current_player[i]
    turned = t.flip and side == 1
    last = t.size - 1
    width = t.n + 1
    for slot in range(t.side_count[side]):
        uid = t.side_units[side, slot]
        if g.hp[i, uid] <= 0 or g.acted[i, uid]:
            continue
        tiles = g.region_tiles[i, slot]
        attacks = g.region_attacks[i, slot]
        for j in range(g.region_len[i, slot]):
            tile = tiles[j]
            occupant = g.occupant[i, tile]
            if occupant >= 0 and occupant != uid:
                continue
            base = (slot * t.size + (last - tile if turned else tile)) * width
            row[base + t.n] = True
            bits = attacks[j]
            k = 0
            while bits:
                if bits & 1:
                    row[base + k] = True
                bits >>= 1
                k += 1
    row[t.num_actions - 1] = True


@jit
def _build_observation(t, g, i):
    """``ObservationEncoder.encode(state, mover)``, value for value."""
    obs = g.observation[i]
    side = g.current_player[i]
    turned = t.flip and side == 1
    size = t.size
    obs[:] = t.static_planes[1 if turned else 0]
    start = t.turn_channel * size
    obs[start:start + size] = min(g.turn[i] / t.max_turns, 1.0)
    for uid in range(t.units.shape[0]):
        hp = g.hp[i, uid]
        if hp <= 0:
            continue
        tile = g.pos[i, uid]
        if turned:
            tile = size - 1 - tile
        if t.units[uid, SIDE] == side:
            base, slot_base = t.own_base, t.own_slot
            if g.acted[i, uid]:
                obs[t.own_acted * size + tile] = 1.0
        else:
            base, slot_base = t.enemy_base, t.enemy_slot
        obs[base * size + tile] = 1.0
        obs[(base + 1) * size + tile] = hp / t.units[uid, HP]
        obs[(base + 2) * size + tile] = hp / t.max_hp
        for f in range(t.unit_planes.shape[1]):
            obs[(base + 3 + f) * size + tile] = t.unit_planes[uid, f]
        obs[(slot_base + t.units[uid, SLOT]) * size + tile] = 1.0


# --------------------------------------------------------------------------- rules


@jit
def _side_has_lost(t, g, i, side):
    if t.win_rule == WIN_NONE:
        return False
    count = t.side_count[side]
    dead = 0
    leader_dead = False
    for k in range(count):
        uid = t.side_units[side, k]
        if g.hp[i, uid] <= 0:
            dead += 1
            leader_dead = leader_dead or t.units[uid, LEADER] != 0
    if count > 0 and dead == count:
        return True
    return t.win_rule == WIN_LEADER and leader_dead


@jit
def _end_reason_code(t, g, i):
    """``TBWState.end_reason`` (read off the board) as 1 + its index in END_REASONS."""
    lost0 = _side_has_lost(t, g, i, 0)
    lost1 = _side_has_lost(t, g, i, 1)
    if lost0 and lost1:
        return MUTUAL_DEFEAT_CODE
    if lost0 or lost1:
        loser = 0 if lost0 else 1
        for k in range(t.side_count[loser]):
            if g.hp[i, t.side_units[loser, k]] > 0:
                return LEADER_KILLED_CODE
        return ANNIHILATION_CODE
    return TURN_LIMIT_HP_CODE if g.winner[i] >= 0 else TURN_LIMIT_DRAW_CODE


@jit
def _end_turn(t, g, i):
    side = g.current_player[i]
    for k in range(t.side_count[side]):
        g.acted[i, t.side_units[side, k]] = False
    g.regions_fresh[i] = False
    side = 1 - side
    g.current_player[i] = side
    if side == t.first_side:
        if g.turn[i] >= t.max_turns:
            g.terminated[i] = True
            if t.turn_limit_hp:
                totals = np.zeros(2, np.int64)
                for uid in range(t.units.shape[0]):
                    totals[t.units[uid, SIDE]] += max(g.hp[i, uid], 0)
                if totals[0] != totals[1]:
                    g.winner[i] = 0 if totals[0] > totals[1] else 1
        else:
            g.turn[i] += 1


@jit
def _apply(t, g, i, action):
    """``TBWState.apply`` of a legal ``action`` in the mover's frame."""
    side = g.current_player[i]
    g.last_side[i] = side
    g.plies[i] += 1
    if action == t.num_actions - 1:
        _end_turn(t, g, i)
        return
    width = t.n + 1
    k = action % width
    slot, tile = divmod(action // width, t.size)
    if t.flip and side == 1:
        tile = t.size - 1 - tile
    uid = t.side_units[side, slot]
    g.occupant[i, g.pos[i, uid]] = -1
    g.occupant[i, tile] = uid
    g.pos[i, uid] = tile
    g.acted[i, uid] = True
    if k < t.n:
        target = t.side_units[1 - side, k]
        hp = max(0, g.hp[i, target] - t.units[uid, ATK])
        g.hp[i, target] = hp
        if hp == 0:
            g.occupant[i, g.pos[i, target]] = -1
            g.regions_fresh[i] = False  # a freed tile opens paths, a dead enemy is no target
            lost0 = _side_has_lost(t, g, i, 0)
            lost1 = _side_has_lost(t, g, i, 1)
            if lost0 or lost1:
                g.terminated[i] = True
                if lost0 != lost1:
                    g.winner[i] = 1 if lost0 else 0
                return
    for k in range(t.side_count[side]):
        other = t.side_units[side, k]
        if g.hp[i, other] > 0 and not g.acted[i, other]:
            return
    _end_turn(t, g, i)


@jit
def _refresh(t, g, i, scratch):
    """Slot ``i``'s mask, planes and end reason after its fields changed."""
    if g.terminated[i]:
        g.action_mask[i, :] = False
        g.end_reason[i] = _end_reason_code(t, g, i)
    else:
        if not g.regions_fresh[i]:
            _build_regions(t, g, i, scratch)
            g.regions_fresh[i] = True
        _build_mask(t, g, i)
        g.end_reason[i] = 0
    _build_observation(t, g, i)


@jit
def _refresh_stale(t, g, i, scratch):
    """``_refresh`` after the fields were set from outside: regions included."""
    g.regions_fresh[i] = False
    _refresh(t, g, i, scratch)


# --------------------------------------------------------------------------- entry points


# nogil: the batch is cut into one slice per thread (``tbw_envs.core.threads.ThreadSlices``),
# which run at once; each game is stepped by one thread, so the cut changes nothing.
@numba.njit(cache=True, nogil=True)
def step_games(start, stop, t, g, actions, active):
    """Play ``actions[i]`` in every slot from ``start`` to ``stop`` with ``active[i]`` and
    refresh its arrays."""
    scratch = _scratch(t.size, t.neighbors.shape[1])
    for i in range(start, stop):
        if active[i]:
            _apply(t, g, i, actions[i])
            _refresh(t, g, i, scratch)


@entry
def refresh_games(t, g, indices):
    """Recompute regions, masks and planes of the slots ``indices`` (fields set from outside).
    Serial: a batch resets a few slots at a time, and a parallel loop costs seconds more to
    compile."""
    scratch = _scratch(t.size, t.neighbors.shape[1])
    for i in indices:
        _refresh_stale(t, g, i, scratch)
