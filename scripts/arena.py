"""``tbw-arena`` from a clone (``agents.cli.arena``): ``python scripts/arena.py --help``."""

from agents.cli.arena import main

if __name__ == "__main__":  # a spawned worker process imports this file again: it must not run
    raise SystemExit(main())
