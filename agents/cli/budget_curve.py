"""Chart rating against search budget from arena round robins over budgets.

    tbw-arena --game junqi --agents ismcts:iterations=25 ismcts:iterations=100 \\
        ismcts:iterations=400 greedy:weights=tuned --games 20 --out runs/budget-junqi
    tbw-budget-curve runs/budget-junqi
    tbw-budget-curve runs/budget-junqi runs/budget-tbw --out curves.png --json s.json

(``python scripts/budget_curve.py`` from a clone is the same command.) Each RUN is a folder of
the arena (or its results.json). Each rated agent's spec is split
into a family (the spec without its budget) and a budget, the first of iterations, solves and
generations it sets; a family rated at two budgets or more is a curve, every other agent a
reference line. Prints a markdown table of the points and, per family, the Elo gained per 4x
budget and the largest budget against the smallest (W-D-L, score, Wilson 95% interval); writes
the chart (one panel per run) and, with --json, the summary. The numbers are
agents.arena.budget_curve's; this is its command line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from agents.arena.budget_curve import (
    budget_table,
    load_budget_runs,
    plot_budget_curves,
    results_path,
    summary_json,
)
from tbw_envs.core.contract import short_repr

CHART_NAME = "budget_curve.png"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", metavar="RUN",
                        help="a run folder of the arena (tbw-arena), or its results.json")
    parser.add_argument("--out", default=None, metavar="PNG",
                        help=f"the chart (default: {CHART_NAME} in the first run's folder)")
    parser.add_argument("--json", default=None, metavar="PATH",
                        help="also write the summary as JSON: per run, each family's points, "
                             "Elo per 4x budget, 4x steps and largest v smallest")
    return parser


def output_path(text: str, option: str) -> Path:
    """``text`` as a file to write; ValueError if it is a folder or its folder is missing."""
    path = Path(text)
    if path.is_dir():
        raise ValueError(f"{option}: {short_repr(text)} is a folder; give a file name")
    if not path.parent.is_dir():
        raise ValueError(f"{option}: the folder {short_repr(str(path.parent))} does not exist")
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise ValueError(f"{option}: no permission to write in {short_repr(str(path.parent))}")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
    try:  # every input checked before anything is written
        runs = load_budget_runs(args.runs)
        chart = output_path(args.out if args.out is not None
                            else str(results_path(args.runs[0]).parent / CHART_NAME), "--out")
        summary = None if args.json is None else output_path(args.json, "--json")
    except ValueError as exc:
        parser.error(str(exc))
    print(budget_table(runs))
    print()
    try:
        plot_budget_curves(runs, chart)
        print(f"chart written to {chart}")
    except ImportError:  # the chart is a nicety: matplotlib is optional
        print("(no chart: matplotlib is not installed)")
    if summary is not None:
        summary.write_text(json.dumps(summary_json(runs), indent=2) + "\n", encoding="utf-8")
        print(f"summary written to {summary}")
    return 0

