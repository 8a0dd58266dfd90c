"""Play TBW by single-turn search: ``plan_turn`` (one search of the side to move's whole turn)
and the agents that hand a whole-turn plan out one unit action per call (``TurnPlanAgent``,
``TBWSearchAgent``). The algorithms are described in ``agents.tbw.search``.
"""

from __future__ import annotations

import math
import time

from agents.common.budget import TIME_MARGIN, OutOfBudget
from agents.common.params import (
    MAX_NODES,
    MAX_SECONDS,
    AnyOf,
    CallableParam,
    Choice,
    Float,
    Instance,
    Int,
    Text,
    check_params,
    check_seed,
)
from agents.tbw.evaluation import DefaultEvaluation, as_two_argument_evaluation, decomposition_of
from agents.tbw.search.budget import Budget
from agents.tbw.search.enumeration import PlanEnumeration, greedy_plan
from agents.tbw.search.exact import solve_exact
from agents.tbw.search.model import Evaluator, TurnModel
from agents.tbw.search.plan import SearchResult, result_from_plan
from tbw_envs.core.contract import short_repr

ALGORITHMS = ("alg2", "alg5", "exact")
KERNELS = ("auto", "python", "numba")


def plan_turn(state, algorithm: str = "exact", evaluate=None, budget=None, kernel: str = "auto"):
    """Search the turn of the side to move in ``state`` and return a ``SearchResult``.

    ``evaluate(state, side) -> float`` scores the state after a plan for the side that moved
    (default: ``DefaultEvaluation()``). ``budget``: None, ``Budget``, int (ops1) or float
    (seconds); when it runs out the best plan found so far is returned with ``complete=False``
    (``greedy_plan``'s when no complete plan was found yet).
    ``kernel``: "auto" (compiled Algorithm 2/5 when numba is installed and the evaluation is the
    default family), "python" (the reference) or "numba" (error when unavailable).
    """
    if not isinstance(algorithm, str) or algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {ALGORITHMS}, got {short_repr(algorithm)}")
    if not isinstance(kernel, str) or kernel not in KERNELS:
        raise ValueError(f"kernel must be 'auto', 'python' or 'numba', got {short_repr(kernel)}")
    evaluate = DefaultEvaluation() if evaluate is None else as_two_argument_evaluation(evaluate)
    budget = Budget.of(budget)
    started = time.perf_counter()
    model = TurnModel(state)
    decomposition = decomposition_of(evaluate, state, model.side)
    evaluator = Evaluator(model, evaluate, decomposition)
    if budget.seconds is not None:  # the seconds count from this call's start, not the search's
        spent = time.perf_counter() - started
        budget = Budget(nodes=budget.nodes, seconds=max(0.0, budget.seconds - spent))
    if model.n == 0:  # no unit to act: the turn is END_TURN, scored on the state after it
        end = state.clone()
        end.apply(state.end_turn_action)
        return result_from_plan(
            model, algorithm, float(evaluate(end, model.side)), [], 0, 1,
            time.perf_counter() - started, True,
        )
    if algorithm == "exact":
        return solve_exact(model, evaluator, budget, started)
    if kernel != "python":
        import agents.tbw.search.kernel as compiled  # imports numba, an optional extra

        usable = compiled.supports(model, evaluator) and budget.seconds is None
        if kernel == "numba" and not usable:
            raise RuntimeError(
                "the compiled kernel is unavailable here (numba not installed, the evaluation "
                "has no linear decomposition, too many attackable enemies, or a time budget: "
                "the kernel takes node budgets only)"
            )
        if usable:
            result = compiled.run(model, evaluator, algorithm, budget, started)
            return result if result.plan else _greedy_result(model, evaluator, result)
    search = PlanEnumeration(model, evaluator, budget)
    complete = True
    try:
        search.run_alg2() if algorithm == "alg2" else search.run_alg5()
    except OutOfBudget:
        complete = False
    result = result_from_plan(
        model, algorithm, search.best_value, search.best_plan, search.clock.ops1,
        search.leaves, time.perf_counter() - started, complete,
    )
    return result if result.plan else _greedy_result(model, evaluator, result)


def _greedy_result(model: TurnModel, evaluator: Evaluator, result: SearchResult):
    """``result`` (no complete plan: the budget ran out first) with the greedy plan instead."""
    value, plan = greedy_plan(model, evaluator)
    return result_from_plan(
        model, result.algorithm, value, plan, result.ops1, result.leaves, result.seconds,
        result.complete, result.kernel,
    )


# The agent's default limit per turn: deterministic (ops1, not seconds) so arena results
# reproduce on any machine, and bounded so big maps never stall a game; small maps
# (duel_5v5_8x8, fire_emblem_5v5) solve exactly within it.
DEFAULT_AGENT_BUDGET = 1_000_000


