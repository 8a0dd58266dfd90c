"""The single-turn search's budget (``Budget``: ops1 and/or seconds) and its clock."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from agents.common.budget import CountedClock
from tbw_envs.core.contract import short_repr


@dataclass(frozen=True)
class Budget:
    """Search limits: ``nodes`` caps ops1, ``seconds`` caps wall time; None = unlimited."""

    nodes: int | None = None
    seconds: float | None = None

    @staticmethod
    def of(budget) -> Budget:
        """``None``, a ``Budget``, an int (nodes) or a float (seconds)."""
        if budget is None:
            return Budget()
        if isinstance(budget, Budget):
            return budget
        if isinstance(budget, (bool, np.bool_)):
            raise TypeError("budget must be None, a Budget, an int (nodes) or a float (seconds)")
        if isinstance(budget, (int, np.integer)):
            if budget < 0:
                raise ValueError(f"budget must be non-negative, got {budget}")
            return Budget(nodes=int(budget))
        if isinstance(budget, (float, np.floating)):
            if not (budget >= 0 and math.isfinite(budget)):
                raise ValueError(f"budget must be a non-negative finite number of seconds (None: "
                                 f"no limit), got {budget}")
            return Budget(seconds=float(budget))
        raise TypeError(f"budget must be None, a Budget, an int or a float, got "
                        f"{type(budget).__name__} {short_repr(budget)}")


class BudgetClock(CountedClock):
    """Counts ops1 and raises ``OutOfBudget`` past the node or time limit of a ``Budget`` (time
    is checked every 4096 expansions, so a time limit overshoots by a few milliseconds at
    most)."""

    def __init__(self, budget: Budget):
        super().__init__(limit=budget.nodes, seconds=budget.seconds)

    @property
    def ops1(self) -> int:
        return self.count
