"""The TBW paper's Table 2 (Nan et al. 2016) as typed from the paper, never imported from the
code under test: the operation counts of Algorithms 2 and 5 and the printed percentages."""

from __future__ import annotations

# The TBW paper's Table 2 (Nan et al. 2016), typed from the paper ("Table 2: (a) For three
# units ... (b) For four units"), never imported from agents/tbw/table2.py:
# (units, movement points, placement) -> (Algorithm 2 ops1, Algorithm 5 ops1).
TABLE_2_OPS1 = {
    # (a) three units
    (3, 2, "dispersed"): (14274, 14235), (3, 2, "compact"): (9804, 9771),
    (3, 3, "dispersed"): (97650, 97575), (3, 3, "compact"): (79260, 79191),
    (3, 4, "dispersed"): (423858, 423735), (3, 4, "compact"): (371652, 371535),
    # (b) four units
    (4, 2, "dispersed"): (742560, 740272), (4, 2, "compact"): (345264, 343804),
    (4, 3, "dispersed"): (9765600, 9757600), (4, 3, "compact"): (6394800, 6388468),
    (4, 4, "dispersed"): (69513696, 69492704), (4, 4, "compact"): (53301744, 53283548),
}
# Table 2's D_ops1 row (percent, as printed) and its estimate row (the same in (a) and (b)).
TABLE_2_D_OPS1 = {
    (3, 2, "dispersed"): 0.27, (3, 2, "compact"): 0.34, (3, 3, "dispersed"): 0.077,
    (3, 3, "compact"): 0.087, (3, 4, "dispersed"): 0.029, (3, 4, "compact"): 0.031,
    (4, 2, "dispersed"): 0.31, (4, 2, "compact"): 0.42, (4, 3, "dispersed"): 0.082,
    (4, 3, "compact"): 0.099, (4, 4, "dispersed"): 0.030, (4, 4, "compact"): 0.034,
}
TABLE_2_D_OPS1_ESTIMATE = {2: 0.30, 3: 0.080, 4: 0.030}


def two_figures(x: float) -> float:
    """``x`` to two significant figures, as Table 2 prints its percentages."""
    return float(f"{x:.2g}")
