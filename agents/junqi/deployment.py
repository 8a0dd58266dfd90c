"""How a Junqi agent deploys its army: the layout policies (``LAYOUT_POLICIES``).

An agent that wants its own layout defines ``layout(rng, rules) -> Layout``; the arena and the
environment's ``deployment="agents"`` mode then use it instead of a uniformly random layout.
``JunqiAgentBase`` (``agents.junqi.base``) gives every Junqi agent that method when built with
``layout="heuristic"`` (or any ``LAYOUT_POLICIES`` name other than ``random``), and plays
deployment actions cell by cell from the chosen layout when an environment asks for them.

``heuristic_layout`` is a textbook shape with randomness inside it, so an opponent cannot learn
one fixed layout:

* the flag in a headquarters chosen at random, boxed in by the three mines on the posts beside
  and in front of it (the flag is lost to any piece that reaches it, and only engineers clear
  mines);
* one bomb on the back two rows near the flag, the other in the middle rows where it meets the
  attackers coming down the rail columns;
* the marshal and the general in the middle rows (strong pieces far from the front lose less
  to probing attacks, yet reach the railroad in one step);
* two engineers and the lieutenants in the front rows (cheap pieces probe; engineers clear mines
  and run the railroad), the rest at random.
"""

from __future__ import annotations

import random

from tbw_envs.junqi.board import COLS
from tbw_envs.junqi.layout import (
    BACK_TWO_ROWS_CELLS,
    FRONT_ROW_CELLS,
    HEADQUARTERS_CELLS,
    LAYOUT_CELLS,
    PIECE_CELLS,
    Layout,
    random_layout,
    validate_layout,
)
from tbw_envs.junqi.pieces import (
    ARMY_COUNTS,
    BOMB,
    ENGINEER,
    FLAG,
    GENERAL,
    LIEUTENANT,
    MARSHAL,
    MINE,
    NUM_PIECE_TYPES,
)


def _cell(row: int, col: int) -> int:
    return row * COLS + col


def heuristic_layout(rng: random.Random) -> Layout:
    """A sound layout with the shape described in the module docstring (always legal)."""
    cells: list[int | None] = [None] * LAYOUT_CELLS
    free = set(PIECE_CELLS)
    remaining = list(ARMY_COUNTS)

    def put(cell: int, kind: int) -> None:
        cells[cell] = kind
        free.discard(cell)
        remaining[kind] -= 1

    def put_some(kind: int, count: int, candidates) -> None:
        options = sorted(c for c in candidates if c in free)
        for cell in rng.sample(options, min(count, len(options))):
            put(cell, kind)

    flag = rng.choice(sorted(HEADQUARTERS_CELLS))
    put(flag, FLAG)
    row, col = divmod(flag, COLS)
    # Beside the flag on the back row and in front of it.
    for cell in (_cell(row, col - 1), _cell(row, col + 1), _cell(row - 1, col)):
        put(cell, MINE)
    near_flag = [c for c in BACK_TWO_ROWS_CELLS if abs(c % COLS - col) <= 2]
    put_some(BOMB, 1, near_flag)
    middle = [c for c in PIECE_CELLS if 1 <= c // COLS <= 3]
    put_some(BOMB, remaining[BOMB], middle)
    put_some(MARSHAL, 1, middle)
    put_some(GENERAL, 1, middle)
    front_two = [c for c in PIECE_CELLS if c // COLS <= 1]
    put_some(ENGINEER, 2, front_two)
    put_some(LIEUTENANT, 2, FRONT_ROW_CELLS)
    rest = [kind for kind in range(NUM_PIECE_TYPES) for _ in range(remaining[kind])]
    rng.shuffle(rest)
    for cell, kind in zip(sorted(free), rest, strict=True):
        cells[cell] = kind
    layout = Layout(tuple(cells))
    validate_layout(layout, "heuristic layout")
    return layout


LAYOUT_POLICIES = {"random": random_layout, "heuristic": heuristic_layout}
