"""TBW in a GIF (``agents.arena.gif``, through ``TBWGame.drawing``): the terrain drawn once, then
per frame the units as side-coloured discs with their label and Hp. Needs matplotlib (the
arena extra), imported when drawing."""

from __future__ import annotations

from typing import Any

from agents.common.drawing import SEAT_FILLS, BoardDrawing, outcome_words
from tbw_envs.tbw.render import terrain_color, unit_label

__all__ = ["DRAWING", "draw_board", "draw_position", "figure_size"]


def figure_size(state: Any) -> tuple[float, float]:
    board = state.scenario.board
    return min(12.0, 1.0 + 0.55 * board.cols), min(12.0, 1.3 + 0.55 * board.rows)


def draw_board(ax: Any, state: Any) -> None:
    """TBW terrain: one coloured tile per board tile (hex boards shift odd rows half a tile)."""
    from matplotlib.patches import Rectangle

    scenario = state.scenario
    board = scenario.board
    for tile in range(board.size):
        x, y = _xy(state, tile)
        terrain = scenario.terrain_types[scenario.terrain_grid[tile]].name
        ax.add_artist(Rectangle((x - 0.5, y - 0.5), 1, 1, edgecolor="#555555", linewidth=0.5,
                                facecolor=terrain_color(terrain) / 255.0))
    ax.set_xlim(0 - 0.5, board.cols - 0.5 + (0.5 if board.topology == "hex" else 0.0))
    ax.set_ylim(board.rows - 0.5, -0.5)
    ax.set_xticks(range(board.cols))
    ax.set_yticks(range(board.rows))


def _xy(state: Any, tile: int) -> tuple[float, float]:
    board = state.scenario.board
    row, col = board.rc(tile)
    return col + (0.5 if board.topology == "hex" and row % 2 else 0.0), float(row)


def draw_position(ax: Any, state: Any) -> list[Any]:
    """TBW units as side-coloured discs (gold rim: a leader) with their label and Hp."""
    from matplotlib.patches import Circle

    scenario = state.scenario
    artists = []
    for uid, tile in enumerate(state.pos):
        if state.hp[uid] <= 0:
            continue
        x, y = _xy(state, tile)
        unit = scenario.units[uid]
        artists.append(ax.add_artist(Circle(
            (x, y), 0.42, facecolor=SEAT_FILLS[unit.side], linewidth=1.5,
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


DRAWING = BoardDrawing(figure_size, draw_board, draw_position)
