"""``tbw-serve`` from a clone (``agents.cli.serve``): ``python scripts/serve.py --help``."""

from agents.cli.serve import main

if __name__ == "__main__":  # a spawned worker process imports this file again: it must not run
    raise SystemExit(main())
