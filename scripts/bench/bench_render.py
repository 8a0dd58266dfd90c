"""Benchmark ``render_rgb``: milliseconds per frame of each TBW scenario and of Junqi's board.

    python scripts/bench/bench_render.py                   # 5 repeats of 10 frames each
    python scripts/bench/bench_render.py --number 50 --repeat 9

Each row is the best of ``--repeat`` runs of ``--number`` frames of one position (the
scenario's first, Junqi's seeded random layout), after one frame to build the static layer; the
best run is the one least disturbed by other jobs. The tests check what keeps frames cheap (the
static layers are drawn once per board), not the time; record figures in docs/benchmarks.md
with the machine and this command.
"""

from __future__ import annotations

import argparse
import os
import platform
import timeit

from tbw_envs.junqi import JunqiState
from tbw_envs.junqi import render as junqi_render
from tbw_envs.tbw import TBWState, load_scenario
from tbw_envs.tbw import render as tbw_render

TBW_SCENARIOS = ("duel_5v5_8x8", "hex_skirmish", "battle_10v10_16x16")


def subjects(scenarios):
    """(label, render, subject) for every frame measured."""
    for name in scenarios:
        yield f"TBW `{name}`", tbw_render.render_rgb, TBWState.initial(load_scenario(name))
    state = JunqiState.random_initial(2)
    yield "Junqi full board", junqi_render.render_rgb, state
    yield "Junqi player's view", junqi_render.render_rgb, state.view(1)


def frame_ms(render, subject, number: int, repeat: int) -> float:
    render(subject)  # the static layer is built by the first frame of a board
    best = min(timeit.repeat(lambda: render(subject), number=number, repeat=repeat))
    return 1000 * best / number


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", nargs="+", default=list(TBW_SCENARIOS),
                        help="TBW scenarios (default: %(default)s)")
    parser.add_argument("--number", type=positive, default=10, help="frames per run")
    parser.add_argument("--repeat", type=positive, default=5, help="runs; the best one counts")
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"{os.cpu_count()} cpus, load {os.getloadavg()[0]:.1f}")
    print("| frame | ms per frame |")
    print("|---|---:|")
    for label, render, subject in subjects(args.scenarios):
        print(f"| {label} | {frame_ms(render, subject, args.number, args.repeat):.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
