"""The batched self-play envs (``tbw_envs.vector``) beside PettingZoo's connect four ``env()``,
in one process, and beside pgx on CPU where it is installed.

    python scripts/bench/bench_vector.py                  # batch 1024, 5 rounds of 1 s slices
    python scripts/bench/bench_vector.py --rounds 9 --scaling --memory
    python scripts/bench/bench_vector.py --pgx-python /path/to/venv/bin/python

Each case steps ``vector.make(game, N, ...)`` with uniformly random legal actions
(``sample_legal``, drawn outside the timing); only ``step`` is timed, autoresets (which happen
inside ``step``) included, with the env's default ``copy=True``. Steps are env steps summed over
the batch. The cases and connect four take turns in slices, each round in a rotated order, and
a case's ratio to connect four is taken within its round, so load that comes and goes on a
shared machine hits both sides of a ratio alike; the table gives the median over the rounds and
the range. Connect four is ``pettingzoo.classic.connect_four_v3.env()`` in the random-play loop
of ``bench_env_overhead.py`` (``env.last()``, a random legal action, ``step``), one env.

``--scaling`` adds the cost per step (microseconds per env step) as N grows from 64 to 4,096;
``--memory`` the peak RSS of a process that builds and steps 4,096 envs of each case, for
``vector.make`` and for the single-agent ``make_vec`` env, holding its last ``obs`` and ``info``
as a training loop does;
``--pgx-python`` runs pgx's envs (jax on CPU, ``jax.jit(jax.vmap(env.step))`` at the same batch)
in that interpreter, where pgx is installed, for reference. Record the figures in
docs/benchmarks.md with the machine and this command.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import resource
import statistics
import subprocess
import sys
import time

import gymnasium
import numpy as np

from tbw_envs import vector

# (label, game, env keywords)
CASES = (
    ("junqi ccgc", "junqi", {"rules": "ccgc"}),
    ("tbw duel_5v5_8x8", "tbw", {"scenario": "duel_5v5_8x8"}),
    ("tbw battle_10v10_16x16", "tbw", {"scenario": "battle_10v10_16x16"}),
)
GOALS = {"junqi ccgc": (100_000, 10.0), "tbw duel_5v5_8x8": (50_000, 5.0),
         "tbw battle_10v10_16x16": (15_000, None)}
SCALING = (64, 256, 1024, 4096)
PGX_ENVS = ("animal_shogi", "go_9x9", "connect_four")


class BatchedCase:
    """A vector env kept running from one slice to the next."""

    def __init__(self, game: str, kwargs: dict, num_envs: int, backend: str, seed: int = 0):
        self.envs = vector.make(game, num_envs, seed=seed, backend=backend, **kwargs)
        _, self.info = self.envs.reset()
        self.rng = np.random.default_rng(seed)
        self.num_envs = num_envs
        self.step()  # the first call loads (or compiles) the kernels

    def step(self) -> float:
        actions = vector.sample_legal(self.info["action_mask"], self.rng)
        start = time.perf_counter()
        _, _, _, _, self.info = self.envs.step(actions)
        return time.perf_counter() - start

    def run(self, seconds: float) -> float:
        """Env steps per second of ``step`` time, over about ``seconds`` of it."""
        spent = steps = 0.0
        while spent < seconds:
            spent += self.step()
            steps += self.num_envs
        return steps / spent


class ConnectFour:
    def __init__(self, seed: int = 0):
        from pettingzoo.classic import connect_four_v3  # needs pygame

        self.env = connect_four_v3.env()
        self.seed = seed
        self.games = 0
        self.rng = np.random.default_rng(seed)
        self.env.reset(seed=seed)

    def run(self, seconds: float) -> float:
        env = self.env
        steps = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                self.games += 1
                env.reset(seed=self.seed + self.games)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[self.rng.integers(len(legal))]))
            steps += 1
            if steps & 15 == 0 and time.perf_counter() >= deadline:
                return steps / (time.perf_counter() - start)


def compare(num_envs: int, rounds: int, seconds: float, backend: str,
            cases_run: tuple) -> list[tuple]:
    baseline = ConnectFour()
    cases = {label: BatchedCase(game, kwargs, num_envs, backend)
             for label, game, kwargs in cases_run}
    names = ["connect four env()", *cases]
    rates: dict[str, list[float]] = {name: [] for name in names}
    ratios: dict[str, list[float]] = {name: [] for name in cases}
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        measured = {}
        for name in order:
            runner = baseline if name == names[0] else cases[name]
            measured[name] = runner.run(seconds)
        for name in names:
            rates[name].append(measured[name])
        for name in cases:
            ratios[name].append(measured[name] / measured[names[0]])
        print(f"  round {r + 1}/{rounds}: " + ", ".join(
            f"{name} {measured[name]:,.0f}" for name in names), flush=True)
    rows = [(names[0], rates[names[0]], None)]
    rows += [(name, rates[name], ratios[name]) for name in cases]
    return rows


def scaling(backend: str, seconds: float, cases_run: tuple) -> list[tuple[str, int, float]]:
    out = []
    for label, game, kwargs in cases_run:
        for n in SCALING:
            rate = BatchedCase(game, kwargs, n, backend).run(seconds)
            out.append((label, n, rate))
            print(f"  {label} N={n}: {rate:,.0f} steps/s, {1e6 / rate:.2f} us/step", flush=True)
    return out


def peak_rss_megabytes() -> float:
    """This process's peak resident memory. Linux's ``VmHWM`` belongs to the process image, so a
    child started fresh reports its own; ``ru_maxrss`` would carry its parent's peak over."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


