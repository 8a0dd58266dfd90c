"""Workers end with their parent (``agents.arena.worker_exit``): a real arena run with two
workers is killed with SIGKILL and every process it started goes, and each guard alone (Linux's
parent-death signal, the sentinel thread that macOS relies on) ends a spawned child. The
processes are found in ``/proc``, so these tests run on Linux only; the timeouts only bound a
hang (the workers go within a second)."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agents.arena.worker_exit import exit_with_parent
from tests.helpers import REPO_ROOT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="finds processes in /proc")

HANG_SECONDS = 60.0  # waiting for a run to start its workers and play a game
GONE_SECONDS = 60.0  # waiting for orphans to go: a hang bound (without the fix they never go)


def children(pid: int) -> list[int]:
    """The pids of ``pid``'s children, from every one of its threads."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def identity(pid: int) -> tuple[str, ...] | None:
    """``pid``'s state and start time (so a reused pid is not taken for it), or None once it
    has gone; a zombie counts as gone (it has ended, only its exit status is left)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = stat[stat.rindex(")") + 2:].split()  # after "pid (name) "
    return None if fields[0] in "ZX" else (fields[19],)  # field 22: start time


def survivors(processes: dict[int, tuple[str, ...]]) -> list[int]:
    return [pid for pid, started in processes.items() if identity(pid) == started]


def wait_for(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while not (value := condition()):
        assert time.monotonic() < deadline, what
        time.sleep(0.05)
    return value


def kill_and_watch(parent: subprocess.Popen, processes: dict[int, tuple[str, ...]]) -> list[int]:
    """SIGKILL ``parent`` and return whichever of ``processes`` are still alive once they all
    have gone or ``GONE_SECONDS`` have passed; kill any left over (this test started them)."""
    parent.kill()
    parent.wait(timeout=HANG_SECONDS)
    deadline = time.monotonic() + GONE_SECONDS
    while survivors(processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = survivors(processes)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


def test_a_killed_arena_run_leaves_no_worker_behind(tmp_path):
    out, log = tmp_path / "run", tmp_path / "stderr.txt"
    with open(log, "wb") as stderr:
        run = subprocess.Popen(
            [sys.executable, "scripts/arena.py", "--game", "tbw", "--agents", "random", "random",
             "--games", "20000", "--workers", "2", "--out", str(out), "--no-render"],
            cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=stderr)
    started: dict[int, tuple[str, ...] | None] = {}
    try:
        journal = out / "journal.jsonl"

        def playing() -> bool:  # the header and one game: the workers are past their start
            assert run.poll() is None, log.read_text()[-2000:]
            return journal.exists() and journal.read_text().count("\n") >= 2

        wait_for(playing, HANG_SECONDS, "the run played no game")
        started = {pid: identity(pid) for pid in children(run.pid)}
        workers = [pid for pid in started
                   if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert len(workers) == 2, started  # besides the resource tracker, which ends after them
    finally:
        left = kill_and_watch(run, started)
    assert left == [], f"still alive {GONE_SECONDS:.0f} s after the run was killed: {left}"


CHILD_SCRIPT = """
import multiprocessing, os, sys, time
from agents.arena.worker_exit import exit_with_parent, kill_on_parent_death, watch_parent

def child(guard):
    parent = multiprocessing.parent_process()
    {"both": exit_with_parent, "prctl": lambda: kill_on_parent_death(parent.pid),
     "sentinel": lambda: watch_parent(parent.sentinel)}[guard]()
    print(os.getpid(), flush=True)
    time.sleep(600)

if __name__ == "__main__":
    multiprocessing.get_context("spawn").Process(target=child, args=(sys.argv[1],)).start()
    time.sleep(600)
"""


@pytest.mark.parametrize("guard", ["prctl", "sentinel", "both"])
def test_each_guard_ends_a_spawned_child_with_its_parent(tmp_path, guard):
    script = tmp_path / "parent.py"
    script.write_text(CHILD_SCRIPT, encoding="utf-8")
    path = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    parent = subprocess.Popen([sys.executable, str(script), guard], cwd=REPO_ROOT,
                              stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": path})
    processes: dict[int, tuple[str, ...] | None] = {}
    try:
        ready, _, _ = select.select([parent.stdout], [], [], HANG_SECONDS)
        assert ready, "the child did not start"
        line = parent.stdout.readline()  # the child's pid, once its guard is set
        assert line.strip().isdigit(), line
        processes = {int(line): identity(int(line))}
        assert None not in processes.values()
    finally:
        left = kill_and_watch(parent, processes)
        parent.stdout.close()
    assert left == [], f"the child ({guard}) outlived its parent"


def test_outside_a_spawned_worker_nothing_is_set():
    exit_with_parent()  # the test process has no multiprocessing parent: a no-op
    assert all(thread.name != "exit-with-parent" for thread in threading.enumerate())
