"""The budget primitives every search shares (``agents.common.budget``): a counted clock without
limits never stops, a deadline keeps its margin back, and a stop asked from outside
(``stop_when``) reads as the budget spent for the clocks made inside its block only."""

from __future__ import annotations

import threading

import pytest

from agents.common.budget import CountedClock, Deadline, OutOfBudget, stop_request, stop_when


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


# ---------------------------------------------------------------------- stops from outside


def test_a_stop_reads_as_the_deadline_passed_only_inside_its_block():
    event = threading.Event()
    with stop_when(event):
        inside = Deadline(None)
        assert not inside.passed() and inside.allows(ahead=1e9) and inside.remaining() is None
        event.set()
        assert inside.passed() and not inside.allows() and inside.remaining() == 0.0
    outside = Deadline(None)  # made after the block: the stop is not its business
    assert not outside.passed() and stop_request() is None


def test_a_stop_with_seconds_is_the_deadline_when_sooner():
    with stop_when(seconds=0.0):
        assert Deadline(None).passed() and Deadline(60.0).passed()
    with stop_when(seconds=3600.0):
        own = Deadline(1.0, started=100.0)
        assert own.deadline == 101.0  # its own deadline is the sooner one


def test_nested_stops_each_count():
    outer, inner = threading.Event(), threading.Event()
    with stop_when(outer, seconds=3600.0):
        with stop_when(inner):
            clock = Deadline(None)
            assert clock.deadline is not None  # the outer block's time limit holds inside
            outer.set()
            assert clock.passed()
        assert stop_request().event is outer


def test_a_counted_clock_without_a_time_limit_stops_within_check_every_ticks_of_a_stop():
    event = threading.Event()
    with stop_when(event):
        clock = CountedClock(limit=10**9, check_every=64)
    for _ in range(1000):
        clock.tick()
    event.set()
    with pytest.raises(OutOfBudget):
        for _ in range(1000):
            clock.tick()
    assert 1000 < clock.count <= 1000 + 64
