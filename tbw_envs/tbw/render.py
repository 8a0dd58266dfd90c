"""Text and RGB pictures of a TBW state (plain numpy, no rendering library needed)."""

from __future__ import annotations

import numpy as np

_SIDE_COLORS = (np.array([200, 40, 40], np.uint8), np.array([40, 80, 210], np.uint8))
_TERRAIN_COLORS = {
    "plain": (190, 215, 150), "grass": (190, 215, 150), "road": (215, 205, 170),
    "forest": (70, 140, 70), "hill": (160, 130, 90), "mountain": (130, 100, 70),
    "water": (90, 150, 220), "lake": (90, 150, 220), "river": (90, 150, 220),
    "wall": (90, 90, 90), "bridge": (200, 170, 120), "ford": (150, 190, 220),
    "swamp": (120, 140, 100), "sand": (230, 215, 160),
}
# 3 x 5 bitmaps for the digits drawn on units (slot numbers).
_DIGITS = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111",
    "3": "111001111001111", "4": "101101111001001", "5": "111100111001111",
    "6": "111100111101111", "7": "111001010010010", "8": "111101111101111",
    "9": "111101111001111",
}


def terrain_char(scenario, tile: int) -> str:
    tt = scenario.terrain_types[scenario.terrain_grid[tile]]
    return tt.char or tt.name[0]


def unit_label(scenario, uid: int) -> str:
    spec = scenario.units[uid]
    initial = spec.type.name[0]
    initial = initial.upper() if spec.side == 0 else initial.lower()
    return f"{initial}{spec.slot}" + ("*" if spec.leader else "")


def render_ansi(state) -> str:
    """The board as text: side 0 units in upper case, side 1 in lower case, ``*`` a leader,
    each unit followed by its slot; then a table of the living units."""
    sc = state.scenario
    b = sc.board
    status = (
        f"game over: {'draw' if state.winner is None else f'side {state.winner} wins'}"
        if state.terminal else f"side {state.current_side} to move"
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
    return "\n".join(lines)


def _terrain_color(name: str) -> np.ndarray:
    if name in _TERRAIN_COLORS:
        return np.array(_TERRAIN_COLORS[name], np.uint8)
    seed = sum(ord(ch) * 31 ** i for i, ch in enumerate(name)) % 2**32
    return np.random.default_rng(seed).integers(60, 230, 3).astype(np.uint8)


def render_rgb(state, tile_px: int = 32) -> np.ndarray:
    """An ``H x W x 3`` uint8 picture: terrain colours, units as side-coloured squares with
    their slot number and an Hp bar; a gold frame marks leaders, acted units are dimmed."""
    sc = state.scenario
    b = sc.board
    half = tile_px // 2 if b.topology == "hex" else 0
    img = np.full((b.rows * tile_px, b.cols * tile_px + half, 3), 40, np.uint8)
    for t in range(b.size):
        r, c = b.rc(t)
        y0, x0 = r * tile_px, c * tile_px + (half if r & 1 else 0)
        img[y0 + 1:y0 + tile_px - 1, x0 + 1:x0 + tile_px - 1] = _terrain_color(sc.terrain_grid[t])
        uid = state.occupant[t]
        if uid < 0:
            continue
        spec = sc.units[uid]
        m = tile_px // 6
        color = _SIDE_COLORS[spec.side].astype(np.int32)
        if state.acted[uid]:
            color = (color + 2 * 160) // 3
        if spec.leader:
            img[y0 + m - 2:y0 + tile_px - m + 2, x0 + m - 2:x0 + tile_px - m + 2] = (240, 200, 40)
        img[y0 + m:y0 + tile_px - m, x0 + m:x0 + tile_px - m] = color.astype(np.uint8)
        _draw_digits(img, str(spec.slot), y0 + m + 2, x0 + m + 2, scale=max(1, tile_px // 16))
        frac = max(state.hp[uid], 0) / spec.hp
        bar_y = y0 + tile_px - m - 3
        img[bar_y:bar_y + 2, x0 + m:x0 + tile_px - m] = (30, 30, 30)
        img[bar_y:bar_y + 2, x0 + m:x0 + m + int(round(frac * (tile_px - 2 * m)))] = (40, 220, 60)
    return img


def _draw_digits(img: np.ndarray, text: str, y: int, x: int, scale: int) -> None:
    for ch in text:
        bits = _DIGITS.get(ch)
        if bits is None:
            continue
        for i, bit in enumerate(bits):
            if bit == "1":
                py, px = y + (i // 3) * scale, x + (i % 3) * scale
                img[py:py + scale, px:px + scale] = 255
        x += 4 * scale
