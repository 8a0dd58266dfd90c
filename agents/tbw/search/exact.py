"""The exact single-turn solver: Algorithm 5's optimal value, without enumerating unit orders.

Why orders can be dropped. A plan's end state depends only on *what* each unit does (its end
tile and its target), not on the order, whenever some order makes every action legal. So we
search outcomes -- one (tile, target) per unit -- and ask of each candidate only whether *some*
order realises it. That removes the n! factor and, with a decomposable evaluation, most of the
r^n one too.

With a decomposable evaluation (``Decomposition``: value = base(Hp) + sum of per-unit tile
tables that depend on which enemies are alive) the solver is a two-level branch and bound:

1. *Attack assignments*: each unit attacks one enemy or none. Assignments that overkill (an
   enemy whose attackers' damage minus the strongest one's already kills it: some attack would
   hit a corpse in every order) are skipped. Each assignment fixes the final Hp, hence the dead
   set D, base(Hp) and every unit's tile table; its upper bound adds each unit's best candidate
   tile (in its region with D dead, not a tile of a surviving enemy or of our units that acted
   before the root, and within reach of its target).
2. Assignments are taken best bound first; for each whose bound beats the best plan so far a
   depth-first search picks distinct tiles, candidates in decreasing value, cutting a branch as
   soon as its partial value plus the remaining units' best tiles cannot beat the best plan.
3. At a complete outcome the *realisability check* looks for an order (depth-first over the set
   of units that have acted, memoising dead ends): each unit needs its tile in its region given
   the enemies dead so far, the tile free (units that have not moved stand on their start
   tiles; living enemies on theirs), and its target alive. After a winning kill the game is
   over, so every later unit must be idle.

Every bound is an upper bound of the exact value of every outcome below it, and the check is
exact, so the optimum equals Algorithm 5's (the tests cross-check on random scenarios).

Without a decomposition the solver falls back to a depth-first search over states with a
transposition table (key: which units acted, where ours stand, the enemies' Hp): plans that
reach the same state in a different order are solved once. That is exact for any evaluation of
the end state.

Both start from a greedy plan (``agents.tbw.search.enumeration.greedy_plan``): a lower bound
from the start, and the answer if the budget runs out before anything better is found.

ops1 here counts every placement of a unit on a tile: in the bounds of the attack assignments
(one per unit), the tile search and the ordering checks (branch-and-bound), or in the state
search (fallback). So a node budget bounds every phase, and a time budget is checked in each.
"""

from __future__ import annotations

import math
import time

from agents.common.budget import OutOfBudget
from agents.tbw.search.budget import Budget
from agents.tbw.search.enumeration import PlanEnumeration, greedy_plan
from agents.tbw.search.model import Evaluator, TurnModel
from agents.tbw.search.plan import SearchBase, SearchResult, result_from_plan

MAX_ASSIGNMENTS = 2_000_000


def solve_exact(model: TurnModel, evaluator: Evaluator, budget: Budget, started: float):
    if evaluator.decomposition is None:
        solver = _TranspositionSearch(model, evaluator, budget)
    else:
        solver = _OutcomeSearch(model, evaluator, budget)
    # A greedy plan first: the answer when the budget runs out early, and from the start a
    # lower bound for the branch and bound.
    solver.best_value, solver.best_plan = greedy_plan(model, evaluator)
    complete = True
    try:
        solver.run()
    except OutOfBudget:
        complete = False
    complete = complete and not getattr(solver, "truncated", False)
    result: SearchResult = result_from_plan(
        model, "exact", solver.best_value, solver.best_plan, solver.clock.ops1, solver.leaves,
        time.perf_counter() - started, complete,
    )
    return result


