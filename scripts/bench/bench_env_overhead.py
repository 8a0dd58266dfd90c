"""``env()`` and ``raw_env`` of both games beside PettingZoo's connect four, in one process.

    python scripts/bench/bench_env_overhead.py                   # 7 rounds of 0.5 s slices
    python scripts/bench/bench_env_overhead.py --rounds 15 --json runs/bench_env_overhead.json

Every case runs the same random-play loop (``env.last()``, then a uniformly random action among
those its observation's ``action_mask`` allows, ``step(None)`` for finished agents, a new game
with ``reset(seed=...)`` when one ends), as a learner's loop would. The cases take turns in
half-second slices, in a rotated order each round, and each keeps its game going from one slice
to the next; a case's ratio to connect four is taken within each round, so load that comes and
goes on a shared machine hits both sides of a ratio alike. The table gives the median over the
rounds and the range. Connect four is ``pettingzoo.classic.connect_four_v3`` (needs pygame:
``pip install pygame``); its ``env()`` carries PettingZoo's default wrappers
(``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``), ours the
same checks in one layer (``tbw_envs.aec_wrappers.StandardWrapper``). The "PettingZoo stack"
rows put our ``raw_env`` inside PettingZoo's three default wrappers instead, as ``env()`` did
before (``--no-pettingzoo-stack`` leaves them out).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pettingzoo
from pettingzoo.utils import wrappers

from tbw_envs import junqi_v0, tbw_v0

BASELINE = "connect_four_v3 env()"


def random_play(env, seed: int) -> Iterator[None]:
    """Random play on ``env`` forever; yields after each action played."""
    rng = random.Random(seed)
    games = 0
    while True:
        env.reset(seed=seed + games)
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            yield
        games += 1


def run_slice(play: Iterator[None], seconds: float) -> float:
    """Actions per second of ``play`` over about ``seconds``."""
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    step = play.__next__
    while True:
        step()
        steps += 1
        if steps & 15 == 0 and time.perf_counter() >= deadline:
            return steps / (time.perf_counter() - start)


def pettingzoo_stack(raw):
    """``raw`` inside PettingZoo's default AEC wrappers, as its classic envs' ``env()``."""
    env = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def make_cases(tbw_scenario: str, junqi_rules: str,
               with_pettingzoo_stack: bool = True) -> dict[str, Callable]:
    try:  # connect four needs pygame, which the project does not: imported only when measured
        from pettingzoo.classic import connect_four_v3
    except ImportError as exc:
        raise SystemExit(f"connect_four_v3 does not import ({exc}); pip install pygame") from None

    def tbw_raw():
        return tbw_v0.raw_env(scenario=tbw_scenario)

    def junqi_raw():
        return junqi_v0.raw_env(rules=junqi_rules)

    cases = {
        "connect_four_v3 raw_env": connect_four_v3.raw_env,
        BASELINE: connect_four_v3.env,
        f"tbw {tbw_scenario} raw_env": tbw_raw,
        f"tbw {tbw_scenario} env()": lambda: tbw_v0.env(scenario=tbw_scenario),
        f"junqi {junqi_rules} raw_env": junqi_raw,
        f"junqi {junqi_rules} env()": lambda: junqi_v0.env(rules=junqi_rules),
    }
    if with_pettingzoo_stack:
        cases[f"tbw {tbw_scenario} PettingZoo stack"] = lambda: pettingzoo_stack(tbw_raw())
        cases[f"junqi {junqi_rules} PettingZoo stack"] = lambda: pettingzoo_stack(junqi_raw())
    return cases


def measure(cases: dict[str, Callable], rounds: int, slice_seconds: float,
            seed: int = 0) -> dict[str, list[float]]:
    """Rates per case and round; the order of the cases rotates from round to round."""
    plays = {name: random_play(make(), seed) for name, make in cases.items()}
    for play in plays.values():  # warm up: first reset, caches, imports
        run_slice(play, min(0.1, slice_seconds))
    names = list(plays)
    rates: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            rates[name].append(run_slice(plays[name], slice_seconds))
    return rates


def summarise(rates: dict[str, list[float]]) -> list[dict]:
    """Per case: median rate, and the median and range of its per-round ratio to connect four's
    ``env()`` and (for ``env()`` rows) to the same game's ``raw_env``."""
    base = rates[BASELINE]
    rows = []
    for name, values in rates.items():
        vs_c4 = [v / b for v, b in zip(values, base, strict=True)]
        row = {
            "case": name,
            "steps_per_s": statistics.median(values),
            "vs_connect_four_env": statistics.median(vs_c4),
            "vs_connect_four_env_range": [min(vs_c4), max(vs_c4)],
        }
        raw_name = name.replace(" env()", " raw_env").replace(" PettingZoo stack", " raw_env")
        if raw_name != name and raw_name in rates:
            vs_raw = [v / w for v, w in zip(values, rates[raw_name], strict=True)]
            row["vs_own_raw_env"] = statistics.median(vs_raw)
        rows.append(row)
    return rows


def machine() -> dict:
    cpu = platform.processor() or "unknown cpu"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "python": platform.python_version(), "machine": platform.machine(), "cpu": cpu,
        "cores": os.cpu_count(), "numpy": np.__version__, "pettingzoo": pettingzoo.__version__,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--slice", type=float, default=0.5, help="seconds per case per round")
    parser.add_argument("--tbw-scenario", default="duel_5v5_8x8")
    parser.add_argument("--junqi-rules", default="ccgc")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    parser.add_argument("--no-pettingzoo-stack", action="store_true",
                        help="leave out the rows of our raw_env in PettingZoo's wrappers")
    args = parser.parse_args(argv)
    if args.rounds < 1 or not args.slice > 0:
        parser.error("--rounds must be >= 1 and --slice > 0")
    info = machine()
    load_before = os.getloadavg()
    cases = make_cases(args.tbw_scenario, args.junqi_rules, not args.no_pettingzoo_stack)
    rates = measure(cases, args.rounds, args.slice, args.seed)
    load_after = os.getloadavg()
    rows = summarise(rates)
    print(f"python {info['python']} on {info['machine']} ({info['cpu']}, {info['cores']} cores), "
          f"numpy {info['numpy']}, pettingzoo {info['pettingzoo']}; {args.rounds} rounds of "
          f"{args.slice:g} s slices; load average (1 min) {load_before[0]:.2f} before, "
          f"{load_after[0]:.2f} after")
    print(f"{'case':<36}{'steps/s':>10}{'x c4 env()':>12}{'range':>14}{'/ raw_env':>10}")
    for row in rows:
        low, high = row["vs_connect_four_env_range"]
        own = f"{row['vs_own_raw_env']:.2f}" if "vs_own_raw_env" in row else ""
        print(f"{row['case']:<36}{row['steps_per_s']:>10,.0f}{row['vs_connect_four_env']:>11.2f}x"
              f"{f'{low:.2f}-{high:.2f}':>14}{own:>10}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "machine": info, "load_average_before": load_before,
            "load_average_after": load_after, "rounds": args.rounds, "slice": args.slice,
            "rates": rates, "summary": rows,
        }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
