"""The 12 x 5 Junqi board as a graph, with the lookup tables move generation needs.

Posts are numbered row-major: A0 = 0 ... L4 = 59 (rows A-L top to bottom, columns 0-4). The board
is symmetric under a half turn, so ``59 - post`` is the same post seen from the other side; that
is how the top player's layouts, observations and actions are mirrored.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from tbw_envs.core.contract import short_repr

ROWS, COLS = 12, 5
NUM_POSTS = ROWS * COLS
ROW_LETTERS = "ABCDEFGHIJKL"

RAIL, ROAD, DIAGONAL = "rail", "road", "diagonal"

_RAIL_ROWS = (1, 5, 6, 10)  # B, F, G, K
_RAIL_COLUMNS = (0, 4)  # from row B to row K
_FRONT_CROSSINGS = (0, 2, 4)  # columns linking F to G; mountains block 1 and 3


def post_index(row: int, col: int) -> int:
    return row * COLS + col


def post_name(post: int) -> str:
    return f"{ROW_LETTERS[post // COLS]}{post % COLS}"


def parse_post(post: str | int) -> int:
    """Post index from a name like 'K0' (case-insensitive) or an int 0-59."""
    if isinstance(post, bool):
        raise ValueError(f"post must be a name like 'K0' or an int 0-59, got {short_repr(post)}")
    if isinstance(post, int) or hasattr(post, "__index__") and not isinstance(post, str):
        index = int(post)
        if 0 <= index < NUM_POSTS:
            return index
        raise ValueError(f"post {index} out of range 0-59")
    if not isinstance(post, str):
        raise ValueError(f"post must be a name like 'K0' or an int 0-59, got {type(post).__name__}")
    text = post.strip().upper()
    if len(text) == 2 and text[0] in ROW_LETTERS and text[1] in "01234":
        return post_index(ROW_LETTERS.index(text[0]), int(text[1]))
    raise ValueError(
        f"bad post name {short_repr(post)}: expected a row letter A-L and a column 0-4, e.g. 'K0'"
    )


def mirror_post(post: int) -> int:
    """The same post seen by the other player (a half turn of the board)."""
    return NUM_POSTS - 1 - post


HEADQUARTERS = frozenset(parse_post(name) for name in ("A1", "A3", "L1", "L3"))
CAMPS = frozenset(
    parse_post(name) for name in ("C1", "C3", "D2", "E1", "E3", "H1", "H3", "I2", "J1", "J3")
)


def owner_rows(player: int) -> range:
    """Rows a player deploys in: player 0 owns G-L (bottom), player 1 owns A-F."""
    return range(6, 12) if player == 0 else range(0, 6)


@dataclass(frozen=True)
class BoardGraph:
    """Links and per-post lookup tables; tuples throughout so the graph is shared read-only."""

    links: tuple[tuple[int, int, str], ...]
    neighbors: tuple[tuple[int, ...], ...]  # every link, any kind
    road_only_neighbors: tuple[tuple[int, ...], ...]  # links that are not railroad
    rail_neighbors: tuple[tuple[int, ...], ...]
    rail_rays: tuple[tuple[tuple[int, ...], ...], ...]  # straight railroad runs from each post
    is_rail: tuple[bool, ...]
    is_camp: tuple[bool, ...]
    is_headquarters: tuple[bool, ...]

    def link_kind(self, a: int, b: int) -> str | None:
        return _link_kinds(self).get((min(a, b), max(a, b)))


@lru_cache(maxsize=1)
def board_graph() -> BoardGraph:
    """The board graph; identical for every rule set, so it is built once per process."""
    links: dict[tuple[int, int], str] = {}

    def add(a: int, b: int, kind: str) -> None:
        links[(min(a, b), max(a, b))] = kind

    for row in range(ROWS):
        for col in range(COLS - 1):
            kind = RAIL if row in _RAIL_ROWS else ROAD
            add(post_index(row, col), post_index(row, col + 1), kind)
    for row in range(ROWS - 1):
        for col in range(COLS):
            if row == 5 and col not in _FRONT_CROSSINGS:
                continue
            on_rail_column = col in _RAIL_COLUMNS and row >= 1 and row + 1 <= 10
            kind = RAIL if on_rail_column or (row == 5 and col == 2) else ROAD
            add(post_index(row, col), post_index(row + 1, col), kind)
    for camp in sorted(CAMPS):
        row, col = divmod(camp, COLS)
        for d_row in (-1, 1):
            for d_col in (-1, 1):
                add(camp, post_index(row + d_row, col + d_col), DIAGONAL)

    neighbors: list[list[int]] = [[] for _ in range(NUM_POSTS)]
    road_only: list[list[int]] = [[] for _ in range(NUM_POSTS)]
    rail: list[list[int]] = [[] for _ in range(NUM_POSTS)]
    for (a, b), kind in sorted(links.items()):
        for x, y in ((a, b), (b, a)):
            neighbors[x].append(y)
            (rail if kind == RAIL else road_only)[x].append(y)

    rays: list[tuple[tuple[int, ...], ...]] = []
    for post in range(NUM_POSTS):
        post_rays = []
        for d_row, d_col in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            ray = []
            row, col = divmod(post, COLS)
            while True:
                row2, col2 = row + d_row, col + d_col
                if not (0 <= row2 < ROWS and 0 <= col2 < COLS):
                    break
                here, there = post_index(row, col), post_index(row2, col2)
                if links.get((min(here, there), max(here, there))) != RAIL:
                    break
                ray.append(there)
                row, col = row2, col2
            if ray:
                post_rays.append(tuple(ray))
        rays.append(tuple(post_rays))

    return BoardGraph(
        links=tuple((a, b, kind) for (a, b), kind in sorted(links.items())),
        neighbors=tuple(tuple(n) for n in neighbors),
        road_only_neighbors=tuple(tuple(n) for n in road_only),
        rail_neighbors=tuple(tuple(n) for n in rail),
        rail_rays=tuple(rays),
        is_rail=tuple(bool(rail[p]) for p in range(NUM_POSTS)),
        is_camp=tuple(p in CAMPS for p in range(NUM_POSTS)),
        is_headquarters=tuple(p in HEADQUARTERS for p in range(NUM_POSTS)),
    )


@lru_cache(maxsize=1)
def _link_kinds_cached() -> dict[tuple[int, int], str]:
    return {(a, b): kind for a, b, kind in board_graph().links}


def _link_kinds(graph: BoardGraph) -> dict[tuple[int, int], str]:
    return _link_kinds_cached()
