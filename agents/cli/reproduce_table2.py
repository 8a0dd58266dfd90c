"""Reproduce Table 2 of the TBW paper (ops1 of Algorithms 2 and 5), our figures beside the paper's.

    tbw-reproduce-table2                  # text table
    tbw-reproduce-table2 --json           # machine-readable
    tbw-reproduce-table2 --kernel python  # the plain-Python reference (slow)

(``python scripts/reproduce_table2.py`` from a clone is the same command.)

The compact placements (the paper's Figure 10) are the L-tromino and the 2 x 2 square; see
``agents/tbw/table2.py``.
"""

from __future__ import annotations

import argparse
import json

from agents.tbw.search import plan_turn
from agents.tbw.table2 import (
    COMPACT_PLACEMENTS,
    MOVEMENTS,
    PAPER_D_OPS1,
    PAPER_D_OPS1_ESTIMATE,
    PAPER_OPS1,
    PLACEMENTS,
    UNIT_COUNTS,
    d_ops1_estimate_eq10,
    d_ops1_estimate_eq11,
    range_size,
    table2_state,
)


def measure(kernel: str) -> list[dict]:
    rows = []
    for n in UNIT_COUNTS:
        for m in MOVEMENTS:
            for kind in PLACEMENTS:
                state = table2_state(n, m, kind)
                alg2 = plan_turn(state, "alg2", kernel=kernel)
                alg5 = plan_turn(state, "alg5", kernel=kernel)
                paper2, paper5 = PAPER_OPS1[(n, m, kind)]
                r = range_size(m)
                rows.append({
                    "units": n, "movement": m, "placement": kind,
                    "alg2_ops1": alg2.ops1, "alg5_ops1": alg5.ops1,
                    "paper_alg2_ops1": paper2, "paper_alg5_ops1": paper5,
                    "match": (alg2.ops1, alg5.ops1) == (paper2, paper5),
                    "d_ops1_percent": 100.0 * (alg2.ops1 - alg5.ops1) / alg2.ops1,
                    "paper_d_ops1_percent": PAPER_D_OPS1[(n, m, kind)],
                    "estimate_eq10_percent": d_ops1_estimate_eq10(n, r),
                    "estimate_eq11_percent": d_ops1_estimate_eq11(r),
                    "paper_estimate_percent": PAPER_D_OPS1_ESTIMATE[m],
                    "leaves": alg5.leaves, "kernel": alg5.kernel,
                    "seconds_alg2": alg2.seconds, "seconds_alg5": alg5.seconds,
                })
    return rows


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--kernel", default="auto", choices=["auto", "python", "numba"])
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    rows = measure(args.kernel)
    matched = sum(2 for r in rows if r["match"])
    if args.json:
        print(json.dumps({"rows": rows, "ops1_figures_matched": matched, "ops1_figures": 24,
                          "compact_placements": {str(k): v for k, v in COMPACT_PLACEMENTS.items()
                                                 if k in UNIT_COUNTS}}, indent=2))
        return 0 if matched == 24 else 1
    head = (f"{'n':>2} {'m':>2} {'placement':<10} {'Alg2 ops1':>10} {'paper':>10} "
            f"{'Alg5 ops1':>10} {'paper':>10} {'D_ops1%':>8} {'paper':>7} "
            f"{'eq10%':>7} {'eq11%':>7} {'paper':>7} ok")
    print(head)
    print("-" * len(head))
    for r in rows:
        print(f"{r['units']:>2} {r['movement']:>2} {r['placement']:<10} {r['alg2_ops1']:>10} "
              f"{r['paper_alg2_ops1']:>10} {r['alg5_ops1']:>10} {r['paper_alg5_ops1']:>10} "
              f"{r['d_ops1_percent']:>8.3f} {r['paper_d_ops1_percent']:>7} "
              f"{r['estimate_eq10_percent']:>7.3f} {r['estimate_eq11_percent']:>7.3f} "
              f"{r['paper_estimate_percent']:>7} {'yes' if r['match'] else 'NO'}")
    print(f"\nops1 figures equal to the paper's: {matched} / 24 (kernel: {rows[0]['kernel']})")
    print("compact placements (Figure 10): 3 units L-tromino (0,0) (0,1) (1,0); "
          "4 units 2x2 square (0,0) (0,1) (1,0) (1,1)")
    print("the paper's estimate row is eq. 11 (r^-2 / 2); eq. 10 is the exact dispersed ratio")
    return 0 if matched == 24 else 1

