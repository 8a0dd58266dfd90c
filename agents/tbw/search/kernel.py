"""Compiled Algorithms 2 and 5 (numba), twin of ``PlanEnumeration``
(``agents.tbw.search.enumeration``).

Optional: used only when numba imports (``pip install tbw-envs[fast]``), the evaluation has a
linear decomposition (``DefaultEvaluation``: base = sum of coefficient x Hp over living enemies +
a constant per dead set) and at most ``MAX_ATTACKABLE`` enemies can be attacked this turn. The
plain-Python reference stays the specification; the tests hold the two equal (value, ops1,
leaves).

The recursion of Algorithms 3 and 5 is unrolled into an explicit stack of frames (one per
depth) so the kernel is a single loop; the enumeration order is the reference's exactly: unit
orders by next_permutation (Algorithm 2) or by the recursive swap (Algorithm 5), tiles in
ascending order, "no attack" before the targets.
"""

from __future__ import annotations

import time

import numpy as np

from agents.tbw.search.plan import result_from_plan

try:  # pragma: no cover - depends on the environment
    import numba

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    numba = None
    HAVE_NUMBA = False

MAX_ATTACKABLE = 10


def supports(model, evaluator) -> bool:
    return (
        HAVE_NUMBA and evaluator.hp_coef is not None
        and model.n_attackable <= MAX_ATTACKABLE and model.n > 0
    )


def _pack(model, evaluator):
    """The model's tables as flat numpy arrays (see the module docstring)."""
    n, size = model.n, model.scenario.board.size
    n_masks = 1 << model.n_attackable
    reg_start = np.zeros((n, n_masks), np.int64)
    reg_len = np.zeros((n, n_masks), np.int64)
    flat: list[int] = []
    for i in range(n):
        for mask in range(n_masks):
            tiles = model.region(i, mask)
            reg_start[i, mask] = len(flat)
            reg_len[i, mask] = len(tiles)
            flat.extend(tiles)
    reg_tiles = np.array(flat, np.int64)
    tgt_start = np.zeros((n, size), np.int64)
    tgt_len = np.zeros((n, size), np.int64)
    tflat: list[int] = []
    full = model.full_attackable_mask
    for i in range(n):
        for tile in model.region(i, full):
            targets = model.targets(i, tile)
            tgt_start[i, tile] = len(tflat)
            tgt_len[i, tile] = len(targets)
            tflat.extend(targets)
    tgt_flat = np.array(tflat or [0], np.int64)

    # The leaf value is the reference's (``Evaluator.leaf``) term for term: same constants,
    # same summation order, so the two agree to the last bit and break ties alike.
    hp_coef = np.array(evaluator.hp_coef or [0.0], np.float64)
    mask_const = np.zeros(n_masks, np.float64)
    tables = np.zeros((n_masks, n, size), np.float64)
    win = np.zeros(n_masks, np.bool_)
    for mask in range(n_masks):
        _, unit_tables = evaluator.tables(mask)
        mask_const[mask] = evaluator.mask_constant(mask)
        for i in range(n):
            tables[mask, i, :] = unit_tables[i]
        win[mask] = model.is_win(mask)
    return (
        np.array(model.start, np.int64), np.array(model.atk, np.int64),
        np.array(model.occupancy, np.int64), np.array(model.enemy_tile or [0], np.int64),
        np.array(model.enemy_hp or [0], np.int64), reg_start, reg_len, reg_tiles, tgt_start,
        tgt_len, tgt_flat, hp_coef, mask_const, tables, win,
    )


def run(model, evaluator, algorithm: str, budget, started: float):
    packed = _pack(model, evaluator)
    max_ops = -1 if budget.nodes is None else int(budget.nodes)
    plan = np.zeros((model.n, 3), np.int64)
    stats = np.zeros(4, np.int64)  # ops1, leaves, plan length, completed
    value = enumerate_plans(algorithm == "alg5", model.n, *packed, max_ops, plan, stats)
    steps = [(int(plan[k, 0]), int(plan[k, 1]), int(plan[k, 2])) for k in range(int(stats[2]))]
    return result_from_plan(
        model, algorithm, float(value), steps, int(stats[0]), int(stats[1]),
        time.perf_counter() - started, bool(stats[3]), kernel="numba",
    )


