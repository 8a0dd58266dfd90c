"""Arena records as animated GIFs (matplotlib): the board drawn once, then the pieces of every
K-th position of the verified replay."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.arena.record_shape import check_record_shape
from agents.arena.records import record_start_state
from agents.arena.replay import replay
from tbw_envs.junqi.actions import describe_action
from tbw_envs.junqi.board import COLS, NUM_POSTS, RAIL, ROW_LETTERS, ROWS, board_graph
from tbw_envs.junqi.pieces import PIECE_CODES
from tbw_envs.junqi.rules import EMPTY
from tbw_envs.tbw.render import PLAYER_COLOR_NAMES, PLAYER_COLORS, terrain_color, unit_label

GIF_FRAMES = 120  # default --every for a GIF keeps about this many frames

_SIDE_FILL = tuple("#" + "".join(f"{c:02x}" for c in color) for color in PLAYER_COLORS)



def outcome_words(winner: int | None, end_reason: Any) -> str:
    """A finished game in words, as the web page says it: "player 1 won: annihilation"."""
    who = "a draw" if winner is None else f"player {winner} won"
    return f"{who}: {str(end_reason).replace('_', ' ')}"


def gif_caption(record: dict[str, Any]) -> str:
    """Who played which seat, in its colour: a line per seat with the agent's spec."""
    specs = record.get("specs") or record.get("agents") or ["?", "?"]
    return "\n".join(f"player {seat} ({PLAYER_COLOR_NAMES[seat].lower()}): {specs[seat]}"
                     for seat in (0, 1))


# A GIF redraws only the pieces: the board (terrain, roads, railroads) is drawn once, and each
# frame's pieces are removed before the next frame's are added.


def draw_tbw_board(ax: Any, state: Any) -> None:
    """TBW terrain: one coloured tile per board tile (hex boards shift odd rows half a tile)."""
    from matplotlib.patches import Rectangle

    scenario = state.scenario
    board = scenario.board
    for tile in range(board.size):
        x, y = _tbw_xy(state, tile)
        terrain = scenario.terrain_types[scenario.terrain_grid[tile]].name
        ax.add_artist(Rectangle((x - 0.5, y - 0.5), 1, 1, edgecolor="#555555", linewidth=0.5,
                                facecolor=terrain_color(terrain) / 255.0))
    ax.set_xlim(0 - 0.5, board.cols - 0.5 + (0.5 if board.topology == "hex" else 0.0))
    ax.set_ylim(board.rows - 0.5, -0.5)
    ax.set_xticks(range(board.cols))
    ax.set_yticks(range(board.rows))


def _tbw_xy(state: Any, tile: int) -> tuple[float, float]:
    board = state.scenario.board
    row, col = board.rc(tile)
    return col + (0.5 if board.topology == "hex" and row % 2 else 0.0), float(row)


def draw_tbw_position(ax: Any, state: Any) -> list[Any]:
    """TBW units as side-coloured discs (gold rim: a leader) with their label and Hp."""
    from matplotlib.patches import Circle

    scenario = state.scenario
    artists = []
    for uid, tile in enumerate(state.pos):
        if state.hp[uid] <= 0:
            continue
        x, y = _tbw_xy(state, tile)
        unit = scenario.units[uid]
        artists.append(ax.add_artist(Circle(
            (x, y), 0.42, facecolor=_SIDE_FILL[unit.side], linewidth=1.5,
            edgecolor="gold" if unit.leader else "white",
        )))
        artists.append(ax.text(x, y - 0.08, unit_label(scenario, uid), ha="center",
                               va="center", color="white", fontsize=8, fontweight="bold"))
        artists.append(ax.text(x, y + 0.22, str(state.hp[uid]), ha="center", va="center",
                               color="white", fontsize=6))
    if state.is_terminal():
        status = outcome_words(state.winner, state.end_reason)
    else:
        status = f"player {state.current_player} to move"
    ax.set_title(f"{scenario.name}: turn {state.turn}/{scenario.max_turns}, {status}",
                 fontsize=9)
    return artists


