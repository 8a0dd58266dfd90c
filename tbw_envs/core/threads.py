"""A batch cut into one slice per thread, for compiled kernels that release the GIL.

Numba's ``nogil=True`` kernels run truly in parallel from Python threads. Cutting the batch by
hand keeps the kernels serial (quick to compile, no threading layer to configure) and makes the
result independent of the cut: each game is stepped by exactly one thread, and games never read
each other.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tbw_envs.core.contract import is_integer, short_repr

# Below this many games a second thread costs more than it saves.
MIN_GAMES_PER_THREAD = 64


def default_threads() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def check_threads(threads: Any) -> int:
    if threads is None:
        return default_threads()
    if not is_integer(threads) or not 1 <= threads <= 1024:
        raise ValueError(f"threads must be None or an integer from 1 to 1024, got "
                         f"{short_repr(threads)}")
    return int(threads)


class ThreadSlices:
    """Runs ``kernel(start, stop, *arrays)`` over ``[0, num_envs)`` in up to ``threads``
    slices at once."""

    def __init__(self, num_envs: int, threads: int | None = None):
        count = min(check_threads(threads), max(1, num_envs // MIN_GAMES_PER_THREAD))
        cuts = [num_envs * k // count for k in range(count + 1)]
        self.slices = list(zip(cuts[:-1], cuts[1:], strict=True))
        self._pool = ThreadPoolExecutor(count - 1) if count > 1 else None

    @property
    def threads(self) -> int:
        return len(self.slices)

    def run(self, kernel: Callable[..., Any], *arrays: Any) -> None:
        if self._pool is None:
            kernel(0, self.slices[0][1], *arrays)
            return
        # The first slice on this thread, the rest on the pool's; errors surface here.
        futures = [self._pool.submit(kernel, start, stop, *arrays)
                   for start, stop in self.slices[1:]]
        start, stop = self.slices[0]
        kernel(start, stop, *arrays)
        for future in futures:
            future.result()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False)
