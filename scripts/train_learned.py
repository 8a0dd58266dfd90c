"""Self-play training on the batched cores (``agents.cli.train_learned``):
``python scripts/train_learned.py --help``."""

from agents.cli.train_learned import main

if __name__ == "__main__":
    raise SystemExit(main())
