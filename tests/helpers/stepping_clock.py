"""A clock for tests of time budgets that does not depend on the machine's speed.

``stepping_clock(monkeypatch, step)`` replaces ``time.perf_counter`` with a ``SteppingClock``:
every reading is ``step`` seconds after the one before, and nothing else moves it. A search then
sees time pass only when it reads the clock, so how far it gets on a budget of seconds is a
count (of readings) and the same on every machine, loaded or not: a test can assert that it
stopped on its deadline (``complete=False``, ``stopped="time"``) and how much it did before,
instead of timing it.
"""

from __future__ import annotations

import time


class SteppingClock:
    """A stand-in for ``time.perf_counter``: each call returns ``step`` seconds more than the
    last and counts itself in ``reads``."""

    def __init__(self, step: float, start: float = 1000.0):
        self.step = step
        self.now = start
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now


def stepping_clock(monkeypatch, step: float) -> SteppingClock:
    """Install a ``SteppingClock`` as ``time.perf_counter`` for the rest of the test (every
    module reads the clock as ``time.perf_counter()``, so all of them see it)."""
    clock = SteppingClock(step)
    monkeypatch.setattr(time, "perf_counter", clock)
    return clock
