"""What a game core offers: the interface the envs, the agents and the arena are written against.

A game core is plain Python and numpy (no Gymnasium, no PettingZoo). It is a perfect-information
``GameState`` that the referee (an env, the arena) owns, and a ``GameView`` per player: what that
player may know, which is what agents receive. In a game of perfect information the view may be
the state itself (TBW's is a copy).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["GameState", "GameView"]


@runtime_checkable
class GameView(Protocol):
    """One player's knowledge of a position: enough to choose a legal action."""

    @property
    def current_player(self) -> int:
        """The seat to move (0 or 1)."""

    def is_terminal(self) -> bool: ...

    def returns(self) -> list[float]:
        """Per seat: +1 win, -1 loss, 0 draw or game not over."""

    def legal_actions(self) -> list[int]:
        """The legal action ids, each once (in an order fixed by the position)."""

    def legal_action_mask(self) -> np.ndarray:
        """A 0/1 ``int8`` array over every action id; 1 where ``legal_actions`` has it."""


@runtime_checkable
class GameState(GameView, Protocol):
    """The whole position, hidden information included; agents see it only through ``view``."""

    @property
    def end_reason(self) -> str | None:
        """Why the game ended (one of the game's ``END_REASONS``), None while it runs."""

    def clone(self) -> GameState:
        """An independent copy: applying actions to it leaves this state unchanged."""

    def view(self, player: int) -> GameView:
        """What ``player`` may know of this position."""

    def apply(self, action: int) -> object:
        """Play ``action`` for the player to move; raises ``IllegalActionError`` (and changes
        nothing) if the rules do not allow it."""
