"""A spawned worker of the round robin ends when the process that started it dies.

Without this, a worker outlives a killed run (``kill -9``, out of memory, a closed terminal): it
waits for its next game on a queue whose other end it holds itself, so it never sees the parent
go, and it keeps its memory until someone kills it by hand. ``exit_with_parent``, called first
in the worker's initializer, sets two guards:

- **Linux**: the kernel's parent-death signal, ``prctl(PR_SET_PDEATHSIG, SIGKILL)``. It fires
  when the *thread* that started the worker ends, not only the process. That is safe here: the
  pool starts its workers from the thread that submits the games (``play_in_processes``'s
  caller), which stays in the pool's ``with`` block until every worker is done.
- **Everywhere** (macOS and Windows too): a daemon thread waits on the parent's sentinel
  (``multiprocessing.parent_process().sentinel``, which the operating system makes ready when
  the parent dies) and then ends the worker with ``os._exit``.

A parent that died before the guards were set is caught too: the sentinel is already ready, and
after the ``prctl`` the parent pid is checked.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
PARENT_DIED_EXIT_CODE = 1


def exit_with_parent() -> None:
    """Make this process end when its ``multiprocessing`` parent dies (module docstring); a
    no-op in a process that multiprocessing did not start (the main process, a Ray worker)."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    if sys.platform.startswith("linux"):
        kill_on_parent_death(parent.pid)
    watch_parent(parent.sentinel)


def kill_on_parent_death(parent_pid: int | None) -> None:
    """Linux: ask the kernel for SIGKILL when the parent dies; exit now if it already has (this
    process was then handed to another parent, and no signal will come)."""
    with contextlib.suppress(OSError, AttributeError):  # no libc found: the thread still guards
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if parent_pid is not None and os.getppid() != parent_pid:
        os._exit(PARENT_DIED_EXIT_CODE)


def watch_parent(sentinel: int) -> None:
    """Any platform: a daemon thread ends this process once ``sentinel`` (the parent's, from
    ``multiprocessing.parent_process()``) is ready, which it becomes when the parent dies."""
    threading.Thread(target=exit_once_ready, args=(sentinel,), name="exit-with-parent",
                     daemon=True).start()


def exit_once_ready(sentinel: int) -> None:
    """Block until ``sentinel`` is ready, then end this process at once: no cleanup, no waiting
    for the game in progress, whose result nobody would read."""
    multiprocessing.connection.wait([sentinel])
    os._exit(PARENT_DIED_EXIT_CODE)
