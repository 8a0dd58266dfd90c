"""The TBW search package (agents.tbw.search): its public names, the deprecated paths that
re-export it, its budget clock and the shared budget primitives (agents.common.budget)."""

from __future__ import annotations

import time

import pytest

import agents.tbw.search as search
from agents.common.budget import TIME_MARGIN, CountedClock, Deadline, OutOfBudget
from agents.tbw.evaluation import DefaultEvaluation, as_two_argument_evaluation
from agents.tbw.search import Budget, BudgetClock
from tbw_envs.tbw import load_scenario


def test_the_package_exports_every_public_name():
    for name in search.__all__:
        assert getattr(search, name) is not None, name
    assert search.TIME_MARGIN == TIME_MARGIN and search.OutOfBudget is OutOfBudget
    assert search.plan_turn.__module__ == "agents.tbw.search.agent"


def test_the_deprecated_paths_re_export_the_same_objects():
    import agents.tbw._kernel as old_kernel
    import agents.tbw.search.exact as exact
    import agents.tbw.search.kernel as kernel
    import agents.tbw.search.model as model
    import agents.tbw.search_exact as old_exact
    import agents.tbw.search_model as old_model

    assert old_model.TurnModel is model.TurnModel and old_model.Evaluator is model.Evaluator
    assert old_model.FREE == model.FREE
    assert old_exact.solve_exact is exact.solve_exact
    assert old_kernel.run is kernel.run and old_kernel.supports is kernel.supports
    assert old_kernel.HAVE_NUMBA == kernel.HAVE_NUMBA


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


def test_a_clock_without_limits_never_stops():
    clock = CountedClock()
    for _ in range(10_000):
        clock.tick()
    assert clock.count == 10_000


def test_deadline_keeps_its_margin_back():
    deadline = Deadline(10.0, started=100.0, margin=0.05)
    assert deadline.deadline == 100.0 + 10.0 * (1.0 - 0.05)
    unlimited = Deadline(None)
    assert unlimited.remaining() is None
    assert not unlimited.passed(ahead=1e9) and unlimited.allows(ahead=1e9)
    soon = Deadline(0.0)
    assert soon.passed() and soon.remaining() == 0.0 and not soon.allows(ahead=1.0)
    later = Deadline(60.0)
    assert not later.passed() and later.allows(ahead=1.0) and 0.0 < later.remaining() <= 60.0


def test_a_one_argument_evaluation_scores_for_the_side_that_moved():
    state = load_scenario("duel_5v5_8x8").initial_state()
    two = DefaultEvaluation()
    assert as_two_argument_evaluation(two) is two

    def one(s):
        return 7.0

    assert as_two_argument_evaluation(one)(state, 1) == 7.0
    assert as_two_argument_evaluation(max) is max  # no signature: taken as (state, side)
    with pytest.raises(TypeError, match="evaluate must be callable"):
        as_two_argument_evaluation(3)
