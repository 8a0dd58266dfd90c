"""Single-turn plan search for TBW (the TBW paper, sections 3-5) and an agent that plays with it.

A *plan* is one side's whole turn: an order of its ready units and, for each unit in that order,
a destination and an attack choice (or none). ``plan_turn(state, algorithm)`` finds the plan
whose end state the evaluation (``agents.tbw.evaluation``) scores highest:

* ``"alg2"``: the paper's Algorithm 2. Unit orders in lexicographic order (Algorithm 1,
  next_permutation); for each order a depth-first search over the units' actions (Algorithm 3)
  that restarts from the first unit.
* ``"alg5"``: the paper's Algorithm 5. The recursive permutation (Algorithm 4) interleaved with the
  depth-first search, so plans that share a prefix share its expansion.
* ``"exact"``: ours (``agents.tbw.search.exact``): the same optimal value as Algorithm 5, found by
  searching final outcomes instead of orders (see that module).

``ops1`` is the paper's counter: one expansion = one unit placed on one tile of its movement
range (the root is not counted); the attack choices made from that tile are not extra ops1.
``leaves`` counts evaluated plans. Our units cannot die during our own turn (TBW has no
counter-attacks), so "units that die drop out of the plan" concerns the enemies: a killed enemy
frees its tile (for paths and end tiles of the units after it) and can no longer be attacked.
A win in the middle of a turn ends the plan there (the game is over).

Every unit in a plan acts; "stay on your tile and do not attack" is a unit action, and plans play
it rather than END_TURN (the two leave the same state).

The modules, each importing only those above it:

* ``model``: the turn as a search problem (``TurnModel``) and its leaf evaluation
  (``Evaluator``);
* ``budget``: ``Budget`` (ops1 and/or seconds) and its clock;
* ``plan``: ``SearchResult``, ``SearchBase`` (what every search keeps), ``result_from_plan``;
* ``enumeration``: Algorithms 1, 2 and 5 in plain Python (``PlanEnumeration``, the reference)
  and the greedy fallback plan;
* ``exact``: the exact solver;
* ``kernel``: Algorithms 2 and 5 compiled with numba (optional; imported when first used);
* ``agent``: ``plan_turn`` and the agents (``TurnPlanAgent``, ``TBWSearchAgent``).
"""

from agents.common.budget import TIME_MARGIN, OutOfBudget
from agents.tbw.search.agent import (
    ALGORITHMS,
    DEFAULT_AGENT_BUDGET,
    KERNELS,
    TBWSearchAgent,
    TurnPlanAgent,
    plan_turn,
)
from agents.tbw.search.budget import Budget, BudgetClock
from agents.tbw.search.enumeration import PlanEnumeration, greedy_plan, next_permutation
from agents.tbw.search.model import FREE, Evaluator, TurnModel
from agents.tbw.search.plan import SearchBase, SearchResult, result_from_plan

__all__ = [
    "ALGORITHMS", "DEFAULT_AGENT_BUDGET", "FREE", "KERNELS", "TIME_MARGIN", "Budget",
    "BudgetClock", "Evaluator", "OutOfBudget", "PlanEnumeration", "SearchBase", "SearchResult",
    "TBWSearchAgent", "TurnModel", "TurnPlanAgent", "greedy_plan", "next_permutation",
    "plan_turn", "result_from_plan",
]
