"""The error both game cores and every env layer raise for an action the rules do not allow."""

from __future__ import annotations

__all__ = ["IllegalActionError"]


class IllegalActionError(ValueError):
    """An action the rules do not allow now (or one that is not an action at all); whoever
    raises it leaves the game state unchanged. A ValueError, so code that catches the older
    convention keeps working."""
