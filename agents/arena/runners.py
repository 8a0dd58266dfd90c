"""Where the round robin's games are played: spawned worker processes, or Ray tasks (optional).
Both draw the schedule lazily and hand each game to ``record`` as it finishes. A spawned worker
ends when the run's process dies (``agents.arena.worker_exit``); Ray's workers are Ray's to
manage.

A worker is handed the game's description (every task carries it), never only its name: a game
the run's process registered itself (``tbw_envs.games.register``, not an entry point) is
unknown in a fresh worker, which registers the description it was handed (``know_game``) before
its first game, so agents built by name there find it. Each spec is parsed once per worker
(``players.agent_maker``)."""

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
from tbw_envs.description import Game
from tbw_envs.games import game_names, register

RAY_MISSING = ('ray is not installed; it needs its own environment: pip install -c '
               'constraints.txt -e ".[rllib]" (docs/integrations.md, "RLlib")')

WORKER_DIED = ("a worker process of the round robin died (killed, out of memory, or it failed "
               "to start: a spawned worker imports the main script again, so a script must "
               "start a round robin under 'if __name__ == \"__main__\":'); its error, if it "
               "had one, is printed above; workers=1 plays in this process")


def know_game(game: Game) -> None:
    """Register ``game`` in this worker process unless a game of its name is registered here
    (the run's process may have registered it itself, which a spawned worker never saw)."""
    if game.name not in game_names():
        register(game)


def start_worker(game: Game, variant: str, entries: Sequence[Any],
                 move_time_limit: float | None = None) -> None:
    """A pool worker's initializer: end with the parent (``exit_with_parent``), so a killed
    run leaves no worker behind, know the game (``know_game``), then ``warm_up`` the agents
    (under the run's move time limit, so an agent that hangs cannot hang the worker here)."""
    exit_with_parent()
    know_game(game)
    warm_up(game, variant, entries, move_time_limit)


def play_in_processes(tasks: Iterator[GameTask], workers: int, game: Game, variant: str,
                      entries: Sequence[Any], record: Callable[[ArenaGame], None],
                      move_time_limit: float | None = None) -> None:
    """Play ``tasks`` in ``workers`` spawned processes, a few per worker in flight at a time
    (the schedule is drawn lazily); ``record`` gets each game as it finishes."""
    # spawn: identical on every platform, and safe with threads (tqdm, numba) running. The
    # workers are started by this thread (no max_tasks_per_child, so never by the pool's own
    # thread), which Linux's parent-death signal in ``start_worker`` relies on.
    context = multiprocessing.get_context("spawn")
    limit = 4 * workers
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=start_worker,
                             initargs=(game, variant, entries, move_time_limit)) as pool:
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
    """One game in a Ray worker: the first time a worker process meets an agent it knows the
    game (``know_game``) and warms the agent up (``warm_up``), as the process pool's
    initializer does, then ``play_task``."""
    fresh = [entry for entry in dict.fromkeys(task.entries)
             if (task.game.name, task.variant, entry) not in _WARMED_ON_RAY]
    if fresh:
        know_game(task.game)
        warm_up(task.game, task.variant, fresh, task.move_time_limit)
        _WARMED_ON_RAY.update((task.game.name, task.variant, entry) for entry in fresh)
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
