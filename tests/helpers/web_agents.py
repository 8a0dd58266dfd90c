"""Agent files the web tests hand the server (``scripts/serve.py --agents``): written into a
test's folder, named by ``path.py:Name``."""

from __future__ import annotations

import textwrap
import time
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


def wait_for_turn(client, session_id, timeout=60.0):
    """The play session's state once it is the person's turn, the game is over or it failed;
    ``timeout`` bounds a hang only (the agents move in milliseconds)."""
    deadline = time.monotonic() + timeout
    while True:
        state = client.get(f"/api/play/{session_id}").json()["state"]
        if state["your_turn"] or state["over"] or state["error"]:
            return state
        assert time.monotonic() < deadline, "the agent did not move in time"
        time.sleep(0.01)