def _enumerate_plans(alg5, n, start, atk, occ, enemy_tile, hp, reg_start, reg_len, reg_tiles,
                     tgt_start, tgt_len, tgt_flat, hp_coef, mask_const, tables, win, max_ops,
                     best_plan, stats):
    occ = occ.copy()
    hp = hp.copy()
    pos = start.copy()
    order = np.arange(n)
    n_enemies = hp.shape[0]
    next_j = np.zeros(n, np.int64)  # Algorithm 5: the unit swapped into position d
    tile_k = np.zeros(n, np.int64)  # index into the region being scanned
    target_k = np.zeros(n, np.int64)  # index into the target list of the current tile
    placed = np.zeros(n, np.bool_)
    dead_at_entry = np.zeros(n, np.int64)
    hit = np.full(n, -1, np.int64)  # enemy attacked at depth d, -1 none
    hp_before = np.zeros(n, np.int64)
    killed = np.zeros(n, np.bool_)
    dead = 0
    ops = 0
    leaves = 0
    best = -np.inf
    stopped = False
    while True:  # Algorithm 2: one pass per unit order; Algorithm 5: a single pass
        d = 0
        next_j[0] = 0
        tile_k[0] = -1
        placed[0] = False
        hit[0] = -1
        dead_at_entry[0] = dead
        while d >= 0 and not stopped:
            u = order[d]
            # Roll back this depth's attack, if any, before trying its next action.
            if hit[d] >= 0:
                e = hit[d]
                hp[e] = hp_before[d]
                if killed[d]:
                    occ[enemy_tile[e]] = n + e
                    dead &= ~(1 << e)
                    killed[d] = False
                hit[d] = -1
            acted = False
            if placed[d]:
                tile = pos[u]
                first = tgt_start[u, tile]
                count = tgt_len[u, tile]
                while target_k[d] < count:
                    e = tgt_flat[first + target_k[d]]
                    target_k[d] += 1
                    if hp[e] > 0:
                        hp_before[d] = hp[e]
                        hit[d] = e
                        if hp[e] > atk[u]:
                            hp[e] -= atk[u]
                        else:
                            hp[e] = 0
                            occ[enemy_tile[e]] = -1
                            dead |= 1 << e
                            killed[d] = True
                        acted = True
                        break
                if not acted:
                    occ[tile] = -1
                    occ[start[u]] = u
                    pos[u] = start[u]
                    placed[d] = False
            if not acted:
                mask = dead_at_entry[d]
                first = reg_start[u, mask]
                count = reg_len[u, mask]
                while True:
                    tile_k[d] += 1
                    if tile_k[d] >= count:
                        break
                    tile = reg_tiles[first + tile_k[d]]
                    if occ[tile] == -1 or occ[tile] == u:
                        if max_ops >= 0 and ops >= max_ops:
                            stopped = True
                            break
                        ops += 1
                        occ[start[u]] = -1
                        occ[tile] = u
                        pos[u] = tile
                        placed[d] = True
                        target_k[d] = 0
                        acted = True
                        break
                if stopped:
                    break
                if not acted:
                    if alg5:
                        j = next_j[d]
                        order[d], order[j] = order[j], order[d]
                        next_j[d] = j + 1
                        if j + 1 < n:
                            order[d], order[j + 1] = order[j + 1], order[d]
                            tile_k[d] = -1
                            continue
                    d -= 1
                    continue
            if d == n - 1 or win[dead]:
                leaves += 1
                value = mask_const[dead]
                for e in range(n_enemies):
                    value += hp_coef[e] * hp[e]
                for i in range(n):
                    value += tables[dead, i, pos[i]]
                if value > best:
                    best = value
                    for x in range(d + 1):
                        best_plan[x, 0] = order[x]
                        best_plan[x, 1] = pos[order[x]]
                        best_plan[x, 2] = hit[x]
                    stats[2] = d + 1
                continue
            d += 1
            next_j[d] = d
            tile_k[d] = -1
            placed[d] = False
            hit[d] = -1
            dead_at_entry[d] = dead
        if alg5 or stopped:
            break
        # Algorithm 1 (next_permutation) on ``order``.
        j = n - 2
        while j >= 0 and order[j] >= order[j + 1]:
            j -= 1
        if j < 0:
            break
        k = n - 1
        while order[k] <= order[j]:
            k -= 1
        order[j], order[k] = order[k], order[j]
        lo, hi = j + 1, n - 1
        while lo < hi:
            order[lo], order[hi] = order[hi], order[lo]
            lo += 1
            hi -= 1
    stats[0] = ops
    stats[1] = leaves
    stats[3] = 0 if stopped else 1
    return best


if HAVE_NUMBA:  # pragma: no cover - exercised when numba is installed
    enumerate_plans = numba.njit(cache=True)(_enumerate_plans)
else:  # pragma: no cover
    enumerate_plans = _enumerate_plans
