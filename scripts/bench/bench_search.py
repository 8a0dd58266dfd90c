"""Benchmark the single-turn search: ops1/s of Algorithms 2 and 5, wall time of the exact solver.

    python scripts/bench/bench_search.py              # compiled kernel when numba is installed
    python scripts/bench/bench_search.py --kernel python --quick

Cases: Table 2's (3 and 4 units, movement 2-4, dispersed and compact), the 5-unit cases the
paper called a timeout (exact only, and Algorithm 5 under a node budget for its rate), and the
Fire Emblem scenario (``fire_emblem_5v5``). The exact solver runs twice on Table 2's cases:
with the default evaluation (no enemies: every plan scores the same, the first plan is optimal)
and with a random per-tile bonus, which makes the optimum a real assignment problem. The
kernel is compiled once before timing. Figures on a shared machine are noisy.
"""

from __future__ import annotations

import argparse
import platform
import random

from agents.tbw.evaluation import DefaultEvaluation
from agents.tbw.search import kernel as _tbw_kernel
from agents.tbw.search import plan_turn
from agents.tbw.table2 import MOVEMENTS, PLACEMENTS, table2_state
from tbw_envs.tbw import TBWState, load_scenario


def tile_bonus_eval(state, seed: int) -> DefaultEvaluation:
    rng = random.Random(seed)
    size = state.scenario.board.size
    return DefaultEvaluation(tile_bonus=tuple(rng.random() for _ in range(size)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", default="auto", choices=["auto", "python", "numba"])
    parser.add_argument("--quick", action="store_true", help="3-unit and movement-2 cases only")
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}; numba: "
          f"{_tbw_kernel.HAVE_NUMBA}; kernel: {args.kernel}")
    plan_turn(table2_state(3, 2, "compact"), "alg5", kernel=args.kernel)  # compile/warm up
    print(f"{'case':<28} {'alg':<6} {'ops1':>11} {'s':>8} {'Mops1/s':>8}  exact: default / "
          "tile-bonus (ops1, s, x fewer than alg5)")
    for n in (3, 4):
        for m in MOVEMENTS:
            if args.quick and n == 4 and m > 2:
                continue
            for kind in PLACEMENTS:
                state = table2_state(n, m, kind)
                name = f"{n} units move {m} {kind}"
                results = {a: plan_turn(state, a, kernel=args.kernel) for a in ("alg2", "alg5")}
                ev = tile_bonus_eval(state, n * 100 + m)
                plain = plan_turn(state, "exact")
                bonus = plan_turn(state, "exact", evaluate=ev)
                ratio = results["alg5"].ops1 / max(1, bonus.ops1)
                for a, r in results.items():
                    rate = r.ops1 / r.seconds / 1e6
                    extra = ""
                    if a == "alg5":
                        extra = (f"  {plain.ops1} / {plain.seconds:.4f}s ; {bonus.ops1} / "
                                 f"{bonus.seconds:.4f}s ({ratio:,.0f}x)")
                    print(f"{name:<28} {a:<6} {r.ops1:>11} {r.seconds:>8.3f} {rate:>8.2f}{extra}")
    for m in MOVEMENTS:
        for kind in PLACEMENTS:
            state = table2_state(5, m, kind)
            ev = tile_bonus_eval(state, 500 + m)
            bonus = plan_turn(state, "exact", evaluate=ev)
            capped = plan_turn(state, "alg5", budget=20_000_000, kernel=args.kernel)
            print(f"5 units move {m} {kind:<10} exact {bonus.ops1} ops1 {bonus.seconds:.4f}s "
                  f"complete={bonus.complete}; alg5 capped at {capped.ops1} ops1: "
                  f"{capped.ops1 / capped.seconds / 1e6:.2f} Mops1/s")
    fe = TBWState.initial(load_scenario("fire_emblem_5v5"))
    exact = plan_turn(fe, "exact")
    capped = plan_turn(fe, "alg5", budget=20_000_000, kernel=args.kernel)
    print(f"fire_emblem_5v5: exact {exact.seconds:.3f}s ({exact.ops1} ops1, complete="
          f"{exact.complete}, value {exact.value:.1f}); alg5 {capped.ops1} ops1 in "
          f"{capped.seconds:.2f}s = {capped.ops1 / capped.seconds / 1e6:.2f} Mops1/s, best so far "
          f"{capped.value:.1f} (incomplete)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
