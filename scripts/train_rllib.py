"""``tbw-train-rllib`` from a clone (``agents.cli.train_rllib``):
``python scripts/train_rllib.py --help``."""

from agents.cli.train_rllib import main

if __name__ == "__main__":  # a spawned worker process imports this file again: it must not run
    raise SystemExit(main())
