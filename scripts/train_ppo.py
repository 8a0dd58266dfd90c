"""``tbw-train`` from a clone (``agents.cli.train``): ``python scripts/train_ppo.py --help``."""

from agents.cli.train import main

if __name__ == "__main__":  # a spawned worker process imports this file again: it must not run
    raise SystemExit(main())
