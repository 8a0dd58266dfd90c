"""Text and RGB pictures of a state (omniscient) or a view (one player's knowledge).

Plain numpy drawing, so rendering needs no optional dependency.
"""

from __future__ import annotations

import numpy as np

from tbw_envs.junqi.board import COLS, NUM_POSTS, ROW_LETTERS, ROWS, board_graph, post_name
from tbw_envs.junqi.moves import EMPTY
from tbw_envs.junqi.pieces import FLAG, NO_PIECE, PIECE_CODES, RANKS, RESULT_NAMES


def _pieces(subject) -> tuple[list[int], list[int], int | None, tuple]:
    """owner, kind (NO_PIECE where hidden), the viewer (None: omniscient), revealed flags."""
    viewer = getattr(subject, "player", None)
    return list(subject.owner), list(subject.kind), viewer, tuple(subject.flag_revealed)


def render_ansi(subject) -> str:
    """Board as text: player 0 upper case, player 1 lower case; '??' an unseen opponent piece,
    '()' a camp, '[]' a headquarters, '==' a railroad post, '..' a road post."""
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
                    token = "()"
                elif graph.is_headquarters[post]:
                    token = "[]"
                else:
                    token = "==" if graph.is_rail[post] else ".."
            else:
                piece = kind[post]
                if piece == NO_PIECE and revealed[owner[post]] == post:
                    piece = FLAG  # hidden, but announced: show it as the owner's flag
                if piece == NO_PIECE:
                    token = "??"
                else:
                    # The case says whose piece it is, for a revealed flag as for any other.
                    code = PIECE_CODES[piece]
                    token = code if owner[post] == 0 else code.lower()
            cells.append(token)
        lines.append(f"{ROW_LETTERS[row]}    " + "   ".join(f"{token:>2}" for token in cells))
    return "\n".join(lines) + "\n"


_GLYPHS = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111",
    "3": "111001111001111", "4": "101101111001001", "5": "111100111001111",
    "6": "111100111101111", "7": "111001001001001", "8": "111101111101111",
    "9": "111101111001111", "E": "111100111100111", "M": "101111111101101",
    "B": "110101110101110", "F": "111100111100100", "?": "111001011000010",
}  # fmt: skip
_CELL, _MARGIN = 40, 24
_BACKGROUND = (232, 214, 168)
_PLAYER_COLORS = ((196, 40, 40), (40, 72, 196))


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


def _draw_text(image: np.ndarray, text: str, center: tuple[int, int], color, scale: int = 2):
    width = len(text) * 4 * scale - scale
    top = center[0] - 5 * scale // 2
    left = center[1] - width // 2
    for index, char in enumerate(text):
        bits = _GLYPHS[char]
        for bit_index, bit in enumerate(bits):
            if bit == "1":
                r, c = divmod(bit_index, 3)
                y = top + r * scale
                x = left + index * 4 * scale + c * scale
                image[y : y + scale, x : x + scale] = color


def render_rgb(subject) -> np.ndarray:
    """Board picture as an ``(H, W, 3)`` uint8 array; hidden pieces show '?'."""
    owner, kind, _viewer, revealed = _pieces(subject)
    graph = board_graph()
    height, width = 2 * _MARGIN + (ROWS - 1) * _CELL, 2 * _MARGIN + (COLS - 1) * _CELL + _CELL
    image = np.empty((height, width, 3), dtype=np.uint8)
    image[:] = _BACKGROUND
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
        size = 12 if graph.is_headquarters[post] or graph.is_camp[post] else 7
        outline = (90, 140, 60) if graph.is_camp[post] else (60, 60, 60)
        image[y - size : y + size + 1, x - size : x + size + 1] = outline
        inner = size - 2
        image[y - inner : y + inner + 1, x - inner : x + inner + 1] = _BACKGROUND
        if owner[post] == EMPTY:
            continue
        color = _PLAYER_COLORS[owner[post]]
        image[y - 11 : y + 12, x - 15 : x + 16] = color
        piece = kind[post]
        if piece == NO_PIECE and revealed[owner[post]] == post:
            piece = FLAG
        _draw_text(image, _label(piece), (y, x), (255, 255, 255))
    return image
