"""Text and RGB pictures of a state (omniscient) or a view (one player's knowledge).

Plain numpy drawing, so rendering needs no optional dependency. The RGB frame's static layers
(board, railroads, camps, legend) are drawn once; a frame copies them and adds the pieces, the
last move and the status lines.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from tbw_envs.junqi.board import COLS, NUM_POSTS, ROW_LETTERS, ROWS, board_graph, post_name
from tbw_envs.junqi.pieces import (
    FLAG,
    NO_PIECE,
    NUM_PIECE_TYPES,
    PIECE_CODES,
    PIECE_NAMES,
    RANKS,
    RESULT_NAMES,
)
from tbw_envs.junqi.rules import EMPTY
from tbw_envs.tbw.render import (  # the bitmap font both games' frames use, the text key's wrap
    PLAYER_COLOR_NAMES,
    PLAYER_COLORS,
    draw_text,
    wrap_legend,
)


def _pieces(subject) -> tuple[list[int], list[int], int | None, tuple]:
    """owner, kind (NO_PIECE where hidden), the viewer (None: omniscient), revealed flags."""
    viewer = getattr(subject, "player", None)
    return list(subject.owner), list(subject.kind), viewer, tuple(subject.flag_revealed)


HIDDEN_TOKEN = "??"
# What an empty post shows: its kind (a camp or headquarters is shown as such, not as rail).
CAMP_TOKEN, HEADQUARTERS_TOKEN, RAIL_TOKEN, ROAD_TOKEN = "()", "[]", "==", ".."
_EMPTY_POST_NAMES = (
    (CAMP_TOKEN, "camp"), (HEADQUARTERS_TOKEN, "headquarters"),
    (RAIL_TOKEN, "railroad post"), (ROAD_TOKEN, "road post"),
)  # fmt: skip


def legend_lines(viewer: int | None) -> list[str]:
    """The key printed under ``render_ansi``'s board: the case of each player, the hidden piece
    of a view (``viewer``; None: omniscient, nothing hidden), the empty posts and the piece
    codes."""
    hidden = [] if viewer is None else [f"{HIDDEN_TOKEN} hidden from player {viewer};"]
    posts = [f"{token} {name}," for token, name in _EMPTY_POST_NAMES]
    pieces = [
        f"{code} {name.replace('_', ' ')},"
        for code, name in zip(PIECE_CODES, PIECE_NAMES, strict=True)
    ]
    return wrap_legend([
        "upper case player 0,", "lower case player 1;", *hidden, "empty posts:", *posts[:-1],
        posts[-1][:-1], "| pieces:", *pieces[:-1], pieces[-1][:-1],
    ])


def render_ansi(subject) -> str:
    """Board as text: player 0 upper case, player 1 lower case; '??' an unseen opponent piece,
    '()' a camp, '[]' a headquarters, '==' a railroad post, '..' a road post; then a key of
    the symbols (``legend_lines``)."""
    owner, kind, viewer, revealed = _pieces(subject)
    graph = board_graph()
    title = "omniscient" if viewer is None else f"view of player {viewer}"
    lines = [f"Junqi ({subject.rules.name}, {title}) phase {subject.phase} ply {subject.ply}"]
    if subject.end_reason is not None:
        lines.append(f"game over: {subject.end_reason}, winner {subject.winner}")
    else:
        lines.append(f"player {subject.current_player} to move; quiet plies {subject.quiet_plies}")
    if subject.history:
        last = subject.history[-1]
        lines.append(
            f"last: player {last.player} {post_name(last.from_post)}-{post_name(last.to_post)} "
            f"{RESULT_NAMES[last.result]}"
        )
    lines.append("     " + "   ".join(f"{col:>2}" for col in range(COLS)))
    for row in range(ROWS):
        cells = []
        for col in range(COLS):
            post = row * COLS + col
            if owner[post] == EMPTY:
                if graph.is_camp[post]:
                    token = CAMP_TOKEN
                elif graph.is_headquarters[post]:
                    token = HEADQUARTERS_TOKEN
                else:
                    token = RAIL_TOKEN if graph.is_rail[post] else ROAD_TOKEN
            else:
                piece = kind[post]
                if piece == NO_PIECE and revealed[owner[post]] == post:
                    piece = FLAG  # hidden, but announced: show it as the owner's flag
                if piece == NO_PIECE:
                    token = HIDDEN_TOKEN
                else:
                    # The case says whose piece it is, for a revealed flag as for any other.
                    code = PIECE_CODES[piece]
                    token = code if owner[post] == 0 else code.lower()
            cells.append(token)
        lines.append(f"{ROW_LETTERS[row]}    " + "   ".join(f"{token:>2}" for token in cells))
    lines.extend(legend_lines(viewer))
    return "\n".join(lines) + "\n"


_CELL, _MARGIN = 40, 24
_BOARD_WIDTH = 2 * _MARGIN + (COLS - 1) * _CELL + _CELL
_PANEL_WIDTH = 176  # status and legend, right of the board
_HEIGHT, _WIDTH = 2 * _MARGIN + (ROWS - 1) * _CELL, _BOARD_WIDTH + _PANEL_WIDTH
_BACKGROUND = (232, 214, 168)
_PANEL_BACKGROUND = (246, 236, 206)
_INK = (40, 32, 24)
_PLAYER_COLORS = PLAYER_COLORS
_PLAYER_NAMES = PLAYER_COLOR_NAMES
_LAST_MOVE = (250, 200, 30)
_PIECE_HALF_H, _PIECE_HALF_W = 11, 15  # a piece covers 23 x 31 pixels around its post
_TEXT_LEFT = _BOARD_WIDTH + 10
_LINE = 16  # status line pitch (scale-2 text)
_STATUS_LINES = 6


def _label(kind: int) -> str:
    if kind == NO_PIECE:
        return "?"
    if RANKS[kind] >= 3:
        return str(RANKS[kind])
    return {8: "E", 9: "M", 10: "B", 11: "F"}[kind]


def _center(post: int) -> tuple[int, int]:
    row, col = divmod(post, COLS)
    return _MARGIN + row * _CELL, _MARGIN + col * _CELL + _CELL // 2


def _draw_line(image: np.ndarray, a: tuple[int, int], b: tuple[int, int], color, width: int):
    steps = max(abs(b[0] - a[0]), abs(b[1] - a[1])) + 1
    ys = np.linspace(a[0], b[0], steps).round().astype(int)
    xs = np.linspace(a[1], b[1], steps).round().astype(int)
    half = width // 2
    for dy in range(-half, width - half):
        for dx in range(-half, width - half):
            image[
                np.clip(ys + dy, 0, image.shape[0] - 1), np.clip(xs + dx, 0, image.shape[1] - 1)
            ] = color


def _draw_post(image: np.ndarray, y: int, x: int, camp: bool, headquarters: bool) -> None:
    size = 12 if headquarters or camp else 7
    image[y - size : y + size + 1, x - size : x + size + 1] = (90, 140, 60) if camp else (60,) * 3
    inner = size - 2
    image[y - inner : y + inner + 1, x - inner : x + inner + 1] = _BACKGROUND


def _piece_sprite(color, label: str, height: int = 2 * _PIECE_HALF_H + 1,
                  width: int = 2 * _PIECE_HALF_W + 1) -> np.ndarray:
    sprite = np.empty((height, width, 3), np.uint8)
    sprite[:] = color
    draw_text(sprite, label, height // 2, width // 2, 255, 2, center=True)
    return sprite


# (owner, label) -> the piece as drawn on the board.
_SPRITES = {
    (player, label): _piece_sprite(_PLAYER_COLORS[player], label)
    for player in (0, 1)
    for label in {_label(kind) for kind in (NO_PIECE, *range(NUM_PIECE_TYPES))}
}
_LEGEND_PIECES = (*range(NUM_PIECE_TYPES), NO_PIECE)


@lru_cache(maxsize=1)
def _static_layer() -> np.ndarray:
    """Board, railroads, roads, posts, camps and headquarters, and the legend: drawn once."""
    graph = board_graph()
    image = np.empty((_HEIGHT, _WIDTH, 3), dtype=np.uint8)
    image[:] = _BACKGROUND
    image[:, _BOARD_WIDTH:] = _PANEL_BACKGROUND
    image[:, _BOARD_WIDTH : _BOARD_WIDTH + 2] = _INK
    for a, b, link in graph.links:
        rail = link == "rail"
        _draw_line(
            image,
            _center(a),
            _center(b),
            (30, 30, 30) if rail else (130, 110, 80),
            3 if rail else 1,
        )
    for post in range(NUM_POSTS):
        y, x = _center(post)
        _draw_post(image, y, x, graph.is_camp[post], graph.is_headquarters[post])
    # Posts are named row letter and column digit ("G0"), as the status's last move and the
    # log: the letters left of the board, the digits above it (both in the margin).
    for row in range(ROWS):
        draw_text(image, ROW_LETTERS[row], _center(row * COLS)[0], _MARGIN // 2 - 4, _INK, 2,
                  center=True)
    for col in range(COLS):
        draw_text(image, str(col), 1, _center(col)[1] - 3, _INK, 2)
    # Legend: a chip per glyph with the piece's name, then the board's symbols.
    y = 10 + _STATUS_LINES * _LINE + 6
    image[y - 4 : y - 3, _TEXT_LEFT : _WIDTH - 8] = _INK
    draw_text(image, "PIECES", y, _TEXT_LEFT, _INK, 2)
    y += _LINE + 2
    chip_h, chip_w = 15, 21
    for kind in _LEGEND_PIECES:
        name = "HIDDEN" if kind == NO_PIECE else PIECE_NAMES[kind].replace("_", " ")
        image[y : y + chip_h, _TEXT_LEFT : _TEXT_LEFT + chip_w] = _piece_sprite(
            (100, 96, 90), _label(kind), chip_h, chip_w
        )
        draw_text(image, name, y + (chip_h - 10) // 2, _TEXT_LEFT + chip_w + 6, _INK, 2)
        y += chip_h + 3
    y += 4
    image[y - 4 : y - 3, _TEXT_LEFT : _WIDTH - 8] = _INK
    for name, draw in (
        ("CAMP", lambda cy, cx: _draw_post(image, cy, cx, True, False)),
        ("HEADQUARTERS", lambda cy, cx: _draw_post(image, cy, cx, False, True)),
        ("RAILROAD", lambda cy, cx: _draw_line(image, (cy, cx - 10), (cy, cx + 10), (30,) * 3, 3)),
        ("ROAD", lambda cy, cx: _draw_line(image, (cy, cx - 10), (cy, cx + 10), (130, 110, 80), 1)),
    ):
        draw(y + 10, _TEXT_LEFT + chip_w // 2)
        draw_text(image, name, y + 5, _TEXT_LEFT + chip_w + 6, _INK, 2)
        y += 24
    image.flags.writeable = False
    return image


def _status(subject, viewer: int | None) -> list[str]:
    lines = [
        f"JUNQI {subject.rules.name}",
        "FULL BOARD" if viewer is None else f"VIEW OF PLAYER {viewer}",
        f"{subject.phase} PLY {subject.ply}",
    ]
    if subject.end_reason is not None:
        winner = subject.winner
        lines.append("DRAW" if winner is None else f"{_PLAYER_NAMES[winner]} (P{winner}) WINS")
        lines.append(subject.end_reason.replace("_", " "))
    else:
        player = subject.current_player
        lines.append(f"{_PLAYER_NAMES[player]} (P{player}) TO MOVE")
        lines.append("")
    if subject.history:
        last = subject.history[-1]
        lines.append(
            f"{post_name(last.from_post)}-{post_name(last.to_post)} "
            f"{RESULT_NAMES[last.result].replace('_', ' ')}"
        )
    return lines


def render_rgb(subject) -> np.ndarray:
    """Picture as an ``(H, W, 3)`` uint8 array: the board with its pieces (hidden pieces show
    '?'; a view shows only what its player may know, as ``render_ansi``), the last move in
    yellow, and a panel with the status and a legend of the piece glyphs."""
    owner, kind, viewer, revealed = _pieces(subject)
    image = _static_layer().copy()
    for text_index, text in enumerate(_status(subject, viewer)):
        color = _INK
        if text_index == 3:
            color = _INK if subject.end_reason is not None and subject.winner is None else (
                _PLAYER_COLORS[subject.winner if subject.end_reason is not None
                               else subject.current_player]
            )
        draw_text(image, text, 10 + text_index * _LINE, _TEXT_LEFT, color, 2)
    if subject.history:
        last = subject.history[-1]
        y, x = _center(last.from_post)
        image[y - 4 : y + 5, x - 4 : x + 5] = _LAST_MOVE
        y, x = _center(last.to_post)
        image[y - _PIECE_HALF_H - 2 : y + _PIECE_HALF_H + 3,
              x - _PIECE_HALF_W - 2 : x + _PIECE_HALF_W + 3] = _LAST_MOVE  # fmt: skip
        if owner[last.to_post] == EMPTY:  # both pieces removed: leave a hollow frame
            image[y - _PIECE_HALF_H : y + _PIECE_HALF_H + 1,
                  x - _PIECE_HALF_W : x + _PIECE_HALF_W + 1] = _BACKGROUND  # fmt: skip
    for post in range(NUM_POSTS):
        player = owner[post]
        if player == EMPTY:
            continue
        piece = kind[post]
        if piece == NO_PIECE and revealed[player] == post:
            piece = FLAG  # hidden, but announced: show it as the owner's flag
        y, x = _CENTERS[post]
        sprite = _SPRITES[player, _label(piece)]
        image[y - _PIECE_HALF_H : y + _PIECE_HALF_H + 1,
              x - _PIECE_HALF_W : x + _PIECE_HALF_W + 1] = sprite  # fmt: skip
    return image


_CENTERS = tuple(_center(post) for post in range(NUM_POSTS))
