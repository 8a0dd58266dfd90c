"""The TBW rules as pure functions of a scenario and explicit positions.

``TBWState`` applies them to its own positions; search code (``agents.tbw.search.model``)
applies them to hypothetical ones (for example "these enemies are already dead"). One home for
each rule keeps the two from drifting apart.
"""

from __future__ import annotations

import heapq
from collections.abc import Container, Iterable

# Decimal costs (0.1 + 0.2 ...) must fill a movement budget exactly despite float rounding.
MOVE_EPSILON = 1e-9


def reachable_tiles(scenario, start: int, unit_type, blocked: Container[int]) -> dict[int, float]:
    """Tiles a unit of ``unit_type`` standing on ``start`` can reach within its movement points,
    mapped to the points spent (Dijkstra over entering costs of its movement class). It never
    enters a tile in ``blocked`` (enemy units); allies are passable, so whether the end tile is
    free is the caller's question."""
    budget = unit_type.move + MOVE_EPSILON
    costs = scenario.move_costs[unit_type.move_class]
    neighbors = scenario.board.neighbors
    best = {start: 0}
    frontier = [(0, start)]
    pop, push = heapq.heappop, heapq.heappush
    while frontier:
        spent, tile = pop(frontier)
        if spent > best[tile]:
            continue
        for nxt in neighbors[tile]:
            step = costs[nxt]
            if step is None or nxt in blocked:
                continue
            total = spent + step
            if total <= budget and total < best.get(nxt, budget + 1):
                best[nxt] = total
                push(frontier, (total, nxt))
    return best


def in_attack_range(scenario, unit_type, tile: int, target_tile: int) -> bool:
    """Whether a unit of ``unit_type`` on ``tile`` reaches ``target_tile``: board distance
    within its range, and (under the line-of-sight option, for ranged attacks) no blocking tile
    in between."""
    dist = scenario.board.distance_table[tile][target_tile]
    if not unit_type.range_min <= dist <= unit_type.range_max:
        return False
    if scenario.line_of_sight and dist > 1:
        blocks = scenario.blocks_sight
        return not any(blocks[t] for t in scenario.board.tiles_between(tile, target_tile))
    return True


def side_has_lost(scenario, side: int, dead: Iterable[int]) -> bool:
    """Whether ``side`` has lost when its units in ``dead`` are dead: annihilation, or any
    leader dead under ``win: leader``; never under ``win: none``. A side that never had units
    (one-sided scenarios) cannot be annihilated."""
    if scenario.win == "none":
        return False
    ids = scenario.side_units[side]
    dead = set(dead)
    if ids and all(u in dead for u in ids):
        return True
    return scenario.win == "leader" and any(scenario.units[u].leader for u in dead)
