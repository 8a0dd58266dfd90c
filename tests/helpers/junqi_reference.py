"""Independent reference for the Junqi board and moves, built from the ASCII board in the rules.

Deliberately naive (sets, explicit paths) so the fast tables in ``tbw_envs.junqi`` can be checked
against something that shares none of their construction code.
"""

from __future__ import annotations

# The board figure of the CCGC rules text (docs/junqi_rules.md describes it), comments cut off
# at column 32.
ASCII_BOARD = r"""
      0     1     2     3     4
A     o --- H --- o --- H --- o
      |     |     |     |     |
B     R === R === R === R === R
      ‖  \  |  /  |  \  |  /  ‖
C     R --- C --- o --- C --- R
      ‖  /  |  \  |  /  |  \  ‖
D     R --- o --- C --- o --- R
      ‖  \  |  /  |  \  |  /  ‖
E     R --- C --- o --- C --- R
      ‖  /  |  \  |  /  |  \  ‖
F     R === R === R === R === R
      ‖    /^\    ‖    /^\    ‖
G     R === R === R === R === R
      ‖  \  |  /  |  \  |  /  ‖
H     R --- C --- o --- C --- R
      ‖  /  |  \  |  /  |  \  ‖
I     R --- o --- C --- o --- R
      ‖  \  |  /  |  \  |  /  ‖
J     R --- C --- o --- C --- R
      ‖  /  |  \  |  /  |  \  ‖
K     R === R === R === R === R
      |     |     |     |     |
L     o --- H --- o --- H --- o
"""

POST_COLUMNS = (6, 12, 18, 24, 30)


def parse_ascii_board():
    """(post symbols, links {frozenset({a, b}): 'rail' | 'road' | 'diagonal'})."""
    lines = [line for line in ASCII_BOARD.splitlines()[2:] if line.strip()]
    post_lines = lines[0::2]
    between_lines = lines[1::2]
    assert len(post_lines) == 12 and len(between_lines) == 11
    symbols = {}
    links = {}
    for row, line in enumerate(post_lines):
        for col, x in enumerate(POST_COLUMNS):
            symbols[row * 5 + col] = line[x]
        for col in range(4):
            connector = line[POST_COLUMNS[col] + 2 : POST_COLUMNS[col + 1] - 1]
            kind = {"===": "rail", "---": "road"}[connector]
            links[frozenset({row * 5 + col, row * 5 + col + 1})] = kind
    for row, line in enumerate(between_lines):
        line = line.ljust(32)
        for col, x in enumerate(POST_COLUMNS):
            mark = line[x]
            if mark in "|‖":
                links[frozenset({row * 5 + col, (row + 1) * 5 + col})] = (
                    "rail" if mark == "‖" else "road"
                )
        for col in range(4):
            mark = line[POST_COLUMNS[col] + 3]
            if mark == "\\":
                links[frozenset({row * 5 + col, (row + 1) * 5 + col + 1})] = "diagonal"
            elif mark == "/":
                links[frozenset({row * 5 + col + 1, (row + 1) * 5 + col})] = "diagonal"
    return symbols, links


SYMBOLS, LINKS = parse_ascii_board()

NEIGHBORS = {p: set() for p in range(60)}

RAIL_NEIGHBORS = {p: set() for p in range(60)}


for _pair, _kind in LINKS.items():
    _a, _b = tuple(_pair)
    NEIGHBORS[_a].add(_b)
    NEIGHBORS[_b].add(_a)
    if _kind == "rail":
        RAIL_NEIGHBORS[_a].add(_b)
        RAIL_NEIGHBORS[_b].add(_a)


CAMP_POSTS = {p for p, s in SYMBOLS.items() if s == "C"}

HQ_POSTS = {p for p, s in SYMBOLS.items() if s == "H"}

ENGINEER, MINE, FLAG = 8, 9, 11


def reference_destinations(owner, kind, post):
    """Destinations of the piece on ``post`` under CCGC rules, by explicit search."""
    player = owner[post]
    if player < 0 or kind[post] in (MINE, FLAG) or post in HQ_POSTS:
        return set()

    def enterable(target):
        return owner[target] < 0 or (owner[target] != player and target not in CAMP_POSTS)

    found = {target for target in NEIGHBORS[post] if enterable(target)}
    if not RAIL_NEIGHBORS[post]:
        return found
    if kind[post] == ENGINEER:
        stack, seen = [post], {post}
        while stack:
            here = stack.pop()
            for target in RAIL_NEIGHBORS[here]:
                if target in seen:
                    continue
                seen.add(target)
                if owner[target] < 0:
                    found.add(target)
                    stack.append(target)
                elif owner[target] != player:
                    found.add(target)
        return found
    row, col = divmod(post, 5)
    for d_row, d_col in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        r, c = row, col
        while True:
            nr, nc = r + d_row, c + d_col
            if not (0 <= nr < 12 and 0 <= nc < 5):
                break
            if (
                frozenset({r * 5 + c, nr * 5 + nc}) not in LINKS
                or LINKS[frozenset({r * 5 + c, nr * 5 + nc})] != "rail"
            ):
                break
            target = nr * 5 + nc
            if owner[target] < 0:
                found.add(target)
                r, c = nr, nc
                continue
            if owner[target] != player:
                found.add(target)
            break
    return found
