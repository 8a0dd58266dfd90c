"""The budget primitives every search shares (``agents.common.budget``): a counted clock without
limits never stops, and a deadline keeps its margin back."""

from __future__ import annotations

from agents.common.budget import CountedClock, Deadline


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
