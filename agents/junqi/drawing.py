"""Junqi in a GIF (``agents.arena.gif``, through ``JunqiGame.drawing``): the board drawn once
(railroads, roads, camps, headquarters), then per frame every piece, omniscient, and the last
move as an arrow. Needs matplotlib (the arena extra), imported when drawing."""

from __future__ import annotations

from typing import Any

from agents.common.drawing import SEAT_FILLS, BoardDrawing, outcome_words
from tbw_envs.junqi.actions import describe_action
from tbw_envs.junqi.board import COLS, NUM_POSTS, RAIL, ROW_LETTERS, ROWS, board_graph
from tbw_envs.junqi.pieces import PIECE_CODES
from tbw_envs.junqi.rules import EMPTY

__all__ = ["DRAWING", "draw_board", "draw_position", "figure_size"]

# The front line between rows F and G is drawn as a gap, as on a real board.
_RIVER_GAP = 0.8


def _xy(post: int) -> tuple[float, float]:
    row, col = divmod(post, COLS)
    return float(col), row + (_RIVER_GAP if row >= 6 else 0.0)


def figure_size(state: Any) -> tuple[float, float]:
    return 4.2, 8.4


def draw_board(ax: Any, state: Any = None) -> None:
    """The Junqi board: railroads thick, roads thin, camps round, headquarters boxed."""
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Circle, FancyBboxPatch

    graph = board_graph()
    for rail in (False, True):
        segments = [(_xy(a), _xy(b)) for a, b, kind in graph.links if (kind == RAIL) == rail]
        ax.add_collection(LineCollection(segments, colors="#333333" if rail else "#999999",
                                         linewidths=2.4 if rail else 0.8, zorder=1))
    for post in range(NUM_POSTS):
        x, y = _xy(post)
        if graph.is_camp[post]:
            ax.add_artist(Circle((x, y), 0.3, facecolor="#f3e7c4", edgecolor="#333333",
                                 zorder=2))
        elif graph.is_headquarters[post]:
            ax.add_artist(FancyBboxPatch((x - 0.3, y - 0.22), 0.6, 0.44,
                                         boxstyle="round,pad=0.02", facecolor="#e8d7a8",
                                         edgecolor="#333333", zorder=2))
    ax.set_xlim(-0.6, COLS - 0.4)
    ax.set_ylim(ROWS - 1 + _RIVER_GAP + 0.6, -0.6)
    ax.set_yticks([_xy(row * COLS)[1] for row in range(ROWS)], list(ROW_LETTERS))
    ax.set_xticks(range(COLS))


def draw_position(ax: Any, state: Any) -> list[Any]:
    """Every piece, omniscient: a side-coloured tile with its code; the last move an arrow."""
    from matplotlib.patches import FancyBboxPatch

    artists = []
    for post in range(NUM_POSTS):
        owner = state.owner[post]
        if owner == EMPTY:
            continue
        x, y = _xy(post)
        artists.append(ax.add_artist(FancyBboxPatch(
            (x - 0.34, y - 0.2), 0.68, 0.4, boxstyle="round,pad=0.02",
            facecolor=SEAT_FILLS[owner], edgecolor="white", zorder=3,
        )))
        artists.append(ax.text(x, y, PIECE_CODES[state.kind[post]], ha="center", va="center",
                               color="white", fontsize=8, fontweight="bold", zorder=4))
    last_move = ""
    if state.history:
        last = state.history[-1]
        (xa, ya), (xb, yb) = _xy(last.from_post), _xy(last.to_post)
        artists.append(ax.annotate(
            "", xy=(xb, yb), xytext=(xa, ya), zorder=5,
            arrowprops={"arrowstyle": "->", "color": "#ff9800", "linewidth": 2},
        ))
        move = describe_action(last.from_post * NUM_POSTS + last.to_post)
        last_move = f"\nlast: player {last.player} {move}"
    if state.is_terminal():
        status = outcome_words(state.winner, state.end_reason)
    else:
        status = f"player {state.current_player} to move"
    ax.set_title(f"Junqi ({state.rules.name}) ply {state.ply}, {status}{last_move}",
                 fontsize=8)
    return artists


DRAWING = BoardDrawing(figure_size, draw_board, draw_position)
