"""Junqi facts written by hand from the rules text (docs/junqi_rules.md), never read from the code
under test: row letters, piece names in type order, camps, headquarters, the board's links read off
the diagram and the army's composition; and small quiet positions in which only two majors
shuffle."""

from __future__ import annotations

from tbw_envs.junqi import (
    JunqiState,
    encode_action,
)

ROWS = "ABCDEFGHIJKL"
NAMES = (
    "marshal", "general", "major_general", "brigadier", "colonel", "major", "captain",
    "lieutenant", "engineer", "mine", "bomb", "flag",
)  # fmt: skip
CAMP_NAMES = ("C1", "C3", "D2", "E1", "E3", "H1", "H3", "I2", "J1", "J3")
HQ_NAMES = ("A1", "A3", "L1", "L3")


def move(state, a, b):
    return state.apply(encode_action(a, b))


# ---------------------------------------------------------------- the board, listed by hand
def _hand_links():
    """Links read off the diagram: rows B, F, G, K rail across; columns 0 and 4 rail from B to K
    (A-B and K-L are road); F2-G2 rail; F1-G1 and F3-G3 absent; camp diagonals."""
    links = {}
    for r, row in enumerate(ROWS):
        for c in range(4):
            links[frozenset((f"{row}{c}", f"{row}{c + 1}"))] = "rail" if row in "BFGK" else "road"
        if r == 11:
            continue
        below = ROWS[r + 1]
        for c in range(5):
            if row == "F" and c in (1, 3):
                continue  # mountains
            rail = (c in (0, 4) and row in "BCDEFGHIJ") or (row == "F" and c == 2)
            links[frozenset((f"{row}{c}", f"{below}{c}"))] = "rail" if rail else "road"
    for camp in CAMP_NAMES:
        r, c = ROWS.index(camp[0]), int(camp[1])
        for dr in (-1, 1):
            for dc in (-1, 1):
                links[frozenset((camp, f"{ROWS[r + dr]}{c + dc}"))] = "diagonal"
    return links


HAND_LINKS = _hand_links()


def quiet_position(extra=(), rules="ccgc"):
    pieces = {"L1": (0, "flag"), "K4": (0, "major"), "A1": (1, "flag"), "B4": (1, "major")}
    pieces.update(dict(extra))
    return JunqiState.from_pieces(pieces, rules=rules)


# Figures from the sources, typed here (never imported from the code under test).
# The army, docs/junqi_rules.md ("The army"), in piece-type order: marshal,
# general, major general, brigadier, colonel, major, captain, lieutenant, engineer, mine, bomb,
# flag. (The Junqi paper's section 2.1 lists one bomb and one engineer, 22 pieces: an error in
# the paper; the standard army has 25 pieces, docs/junqi_rules.md.)
ARMY = (1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 2, 1)
