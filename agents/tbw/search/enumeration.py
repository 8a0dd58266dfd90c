"""Algorithms 2 and 5 of the TBW paper in plain Python (``PlanEnumeration``), Algorithm 1
(``next_permutation``) and the greedy fallback plan (``greedy_plan``).

``PlanEnumeration`` is the reference the compiled kernel (``agents.tbw.search.kernel``) is
tested against.
"""

from __future__ import annotations

from agents.tbw.search.budget import Budget
from agents.tbw.search.model import FREE, Evaluator, TurnModel
from agents.tbw.search.plan import SearchBase


def next_permutation(order: list[int]) -> bool:
    """The paper's Algorithm 1: rearrange ``order`` into the next one in lexicographic order;
    False (order unchanged) when it is already the last."""
    j = len(order) - 2
    while j >= 0 and order[j] >= order[j + 1]:
        j -= 1
    if j < 0:
        return False
    k = len(order) - 1
    while order[k] <= order[j]:
        k -= 1
    order[j], order[k] = order[k], order[j]
    order[j + 1:] = reversed(order[j + 1:])
    return True


class PlanEnumeration(SearchBase):
    """Algorithms 2 and 5 on a ``TurnModel``. Execute / roll back on small mutable lists,
    exactly as Algorithm 3's "execute the current plan ... cancel this plan"."""

    def __init__(self, model: TurnModel, evaluator: Evaluator, budget: Budget):
        super().__init__(model, evaluator, budget)
        self.pos = model.start[:]
        self.occ = model.occupancy[:]
        self.hp = model.enemy_hp[:]
        self.dead = 0
        self.plan: list[tuple[int, int, int]] = []

    # Algorithm 2 -------------------------------------------------------------------------
    def run_alg2(self) -> None:
        order = list(range(self.model.n))
        while True:
            self._search(order, 0)
            if not next_permutation(order):
                return

    def _search(self, order: list[int], k: int) -> None:
        """Algorithm 3, Search(k): every action plan of the k-th unit of ``order``."""
        self._unit_actions(order[k], lambda: self._after(k, lambda: self._search(order, k + 1)))

    # Algorithm 5 -------------------------------------------------------------------------
    def run_alg5(self) -> None:
        self._plans_search(list(range(self.model.n)), 0)

    def _plans_search(self, order: list[int], k: int) -> None:
        """Algorithm 5, Plans Search(k): each remaining unit in turn takes position k (swap),
        its action plans are enumerated, and positions k+1.. are searched below each."""
        for j in range(k, len(order)):
            order[k], order[j] = order[j], order[k]
            self._unit_actions(
                order[k], lambda: self._after(k, lambda: self._plans_search(order, k + 1))
            )
            order[k], order[j] = order[j], order[k]

    # shared ------------------------------------------------------------------------------
    def _after(self, k: int, deeper) -> None:
        """After the k-th action: a leaf when every unit has acted or the game is won."""
        if k + 1 == self.model.n or self._is_win(self.dead):
            self._leaf()
        else:
            deeper()

    def _leaf(self) -> None:
        self.leaves += 1
        value = self.evaluator.leaf(self.pos, self.hp, self.dead, self.plan)
        if value > self.best_value:
            self.best_value = value
            self.best_plan = self.plan[:]

    def _unit_actions(self, i: int, visit) -> None:
        """Execute each action of ready unit ``i`` in turn (move, then no attack or one attack),
        call ``visit()`` and roll back. One ops1 per tile moved to."""
        m = self.model
        occ, pos, hp, plan = self.occ, self.pos, self.hp, self.plan
        start = pos[i]
        atk = m.atk[i]
        dead_before = self.dead
        for tile in m.region(i, dead_before):
            if occ[tile] != FREE and occ[tile] != i:
                continue
            self.clock.tick()
            occ[start] = FREE
            occ[tile] = i
            pos[i] = tile
            plan.append((i, tile, -1))
            visit()
            plan.pop()
            for e in m.targets(i, tile):
                old = hp[e]
                if old <= 0:
                    continue
                if old > atk:
                    hp[e] = old - atk
                else:
                    hp[e] = 0
                    occ[m.enemy_tile[e]] = FREE
                    self.dead = dead_before | (1 << e)
                plan.append((i, tile, e))
                visit()
                plan.pop()
                hp[e] = old
                if self.dead != dead_before:
                    occ[m.enemy_tile[e]] = m.n + e
                    self.dead = dead_before
            occ[tile] = FREE
            occ[start] = i
            pos[i] = start


def greedy_plan(model: TurnModel, evaluator: Evaluator) -> tuple[float, list]:
    """A quick legal plan, for when a budget runs out before the search has a complete one:
    the units in order each take the action whose resulting state scores best (the units after
    it standing where they are). Returns (value, plan)."""
    walk = PlanEnumeration(model, evaluator, Budget())

    def step(k: int) -> None:
        if k == model.n or walk._is_win(walk.dead):
            walk.best_value = evaluator.leaf(walk.pos, walk.hp, walk.dead, walk.plan)
            walk.best_plan = walk.plan[:]
            return
        scored = []
        walk._unit_actions(k, lambda: scored.append(
            (evaluator.leaf(walk.pos, walk.hp, walk.dead, walk.plan), walk.plan[-1])
        ))
        choice = max(scored, key=lambda entry: entry[0])[1]  # the first best: deterministic
        walk._unit_actions(k, lambda: walk.plan[-1] == choice and step(k + 1))

    step(0)
    return walk.best_value, walk.best_plan
