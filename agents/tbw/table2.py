"""The TBW paper's Table 2 experiment: scenarios, the paper's figures and its closed forms.

Setting (paper section 5, as docs/results.md reads it): one side only, no enemies, an open
board (ours is just large enough that no movement range touches an edge, which is the same
thing), 4-neighbour tiles, movement cost 1, movement points 2, 3 or 4, and 3 or 4 units placed
either *dispersed* (movement ranges disjoint) or *compact* (the paper's Figure 10, absent from the
text). Searching every connected and disconnected shape of 3 units in a 5 x 5 box and of 4 units
in a 4 x 4 box (up to rotation and reflection), exactly one reproduces all six ops1 figures of
its row: for 3 units the L-tromino ``(0,0) (0,1) (1,0)``, for 4 units the 2 x 2 square
``(0,0) (0,1) (1,0) (1,1)``. ``COMPACT_PLACEMENTS`` holds them.
"""

from __future__ import annotations

from math import factorial

from tbw_envs.tbw import TBWState, parse_scenario

MOVEMENTS = (2, 3, 4)
UNIT_COUNTS = (3, 4)
PLACEMENTS = ("dispersed", "compact")

# (units, movement, placement) -> (Algorithm 2 ops1, Algorithm 5 ops1), from the paper's Table 2.
PAPER_OPS1 = {
    (3, 2, "dispersed"): (14274, 14235), (3, 2, "compact"): (9804, 9771),
    (3, 3, "dispersed"): (97650, 97575), (3, 3, "compact"): (79260, 79191),
    (3, 4, "dispersed"): (423858, 423735), (3, 4, "compact"): (371652, 371535),
    (4, 2, "dispersed"): (742560, 740272), (4, 2, "compact"): (345264, 343804),
    (4, 3, "dispersed"): (9765600, 9757600), (4, 3, "compact"): (6394800, 6388468),
    (4, 4, "dispersed"): (69513696, 69492704), (4, 4, "compact"): (53301744, 53283548),
}
# The paper's printed D_ops1 (percent) per case and its estimate row (same for 3 and 4 units).
PAPER_D_OPS1 = {
    (3, 2, "dispersed"): 0.27, (3, 2, "compact"): 0.34, (3, 3, "dispersed"): 0.077,
    (3, 3, "compact"): 0.087, (3, 4, "dispersed"): 0.029, (3, 4, "compact"): 0.031,
    (4, 2, "dispersed"): 0.31, (4, 2, "compact"): 0.42, (4, 3, "dispersed"): 0.082,
    (4, 3, "compact"): 0.099, (4, 4, "dispersed"): 0.030, (4, 4, "compact"): 0.034,
}
PAPER_D_OPS1_ESTIMATE = {2: 0.30, 3: 0.080, 4: 0.030}

COMPACT_PLACEMENTS = {
    3: ((0, 0), (0, 1), (1, 0)),  # L-tromino
    4: ((0, 0), (0, 1), (1, 0), (1, 1)),  # 2 x 2 square
    # Not in the paper (5 units "timed out"): our choice, the P-pentomino, for the exact solver.
    5: ((0, 0), (0, 1), (1, 0), (1, 1), (2, 0)),
}


def range_size(movement: int) -> int:
    """Tiles within ``movement`` steps on an open 4-neighbour board: 2m(m+1) + 1."""
    return 2 * movement * (movement + 1) + 1


def placement(n: int, movement: int, kind: str) -> list[tuple[int, int]]:
    """Unit tiles (row, col) on the case's board (see ``table2_scenario``)."""
    if kind == "compact":
        cells = COMPACT_PLACEMENTS[n]
        return [(movement + r, movement + c) for r, c in cells]
    if kind == "dispersed":
        # Ranges are diamonds of radius m: centres 2m + 1 apart never share a tile.
        return [(movement, movement + k * (2 * movement + 1)) for k in range(n)]
    raise ValueError(f"placement must be one of {PLACEMENTS}, got {kind!r}")


def table2_scenario_dict(n: int, movement: int, kind: str) -> dict:
    tiles = placement(n, movement, kind)
    rows = max(r for r, _ in tiles) + movement + 1
    cols = max(c for _, c in tiles) + movement + 1
    return {
        "name": f"table2_{n}units_move{movement}_{kind}",
        "description": "The TBW paper's Table 2 setting: one side, no enemies, open board.",
        "board": {"topology": "square4", "rows": rows, "cols": cols},
        "terrain": {"plain": {"cost": 1}},
        "unit_types": {"soldier": {"hp": 10, "atk": 3, "move": movement, "range": [1, 1]}},
        "units": [{"side": 0, "type": "soldier", "pos": [r, c]} for r, c in tiles],
        "win": "none",
        "max_turns": 1,
    }


def table2_state(n: int, movement: int, kind: str):
    return TBWState.initial(parse_scenario(table2_scenario_dict(n, movement, kind)))


def closed_form_alg2(n: int, r: int) -> int:
    """Eq. 7 (dispersed): H1 = n! (r^n + ... + r)."""
    return factorial(n) * sum(r**k for k in range(1, n + 1))


def closed_form_alg5(n: int, r: int) -> int:
    """Eq. 8 (dispersed): H2 = h_n, h_1 = r, h_n = n r (1 + h_(n-1))."""
    h = r
    for k in range(2, n + 1):
        h = k * r * (1 + h)
    return h


def d_ops1_estimate_eq10(n: int, r: int) -> float:
    """Eq. 10, in percent: sum_{i=2}^{n-1} ((i!-1)/i!) r^(n-i) / sum_{i=0}^{n-1} r^(n-i)."""
    num = sum((factorial(i) - 1) / factorial(i) * r ** (n - i) for i in range(2, n))
    den = sum(r ** (n - i) for i in range(n))
    return 100.0 * num / den


def d_ops1_estimate_eq11(r: int) -> float:
    """Eq. 11, in percent: r^-2 / 2 (the paper's printed estimate row)."""
    return 100.0 * 0.5 / r**2
