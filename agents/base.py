"""The one protocol every agent follows, so the arena can pit any agent against any other.

An agent is handed a *view*: what its player may know of the game, as the game core gives it
(``state.view(player)``). For perfect-information TBW the view is a copy of the full state; for
Junqi it hides the opponent's identities. Every view offers ``current_player`` and
``legal_actions()``; search agents clone or determinize it, learned agents encode it.

Parameters. An agent class declares its parameters once, ``PARAMS = {name: Param}``
(``agents.common.params``: an integer in a range, a finite number, a bool, a choice of names, a
path, a seed), and checks its constructor's arguments against them (``check_params``), so a bad
value fails when the agent is built, never at its first move. The registry reads the same
declarations to cast a spec's text (``agents.registry``). A seed, in the constructor and in
``reset``, is None or a non-negative integer of any integer type (``check_seed``).

Optional: ``thinking()`` returns None or a JSON-ready object saying what the agent thought about
its last move; the arena records it per ply with ``--record-thinking`` and the web viewer draws
its ``moves`` (``[action, visits, value]``) and ``belief`` (per hidden piece's post, a
probability per type), as the Junqi searches give them, or a TBW ``plan`` (the rest of the turn,
action ids), as the TBW turn planners do.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Agent(Protocol):
    name: str

    def reset(self, seed: int | None = None) -> None:
        """Forget per-game memory and reseed; called before every game."""

    def act(self, view: Any) -> int:
        """Return one legal action (an int of the game's action encoding) for ``view``."""
