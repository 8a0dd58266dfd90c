"""``tbw-budget-curve`` from a clone (``agents.cli.budget_curve``):
``python scripts/budget_curve.py --help``."""

from agents.cli.budget_curve import main

if __name__ == "__main__":  # a spawned worker process imports this file again: it must not run
    raise SystemExit(main())
