"""Priors over an opponent piece's type before any move: the exact marginal of a uniformly random
legal layout, and the Junqi paper's Table 1 for the headquarters."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from tbw_envs.junqi.layout import (
    BACK_TWO_ROWS_CELLS,
    FRONT_ROW_CELLS,
    HEADQUARTERS_CELLS,
    LAYOUT_CELLS,
    PIECE_CELLS,
)
from tbw_envs.junqi.pieces import (
    ARMY_COUNTS,
    ARMY_SIZE,
    BOMB,
    CAPTAIN,
    FLAG,
    LIEUTENANT,
    MAJOR,
    MINE,
    NUM_PIECE_TYPES,
)

# The paper's Table 1: an enemy headquarters at the start (platoon = lieutenant, battalion =
# major, company = captain; every other type 0).
PAPER_HEADQUARTERS_TABLE = {
    FLAG: 0.5, BOMB: 0.15, LIEUTENANT: 0.15, MINE: 0.1, MAJOR: 0.05, CAPTAIN: 0.05,
}  # fmt: skip
# Table 1 gives 0 to types a legal layout may put in a headquarters (an engineer, a general...);
# a zero prior can never recover, so a small share of the exact marginal is mixed in.
PAPER_HEADQUARTERS_SMOOTHING = 0.01


def uniform_layout_marginals() -> np.ndarray:
    """``(LAYOUT_CELLS, 12)``: P(type | owner-frame cell) under the uniform distribution over all
    legal layouts (zero rows on the camps).

    Derivation. The cells allowed to the flag (2 headquarters), mines (10 cells of the last two
    rows) and bombs (20 cells off the front row) are nested, so a uniform legal layout is drawn by
    placing the flag uniformly in a headquarters, then the 3 mines uniformly among the 9 free
    cells of the last two rows, then the 2 bombs uniformly among the 16 free non-front cells, then
    the 19 other pieces as a uniform arrangement of the 19 cells left: every partial choice leaves
    the same number of completions (2 x C(9,3) x C(16,2) x 19!/(1!1!2!2!2!2!3!3!3!) layouts in
    all). Hence, for a cell c,
        P(flag)  = 1/2 on a headquarters, else 0;
        P(mine)  = (1 - P(flag)) x 3/9 in the last two rows, else 0;
        P(bomb)  = (1 - P(flag) - P(mine)) x 2/16 off the front row, else 0;
        P(other type k) = (1 - P(flag) - P(mine) - P(bomb)) x count_k / 19.
    Headquarters: flag 1/2, mine 1/6, bomb 1/24, the rest 7/24; other cells of the last two rows:
    mine 1/3, bomb 1/12, the rest 7/12; middle rows: bomb 1/8, the rest 7/8; front row: the rest.
    The columns sum to ``ARMY_COUNTS`` and the rows to 1 (checked in the tests against
    ``random_layout`` samples).
    """
    back_cells = BACK_TWO_ROWS_CELLS
    non_front_cells = set(PIECE_CELLS) - FRONT_ROW_CELLS
    assert HEADQUARTERS_CELLS <= back_cells <= non_front_cells  # the nesting the count uses
    flags, mines, bombs = ARMY_COUNTS[FLAG], ARMY_COUNTS[MINE], ARMY_COUNTS[BOMB]
    others = ARMY_SIZE - flags - mines - bombs
    marginals = np.zeros((LAYOUT_CELLS, NUM_PIECE_TYPES))
    for cell in PIECE_CELLS:
        p_flag = Fraction(flags, len(HEADQUARTERS_CELLS)) if cell in HEADQUARTERS_CELLS else 0
        p_mine = (
            (1 - p_flag) * Fraction(mines, len(back_cells) - flags) if cell in back_cells else 0
        )
        p_bomb = (
            (1 - p_flag - p_mine) * Fraction(bombs, len(non_front_cells) - flags - mines)
            if cell in non_front_cells
            else 0
        )
        rest = 1 - p_flag - p_mine - p_bomb
        row = [rest * Fraction(ARMY_COUNTS[kind], others) for kind in range(NUM_PIECE_TYPES)]
        row[FLAG], row[MINE], row[BOMB] = p_flag, p_mine, p_bomb
        marginals[cell] = [float(p) for p in row]
    return marginals


LAYOUT_MARGINALS = uniform_layout_marginals()


def paper_prior(cell: int) -> np.ndarray:
    """The paper tracker's prior for a token deployed on owner-frame ``cell``: Table 1 (smoothed,
    see ``PAPER_HEADQUARTERS_SMOOTHING``) on a headquarters, the exact marginal elsewhere."""
    marginal = LAYOUT_MARGINALS[cell]
    if cell not in HEADQUARTERS_CELLS:
        return marginal.copy()
    table = np.zeros(NUM_PIECE_TYPES)
    for kind, p in PAPER_HEADQUARTERS_TABLE.items():
        table[kind] = p
    eps = PAPER_HEADQUARTERS_SMOOTHING
    return (1.0 - eps) * table + eps * marginal


# The paper tracker's prior for every owner-frame cell, by row.
PAPER_PRIORS = np.array([paper_prior(cell) for cell in range(LAYOUT_CELLS)])
