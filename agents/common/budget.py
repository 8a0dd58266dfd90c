"""One clock for every search: a count limit (iterations, ops1, solves, generations) and an
optional wall-clock deadline.

Published ratings use counts, so that anyone can reproduce them on any machine; seconds are for
play. A ``Deadline`` keeps a reserve (``margin``, a fraction of the seconds) for what follows a
search, such as building the plan and handing out its first action.

A search can also be stopped from outside, by whoever asked for the move: inside
``with stop_when(event, seconds=s):`` every clock made on that thread reads as spent once
``event`` is set or ``s`` seconds have passed, so every search there returns its best move so far,
as it does when its own budget runs out. The web app stops an agent this way when its game is
deleted, evicted or the server shuts down, and caps each move's thinking.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

# An agent's time budget per move aims at 95% of it: room for scheduling noise on a busy machine
# and for what follows the search.
TIME_MARGIN = 0.05


class OutOfBudget(Exception):
    """Raised inside a search when its budget is spent; the best result so far stands."""


class StopRequest:
    """A stop asked from outside the search: ``event`` set, or ``deadline`` (a
    ``time.perf_counter()`` reading, None: none) reached."""

    __slots__ = ("event", "deadline")

    def __init__(self, event: threading.Event | None = None, seconds: float | None = None):
        self.event = event
        self.deadline = None if seconds is None else time.perf_counter() + seconds

    def is_set(self) -> bool:
        return self.event is not None and self.event.is_set()


_thread = threading.local()


@contextlib.contextmanager
def stop_when(event: threading.Event | None = None,
              seconds: float | None = None) -> Iterator[StopRequest]:
    """Inside the block, every clock made on this thread (``Deadline``, ``CountedClock``) reads
    as spent once ``event`` is set or ``seconds`` have passed. Blocks nest: the inner request
    counts, and so does every outer one."""
    outer = getattr(_thread, "stop", None)
    request = StopRequest(event, seconds)
    if outer is not None:
        if outer.deadline is not None and (request.deadline is None
                                           or outer.deadline < request.deadline):
            request.deadline = outer.deadline
        if request.event is None:
            request.event = outer.event
        elif outer.event is not None:
            request.event = _EitherEvent(request.event, outer.event)
    _thread.stop = request
    try:
        yield request
    finally:
        _thread.stop = outer


class _EitherEvent:
    """Set when either event is (nested ``stop_when`` blocks)."""

    __slots__ = ("first", "second")

    def __init__(self, first: Any, second: Any):
        self.first, self.second = first, second

    def is_set(self) -> bool:
        return self.first.is_set() or self.second.is_set()


def stop_request() -> StopRequest | None:
    """The stop asked of searches on this thread now (``stop_when``), if any."""
    return getattr(_thread, "stop", None)


class Deadline:
    """A wall-clock deadline ``seconds * (1 - margin)`` after ``started`` (None: no limit), and
    the thread's ``stop_when`` request at the time it is made: a stop reads as the deadline
    passed, and its time limit, when sooner, is the deadline."""

    __slots__ = ("started", "deadline", "stop")

    def __init__(self, seconds: float | None, started: float | None = None, margin: float = 0.0):
        self.started = time.perf_counter() if started is None else started
        self.deadline = None if seconds is None else self.started + seconds * (1.0 - margin)
        request = stop_request()
        self.stop = None if request is None or request.event is None else request
        if request is not None and request.deadline is not None and (
                self.deadline is None or request.deadline < self.deadline):
            self.deadline = request.deadline

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def stopped(self) -> bool:
        """Whether a stop was asked from outside (``stop_when``'s event is set)."""
        return self.stop is not None and self.stop.is_set()

    def remaining(self) -> float | None:
        """Seconds left (at least 0), or None without a limit."""
        if self.stopped():
            return 0.0
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.perf_counter())

    def passed(self, ahead: float = 0.0) -> bool:
        """Whether the deadline is reached, or would be ``ahead`` seconds from now."""
        if self.stop is not None and self.stop.is_set():
            return True
        return self.deadline is not None and time.perf_counter() + ahead >= self.deadline

    def allows(self, ahead: float = 0.0) -> bool:
        """Whether ``ahead`` more seconds still end by the deadline (always without a limit)."""
        if self.stop is not None and self.stop.is_set():
            return False
        return self.deadline is None or time.perf_counter() + ahead <= self.deadline


class CountedClock:
    """Counts units of work (``tick``) and raises ``OutOfBudget`` past ``limit`` units or past the
    deadline (or a ``stop_when`` request). Time is read every ``check_every`` ticks, so a time
    limit or a stop overshoots by a few milliseconds at most and costs almost nothing per
    tick."""

    def __init__(self, limit: int | None = None, seconds: float | None = None,
                 check_every: int = 4096):
        self.count = 0
        self.limit = limit
        self.clock = Deadline(seconds)
        self.check_every = check_every
        self._next_time_check = check_every
        # tick's hot path: one attribute lookup, not two
        self._watched = self.clock.deadline is not None or self.clock.stop is not None

    def tick(self) -> None:
        self.count += 1
        if self.limit is not None and self.count > self.limit:
            self.count -= 1
            raise OutOfBudget
        if self._watched and self.count >= self._next_time_check:
            self._next_time_check = self.count + self.check_every
            if self.clock.passed():
                raise OutOfBudget
