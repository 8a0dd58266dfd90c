"""Agent files the web tests hand the server (``scripts/serve.py --agents``): written into a
test's folder, named by ``path.py:Name``."""

from __future__ import annotations

import textwrap
from pathlib import Path

# Always plays action 5, illegal in every Junqi position the tests reach: its game stops.
ILLEGAL_MOVE_AGENT = textwrap.dedent("""
    class BadAgent:
        name = "bad"

        def __init__(self, seed=None):
            pass

        def reset(self, seed=None):
            pass

        def act(self, view):
            return 5
""")


def illegal_move_agent_spec(folder: Path) -> str:
    """The spec of ``ILLEGAL_MOVE_AGENT``, written to ``folder``."""
    path = folder / "bad_agent.py"
    path.write_text(ILLEGAL_MOVE_AGENT)
    return f"{path}:BadAgent"