SINGLE_AGENT_IDS = {"junqi": "tbw_envs/JunqiSingle-v0", "tbw": "tbw_envs/TBWSingle-v0"}


def _memory_child(game: str, kwargs: dict, num_envs: int, backend: str, single: bool,
                  queue) -> None:
    """A user's loop for about a second (the last ``obs`` and ``info`` held while the next step
    runs), then this process's peak RSS."""
    if single:
        envs = gymnasium.make_vec(SINGLE_AGENT_IDS[game], num_envs,
                                  vectorization_mode="vector_entry_point", backend=backend,
                                  **kwargs)
    else:
        envs = vector.make(game, num_envs, seed=0, backend=backend, **kwargs)
    rng = np.random.default_rng(0)
    obs, info = envs.reset(seed=0)
    deadline = time.perf_counter() + 1.0
    while time.perf_counter() < deadline:
        obs, _, _, _, info = envs.step(vector.sample_legal(info["action_mask"], rng))
    queue.put(peak_rss_megabytes())


def memory(backend: str, cases_run: tuple, num_envs: int = 4096) -> list[tuple[str, float]]:
    """Peak RSS of a fresh process per case, for the self-play env and the single-agent one."""
    context = multiprocessing.get_context("spawn")
    out = []
    for label, game, kwargs in cases_run:
        for single in (False, True):
            queue = context.Queue()
            child = context.Process(target=_memory_child,
                                    args=(game, kwargs, num_envs, backend, single, queue))
            child.start()
            peak = queue.get()
            child.join()
            kind = "single-agent make_vec" if single else "vector.make"
            out.append((f"{label}, {kind}", peak))
            print(f"  {label}, {kind}, N={num_envs}: peak RSS {peak:,.0f} MB", flush=True)
    return out


PGX_SCRIPT = r"""
import json, sys, time
import jax, jax.numpy as jnp, pgx
names, batch, seconds = json.loads(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
out = {}
for name in names:
    env = pgx.make(name)
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
    key = jax.random.PRNGKey(0)
    key, sub = jax.random.split(key)
    state = init(jax.random.split(sub, batch))
    def act(state, key):
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        return jax.random.categorical(key, logits, axis=-1)
    act = jax.jit(act)
    key, sub = jax.random.split(key)
    state = step(state, act(state, sub))  # compile
    jax.block_until_ready(state)
    spent = steps = 0
    while spent < seconds:
        key, sub = jax.random.split(key)
        action = jax.block_until_ready(act(state, sub))
        start = time.perf_counter()
        state = jax.block_until_ready(step(state, action))
        spent += time.perf_counter() - start
        steps += batch
        done = state.terminated | state.truncated
        if bool(done.any()):
            key, sub = jax.random.split(key)
            fresh = init(jax.random.split(sub, batch))
            state = jax.tree_util.tree_map(
                lambda a, b: jnp.where(done.reshape((-1,) + (1,) * (a.ndim - 1)), b, a),
                state, fresh)
    out[name] = steps / spent
print(json.dumps(out))
"""


def pgx_rates(python: str, batch: int, seconds: float) -> dict[str, float]:
    result = subprocess.run([python, "-c", PGX_SCRIPT, json.dumps(PGX_ENVS), str(batch),
                             str(seconds)], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        print(f"  pgx failed: {result.stderr.strip().splitlines()[-1:]}")
        return {}
    return json.loads(result.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="per case per round")
    parser.add_argument("--backend", default="numba", choices=["numba", "reference"])
    parser.add_argument("--scaling", action="store_true", help="N from 64 to 4,096")
    parser.add_argument("--memory", action="store_true", help="peak RSS at 4,096 envs")
    parser.add_argument("--pgx-python", help="an interpreter where pgx (and jax) import")
    parser.add_argument("--game", nargs="*", default=sorted({game for _, game, _ in CASES}),
                        help="the games whose cases run (default: all)")
    args = parser.parse_args(argv)
    cases_run = tuple(case for case in CASES if case[1] in args.game)
    print(f"machine: {platform.machine()}, {multiprocessing.cpu_count()} cores, Python "
          f"{platform.python_version()}; batch {args.num_envs}, backend {args.backend}")
    rows = compare(args.num_envs, args.rounds, args.seconds, args.backend, cases_run)
    print("\n| case | env steps/s (median, range) | ratio to connect four (median, range) "
          "| goal |")
    print("|---|---|---|---|")
    for name, rates, ratios in rows:
        rate = f"{statistics.median(rates):,.0f} ({min(rates):,.0f}-{max(rates):,.0f})"
        ratio = ("1" if ratios is None else
                 f"{statistics.median(ratios):.1f}x ({min(ratios):.1f}-{max(ratios):.1f})")
        goal = GOALS.get(name)
        goal_text = "" if goal is None else (
            f">= {goal[0]:,}" + (f", >= {goal[1]:.0f}x" if goal[1] else ""))
        print(f"| {name} | {rate} | {ratio} | {goal_text} |")
    if args.scaling:
        print("\nCost per env step as the batch grows:")
        scaling(args.backend, args.seconds, cases_run)
    if args.memory:
        print("\nPeak RSS, 4,096 envs:")
        memory(args.backend, cases_run)
    if args.pgx_python:
        print(f"\npgx on CPU, batch {args.num_envs} (jit(vmap(step)), random legal actions):")
        for name, rate in pgx_rates(args.pgx_python, args.num_envs, args.seconds * 3).items():
            print(f"  {name}: {rate:,.0f} steps/s")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
