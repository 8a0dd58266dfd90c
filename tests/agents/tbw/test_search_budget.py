"""Budgets of the single-turn search (``agents.tbw.search.budget``): the clock counts ops1 and
reads the time, a cut search still gives a legal, scored plan, and the agent keeps a margin.
Time budgets are tested on a stepping clock (``tests.helpers.stepping_clock``) and measured in
ops1, never in seconds, so a loaded machine cannot fail them."""

from __future__ import annotations

import math
import time

import pytest

from agents.common.budget import OutOfBudget
from agents.tbw.evaluation import DefaultEvaluation
from agents.tbw.search import Budget, BudgetClock, TBWSearchAgent, plan_turn
from agents.tbw.search.agent import DEFAULT_AGENT_BUDGET
from agents.tbw.search.model import Evaluator, TurnModel
from agents.tbw.table2 import table2_state
from tbw_envs.tbw import TBWState, parse_scenario
from tests.helpers.stepping_clock import stepping_clock
from tests.helpers.tbw_search import close, replay

CLOCK_CHECK_EVERY = 4096  # ops1 between two readings of the clock (BudgetClock)


def test_budget_returns_a_playable_partial_plan(monkeypatch):
    state = table2_state(4, 3, "compact")
    for algorithm in ("alg2", "alg5"):
        result = plan_turn(state, algorithm, budget=1000, kernel="python")
        assert not result.complete and result.ops1 == 1000 and len(result.actions) == 4
        replay(state, result.actions)
    # Each reading of the clock a second later: the 0.05 s are spent by the first one in the
    # search, which stops there, with a whole plan.
    stepping_clock(monkeypatch, step=1.0)
    timed = plan_turn(state, "alg5", budget=0.05, kernel="python")
    assert not timed.complete and timed.ops1 == CLOCK_CHECK_EVERY and len(timed.actions) == 4
    replay(state, timed.actions)


def test_budget_clock_counts_ops1_up_to_the_node_limit():
    clock = BudgetClock(Budget(nodes=3))
    for _ in range(3):
        clock.tick()
    with pytest.raises(OutOfBudget):
        clock.tick()
    assert clock.ops1 == 3 == clock.count  # the refused tick is not counted


def test_budget_clock_reads_the_time_every_4096_ticks():
    clock = BudgetClock(Budget(seconds=0.0))
    time.sleep(0.001)
    for _ in range(4095):
        clock.tick()  # the deadline has passed, but the clock is not read yet
    with pytest.raises(OutOfBudget):
        clock.tick()
    assert clock.ops1 == 4096


# ------------------------------------------------------------------ budgets


def melee_state(n: int):
    """n archers (range 1-3, 1 ATK) facing n tough ones: every unit has n + 1 attack choices,
    so the exact solver's attack assignments number (n + 1)^n."""
    units = [{"side": 0, "type": "bow", "pos": [0, c]} for c in range(n)]
    units += [{"side": 1, "type": "bow", "pos": [2, c]} for c in range(n)]
    return TBWState.initial(parse_scenario({
        "name": "melee",
        "board": {"topology": "square8", "rows": 4, "cols": n + 1},
        "unit_types": {"bow": {"hp": 50, "atk": 1, "move": 1, "range": [1, 3]}},
        "units": units,
    }))


def count_bounds(monkeypatch) -> list[int]:
    """Count the exact solver's attack-assignment bounds (each computes ``Evaluator.base``
    once; the greedy plan made first, once more): the work of its first phase, counted apart
    from its ops1."""
    calls = [0]
    base = Evaluator.base

    def counted(self, hp):
        calls[0] += 1
        return base(self, hp)

    monkeypatch.setattr(Evaluator, "base", counted)
    return calls


def bounds_paid_for(bounds: int, result, units: int) -> bool:
    """Whether every assignment bound was paid for in ops1 (``units`` per bound), so that the
    budget bounded the assignment phase: the greedy plan's one, then one per ``units`` ops1."""
    return bounds <= 1 + result.ops1 // units