# The front line between rows F and G is drawn as a gap, as on a real board.
_JUNQI_RIVER_GAP = 0.8


def _junqi_xy(post: int) -> tuple[float, float]:
    row, col = divmod(post, COLS)
    return float(col), row + (_JUNQI_RIVER_GAP if row >= 6 else 0.0)


def draw_junqi_board(ax: Any, state: Any = None) -> None:
    """The Junqi board: railroads thick, roads thin, camps round, headquarters boxed."""
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Circle, FancyBboxPatch

    graph = board_graph()
    for rail in (False, True):
        segments = [(_junqi_xy(a), _junqi_xy(b)) for a, b, kind in graph.links
                    if (kind == RAIL) == rail]
        ax.add_collection(LineCollection(segments, colors="#333333" if rail else "#999999",
                                         linewidths=2.4 if rail else 0.8, zorder=1))
    for post in range(NUM_POSTS):
        x, y = _junqi_xy(post)
        if graph.is_camp[post]:
            ax.add_artist(Circle((x, y), 0.3, facecolor="#f3e7c4", edgecolor="#333333",
                                 zorder=2))
        elif graph.is_headquarters[post]:
            ax.add_artist(FancyBboxPatch((x - 0.3, y - 0.22), 0.6, 0.44,
                                         boxstyle="round,pad=0.02", facecolor="#e8d7a8",
                                         edgecolor="#333333", zorder=2))
    ax.set_xlim(-0.6, COLS - 0.4)
    ax.set_ylim(ROWS - 1 + _JUNQI_RIVER_GAP + 0.6, -0.6)
    ax.set_yticks([_junqi_xy(row * COLS)[1] for row in range(ROWS)], list(ROW_LETTERS))
    ax.set_xticks(range(COLS))


def draw_junqi_position(ax: Any, state: Any) -> list[Any]:
    """Every piece, omniscient: a side-coloured tile with its code; the last move an arrow."""
    from matplotlib.patches import FancyBboxPatch

    artists = []
    for post in range(NUM_POSTS):
        owner = state.owner[post]
        if owner == EMPTY:
            continue
        x, y = _junqi_xy(post)
        artists.append(ax.add_artist(FancyBboxPatch(
            (x - 0.34, y - 0.2), 0.68, 0.4, boxstyle="round,pad=0.02",
            facecolor=_SIDE_FILL[owner], edgecolor="white", zorder=3,
        )))
        artists.append(ax.text(x, y, PIECE_CODES[state.kind[post]], ha="center", va="center",
                               color="white", fontsize=8, fontweight="bold", zorder=4))
    last_move = ""
    if state.history:
        last = state.history[-1]
        (xa, ya), (xb, yb) = _junqi_xy(last.from_post), _junqi_xy(last.to_post)
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


def tbw_figure_size(state: Any) -> tuple[float, float]:
    board = state.scenario.board
    return min(12.0, 1.0 + 0.55 * board.cols), min(12.0, 1.3 + 0.55 * board.rows)


@dataclass(frozen=True)
class BoardDrawing:
    """How a game's GIF is drawn: the figure size (from the start), the board, the pieces."""

    figure_size: Callable[[Any], tuple[float, float]]
    draw_board: Callable[[Any, Any], None]
    draw_position: Callable[[Any, Any], list[Any]]


DRAWINGS = {
    "tbw": BoardDrawing(tbw_figure_size, draw_tbw_board, draw_tbw_position),
    "junqi": BoardDrawing(lambda state: (4.2, 8.4), draw_junqi_board, draw_junqi_position),
}


def start_figure(record: dict[str, Any], start: Any) -> tuple[Any, Any]:
    """The figure every frame is drawn on: sized for the game, captioned with the agents."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    width, height = DRAWINGS[record["game"]].figure_size(start)
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
    drawing = DRAWINGS[record["game"]]
    plies = len(record["actions"])
    every = every or max(1, math.ceil(plies / GIF_FRAMES))
    start = record_start_state(record)
    fig, ax = start_figure(record, start)
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