class _OutcomeSearch(SearchBase):
    def __init__(self, model: TurnModel, evaluator: Evaluator, budget: Budget):
        super().__init__(model, evaluator, budget)
        self.truncated = False
        self._candidates: dict[tuple[int, int, int], list[tuple[float, int]]] = {}
        self._static_tiles = {model.state.pos[u] for u in model.static_own}

    # ---------------------------------------------------------------- level 1
    def run(self) -> None:
        m = self.model
        full = m.full_attackable_mask
        options = []
        for i in range(m.n):
            reach = set()
            for tile in m.region(i, full):
                reach.update(m.targets(i, tile))
            options.append([-1] + sorted(reach))
        scored = []
        self._collect(options, 0, [], [0] * m.n_enemies, [0] * m.n_enemies, scored)
        scored.sort(key=lambda entry: -entry[0])
        for bound, targets, hp, dead, const, cands in scored:
            if bound <= self.best_value:
                break
            self._tiles(targets, hp, dead, const, cands)

    def _collect(self, options, i, chosen, damage, strongest, out) -> None:
        m = self.model
        if i == m.n:
            for _ in range(m.n):  # the bound places each unit on its best candidate tile
                self.clock.tick()
            entry = self._bound(tuple(chosen))
            if entry is not None and entry[0] > self.best_value:
                if len(out) >= MAX_ASSIGNMENTS:
                    self.truncated = True
                    return
                out.append(entry)
            return
        atk = m.atk[i]
        for e in options[i]:
            if e >= 0:
                total, top = damage[e] + atk, max(strongest[e], atk)
                if total - top >= m.enemy_hp[e]:
                    continue  # overkill: in every order one of these attacks hits a corpse
                old = damage[e], strongest[e]
                damage[e], strongest[e] = total, top
            chosen.append(e)
            self._collect(options, i + 1, chosen, damage, strongest, out)
            chosen.pop()
            if e >= 0:
                damage[e], strongest[e] = old

    def _bound(self, targets):
        m, ev = self.model, self.evaluator
        hp = m.enemy_hp[:]
        for i, e in enumerate(targets):
            if e >= 0:
                hp[e] = max(0, hp[e] - m.atk[i])
        dead = sum(1 << e for e in range(m.n_enemies) if hp[e] <= 0)
        static, _ = ev.tables(dead)
        const = ev.base(hp) + static
        bound = const
        cands = []
        for i, e in enumerate(targets):
            c = self._candidate_tiles(i, e, dead)
            if not c:
                return None
            cands.append(c)
            bound += c[0][0]
        return bound, targets, hp, dead, const, cands

    def _candidate_tiles(self, i: int, target: int, dead: int) -> list[tuple[float, int]]:
        key = (i, target, dead)
        out = self._candidates.get(key)
        if out is None:
            m = self.model
            _, tables = self.evaluator.tables(dead)
            table = tables[i]
            alive_enemy_tiles = {
                m.enemy_tile[e] for e in range(m.n_enemies) if not (dead >> e) & 1
            }
            out = [
                (table[t], t) for t in m.region(i, dead)
                if t not in self._static_tiles and t not in alive_enemy_tiles
                and (target < 0 or target in m.targets(i, t))
            ]
            # Highest value first; ties by tile so the search is deterministic.
            out.sort(key=lambda vt: (-vt[0], vt[1]))
            self._candidates[key] = out
        return out

    # ---------------------------------------------------------------- level 2
    def _tiles(self, targets, hp, dead, const, cands) -> None:
        m = self.model
        n = m.n
        # Most constrained units first: fewer candidates means earlier conflicts.
        order = sorted(range(n), key=lambda i: len(cands[i]))
        rest = [0.0] * (n + 1)
        for k in range(n - 1, -1, -1):
            rest[k] = rest[k + 1] + cands[order[k]][0][0]
        chosen = [0] * n
        used: set[int] = set()
        clock = self.clock

        def descend(k: int, partial: float) -> None:
            if k == n:
                self._outcome(targets, chosen, hp, dead, partial)
                return
            i = order[k]
            for value, tile in cands[i]:
                if partial + value + rest[k + 1] <= self.best_value:
                    return  # candidates are sorted: no later one can do better
                if tile in used:
                    continue
                clock.tick()
                chosen[i] = tile
                used.add(tile)
                descend(k + 1, partial + value)
                used.discard(tile)

        descend(0, const)

    def _outcome(self, targets, tiles, hp, dead, value) -> None:
        self.leaves += 1
        order = self._realise(targets, tiles)
        if order is None:
            return
        # Recompute with the leaf evaluator so values match Algorithm 5's to the last bit.
        pos = list(tiles)
        exact_value = self.evaluator.leaf(pos, hp, dead, None)
        if exact_value > self.best_value:
            self.best_value = exact_value
            self.best_plan = [(i, tiles[i], targets[i]) for i in order]  # playing order

    def _realise(self, targets, tiles):
        """A playing order that makes every action legal, or None (see the module doc)."""
        m = self.model
        n = m.n
        start = m.start
        idle = [tiles[i] == start[i] and targets[i] < 0 for i in range(n)]
        start_owner = {start[i]: i for i in range(n)}
        enemy_at = {m.enemy_tile[e]: e for e in range(m.n_enemies)}
        failed: set[int] = set()
        hp = m.enemy_hp[:]
        order: list[int] = []
        clock = self.clock

        def extend(acted: int, dead: int) -> bool:
            if len(order) == n:
                return True
            if self._is_win(dead):
                # The game ended with the last kill: only idle units may be left over.
                # They never act (the plan ends with the win), as in Algorithm 5.
                return all(idle[i] for i in range(n) if not (acted >> i) & 1)
            if acted in failed:
                return False
            for i in range(n):
                if (acted >> i) & 1:
                    continue
                tile, e = tiles[i], targets[i]
                owner = start_owner.get(tile)
                if owner is not None and owner != i and not (acted >> owner) & 1:
                    continue  # still standing on its start tile
                blocker = enemy_at.get(tile)
                if blocker is not None and not (dead >> blocker) & 1:
                    continue
                if tile not in self.model.region_set(i, dead):
                    continue
                if e >= 0 and hp[e] <= 0:
                    continue
                clock.tick()
                old = hp[e] if e >= 0 else 0
                new_dead = dead
                if e >= 0:
                    hp[e] = max(0, old - m.atk[i])
                    if hp[e] == 0:
                        new_dead |= 1 << e
                order.append(i)
                if extend(acted | (1 << i), new_dead):
                    return True
                order.pop()
                if e >= 0:
                    hp[e] = old
            failed.add(acted)
            return False

        return order if extend(0, 0) else None


