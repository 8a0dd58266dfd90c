"""Where the round robin's games are played: spawned worker processes, or Ray tasks (optional).
Both draw the schedule lazily and hand each game to ``record`` as it finishes. A spawned worker
ends when the run's process dies (``agents.arena.worker_exit``); Ray's workers are Ray's to
manage."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from agents.arena.checks import check_ray_address
from agents.arena.play import play_task, warm_up
from agents.arena.records import ArenaGame
from agents.arena.scheduling import GameTask
from agents.arena.worker_exit import exit_with_parent

RAY_MISSING = ('ray is not installed; it needs its own environment: pip install -c '
               'constraints.txt -e ".[rllib]" (docs/integrations.md, "RLlib")')

WORKER_DIED = ("a worker process of the round robin died (killed, out of memory, or it failed "
               "to start: a spawned worker imports the main script again, so a script must "
               "start a round robin under 'if __name__ == \"__main__\":'); its error, if it "
               "had one, is printed above; workers=1 plays in this process")


def start_worker(game: str, variant: str, entries: Sequence[Any]) -> None:
    """A pool worker's initializer: end with the parent (``exit_with_parent``), so a killed
    run leaves no worker behind, then ``warm_up`` the agents."""
    exit_with_parent()
    warm_up(game, variant, entries)


def play_in_processes(tasks: Iterator[GameTask], workers: int, game: str, variant: str,
                      entries: Sequence[Any], record: Callable[[ArenaGame], None]) -> None:
    """Play ``tasks`` in ``workers`` spawned processes, a few per worker in flight at a time
    (the schedule is drawn lazily); ``record`` gets each game as it finishes."""
    # spawn: identical on every platform, and safe with threads (tqdm, numba) running. The
    # workers are started by this thread (no max_tasks_per_child, so never by the pool's own
    # thread), which Linux's parent-death signal in ``start_worker`` relies on.
    context = multiprocessing.get_context("spawn")
    limit = 4 * workers
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=start_worker,
                             initargs=(game, variant, entries)) as pool:
        pending: set[Any] = set()

        def submit() -> None:
            for task in tasks:
                pending.add(pool.submit(play_task, task))
                if len(pending) >= limit:
                    break

        try:
            submit()
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    pending.discard(future)
                    record(future.result())
                submit()
        except BrokenProcessPool as exc:
            raise BrokenProcessPool(WORKER_DIED) from exc
        except BaseException:
            for future in pending:
                future.cancel()
            raise


# ---------------------------------------------------------------------- Ray (optional)


def import_ray() -> Any:
    """``import ray``, or an ImportError that says how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise ImportError(RAY_MISSING) from exc
    return ray


def connect_ray(address: str, num_cpus: int | None = None, **init_kwargs: Any) -> bool:
    """Connect this process to Ray at ``address`` (``check_ray_address``); ``num_cpus`` sizes a
    ``"local"`` Ray (default: all cores). Returns True when this call connected (the caller
    then calls ``ray.shutdown()``), False when the process was already connected (that
    connection is used whatever ``address`` says)."""
    check_ray_address(address)
    ray = import_ray()
    if ray.is_initialized():
        return False
    if address == "local":
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, **init_kwargs)
    else:
        ray.init(address=address, **init_kwargs)
    return True


_WARMED_ON_RAY: set = set()


def ray_play_task(task: GameTask) -> ArenaGame:
    """One game in a Ray worker: the first time a worker process meets an agent it warms it up
    (``warm_up``, as the process pool's initializer does), then ``play_task``."""
    fresh = [entry for entry in dict.fromkeys(task.entries)
             if (task.game, task.variant, entry) not in _WARMED_ON_RAY]
    if fresh:
        warm_up(task.game, task.variant, fresh)
        _WARMED_ON_RAY.update((task.game, task.variant, entry) for entry in fresh)
    return play_task(task)


def play_on_ray(tasks: Iterable[GameTask], address: str, workers: int | None,
                record: Callable[[ArenaGame], None]) -> int:
    """Play every task as a Ray task (1 CPU each), at most ``workers`` at a time (default: the
    cluster's CPUs); ``record`` gets each game as it finishes. Returns the concurrency used."""
    ray = import_ray()
    started = connect_ray(address, num_cpus=workers)
    try:
        limit = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        remote_play = ray.remote(num_cpus=1)(ray_play_task)
        queue = iter(tasks)
        pending: dict[Any, GameTask] = {}

        def submit() -> None:
            for task in queue:
                pending[remote_play.remote(task)] = task
                if len(pending) >= limit:
                    break

        submit()
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    pending.pop(ref)
                    record(ray.get(ref))
                submit()
        except BaseException:
            for ref in pending:
                ray.cancel(ref)
            raise
    finally:
        if started:
            ray.shutdown()
    return limit
