"""One clock for every search: a count limit (iterations, ops1, solves, generations) and an
optional wall-clock deadline.

Published ratings use counts, so that anyone can reproduce them on any machine; seconds are for
play. A ``Deadline`` keeps a reserve (``margin``, a fraction of the seconds) for what follows a
search, such as building the plan and handing out its first action.
"""

from __future__ import annotations

import time

# An agent's time budget per move aims at 95% of it: room for scheduling noise on a busy machine
# and for what follows the search.
TIME_MARGIN = 0.05


class OutOfBudget(Exception):
    """Raised inside a search when its budget is spent; the best result so far stands."""


class Deadline:
    """A wall-clock deadline ``seconds * (1 - margin)`` after ``started`` (None: no limit)."""

    __slots__ = ("started", "deadline")

    def __init__(self, seconds: float | None, started: float | None = None, margin: float = 0.0):
        self.started = time.perf_counter() if started is None else started
        self.deadline = None if seconds is None else self.started + seconds * (1.0 - margin)

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def remaining(self) -> float | None:
        """Seconds left (at least 0), or None without a limit."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.perf_counter())

    def passed(self, ahead: float = 0.0) -> bool:
        """Whether the deadline is reached, or would be ``ahead`` seconds from now."""
        return self.deadline is not None and time.perf_counter() + ahead >= self.deadline

    def allows(self, ahead: float = 0.0) -> bool:
        """Whether ``ahead`` more seconds still end by the deadline (always without a limit)."""
        return self.deadline is None or time.perf_counter() + ahead <= self.deadline


class CountedClock:
    """Counts units of work (``tick``) and raises ``OutOfBudget`` past ``limit`` units or past the
    deadline. Time is read every ``check_every`` ticks, so a time limit overshoots by a few
    milliseconds at most and costs almost nothing per tick."""

    def __init__(self, limit: int | None = None, seconds: float | None = None,
                 check_every: int = 4096):
        self.count = 0
        self.limit = limit
        self.clock = Deadline(seconds)
        self.check_every = check_every
        self._next_time_check = check_every
        self._deadline = self.clock.deadline  # tick's hot path: one attribute lookup, not two

    def tick(self) -> None:
        self.count += 1
        if self.limit is not None and self.count > self.limit:
            self.count -= 1
            raise OutOfBudget
        if self._deadline is not None and self.count >= self._next_time_check:
            self._next_time_check = self.count + self.check_every
            if time.perf_counter() > self._deadline:
                raise OutOfBudget