class TurnPlanAgent:
    """What every whole-turn planner shares: the plan is made at the first call of the turn
    (``_plan(view)``, returning a result with ``.actions``) and its unit actions are handed out
    one per call. Before each call the agent checks that the view is the state the plan expects
    (its own clone advanced along the plan); if anything differs it plans again from the view.
    """

    game = "tbw"  # an env of another game refuses it as an opponent when it is built

    last_result = None
    _pending: list[int] | tuple = ()  # before the first plan
    _expected = None
    _last_action: int | None = None

    def _plan(self, view):  # pragma: no cover - interface
        raise NotImplementedError

    def _forget_plan(self) -> None:
        self._pending: list[int] = []
        self._expected = None  # the state the next pending action is planned for
        self.last_result = None
        self._last_action = None

    def act(self, view) -> int:
        if view.is_terminal():
            raise ValueError(f"{type(self).__name__}.act: the game is over")
        if not self._pending or not _same_state(self._expected, view):
            self.last_result = self._plan(view)
            self._pending = list(self.last_result.actions) or [view.end_turn_action]
            self._expected = view.clone()
        action = self._pending.pop(0)
        if not self._expected.is_legal(action):  # defensive: never play an illegal action
            self._pending = []
            action = view.end_turn_action
        else:
            self._expected.apply(action)
        self._last_action = action
        if self._expected.current_player != view.current_player or self._expected.is_terminal():
            self._pending = []
        return action

    def thinking(self) -> dict | None:
        """The rest of the turn as planned, from the action just played on (``plan``, action
        ids), with the plan's value and the search's count of solves where it has them
        (the arena's ``--record-thinking``, the web viewer's overlay)."""
        if self._last_action is None:
            return None
        report: dict = {"plan": [self._last_action, *self._pending]}
        for key in ("value", "solves"):
            value = getattr(self.last_result, key, None)
            if isinstance(value, (int, float)) and not isinstance(value, bool) \
                    and math.isfinite(value):
                report[key] = value
        return report


class TBWSearchAgent(TurnPlanAgent):
    """Plays each of its turns by a single-turn search (``plan_turn``).

    ``budget="default"`` is ``DEFAULT_AGENT_BUDGET`` ops1 per turn; ``budget=None`` searches
    without limit (exact on any map, however long it takes). An int budget is at most
    ``agents.common.params.MAX_NODES`` ops1, a float one finite and at most ``MAX_SECONDS`` (3600).
    ``kernel`` is checked when the agent is built (``"numba"`` with an Algorithm 2 or 5: numba
    must import and the budget must count nodes).

    The plan is computed once per turn and handed out one unit action per call
    (``TurnPlanAgent``). With a ``budget`` the search is anytime: it returns the best plan found
    within the budget; a budget in seconds aims at ``1 - TIME_MARGIN`` of it.
    """

    PARAMS = {
        "algorithm": Choice(names=ALGORITHMS),
        # An int is a node (ops1) budget, a float one in seconds; None: no limit.
        "budget": AnyOf(
            kinds=(Choice(names=("default",)), Int(low=0, high=MAX_NODES),
                   Float(low=0.0, high=MAX_SECONDS), Instance(cls=Budget)),
            what=f"'default', None (no limit), an integer number of nodes in [0, {MAX_NODES}], "
                 f"a number of seconds in [0, {MAX_SECONDS:g}] or a Budget",
            optional=True,
        ),
        "kernel": Choice(names=KERNELS),
        "evaluate": CallableParam(),
        "name": Text(optional=True, spec=False),
    }

    def __init__(self, algorithm: str = "exact", evaluate=None, budget="default",
                 kernel: str = "auto", name: str | None = None):
        who = "TBWSearchAgent"
        checked = check_params(self.PARAMS, who, algorithm=algorithm, budget=budget,
                               kernel=kernel, evaluate=evaluate, name=name)
        budget = checked["budget"]
        if isinstance(budget, Budget):
            _check_budget_object(budget, who)
        self.algorithm = algorithm
        self.evaluate = evaluate
        self.budget = DEFAULT_AGENT_BUDGET if budget == "default" else budget
        self.kernel = kernel
        if kernel == "numba" and algorithm != "exact":  # the exact solver has no kernel
            _check_numba_usable(Budget.of(self.budget), who)
        self.name = name or f"tbw_search_{algorithm}"
        self._forget_plan()

    def reset(self, seed: int | None = None) -> None:
        check_seed(seed, "TBWSearchAgent.reset")  # no randomness, but the same contract
        self._forget_plan()

    def _plan(self, view) -> SearchResult:
        budget = Budget.of(self.budget)
        if budget.seconds is not None:
            budget = Budget(nodes=budget.nodes, seconds=budget.seconds * (1 - TIME_MARGIN))
        return plan_turn(view, self.algorithm, evaluate=self.evaluate, budget=budget,
                         kernel=self.kernel)


def _check_budget_object(budget: Budget, who: str) -> None:
    """A ``Budget`` given to an agent: nodes and seconds within the agents' limits."""
    check_params({"nodes": Int(low=0, high=MAX_NODES, optional=True),
                  "seconds": Float(low=0.0, high=MAX_SECONDS, optional=True)},
                 f"{who}: budget", nodes=budget.nodes, seconds=budget.seconds)


def _check_numba_usable(budget: Budget, who: str) -> None:
    """``kernel="numba"`` fails at the first move unless numba imports and the budget counts
    nodes: say so when the agent is built."""
    import agents.tbw.search.kernel as compiled  # imports numba, an optional extra

    if not compiled.HAVE_NUMBA:
        raise ValueError(f"{who}: kernel='numba' needs numba (pip install -c constraints.txt "
                         f"-e '.[fast]'); kernel='auto' falls back to Python")
    if budget.seconds is not None:
        raise ValueError(f"{who}: kernel='numba' takes node budgets only, got a budget of "
                         f"{budget.seconds:g} seconds; use kernel='auto' or an integer budget")


def _same_state(a, b) -> bool:
    return (
        a is not None and a.current_player == b.current_player and a.turn == b.turn
        and a.hp == b.hp and a.pos == b.pos and a.acted == b.acted
        and a.scenario is b.scenario
    )
