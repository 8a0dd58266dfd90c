"""Positions as the browser draws them: JSON-ready dicts built from what a player may know.

The one rule of this module: a player's position is built from ``state.view(player)`` and from
nothing else, so it cannot hold what the view does not (Junqi's hidden identities). The whole
board (``revealed``) is built from the state, and the app hands it out only once the game is
over, or to a watcher of a finished game.

Each game gives two parts: the ``board`` (what never changes in a game: geometry, terrain, unit
types, the rules' limits), sent once, and a ``position`` per ply. They are built by the game's
web board: the module its description names (``Game.web_board``, e.g. ``agents.tbw.web_board``),
or for a game without one the generic text board (``agents.web.text_board``). The board's
``kind`` tells the page which of its boards draws it.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Sequence
from typing import Any, Protocol

from agents.web.text_board import TextBoard
from tbw_envs.games import Game, get_game

__all__ = ["LayoutBoard", "WebBoard", "action_words", "board_json", "layout_board",
           "position_json", "revealed_json", "web_board"]


class WebBoard(Protocol):
    """What a game's web board module offers (``agents.tbw.web_board`` is one)."""

    KIND: str  # which of the page's boards draws it ("tiles", "posts", "text")
    HIDDEN_INFORMATION: bool  # whether a player's view hides part of the position
    OPPONENTS: Sequence[str]  # the specs the page suggests (any spec of the game is accepted)

    def board_json(self, variant: Any) -> dict[str, Any]:
        """What never changes during a game on the loaded ``variant``."""

    def position_json(self, view: Any, legal: bool, history: bool = True) -> dict[str, Any]:
        """A player's position from its view only; with ``legal``, the moves it may make."""

    def revealed_json(self, state: Any, history: bool = True) -> dict[str, Any]:
        """The whole position, hidden information included."""


class LayoutBoard(WebBoard, Protocol):
    """A web board of a game with layouts (``Game.has_layouts``) that lets the person choose
    theirs: ``human_layout`` reads the page's choice, ``starting_layout`` gives one to arrange
    (``GET /api/<game>/layout``)."""

    LAYOUT_POLICY_NAMES: Sequence[str]

    def human_layout(self, layout: Any, rng: random.Random) -> Any:
        """The layout the page asked for; a ValueError names what is wrong with it."""

    def starting_layout(self, policy: Any, rng: random.Random) -> dict[str, Any]:
        """A layout drawn by ``policy``, as the page arranges it; a ValueError for an unknown
        policy."""


def web_board(game: str | Game) -> WebBoard:
    """The web board of ``game``: its own, or the generic text board."""
    description = get_game(game)
    if description.web_board is None:
        return TextBoard(description)
    return importlib.import_module(description.web_board)  # type: ignore[return-value]


def layout_board(game: str | Game) -> LayoutBoard | None:
    """``game``'s web board if the person may choose their layout there, else None."""
    board = web_board(game)
    if get_game(game).has_layouts and all(
            hasattr(board, name) for name in ("human_layout", "starting_layout")):
        return board  # type: ignore[return-value]
    return None


# ---------------------------------------------------------------------- the board


def board_json(game: str | Game, variant: Any) -> dict[str, Any]:
    """What never changes during a game of ``game`` on ``variant`` (a name or a loaded one),
    with the game's name and the kind of board that draws it."""
    description = get_game(game)
    board = web_board(description)
    return {"game": description.name, "kind": board.KIND,
            "hidden_information": board.HIDDEN_INFORMATION,
            **board.board_json(description.load_variant(variant))}


# ---------------------------------------------------------------------- positions


def position_json(game: str | Game, view: Any, legal: bool = False,
                  history: bool = True) -> dict[str, Any]:
    """A player's position, from its view only (``state.view(player)``); with ``legal``, the
    moves it may make now, grouped as the page offers them. With ``history``, every ply where
    the game keeps one (a replay's frames leave it out: it grows with the game)."""
    return web_board(game).position_json(view, legal, history)


def revealed_json(game: str | Game, state: Any, history: bool = True) -> dict[str, Any]:
    """The whole position, hidden identities included: only for a game that is over, or a
    watcher's "everything" view of a recorded game."""
    return web_board(game).revealed_json(state, history)


def action_words(game: str | Game, state: Any, action: int) -> str:
    """``action`` in words, in ``state`` before it is played (the record's log line)."""
    return get_game(game).describe_action(state, action)
