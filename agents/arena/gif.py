"""Arena records as animated GIFs (matplotlib): the board drawn once, then the pieces of every
K-th position of the verified replay.

A game draws its own board when its description names a drawing (``Game.drawing``, a module
whose ``DRAWING`` is an ``agents.common.drawing.BoardDrawing``); any other game is drawn as its
text render (``Game.render_text``) in a monospace frame. Every GIF has the same caption: which
agent played which seat, in its colour; the last frame says who won.
"""

from __future__ import annotations

import importlib
import math
from pathlib import Path
from typing import Any

from agents.arena.record_shape import check_record_shape
from agents.arena.records import record_start_state
from agents.arena.replay import replay
from agents.common.drawing import SEAT_COLOR_WORDS, BoardDrawing, outcome_words
from tbw_envs.games import Game, get_game

__all__ = ["GIF_FRAMES", "board_drawing", "gif_caption", "start_figure", "text_drawing",
           "write_gif"]

GIF_FRAMES = 120  # default --every for a GIF keeps about this many frames
# The text drawing's monospace font, and the size in inches of one character cell at it.
TEXT_FONT_SIZE = 8.0
_CHAR_WIDTH, _LINE_HEIGHT = 0.62 * TEXT_FONT_SIZE / 72, 1.25 * TEXT_FONT_SIZE / 72
MAX_FIGURE_INCHES = 12.0


def gif_caption(record: dict[str, Any]) -> str:
    """Who played which seat, in its colour: a line per seat with the agent's spec."""
    specs = record.get("specs") or record.get("agents") or ["?", "?"]
    return "\n".join(f"player {seat} ({SEAT_COLOR_WORDS[seat]}): {specs[seat]}"
                     for seat in (0, 1))


def board_drawing(game: Game) -> BoardDrawing:
    """How ``game`` is drawn: its own drawing if its description names one, else its text."""
    if game.drawing is None:
        return text_drawing(game)
    drawing = getattr(importlib.import_module(game.drawing), "DRAWING", None)
    if not isinstance(drawing, BoardDrawing):
        raise ValueError(f"game {game.name!r}: its drawing module {game.drawing!r} has no "
                         f"DRAWING (a BoardDrawing)")
    return drawing


def _text(game: Game, state: Any) -> str:
    render = getattr(game, "render_text", None)
    return render(state) if callable(render) else str(state)


def _winner(state: Any) -> int | None:
    """The seat whose return is highest, or None for equal returns (a draw)."""
    returns = list(state.returns())
    return None if max(returns) == min(returns) else returns.index(max(returns))


def text_drawing(game: Game) -> BoardDrawing:
    """A game with no drawing of its own: each frame its text render, in a monospace frame
    sized for the first position's text, titled with who is to move or who won."""

    def figure_size(state: Any) -> tuple[float, float]:
        lines = _text(game, state).splitlines() or [""]
        width = 1.0 + _CHAR_WIDTH * max(len(line) for line in lines)
        height = 1.0 + _LINE_HEIGHT * len(lines)
        return min(MAX_FIGURE_INCHES, max(3.0, width)), min(MAX_FIGURE_INCHES, max(2.0, height))

    def draw_board(ax: Any, state: Any) -> None:
        ax.set_aspect("auto")  # the text's own shape, not a square board's
        ax.set_xticks([])
        ax.set_yticks([])

    def draw_position(ax: Any, state: Any) -> list[Any]:
        if state.is_terminal():
            status = outcome_words(_winner(state), state.end_reason)
        else:
            status = f"player {state.current_player} to move"
        ax.set_title(f"{game.title}: {status}", fontsize=9)
        return [ax.text(0.02, 0.98, _text(game, state), transform=ax.transAxes, ha="left",
                        va="top", family="monospace", fontsize=TEXT_FONT_SIZE)]

    return BoardDrawing(figure_size, draw_board, draw_position)


def start_figure(record: dict[str, Any], start: Any,
                 drawing: BoardDrawing | None = None) -> tuple[Any, Any]:
    """The figure every frame is drawn on: sized for the game, captioned with the agents."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    drawing = drawing or board_drawing(get_game(record["game"]))
    width, height = drawing.figure_size(start)
    fig, ax = plt.subplots(figsize=(width, height + 0.35))
    ax.set_aspect("equal")
    fig.text(0.5, 0.005, gif_caption(record), ha="center", va="bottom", fontsize=7)
    fig.subplots_adjust(bottom=0.05 + 0.3 / (height + 0.35))
    return fig, ax


def write_gif(record: dict[str, Any], out: str | Path, every: int | None = None,
              fps: float = 4.0, index: int | None = None) -> int:
    """Replay (and verify) ``record`` into an animated GIF, a frame every ``every`` plies (default:
    about ``GIF_FRAMES`` frames) plus the final position; returns the number of frames."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.animation import PillowWriter

    check_record_shape(record, index)
    drawing = board_drawing(get_game(record["game"]))
    plies = len(record["actions"])
    every = every or max(1, math.ceil(plies / GIF_FRAMES))
    start = record_start_state(record)
    fig, ax = start_figure(record, start, drawing)
    writer = PillowWriter(fps=fps)
    shown: list[Any] = []
    frames = 0

    def frame(state: Any) -> None:
        nonlocal frames
        for artist in shown:
            artist.remove()
        shown[:] = drawing.draw_position(ax, state)
        writer.grab_frame()
        frames += 1

    with writer.saving(fig, str(out), dpi=80):
        drawing.draw_board(ax, start)

        def on_ply(ply: int, state: Any) -> None:
            if ply % every == 0 or ply == plies:
                frame(state)

        final = replay(record, index, on_ply)
        for _ in range(3):  # hold the final position before the GIF loops
            frame(final)
    plt.close(fig)
    return frames
