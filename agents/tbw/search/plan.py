"""What every single-turn search shares: its result (``SearchResult``), the state it keeps
(``SearchBase``) and the conversion of a found plan into game actions (``result_from_plan``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from agents.tbw.search.budget import Budget, BudgetClock
from agents.tbw.search.model import Evaluator, TurnModel


@dataclass
class SearchResult:
    algorithm: str
    value: float
    actions: list[int]  # the plan as game actions, in playing order
    ops1: int
    leaves: int
    seconds: float
    complete: bool  # False when the budget stopped the search (value = best found so far)
    plan: list[tuple[int, int, int | None]] = field(default_factory=list)
    # ``plan``: (unit id, destination tile, target unit id or None) per action, in order.
    kernel: str = "python"


class SearchBase:
    """What every single-turn search keeps: the problem, the clock and the best plan so far."""

    def __init__(self, model: TurnModel, evaluator: Evaluator, budget: Budget):
        self.model = model
        self.evaluator = evaluator
        self.clock = BudgetClock(budget)
        self.best_value = -math.inf
        self.best_plan: list[tuple[int, int, int]] = []
        self.leaves = 0
        self._win: dict[int, bool] = {}

    def _is_win(self, dead: int) -> bool:
        win = self._win.get(dead)
        if win is None:
            win = self._win[dead] = self.model.is_win(dead)
        return win


def result_from_plan(
    model: TurnModel, algorithm: str, value: float, plan, ops1: int, leaves: int,
    seconds: float, complete: bool, kernel: str = "python",
) -> SearchResult:
    """The ``SearchResult`` of ``plan`` [(ready unit index, tile, enemy index or -1), ...]."""
    actions = [model.encode(i, tile, target) for i, tile, target in plan]
    readable = [
        (model.ready[i], tile, None if target < 0 else model.enemy_uid[target])
        for i, tile, target in plan
    ]
    return SearchResult(
        algorithm=algorithm, value=value, actions=actions, ops1=ops1, leaves=leaves,
        seconds=seconds, complete=complete, plan=readable, kernel=kernel,
    )
