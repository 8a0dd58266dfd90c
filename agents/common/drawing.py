"""What every game's GIF drawing shares (``agents.arena.gif`` draws with them): the shape of a
board drawing, the players' colours as matplotlib takes them, and a finished game in words.

A game's own drawing (``Game.drawing``, e.g. ``agents.tbw.drawing``) is a module whose
``DRAWING`` is a ``BoardDrawing``; it lives with the game's agents, below the arena, so it
imports this module and never the arena. No matplotlib here: the drawings import it when they
draw.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# The players' colours are one pair for every game and every picture (RGB frames, GIFs, the
# web page); they are defined with TBW's renderer, which Junqi's renderer shares too.
from tbw_envs.tbw.render import PLAYER_COLOR_NAMES, PLAYER_COLORS

__all__ = ["BoardDrawing", "SEAT_COLOR_WORDS", "SEAT_FILLS", "outcome_words"]

# Each seat's colour as a matplotlib colour ("#c82828") and in words ("red").
SEAT_FILLS = tuple("#" + "".join(f"{c:02x}" for c in color) for color in PLAYER_COLORS)
SEAT_COLOR_WORDS = tuple(name.lower() for name in PLAYER_COLOR_NAMES)


@dataclass(frozen=True)
class BoardDrawing:
    """How a game's GIF is drawn: the figure size (from the first position), the board (drawn
    once: what never moves), and a position's pieces (drawn per frame: the artists returned are
    removed before the next frame's are added), each given the axes and a core state."""

    figure_size: Callable[[Any], tuple[float, float]]
    draw_board: Callable[[Any, Any], None]
    draw_position: Callable[[Any, Any], list[Any]]


def outcome_words(winner: int | None, end_reason: Any) -> str:
    """A finished game in words, as the web page says it: "player 1 won: annihilation"."""
    who = "a draw" if winner is None else f"player {winner} won"
    return f"{who}: {str(end_reason).replace('_', ' ')}"
