"""``tbw-ladder`` from a clone (``agents.cli.ladder``): ``python scripts/ladder.py --help``."""

from agents.cli.ladder import main

if __name__ == "__main__":  # a spawned worker process imports this file again: it must not run
    raise SystemExit(main())
