"""``tbw-reproduce-table2`` from a clone (``agents.cli.reproduce_table2``):
``python scripts/reproduce_table2.py --help``."""

from agents.cli.reproduce_table2 import main

if __name__ == "__main__":  # a spawned worker process imports this file again: it must not run
    raise SystemExit(main())
