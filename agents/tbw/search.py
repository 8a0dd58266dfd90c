"""Single-turn plan search for TBW (the TBW paper, sections 3-5) and an agent that plays with it.

A *plan* is one side's whole turn: an order of its ready units and, for each unit in that order,
a destination and an attack choice (or none). ``plan_turn(state, algorithm)`` finds the plan
whose end state the evaluation (``agents.tbw.evaluation``) scores highest:

* ``"alg2"``: the paper's Algorithm 2. Unit orders in lexicographic order (Algorithm 1,
  next_permutation); for each order a depth-first search over the units' actions (Algorithm 3)
  that restarts from the first unit.
* ``"alg5"``: the paper's Algorithm 5. The recursive permutation (Algorithm 4) interleaved with the
  depth-first search, so plans that share a prefix share its expansion.
* ``"exact"``: ours (``agents.tbw.search_exact``): the same optimal value as Algorithm 5, found by
  searching final outcomes instead of orders (see that module).

``ops1`` is the paper's counter: one expansion = one unit placed on one tile of its movement
range (the root is not counted); the attack choices made from that tile are not extra ops1.
``leaves`` counts evaluated plans. Our units cannot die during our own turn (TBW has no
counter-attacks), so "units that die drop out of the plan" concerns the enemies: a killed enemy
frees its tile (for paths and end tiles of the units after it) and can no longer be attacked.
A win in the middle of a turn ends the plan there (the game is over).

Every unit in a plan acts; "stay on your tile and do not attack" is a unit action, and plans play
it rather than END_TURN (the two leave the same state).
"""

from __future__ import annotations

import inspect
import math
import time
from dataclasses import dataclass, field

import numpy as np

from agents.params import (
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
from agents.tbw.evaluation import DefaultEvaluation, decomposition_of
from agents.tbw.search_model import FREE, Evaluator, TurnModel
from tbw_envs.contract import short_repr

ALGORITHMS = ("alg2", "alg5", "exact")
KERNELS = ("auto", "python", "numba")


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


class OutOfBudget(Exception):
    """Raised inside a search when its budget is spent; the best plan so far stands."""


# An agent's time budget per turn aims at 95% of it: room for scheduling noise on a busy machine
# and for what follows the search (building the plan, handing out its first action).
TIME_MARGIN = 0.05


class BudgetClock:
    """Counts ops1 and raises ``OutOfBudget`` past the node or time limit (time is checked
    every 4096 expansions, so a time limit overshoots by a few milliseconds at most)."""

    def __init__(self, budget: Budget):
        self.ops1 = 0
        self.node_limit = budget.nodes
        self.deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds
        self._next_time_check = 4096

    def tick(self) -> None:
        self.ops1 += 1
        if self.node_limit is not None and self.ops1 > self.node_limit:
            self.ops1 -= 1
            raise OutOfBudget
        if self.deadline is not None and self.ops1 >= self._next_time_check:
            self._next_time_check = self.ops1 + 4096
            if time.perf_counter() > self.deadline:
                raise OutOfBudget


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


class PlanEnumeration(SearchBase):
    """Algorithms 2 and 5 in plain Python on a ``TurnModel``: the reference the compiled kernel
    (``agents.tbw._kernel``) is tested against. Execute / roll back on small mutable lists,
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


def result_from_plan(
    model: TurnModel, algorithm: str, value: float, plan, ops1: int, leaves: int,
    seconds: float, complete: bool, kernel: str = "python",
) -> SearchResult:
    actions = [model.encode(i, tile, target) for i, tile, target in plan]
    readable = [
        (model.ready[i], tile, None if target < 0 else model.enemy_uid[target])
        for i, tile, target in plan
    ]
    return SearchResult(
        algorithm=algorithm, value=value, actions=actions, ops1=ops1, leaves=leaves,
        seconds=seconds, complete=complete, plan=readable, kernel=kernel,
    )


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
    evaluate = DefaultEvaluation() if evaluate is None else _two_argument_evaluation(evaluate)
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
        from agents.tbw.search_exact import solve_exact

        return solve_exact(model, evaluator, budget, started)
    if kernel != "python":
        from agents.tbw import _kernel as _tbw_kernel

        usable = _tbw_kernel.supports(model, evaluator) and budget.seconds is None
        if kernel == "numba" and not usable:
            raise RuntimeError(
                "the compiled kernel is unavailable here (numba not installed, the evaluation "
                "has no linear decomposition, too many attackable enemies, or a time budget: "
                "the kernel takes node budgets only)"
            )
        if usable:
            result = _tbw_kernel.run(model, evaluator, algorithm, budget, started)
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


def _two_argument_evaluation(evaluate):
    """Accept ``evaluate(state)`` as well as ``evaluate(state, side)``: a one-argument
    evaluation scores for ``state.last_side``, the side that moved."""
    if not callable(evaluate):
        raise TypeError(f"evaluate must be callable, got {type(evaluate).__name__} "
                        f"{short_repr(evaluate)}")
    try:
        params = inspect.signature(evaluate).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature: assume (state, side)
        return evaluate
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    takes_varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    if len(positional) == 1 and not takes_varargs:
        return lambda state, side: evaluate(state)
    return evaluate


# The agent's default limit per turn: deterministic (ops1, not seconds) so arena results
# reproduce on any machine, and about a second on our machines, so big maps never stall a game.
# Small maps (duel_5v5_8x8, fire_emblem_5v5) solve exactly far within it.
DEFAULT_AGENT_BUDGET = 1_000_000


class TurnPlanAgent:
    """What every whole-turn planner shares: the plan is made at the first call of the turn
    (``_plan(view)``, returning a result with ``.actions``) and its unit actions are handed out
    one per call. Before each call the agent checks that the view is the state the plan expects
    (its own clone advanced along the plan); if anything differs it plans again from the view.
    """

    last_result = None
    _pending: list[int] | tuple = ()  # before the first plan
    _expected = None

    def _plan(self, view):  # pragma: no cover - interface
        raise NotImplementedError

    def _forget_plan(self) -> None:
        self._pending: list[int] = []
        self._expected = None  # the state the next pending action is planned for
        self.last_result = None

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
            return view.end_turn_action
        self._expected.apply(action)
        if self._expected.current_side != view.current_side or self._expected.is_terminal():
            self._pending = []
        return action


class TBWSearchAgent(TurnPlanAgent):
    """Plays each of its turns by a single-turn search (``plan_turn``).

    ``budget="default"`` is ``DEFAULT_AGENT_BUDGET`` ops1 per turn; ``budget=None`` searches
    without limit (exact on any map, however long it takes). An int budget is at most
    ``agents.params.MAX_NODES`` ops1, a float one finite and at most ``MAX_SECONDS`` (3600).
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
    from agents.tbw import _kernel as _tbw_kernel

    if not _tbw_kernel.HAVE_NUMBA:
        raise ValueError(f"{who}: kernel='numba' needs numba (pip install -c constraints.txt "
                         f"-e '.[fast]'); kernel='auto' falls back to Python")
    if budget.seconds is not None:
        raise ValueError(f"{who}: kernel='numba' takes node budgets only, got a budget of "
                         f"{budget.seconds:g} seconds; use kernel='auto' or an integer budget")


def _same_state(a, b) -> bool:
    return (
        a is not None and a.current_side == b.current_side and a.turn == b.turn
        and a.hp == b.hp and a.pos == b.pos and a.acted == b.acted
        and a.scenario is b.scenario
    )
