"""``tbw-tune-weights`` from a clone (``agents.cli.tune_weights``):
``python scripts/tune_weights.py --help``."""

from agents.cli.tune_weights import main

if __name__ == "__main__":  # a spawned worker process imports this file again: it must not run
    raise SystemExit(main())
