"""Board geometry: tile indexing, neighbours and distances for the three topologies.

Tiles are indexed row-major, ``tile = row * cols + col``. ``hex`` boards use "odd-r" offset
coordinates (odd rows are shifted half a tile to the right), so a hex map is typed as the same
rectangle of characters as a square one.
"""

from __future__ import annotations

import numpy as np

from tbw_envs.core.contract import short_repr

TOPOLOGIES = ("square4", "square8", "hex")

_SQUARE4_STEPS = ((-1, 0), (0, -1), (0, 1), (1, 0))
_SQUARE8_STEPS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
_HEX_STEPS_EVEN_ROW = ((-1, -1), (-1, 0), (0, -1), (0, 1), (1, -1), (1, 0))
_HEX_STEPS_ODD_ROW = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, 0), (1, 1))


def _hex_cube(row: int, col: int) -> tuple[int, int, int]:
    x = col - (row - (row & 1)) // 2
    z = row
    return x, -x - z, z


def _distance_table(topology: str, rows: int, cols: int) -> tuple[tuple[int, ...], ...]:
    """Steps between every two tiles: Manhattan (``square4``), Chebyshev (``square8``) or the
    cube distance of ``_hex_cube``'s coordinates (``hex``), as tuples of ints. Computed over
    whole arrays: pair by pair in Python, a 21 x 21 board took a tenth of a second to load."""
    row, col = np.divmod(np.arange(rows * cols, dtype=np.int64), cols)
    if topology == "hex":
        x = col - (row - (row & 1)) // 2
        axes = (x, -x - row, row)
    else:
        axes = (row, col)
    steps = [np.abs(axis[:, None] - axis[None, :]) for axis in axes]
    table = sum(steps) if topology == "square4" else np.maximum.reduce(steps)
    return tuple(map(tuple, table.tolist()))


class Board:
    """Immutable geometry of a ``rows x cols`` board; tables are built once per scenario."""

    def __init__(self, topology: str, rows: int, cols: int):
        if topology not in TOPOLOGIES:
            raise ValueError(
                f"unknown topology {short_repr(topology)}; expected one of {TOPOLOGIES}"
            )
        if rows < 1 or cols < 1:
            raise ValueError(f"board must have at least one row and column, got {rows}x{cols}")
        self.topology = topology
        self.rows = rows
        self.cols = cols
        self.size = rows * cols
        self.neighbors: tuple[tuple[int, ...], ...] = tuple(
            tuple(self._neighbors_of(t)) for t in range(self.size)
        )
        # Distances are looked up in the hot path (attack ranges), so a full table pays for
        # itself; boards are small enough (a 40 x 40 map is 2.5 M entries).
        self.distance_table: tuple[tuple[int, ...], ...] = _distance_table(topology, rows, cols)

    def tile(self, row: int, col: int) -> int:
        return row * self.cols + col

    def rc(self, tile: int) -> tuple[int, int]:
        return divmod(tile, self.cols)

    def in_bounds(self, row: int, col: int) -> bool:
        return 0 <= row < self.rows and 0 <= col < self.cols

    def distance(self, a: int, b: int) -> int:
        return self.distance_table[a][b]

    def _steps(self, row: int):
        if self.topology == "square4":
            return _SQUARE4_STEPS
        if self.topology == "square8":
            return _SQUARE8_STEPS
        return _HEX_STEPS_ODD_ROW if row & 1 else _HEX_STEPS_EVEN_ROW

    def _neighbors_of(self, tile: int):
        row, col = self.rc(tile)
        for dr, dc in self._steps(row):
            r, c = row + dr, col + dc
            if self.in_bounds(r, c):
                yield self.tile(r, c)

    def rotation_is_symmetry(self) -> bool:
        """Whether turning the board 180 degrees (tile t -> size - 1 - t, the env's frame for
        player_1) maps neighbours to neighbours. True for square boards; for odd-r hex boards
        only with an even number of rows (odd rows shift right, and the turn must swap them with
        even rows)."""
        last = self.size - 1
        return all(
            {last - n for n in self.neighbors[t]} == set(self.neighbors[last - t])
            for t in range(self.size)
        )

    def tiles_between(self, a: int, b: int) -> list[int]:
        """Tiles strictly between ``a`` and ``b`` that the straight segment joining their centres
        passes through, for the optional line-of-sight rule. Square boards: every cell whose
        interior the segment crosses (grazing a corner does not count). Hex boards: the
        standard rounded-lerp hex line."""
        n = self.distance(a, b)
        if n <= 1:
            return []
        (ra, ca), (rb, cb) = self.rc(a), self.rc(b)
        out: list[int] = []
        if self.topology == "hex":
            ca3, cb3 = _hex_cube(ra, ca), _hex_cube(rb, cb)
            for i in range(1, n):
                f = i / n
                # A tiny nudge keeps ties on tile edges from flickering between neighbours.
                nudge = (1e-6, 2e-6, -3e-6)
                x, y, z = (p + (q - p) * f + e for p, q, e in zip(ca3, cb3, nudge, strict=True))
                rx, ry, rz = round(x), round(y), round(z)
                dx, dy, dz = abs(rx - x), abs(ry - y), abs(rz - z)
                if dx > dy and dx > dz:
                    rx = -ry - rz
                elif dy > dz:
                    ry = -rx - rz
                else:
                    rz = -rx - ry
                row = rz
                col = rx + (row - (row & 1)) // 2
                out.append(self.tile(row, col))
        else:
            for row in range(min(ra, rb), max(ra, rb) + 1):
                for col in range(min(ca, cb), max(ca, cb) + 1):
                    if _segment_crosses_cell(ra, ca, rb, cb, row, col):
                        out.append(self.tile(row, col))
        return [t for t in dict.fromkeys(out) if t not in (a, b)]


def _segment_crosses_cell(r0: float, c0: float, r1: float, c1: float, row: int, col: int) -> bool:
    """Whether the segment between cell centres (r0, c0) -> (r1, c1) enters the open interior
    of cell (row, col), whose centre is (row, col) and half-width 0.5 (Liang-Barsky clipping)."""
    inner = 0.5 - 1e-9
    t_enter, t_exit = 0.0, 1.0
    for start, delta, centre in ((r0, r1 - r0, row), (c0, c1 - c0, col)):
        low, high = centre - inner, centre + inner
        if delta == 0:
            if not low < start < high:
                return False
            continue
        t0, t1 = (low - start) / delta, (high - start) / delta
        if t0 > t1:
            t0, t1 = t1, t0
        t_enter, t_exit = max(t_enter, t0), min(t_exit, t1)
        if t_enter >= t_exit:
            return False
    return True
