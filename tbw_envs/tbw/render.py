"""Text and RGB pictures of a TBW state (plain numpy, no rendering library needed).

The RGB frame draws each unit as a side-coloured counter (red: side 0, blue: side 1) showing
its type code (``unit_type_codes``: e.g. ``SW`` swordsman), its slot number and an Hp bar; a
gold frame marks a leader and acted units are dimmed. Hex boards are drawn as pointy-top
hexagons (odd rows shifted half a tile right). A finished game gets a banner naming the winner
and the reason. Text uses the small bitmap font below (``draw_text``), which the Junqi renderer
shares.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

# Each player's colour in every picture of either game: RGB frames, GIFs and the web page
# (agents/web/static/app.js's SIDE_COLORS, held equal by a test).
PLAYER_COLORS = ((200, 40, 40), (40, 80, 210))  # player 0 red, player 1 blue
PLAYER_COLOR_NAMES = ("RED", "BLUE")
_SIDE_COLORS = tuple(np.array(color, np.uint8) for color in PLAYER_COLORS)
_SIDE_NAMES = PLAYER_COLOR_NAMES
_TERRAIN_COLORS = {
    "plain": (190, 215, 150), "grass": (190, 215, 150), "road": (215, 205, 170),
    "forest": (70, 140, 70), "hill": (160, 130, 90), "mountain": (130, 100, 70),
    "water": (90, 150, 220), "lake": (90, 150, 220), "river": (90, 150, 220),
    "wall": (90, 90, 90), "bridge": (200, 170, 120), "ford": (150, 190, 220),
    "swamp": (120, 140, 100), "sand": (230, 215, 160),
}  # fmt: skip
_BACKGROUND = (40, 40, 40)  # gaps between square tiles, the outside of hex boards
_LABEL_COLOR = (200, 200, 200)  # the row and column numbers in the frame's margin
_LEADER_GOLD = (240, 200, 40)
_REASON_TEXT = {
    "annihilation": "ARMY DESTROYED",
    "leader_killed": "LEADER KILLED",
    "mutual_defeat": "BOTH ARMIES LOST",
}

# ------------------------------------------------------------------ bitmap font
# 5 rows high; most glyphs are 3 columns wide, M and W 5 and N 4 (a 3-column M reads as H).
# Upper-case letters, digits and some punctuation; lower case is drawn as upper case and an
# unknown character as '?'. Bits run row by row, top row first; glyphs are 1 column apart.
_FONT_BITS = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111",
    "3": "111001111001111", "4": "101101111001001", "5": "111100111001111",
    "6": "111100111101111", "7": "111001010010010", "8": "111101111101111",
    "9": "111101111001111",
    "A": "010101111101101", "B": "110101110101110", "C": "011100100100011",
    "D": "110101101101110", "E": "111100110100111", "F": "111100110100100",
    "G": "011100101101011", "H": "101101111101101", "I": "111010010010111",
    "J": "001001001101010", "K": "101101110101101", "L": "100100100100111",
    "M": "1000111011101011000110001", "N": "10011101101110011001", "O": "010101101101010",
    "P": "110101110100100", "Q": "010101101110011", "R": "110101110101101",
    "S": "011100010001110", "T": "111010010010010", "U": "101101101101111",
    "V": "101101101101010", "W": "1000110001101011101110001", "X": "101101010101101",
    "Y": "101101010010010", "Z": "111001010100111",
    " ": "000000000000000", ":": "000010000010000", "-": "000000111000000",
    ".": "000000000000010", ",": "000000000010100", "?": "111001011000010",
    "!": "010010010000010", "(": "010100100100010", ")": "010001001001010",
    "[": "110100100100110", "]": "011001001001011", "/": "001001010100100",
    "*": "000101010101000", "=": "000111000111000", "+": "000010111010000",
    "'": "010010000000000", "_": "000000000000111", ">": "100010001010100",
    "<": "001010100010001", "#": "101111101111101", "%": "101001010100101",
}  # fmt: skip
_FONT = {
    ch: np.array([bit == "1" for bit in bits], dtype=bool).reshape(5, len(bits) // 5)
    for ch, bits in _FONT_BITS.items()
}
FONT_HEIGHT = 5  # rows of a glyph at scale 1


def _glyph(ch: str) -> np.ndarray:
    return _FONT.get(ch.upper(), _FONT["?"])


def text_width(text: str, scale: int = 1) -> int:
    """Pixel width of ``text`` drawn at ``scale``."""
    return max(0, sum(_glyph(ch).shape[1] + 1 for ch in text) - 1) * scale


@lru_cache(maxsize=4096)
def text_mask(text: str, scale: int = 1) -> np.ndarray:
    """A read-only boolean ``(5 * scale, text_width(text, scale))`` mask of ``text``."""
    mask = np.zeros((FONT_HEIGHT, text_width(text)), dtype=bool)
    x = 0
    for ch in text:
        glyph = _glyph(ch)
        mask[:, x:x + glyph.shape[1]] = glyph
        x += glyph.shape[1] + 1
    if scale > 1:
        mask = np.repeat(np.repeat(mask, scale, axis=0), scale, axis=1)
    mask.flags.writeable = False
    return mask


def draw_text(img: np.ndarray, text: str, y: int, x: int, color, scale: int = 1,
              center: bool = False) -> None:
    """Draw ``text`` with its top-left corner at ``(y, x)`` (with ``center``: its centre), in
    place; parts outside the image are clipped."""
    mask = text_mask(text, scale)
    h, w = mask.shape
    if center:
        y, x = y - h // 2, x - w // 2
    y0, x0 = max(y, 0), max(x, 0)
    y1, x1 = min(y + h, img.shape[0]), min(x + w, img.shape[1])
    if y1 <= y0 or x1 <= x0:
        return
    img[y0:y1, x0:x1][mask[y0 - y:y1 - y, x0 - x:x1 - x]] = color


# ------------------------------------------------------------------ text rendering


def terrain_char(scenario, tile: int) -> str:
    tt = scenario.terrain_types[scenario.terrain_grid[tile]]
    return tt.char or tt.name[0]


def unit_label(scenario, uid: int) -> str:
    spec = scenario.units[uid]
    initial = spec.type.name[0]
    initial = initial.upper() if spec.side == 0 else initial.lower()
    return f"{initial}{spec.slot}" + ("*" if spec.leader else "")


LEGEND_WIDTH = 100  # characters per line of a text board's key


def wrap_legend(entries) -> list[str]:
    """``entries`` (strings never split: a symbol stays with its meaning) packed into the lines
    of a board's key: ``key: ...``, continuation lines indented so that none starts with a row
    label."""
    lines: list[str] = []
    line = "key:"
    for entry in entries:
        if len(line) + 1 + len(entry) > LEGEND_WIDTH and line.strip():
            lines.append(line)
            line = "    "
        line += " " + entry
    lines.append(line)
    return lines


def _symbol_entries(pairs) -> list[str]:
    """``symbol name`` for each symbol, in first-seen order, comma separated; names sharing a
    symbol are joined with '/'."""
    names: dict[str, list[str]] = {}
    for symbol, name in pairs:
        if name not in names.setdefault(symbol, []):
            names[symbol].append(name)
    entries = [f"{symbol} {'/'.join(group)}," for symbol, group in names.items()]
    entries[-1] = entries[-1][:-1]
    return entries


def legend_lines(scenario) -> list[str]:
    """The key printed under ``render_ansi``'s board, built with the same ``terrain_char`` and
    ``unit_label`` the board uses, so every symbol the scenario can show is explained."""
    terrain = _symbol_entries(
        (terrain_char(scenario, tile), scenario.terrain_grid[tile])
        for tile in range(scenario.board.size)
    )
    types = _symbol_entries(
        (unit_label(scenario, uid)[0].upper(), spec.type.name)
        for uid, spec in enumerate(scenario.units)
    )
    types[-1] += ";"
    return wrap_legend([
        "terrain:", *terrain, "| unit = type initial + slot:", *types, "upper case side 0,",
        "lower case side 1,", "* leader,", "hp = hit points left/max",
    ])


def render_ansi(state) -> str:
    """The board as text: side 0 units in upper case, side 1 in lower case, ``*`` a leader,
    each unit followed by its slot; then a table of the living units and a key of the
    symbols (``legend_lines``)."""
    sc = state.scenario
    b = sc.board
    status = (
        f"game over: {'draw' if state.winner is None else f'side {state.winner} wins'}"
        if state.terminal else f"side {state.current_player} to move"
    )
    lines = [
        f"{sc.name} ({b.topology} {b.rows}x{b.cols}), turn {state.turn}/{sc.max_turns}, {status}"
    ]
    lines.append("    " + "".join(f"{c:<4}" for c in range(b.cols)))
    for r in range(b.rows):
        indent = "  " if b.topology == "hex" and r & 1 else ""
        cells = []
        for c in range(b.cols):
            t = b.tile(r, c)
            uid = state.occupant[t]
            cells.append(f"{unit_label(sc, uid) if uid >= 0 else terrain_char(sc, t):<4}")
        lines.append(f"{r:>2}  {indent}" + "".join(cells).rstrip())
    lines.append("units: " + ", ".join(
        f"{unit_label(sc, u.id)}={u.type}@{u.pos} hp {u.hp}/{u.max_hp}"
        + (" (acted)" if u.acted else "")
        for u in state.units if u.alive
    ))
    lines.extend(legend_lines(sc))
    return "\n".join(lines)


# ------------------------------------------------------------------ RGB rendering


def terrain_color(name: str) -> np.ndarray:
    """The RGB colour a terrain is drawn in: its own for the bundled terrains, else one derived
    from its name (the same in every run)."""
    if name in _TERRAIN_COLORS:
        return np.array(_TERRAIN_COLORS[name], np.uint8)
    seed = sum(ord(ch) * 31 ** i for i, ch in enumerate(name)) % 2**32
    return np.random.default_rng(seed).integers(60, 230, 3).astype(np.uint8)


def unit_type_codes(type_names) -> dict[str, str]:
    """A short upper-case code per unit type name, unique within ``type_names``: the first two
    letters where they tell the types apart (swordsman SW, archer AR, knight KN), else the first
    letter and a later one (cavalier CA, cavalry CY), else three letters."""
    names = sorted(set(type_names))
    letters = {n: "".join(ch for ch in n.upper() if ch.isalnum()) or "U" for n in names}
    codes: dict[str, str] = {}
    used: set[str] = set()
    # Names whose two-letter prefix is shared need another letter; pick it per name.
    prefix_count: dict[str, int] = {}
    for n in names:
        prefix_count[letters[n][:2]] = prefix_count.get(letters[n][:2], 0) + 1
    for n in names:
        word = letters[n]
        candidates = [word[:2]] if prefix_count[word[:2]] == 1 else []
        candidates += [word[0] + ch for ch in word[2:]] + [word[:3]]
        candidates += [word[:2] + str(i) for i in range(10)]
        code = next((c for c in candidates if c not in used), None)
        if code is None:  # pragma: no cover - needs more than a dozen look-alike names
            code = f"{len(codes):02d}"
        codes[n] = code
        used.add(code)
    return codes


@lru_cache(maxsize=16)
def _hex_geometry(rows: int, cols: int, tile_px: int):
    """Raster of a pointy-top odd-r hex board whose horizontal tile pitch is ``tile_px``:
    ``(tile, inner, centres)`` with ``tile[y, x]`` the tile index under each pixel (-1 outside
    the board), ``inner`` False on the 1-pixel outlines between hexes, and ``centres`` the
    ``(y, x)`` centre of each tile."""
    w = float(tile_px)  # centre-to-centre distance along a row (= the hexagon's width)
    s = w / math.sqrt(3.0)  # circumradius: the hexagon is 2 s tall
    pitch = 1.5 * s
    height = math.ceil((rows - 1) * pitch + 2 * s)
    width = math.ceil(cols * w + (w / 2 if rows > 1 else 0))
    py = np.arange(height, dtype=np.float64)[:, None] + 0.5
    px = np.arange(width, dtype=np.float64)[None, :] + 0.5
    r0 = np.floor((py - s) / pitch).astype(np.int64)
    best_d = np.full((height, width), np.inf)
    best_t = np.full((height, width), -1, dtype=np.int64)
    for r in (r0, r0 + 1):  # a pixel between two rows of centres belongs to one of them
        offset = w / 2 + np.where(r & 1, w / 2, 0.0)
        c = np.clip(np.rint((px - offset) / w), 0, cols - 1).astype(np.int64)
        dx = np.abs(px - (offset + c * w))
        dy = np.abs(py - (s + r * pitch))
        # Hex norm: 1 on the hexagon's outline (both terms scale with the edge distance).
        d = np.maximum(dx / (w / 2), (dy + dx / math.sqrt(3.0)) / s)
        d = np.broadcast_to(d, (height, width))
        valid = (r >= 0) & (r < rows)
        better = valid & (d < best_d)
        best_d = np.where(better, d, best_d)
        best_t = np.where(better, np.broadcast_to(r * cols + c, (height, width)), best_t)
    inside = best_d <= 1.0
    tile = np.where(inside, best_t, -1)
    # (1 - d) * w / 2 is the distance in pixels to the hexagon's nearest edge.
    inner = inside & ((1.0 - best_d) * (w / 2) >= 1.0)
    centres = np.array(
        [(s + r * pitch, w / 2 + c * w + (w / 2 if r & 1 else 0.0))
         for r in range(rows) for c in range(cols)]
    )
    for a in (tile, inner, centres):
        a.flags.writeable = False
    return tile, inner, centres


class _Layer:
    """What does not change during a game: the terrain picture and each unit's labels."""

    def __init__(self, scenario, tile_px: int):
        self.scenario = scenario  # held so ``id(scenario)`` cannot be reused while cached
        b = scenario.board
        colors = {name: terrain_color(name) for name in set(scenario.terrain_grid)}
        if b.topology == "hex":
            tile, inner, centres = _hex_geometry(b.rows, b.cols, tile_px)
            palette = np.array([colors[name] for name in scenario.terrain_grid], np.uint8)
            img = np.empty((*tile.shape, 3), np.uint8)
            img[:] = _BACKGROUND
            img[inner] = palette[tile[inner]]
            outline = (tile >= 0) & ~inner  # a darker shade of the tile's own colour
            img[outline] = (palette[tile[outline]] * 0.55).astype(np.uint8)
            # Top-left corner of the tile_px square centred on each hexagon: the unit counter's
            # frame, the same as a square tile's.
            self.origin = [(int(round(cy - tile_px / 2)), int(round(cx - tile_px / 2)))
                           for cy, cx in centres]
        else:
            img = np.empty((b.rows * tile_px, b.cols * tile_px, 3), np.uint8)
            img[:] = _BACKGROUND
            self.origin = []
            for t in range(b.size):
                r, c = b.rc(t)
                y0, x0 = r * tile_px, c * tile_px
                img[y0 + 1:y0 + tile_px - 1, x0 + 1:x0 + tile_px - 1] = (
                    colors[scenario.terrain_grid[t]]
                )
                self.origin.append((y0, x0))
            centres = [(y0 + tile_px / 2, x0 + tile_px / 2) for y0, x0 in self.origin]
        img, (top, left) = _with_labels(img, b.rows, b.cols, centres, tile_px)
        self.origin = [(y0 + top, x0 + left) for y0, x0 in self.origin]
        self.board_origin = (top, left)
        img.flags.writeable = False
        self.image = img
        codes = unit_type_codes(u.type.name for u in scenario.units)
        self.type_code = [codes[u.type.name] for u in scenario.units]
        self.slot_text = [str(u.slot) for u in scenario.units]
        # Where each counter's type code goes: (text, scale, y, x) relative to the tile's frame;
        # the code sits between the slot number and the Hp bar, shrunk if it would not fit.
        m, small = tile_px // 6, max(1, tile_px // 32)
        top = m + 1 + FONT_HEIGHT * small + max(2, small + 1)
        self.code_place = []
        for code in self.type_code:
            scale = max(1, tile_px // 16)
            while scale > 1 and text_width(code, scale) > tile_px - 2 * m - 2:
                scale -= 1
            height = FONT_HEIGHT * max(1, tile_px // 16)
            y = top + (height - FONT_HEIGHT * scale) // 2
            self.code_place.append((code, scale, y, tile_px // 2 - text_width(code, scale) // 2))


def _with_labels(board: np.ndarray, rows: int, cols: int, centres, tile_px: int):
    """``board`` inside a margin that numbers its rows (left) and columns (top) from 0, as the
    move log names tiles ``(row, column)``; and the board's top-left corner in the result."""
    scale = max(1, tile_px // 24)
    left = text_width(str(rows - 1), scale) + 4 * scale
    top = FONT_HEIGHT * scale + 4 * scale
    img = np.empty((board.shape[0] + top, board.shape[1] + left, 3), np.uint8)
    img[:] = _BACKGROUND
    img[top:, left:] = board
    for r in range(rows):
        cy = centres[r * cols][0]
        draw_text(img, str(r), int(top + cy - FONT_HEIGHT * scale / 2), 2 * scale,
                  _LABEL_COLOR, scale)
    for c in range(cols):
        cx = centres[c][1]  # the first row's tiles: on a hex board, the unshifted row
        draw_text(img, str(c), 2 * scale + FONT_HEIGHT * scale // 2, int(left + cx),
                  _LABEL_COLOR, scale, center=True)
    return img, (top, left)


def board_origin(scenario, tile_px: int = 32) -> tuple[int, int]:
    """Where the board starts in ``render_rgb``'s picture, ``(y, x)``: past the margin of row
    and column numbers."""
    return _layer(scenario, tile_px).board_origin


_LAYERS: dict[tuple[int, int], _Layer] = {}


def _layer(scenario, tile_px: int) -> _Layer:
    key = (id(scenario), tile_px)
    layer = _LAYERS.get(key)
    if layer is None or layer.scenario is not scenario:
        if len(_LAYERS) >= 32:
            _LAYERS.pop(next(iter(_LAYERS)))
        layer = _LAYERS[key] = _Layer(scenario, tile_px)
    return layer


def render_rgb(state, tile_px: int = 32) -> np.ndarray:
    """An ``H x W x 3`` uint8 picture (the same size for every state of a scenario): terrain
    colours; units as side-coloured counters with their type code (``unit_type_codes``), slot
    number and an Hp bar; a gold frame marks leaders, acted units are dimmed. Square boards are
    ``rows * tile_px`` by ``cols * tile_px``; hex boards are drawn as hexagons ``tile_px`` wide.
    A margin above and to the left numbers the columns and rows from 0, as the move log names
    tiles ``(row, column)`` (``board_origin``: where the board starts). Once the game is over a
    banner names the winner (or a draw) and why the game ended."""
    sc = state.scenario
    layer = _layer(sc, tile_px)
    img = layer.image.copy()
    m = tile_px // 6
    small = max(1, tile_px // 32)  # scale of the slot number
    bar_y = tile_px - m - 3
    inner = tile_px - 2 * m
    for uid, spec in enumerate(sc.units):
        hp = state.hp[uid]
        if hp <= 0:
            continue
        y0, x0 = layer.origin[state.pos[uid]]
        side_color = _SIDE_COLORS[spec.side]
        if state.acted[uid]:
            side_color = (side_color.astype(np.int32) + 2 * 160) // 3
        if spec.leader:
            img[y0 + m - 2:y0 + tile_px - m + 2, x0 + m - 2:x0 + tile_px - m + 2] = _LEADER_GOLD
        img[y0 + m:y0 + tile_px - m, x0 + m:x0 + tile_px - m] = side_color
        draw_text(img, layer.slot_text[uid], y0 + m + 1, x0 + m + 1, 255, small)
        code, scale, dy, dx = layer.code_place[uid]
        draw_text(img, code, y0 + dy, x0 + dx, 255, scale)
        frac = hp / spec.hp
        img[y0 + bar_y:y0 + bar_y + 2, x0 + m:x0 + tile_px - m] = (30, 30, 30)
        img[y0 + bar_y:y0 + bar_y + 2, x0 + m:x0 + m + int(round(frac * inner))] = (40, 220, 60)
    if state.terminal:
        _draw_banner(img, state)
    return img


def _turn_limit_text(state) -> str:
    """How the turn limit was scored: a plain draw (``turn_limit_result: draw``, whatever the Hp),
    or by the sides' Hp totals (``hp``: more Hp wins, equal Hp draws), with the totals."""
    if state.scenario.turn_limit_result != "hp":
        return "TURN LIMIT: DRAW"
    totals = [sum(max(int(state.hp[u]), 0) for u in state.scenario.side_units[side])
              for side in (0, 1)]
    verdict = "EVEN HP" if totals[0] == totals[1] else "MORE HP"
    return f"TURN LIMIT: {verdict} {totals[0]}-{totals[1]}"


def result_lines(state) -> tuple[str, str]:
    """The two lines of the game-over banner: who won (or a draw), and why."""
    if state.winner is None:
        head = "DRAW"
    else:
        head = f"{_SIDE_NAMES[state.winner]} (SIDE {state.winner}) WINS"
    reason = state.end_reason
    if reason in ("turn_limit_hp", "turn_limit_draw"):
        why = _turn_limit_text(state)
    else:
        why = _REASON_TEXT.get(reason, str(reason).upper())
    return head, f"{why}, TURN {state.turn}"


def _draw_banner(img: np.ndarray, state) -> None:
    lines = result_lines(state)
    height, width = img.shape[:2]
    scale = 2 if max(text_width(t, 2) for t in lines) + 8 <= width else 1
    line_h = (FONT_HEIGHT + 2) * scale
    band_h = 2 * line_h + 4 * scale
    top = max(0, (height - band_h) // 2)
    band = img[top:top + band_h]
    color = (90, 90, 90) if state.winner is None else _SIDE_COLORS[state.winner]
    band[:] = (band * 0.25 + np.asarray(color, np.float64) * 0.75).astype(np.uint8)
    band[:scale] = _LEADER_GOLD
    band[-scale:] = _LEADER_GOLD
    for i, text in enumerate(lines):
        y = top + 2 * scale + i * line_h + line_h // 2
        draw_text(img, text, y, width // 2, 255, scale, center=True)
