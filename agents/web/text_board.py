"""The web page's board for a game that has none of its own (``Game.web_board`` is None): the
position as the game's text render (``Game.render_text``) and the legal actions in words
(``Game.describe_action``), which the page shows as a text board and a list of buttons.

A player's position is rendered from their view, never from the state, so it holds nothing
the view does not; the whole position (``revealed_json``) is rendered from the state.
"""

from __future__ import annotations

from typing import Any

from tbw_envs.games import Game

__all__ = ["TextBoard"]


def _winner(source: Any) -> int | None:
    """The seat whose return is highest once the game is over; None for a draw or while it
    runs."""
    if not source.is_terminal():
        return None
    returns = list(source.returns())
    return None if max(returns) == min(returns) else returns.index(max(returns))


class TextBoard:
    """The generic web board of ``game``."""

    KIND = "text"
    # Whether the views hide anything is not known of a game in general: the watcher offers
    # each player's view, which shows the same as the whole position where nothing is hidden.
    HIDDEN_INFORMATION = True

    def __init__(self, game: Game):
        self.game = game
        self.OPPONENTS = tuple(game.arena_agents)

    def board_json(self, variant: Any) -> dict[str, Any]:
        return {"variant": getattr(variant, "name", None), "title": self.game.title,
                "description": getattr(variant, "description", None)}

    def _position(self, source: Any) -> dict[str, Any]:
        end_reason = getattr(source, "end_reason", None)
        return {
            "current_player": source.current_player,
            "terminal": source.is_terminal(),
            "winner": _winner(source),
            "end_reason": None if end_reason is None else str(end_reason),
            "text": self.game.render_text(source),
        }

    def position_json(self, view: Any, legal: bool, history: bool = True) -> dict[str, Any]:
        """The view's text render; with ``legal``, each legal action with its words."""
        position = self._position(view)
        if legal:
            position["actions"] = [
                {"action": int(action), "words": self.game.describe_action(view, action)}
                for action in view.legal_actions()]
        return position

    def revealed_json(self, state: Any, history: bool = True) -> dict[str, Any]:
        return self._position(state)
