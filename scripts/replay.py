"""``tbw-replay`` from a clone (``agents.cli.replay``): ``python scripts/replay.py --help``."""

from agents.cli.replay import main

if __name__ == "__main__":  # a spawned worker process imports this file again: it must not run
    raise SystemExit(main())
