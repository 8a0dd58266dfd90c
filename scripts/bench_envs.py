"""Random-play throughput of the game cores and environments (uniform over legal actions).

    python scripts/bench_envs.py                 # all, ~3 s per measurement
    python scripts/bench_envs.py --seconds 10 --only tbw

Rates are unit actions (TBW) or plies (Junqi) per second on one core. ``raw_env`` and ``env()``
rows include building the observation and mask of every step (``env.last()``), as a learner
would. The ``single`` row is the single-agent Gymnasium wrapper with its built-in random
opponent: every ply counts, the learner's (observation, mask and info built) and the opponent's
(played inside ``step``), so it compares with ``raw_env`` directly, and the ``overhead`` column
gives its cost over ``raw_env``. Record figures in docs/benchmarks.md with the machine and this
command.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.bench_junqi import core_random_play  # noqa: E402
from tbw_envs import junqi_v0, tbw_v0  # noqa: E402
from tbw_envs.junqi import JunqiState  # noqa: E402
from tbw_envs.tbw import TBWState, load_scenario  # noqa: E402
from tbw_envs.wrappers import make_junqi_single, make_tbw_single  # noqa: E402

TBW_SCENARIOS = ("duel_5v5_8x8", "battle_10v10_16x16")


def bench_core(new_state, seconds: float, seed: int = 0) -> tuple[float, int]:
    rng = random.Random(seed)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = new_state()
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])
            steps += 1
        games += 1
    return steps / (time.perf_counter() - start), games


def bench_aec(make_env, seconds: float, seed: int = 0) -> tuple[float, int]:
    rng = random.Random(seed)
    env = make_env()
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=games)
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
        games += 1
    return steps / (time.perf_counter() - start), games


def bench_single(make_env, seconds: float, seed: int = 0) -> tuple[float, int]:
    """Plies per second through a single-agent wrapper (the learner's and the opponent's)."""
    rng = random.Random(seed)
    env = make_env()
    plies = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _obs, info = env.reset(seed=games)
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _obs, _reward, terminated, truncated, info = env.step(
                int(legal[rng.randrange(len(legal))]))
            done = terminated or truncated
        plies += info["plies"]
        games += 1
    return plies / (time.perf_counter() - start), games


def run_tbw(seconds: float) -> list[tuple[str, str, float, int]]:
    rows = []
    for name in TBW_SCENARIOS:
        scenario = load_scenario(name)
        rate, games = bench_core(lambda sc=scenario: TBWState.initial(sc), seconds)
        rows.append((f"tbw {name}", "core", rate, games))
        rate, games = bench_aec(lambda n=name: tbw_v0.raw_env(scenario=n), seconds)
        rows.append((f"tbw {name}", "raw_env", rate, games))
        rate, games = bench_aec(lambda n=name: tbw_v0.env(scenario=n), seconds)
        rows.append((f"tbw {name}", "env()", rate, games))
        rate, games = bench_single(lambda n=name: make_tbw_single(scenario=n), seconds)
        rows.append((f"tbw {name}", "single", rate, games))
    return rows


def run_junqi(seconds: float) -> list[tuple[str, str, float, int]]:
    layouts_rng = random.Random(0)
    rows = []
    rate, games = bench_core(lambda: JunqiState.random_initial(layouts_rng), seconds)
    rows.append(("junqi ccgc (random layouts)", "core", rate, games))
    rate, games = bench_aec(lambda: junqi_v0.raw_env(), seconds)
    rows.append(("junqi ccgc (random layouts)", "raw_env", rate, games))
    rate, games = bench_aec(lambda: junqi_v0.env(), seconds)
    rows.append(("junqi ccgc (random layouts)", "env()", rate, games))
    rate, games = bench_single(make_junqi_single, seconds)
    rows.append(("junqi ccgc (random layouts)", "single", rate, games))
    ends = core_random_play(seconds)
    shares = ", ".join(f"{k} {v:.1%}" for k, v in ends["end_reason_share"].items())
    print(f"junqi random games ({ends['core_games']}, mean {ends['core_mean_plies']:.0f} plies) "
          f"end by: {shares}")
    return rows


RUNS = {"tbw": run_tbw, "junqi": run_junqi}  # each game's rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    parser.add_argument("--only", choices=list(RUNS), default=None)
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"{platform.processor() or 'unknown cpu'}; {args.seconds:g} s per row")
    rows = []
    for game, run in RUNS.items():
        if args.only in (None, game):
            rows += run(args.seconds)
    print(f"{'game':<32}{'layer':<10}{'steps/s':>12}{'games':>8}{'overhead':>10}")
    raw_rates = {game: rate for game, layer, rate, _ in rows if layer == "raw_env"}
    for game, layer, rate, games in rows:
        overhead = f"{raw_rates[game] / rate - 1:+.0%}" if layer == "single" else ""
        print(f"{game:<32}{layer:<10}{rate:>12,.0f}{games:>8}{overhead:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
