"""``tbw-convert-model`` from a clone (``agents.cli.convert_model``):
``python scripts/convert_model.py --help``."""

from agents.cli.convert_model import main

if __name__ == "__main__":  # a spawned worker process imports this file again: it must not run
    raise SystemExit(main())