class _TranspositionSearch(PlanEnumeration):
    """Exact for any evaluation: depth-first over states, each distinct state solved once.
    Actions are executed and rolled back by ``PlanEnumeration._unit_actions``."""

    def __init__(self, model: TurnModel, evaluator: Evaluator, budget: Budget):
        super().__init__(model, evaluator, budget)
        self.memo: dict[tuple, tuple[float, tuple]] = {}
        # ``self.plan`` (from PlanEnumeration) is the path from the root, for replays.

    def run(self) -> None:
        value, plan = self._solve(0)
        self.best_value, self.best_plan = value, list(plan)

    def _solve(self, acted: int):
        key = (acted, tuple(self.pos), tuple(self.hp))
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        m = self.model
        everyone = (1 << m.n) - 1
        best = [-math.inf, ()]
        for i in range(m.n):
            if (acted >> i) & 1:
                continue
            done = acted | (1 << i)

            def visit(done=done) -> None:
                if done == everyone or self._is_win(self.dead):
                    value, rest = self._leaf(done), ()
                else:
                    value, rest = self._solve(done)
                if value > best[0]:
                    best[0], best[1] = value, (self.plan[-1], *rest)

            self._unit_actions(i, visit)
        self.memo[key] = result = (best[0], best[1])
        return result

    def _leaf(self, acted: int) -> float:
        # Every order reaching these Hp, tiles and acted units leaves the same game state.
        key = ("leaf", acted, tuple(self.pos), tuple(self.hp))
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        self.leaves += 1
        value = self.evaluator.replay_value(self.plan)
        self.memo[key] = value
        if value > self.best_value:  # anytime: the best complete plan so far
            self.best_value, self.best_plan = value, self.plan[:]
        return value
