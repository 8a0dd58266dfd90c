"""Throughput of TBW's batched core (``tbw_envs.tbw.batched``): N games stepped together.

    python scripts/bench/bench_tbw_batched.py                       # both scenarios, N 64 to 4096
    python scripts/bench/bench_tbw_batched.py --num-envs 1024 --seconds 10
    python scripts/bench/bench_tbw_batched.py --backends numba reference --num-envs 64 256
    python scripts/bench/bench_tbw_batched.py --threads 1              # one core

Each row runs in a process of its own, so its peak RSS is its own: the batch is built, stepped
once (the first call loads the compiled kernels from numba's cache, or compiles them when the
cache is cold: run with ``NUMBA_CACHE_DIR`` set to an empty folder to time a compile), then
stepped with random legal actions until ``--seconds`` of ``step`` time add up; only ``step`` is
timed. A finished game starts again (``reset_games``) between steps, as the vector env's
autoreset does, outside the timing. Actions are drawn uniformly among the legal ones with numpy
from the masks (``tbw_envs.core.batched.sample_legal``, as ``tbw_envs.vector`` users do). Steps
per second count env steps summed over the batch (each active game's action is one). ``core MB``
is the batch's arrays, ``peak RSS`` the whole process at its largest.
"""

from __future__ import annotations

import argparse
import multiprocessing
import platform
import resource
import sys
import time

import numpy as np

from tbw_envs.core.batched import numba_available, sample_legal
from tbw_envs.core.threads import default_threads
from tbw_envs.tbw.batched import make_batched

SCENARIOS = ("duel_5v5_8x8", "battle_10v10_16x16")
NUM_ENVS = (64, 256, 1024, 4096)
def array_megabytes(batch) -> float:
    """The arrays a batch holds (its own and its backend's), in MB."""
    seen, total = set(), 0
    for value in [*vars(batch).values(), *getattr(batch, "_games", ()),
                  *getattr(batch, "_tables", ())]:
        if isinstance(value, np.ndarray):
            base = value if value.base is None else value.base
            if id(base) not in seen:
                seen.add(id(base))
                total += base.nbytes
    return total / 1e6


def measure(scenario: str, num_envs: int, backend: str, seconds: float, seed: int,
            threads: int | None = None) -> dict:
    """One row: build, first step, then timed random play."""
    started = time.perf_counter()
    batch = make_batched(num_envs, scenario, backend=backend, threads=threads)
    rng = np.random.default_rng(seed)
    batch.step(sample_legal(batch.action_mask, rng), ~batch.terminated)
    first_call = time.perf_counter() - started
    steps = batch_steps = games = 0
    timed = 0.0
    while timed < seconds or batch_steps < 3:
        finished = np.flatnonzero(batch.terminated)
        if finished.size:
            games += finished.size
            batch.reset_games(finished, [None] * finished.size)
        actions = sample_legal(batch.action_mask, rng)
        active = ~batch.terminated
        tick = time.perf_counter()
        batch.step(actions, active)
        timed += time.perf_counter() - tick
        steps += int(active.sum())
        batch_steps += 1
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    return {"rate": steps / timed, "batch_steps": batch_steps, "games": games,
            "first_call": first_call, "core_mb": array_megabytes(batch), "peak_mb": peak}


def _measure_in_child(queue, *args) -> None:
    queue.put(measure(*args))


def measure_alone(*args) -> dict:
    """``measure`` in a fresh process, so the row's peak RSS is its own."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_measure_in_child, args=(queue, *args))
    child.start()
    result = queue.get()
    child.join()
    return result


def positive(kind):
    def parse(text: str):
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value
    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", nargs="+", default=list(SCENARIOS),
                        help="scenarios to measure (default: %(default)s)")
    parser.add_argument("--num-envs", nargs="+", type=positive(int), default=list(NUM_ENVS),
                        help="batch sizes (default: %(default)s)")
    parser.add_argument("--backends", nargs="+", choices=["numba", "reference"],
                        default=["numba"], help="default: numba")
    parser.add_argument("--seconds", type=positive(float), default=3.0,
                        help="step time per row (default: %(default)s)")
    parser.add_argument("--threads", type=positive(int), default=None,
                        help="threads stepping the numba backend (default: one per core)")
    parser.add_argument("--seed", type=int, default=0)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if "numba" in args.backends and not numba_available():
        parser.error("--backends numba needs numba (pip install -c constraints.txt "
                     "'tbw-envs[fast]')")
    threads = args.threads or default_threads()
    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"{platform.processor() or 'unknown cpu'}; {args.seconds:g} s of step per row; "
          f"numba steps with up to {threads} thread(s)")
    print(f"{'scenario':<22}{'backend':<11}{'N':>6}{'steps/s':>12}{'batch steps':>13}"
          f"{'games':>8}{'first call s':>14}{'core MB':>9}{'peak RSS MB':>13}")
    for scenario in args.scenario:
        for backend in args.backends:
            for num_envs in args.num_envs:
                row = measure_alone(scenario, num_envs, backend, args.seconds, args.seed,
                                    args.threads)
                print(f"{scenario:<22}{backend:<11}{num_envs:>6}{row['rate']:>12,.0f}"
                      f"{row['batch_steps']:>13}{row['games']:>8}{row['first_call']:>14.2f}"
                      f"{row['core_mb']:>9.0f}{row['peak_mb']:>13.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