@pytest.mark.audit
def test_exact_honours_a_time_budget_in_the_assignment_phase(monkeypatch):
    """Enumerating and bounding 8^7 attack assignments took ~9 s under a 0.2 s budget: that
    phase neither counted ops1 nor read the clock."""
    state = melee_state(7)
    ev = DefaultEvaluation()
    bounds = count_bounds(monkeypatch)
    for budget in (0.2, 20_000):
        bounds[0] = 0
        if isinstance(budget, float):  # spent by the search's first reading of the clock
            stepping_clock(monkeypatch, step=1.0)
        result = plan_turn(state, "exact", budget=budget)
        assert not result.complete
        assert result.ops1 == (CLOCK_CHECK_EVERY if isinstance(budget, float) else budget)
        assert bounds_paid_for(bounds[0], result, units=7), (budget, bounds[0], result.ops1)
        end = replay(state, result.actions)
        assert end.current_player == 1  # a whole turn: every unit acted
        assert close(result.value, ev(end, 0))
        # The fallback is not "stay put": at least the obvious attacks are made.
        assert sum(50 - end.hp[e] for e in state.scenario.side_units[1]) >= 5


@pytest.mark.audit
def test_a_seconds_budget_counts_from_the_call_not_from_the_search(monkeypatch):
    """Building the turn's model is part of the budget: when it alone takes longer than the
    budget, the search stops at its first clock check (4096 ops1) instead of running the
    whole budget again."""
    import agents.tbw.search.agent as search

    class SlowModel(TurnModel):
        def __init__(self, state):
            super().__init__(state)
            time.sleep(0.15)

    monkeypatch.setattr(search, "TurnModel", SlowModel)
    state = melee_state(7)
    result = plan_turn(state, "alg5", budget=0.1, kernel="python")
    assert not result.complete and result.ops1 <= 4096
    assert state.is_legal(result.actions[0])
    unhurried = plan_turn(state, "alg5", budget=50_000, kernel="python")  # nodes: no clock
    assert unhurried.ops1 == 50_000


@pytest.mark.audit
def test_agent_time_budget_leaves_a_margin(monkeypatch):
    import agents.tbw.search.agent as search

    seen = []
    real = search.plan_turn

    def spy(view, algorithm, evaluate=None, budget=None, kernel="auto"):
        seen.append(budget)
        return real(view, algorithm, evaluate=evaluate, budget=budget, kernel=kernel)

    monkeypatch.setattr(search, "plan_turn", spy)
    state = melee_state(3)
    TBWSearchAgent(budget=1.0).act(state.view(0))
    TBWSearchAgent(budget=Budget(nodes=500, seconds=2.0)).act(state.view(0))
    TBWSearchAgent(budget=700).act(state.view(0))
    assert [(b.nodes, b.seconds) for b in seen] == [
        (None, pytest.approx(1.0 * (1 - search.TIME_MARGIN))),
        (500, pytest.approx(2.0 * (1 - search.TIME_MARGIN))),
        (700, None),
    ]


@pytest.mark.audit
def test_agent_default_budget_does_not_stall_on_a_melee(monkeypatch):
    """9^8 attack assignments took ~20 s: the default budget did not bound the assignment
    phase. Now the search stops at the budget's ops1, every bound paid for in them."""
    state = melee_state(8)
    bounds = count_bounds(monkeypatch)
    agent = TBWSearchAgent()
    action = agent.act(state.view(0))
    result = agent.last_result
    assert not result.complete and result.ops1 == DEFAULT_AGENT_BUDGET
    assert bounds_paid_for(bounds[0], result, units=8), (bounds[0], result.ops1)
    assert state.is_legal(action)


@pytest.mark.audit
@pytest.mark.parametrize("algorithm", ["alg2", "alg5", "exact"])
def test_budget_too_small_for_a_whole_plan_still_gives_a_scored_legal_plan(algorithm):
    """With fewer ops1 than units, Algorithms 2 and 5 reached no leaf and reported value -inf
    with an empty plan."""
    state = melee_state(3)
    ev = DefaultEvaluation()
    for kernel in ("python", "auto"):
        result = plan_turn(state, algorithm, budget=2, kernel=kernel)
        assert not result.complete and result.ops1 <= 2
        end = replay(state, result.actions)
        assert end.current_player == 1
        assert math.isfinite(result.value) and close(result.value, ev(end, 0))


@pytest.mark.audit
def test_budget_accepts_numpy_numbers_and_rejects_negative_ones():
    import numpy as np

    from agents.tbw.search import Budget

    assert Budget.of(np.int64(500)) == Budget(nodes=500)
    assert Budget.of(np.float32(0.5)).seconds == pytest.approx(0.5)
    with pytest.raises(ValueError, match="non-negative"):
        Budget.of(-1)
    with pytest.raises(ValueError, match="non-negative"):
        Budget.of(float("nan"))
    with pytest.raises(TypeError, match="budget must be"):
        Budget.of("1s")
