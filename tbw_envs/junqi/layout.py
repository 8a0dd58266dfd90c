"""One side's deployment as a person would type it, its checks, and a random-layout sampler.

Text format: 6 lines of 5 whitespace-separated tokens, written from the owner's point of view
(the owner sits at the bottom): the first line is the owner's front row, the last line its back
row with the headquarters in columns 1 and 3. Camps are written ``.``. A token is a piece name
(``engineer``), a two-letter code (``EN``) or the Chinese name (``工兵``). ``#`` starts a comment.
The same text serves either seat: player 0's first line is row G, player 1's is row F seen from
the top (a half turn of the board).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tbw_envs.core.configs_path import configs_dir
from tbw_envs.core.contract import is_integer, short_repr
from tbw_envs.core.yaml_loader import is_file, read_text
from tbw_envs.junqi.board import COLS, NUM_POSTS, post_index
from tbw_envs.junqi.pieces import (
    ARMY_COUNTS,
    ARMY_SIZE,
    BOMB,
    FLAG,
    MINE,
    NUM_PIECE_TYPES,
    PIECE_CHINESE,
    PIECE_CODES,
    PIECE_NAMES,
    piece_kind,
)

LAYOUT_ROWS = 6
LAYOUT_CELLS = LAYOUT_ROWS * COLS
# Cells in the owner's frame: row 0 is the front row, row 5 the back row.
CAMP_CELLS = frozenset({1 * COLS + 1, 1 * COLS + 3, 2 * COLS + 2, 3 * COLS + 1, 3 * COLS + 3})
HEADQUARTERS_CELLS = frozenset({5 * COLS + 1, 5 * COLS + 3})
BACK_TWO_ROWS_CELLS = frozenset(range(4 * COLS, 6 * COLS))
FRONT_ROW_CELLS = frozenset(range(COLS))
PIECE_CELLS = tuple(cell for cell in range(LAYOUT_CELLS) if cell not in CAMP_CELLS)
# Fixed order in which a player fills its posts in the deployment phase: back row first, so the
# constrained pieces (flag, mines) come early; the order is public and carries no information.
DEPLOY_CELLS = tuple(
    row * COLS + col for row in range(LAYOUT_ROWS - 1, -1, -1) for col in range(COLS)
    if row * COLS + col not in CAMP_CELLS
)  # fmt: skip


def cell_to_post(cell: int, player: int) -> int:
    """Absolute post of an owner-frame cell for ``player``."""
    row, col = divmod(cell, COLS)
    post = post_index(6 + row, col)
    return post if player == 0 else NUM_POSTS - 1 - post


def post_to_cell(post: int, player: int) -> int | None:
    """Owner-frame cell of an absolute post, or None when the post is not in the player's half."""
    if player == 1:
        post = NUM_POSTS - 1 - post
    cell = post - 6 * COLS
    return cell if 0 <= cell < LAYOUT_CELLS else None


def cell_allows(cell: int, kind: int) -> bool:
    """The placement constraints of one piece type on one cell (not the counts)."""
    if cell in CAMP_CELLS:
        return False
    if kind == FLAG:
        return cell in HEADQUARTERS_CELLS
    if kind == MINE:
        return cell in BACK_TWO_ROWS_CELLS
    if kind == BOMB:
        return cell not in FRONT_ROW_CELLS
    return True


@dataclass(frozen=True)
class Layout:
    """Piece type per owner-frame cell (None on the 5 camps)."""

    cells: tuple[int | None, ...]

    def __post_init__(self) -> None:
        # Any integer type names a piece (the input contract); store plain ints, so a numpy
        # integer compares, hashes and validates like the int it is. Bools stay bools, and
        # validate_layout refuses them.
        if isinstance(self.cells, (tuple, list)):
            cells = tuple(
                int(kind) if is_integer(kind) and not isinstance(kind, bool) else kind
                for kind in self.cells
            )
            object.__setattr__(self, "cells", cells)

    def pieces(self, player: int) -> dict[int, int]:
        """Absolute ``{post: kind}`` of this layout deployed by ``player``."""
        return {
            cell_to_post(cell, player): kind
            for cell, kind in enumerate(self.cells)
            if kind is not None
        }

    def to_text(self, chinese: bool = False) -> str:
        return format_layout(self, chinese=chinese)


def format_layout(layout: Layout, chinese: bool = False) -> str:
    names = PIECE_CHINESE if chinese else PIECE_CODES
    lines = []
    for row in range(LAYOUT_ROWS):
        tokens = []
        for col in range(COLS):
            kind = layout.cells[row * COLS + col]
            tokens.append("." if kind is None else names[kind])
        lines.append(" ".join(f"{token:>2}" for token in tokens).rstrip())
    return "\n".join(lines) + "\n"


def parse_layout(text: str, source: str = "layout") -> Layout:
    """Parse and validate layout text; errors name the line, column and broken constraint."""
    if not isinstance(text, str):
        raise ValueError(f"{source}: layout text must be a string, got {type(text).__name__}")
    rows = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            rows.append(line.split())
    if len(rows) != LAYOUT_ROWS:
        raise ValueError(f"{source}: a layout has {LAYOUT_ROWS} rows, got {len(rows)}")
    cells: list[int | None] = []
    for row, tokens in enumerate(rows):
        if len(tokens) != COLS:
            raise ValueError(f"{source}: row {row + 1} must have {COLS} tokens, got {len(tokens)}")
        for col, token in enumerate(tokens):
            cell = row * COLS + col
            if token == ".":
                if cell not in CAMP_CELLS:
                    raise ValueError(
                        f"{source}: row {row + 1} column {col}: '.' marks a camp, but this post "
                        f"is not a camp; every non-camp post needs a piece"
                    )
                cells.append(None)
                continue
            try:
                kind = piece_kind(token)
            except ValueError as exc:
                raise ValueError(f"{source}: row {row + 1} column {col}: {exc}") from None
            cells.append(kind)
    layout = Layout(tuple(cells))
    validate_layout(layout, source)
    return layout


def validate_layout(layout: Layout, source: str = "layout") -> None:
    """Raise ValueError naming the first broken deployment constraint."""
    if not isinstance(layout, Layout):
        raise ValueError(f"{source}: expected a Layout, got {type(layout).__name__}")
    if len(layout.cells) != LAYOUT_CELLS:
        raise ValueError(f"{source}: a layout has {LAYOUT_CELLS} cells, got {len(layout.cells)}")
    counts = [0] * NUM_PIECE_TYPES
    for cell, kind in enumerate(layout.cells):
        where = f"row {cell // COLS + 1} column {cell % COLS}"
        if cell in CAMP_CELLS:
            if kind is not None:
                raise ValueError(f"{source}: {where} is a camp; camps start empty")
            continue
        if kind is None:
            raise ValueError(f"{source}: {where} is empty; all 25 non-camp posts must be filled")
        if isinstance(kind, bool) or not isinstance(kind, int) or not 0 <= kind < NUM_PIECE_TYPES:
            raise ValueError(f"{source}: {where}: bad piece type {short_repr(kind)}")
        counts[kind] += 1
        if kind == FLAG and cell not in HEADQUARTERS_CELLS:
            raise ValueError(f"{source}: {where}: the flag must stand in a headquarters")
        if kind == MINE and cell not in BACK_TWO_ROWS_CELLS:
            raise ValueError(f"{source}: {where}: mines only in the last two rows")
        if kind == BOMB and cell in FRONT_ROW_CELLS:
            raise ValueError(f"{source}: {where}: bombs may not stand in the front row")
    for kind, (have, need) in enumerate(zip(counts, ARMY_COUNTS, strict=True)):
        if have != need:
            raise ValueError(
                f"{source}: the army has {need} x {PIECE_NAMES[kind]}, the layout has {have}"
            )


def layouts_dir() -> Path:
    return configs_dir() / "junqi" / "layouts"


def available_layouts() -> list[str]:
    return sorted(path.stem for path in layouts_dir().glob("*.txt"))


def load_layout(name_or_path: str | Path, source: str | None = None) -> Layout:
    """A bundled layout by name (``available_layouts()``) or a layout text file by path.
    ``source`` (e.g. "layout of player 1") prefixes error messages."""
    if not isinstance(name_or_path, (str, Path)):
        raise ValueError(f"layout name or path must be a string or Path, got "
                         f"{type(name_or_path).__name__} {short_repr(name_or_path)}")
    path = Path(name_or_path)
    prefix = f"{source}: " if source else ""
    if not is_file(path):
        path = layouts_dir() / f"{name_or_path}.txt"
        if not is_file(path):
            raise ValueError(
                f"{prefix}unknown layout {short_repr(str(name_or_path))}: not a file and not "
                f"one of {', '.join(available_layouts())}"
            )
    # The shared reader: UTF-8, a size limit, and errors that name the file.
    text = read_text(path, source=f"{prefix}{path}")
    return parse_layout(text, source=f"{prefix}{path}")


def coerce_layout(spec, source: str = "layout") -> Layout:
    """A Layout from a Layout, layout text, a bundled layout name, a file path, or 6 rows of
    5 tokens."""
    if isinstance(spec, Layout):
        validate_layout(spec, source)
        return spec
    if isinstance(spec, Path):
        return load_layout(spec, source)
    if isinstance(spec, str):
        if "\n" in spec:
            return parse_layout(spec, source)
        return load_layout(spec, source)
    if isinstance(spec, Sequence) and len(spec) == LAYOUT_ROWS:
        lines = []
        for number, row in enumerate(spec, 1):
            # Tokens are checked before str() sees them, so a nested structure cannot be
            # expanded into an enormous string.
            if isinstance(row, (list, tuple)) and len(row) == COLS and all(
                isinstance(token, str) or is_integer(token) for token in row
            ):
                row = " ".join(map(str, row))
            if not isinstance(row, str):
                raise ValueError(
                    f"{source}: row {number} must be a string or {COLS} tokens (piece names, "
                    f"codes or ints), got {short_repr(row)}"
                )
            lines.append(row)
        return parse_layout("\n".join(lines), source)
    raise ValueError(
        f"{source}: expected a Layout, layout text, a layout name or path, or 6 rows of 5 "
        f"tokens; got {type(spec).__name__}"
    )


def as_random(rng) -> random.Random:
    if isinstance(rng, random.Random):
        return rng
    if rng is None or isinstance(rng, int):
        return random.Random(rng)
    if hasattr(rng, "integers"):  # numpy Generator: derive a stdlib stream from it
        return random.Random(int(rng.integers(0, 2**63)))
    raise ValueError(
        f"rng must be None, an int seed, random.Random or numpy Generator: {short_repr(rng)}"
    )


def random_layout(rng=None) -> Layout:
    """A uniformly random legal layout. ``rng``: None, int seed, random.Random or numpy
    Generator. Placing the flag, then the mines, then the bombs, then the rest is uniform over
    all legal layouts because every such partial choice has the same number of completions."""
    return Layout(random_layout_cells(as_random(rng)))


def random_layout_cells(rand: random.Random) -> tuple[int | None, ...]:
    """``random_layout``'s cells, drawn from ``rand``: legal by construction, so the batched
    core takes them without the checks a ``Layout`` makes. Each draw is made from the free
    cells that allow the type, in increasing order (the order fixes which cells a seed gives)."""
    cells: list[int | None] = [None] * LAYOUT_CELLS
    used: set[int] = set()
    for kind, count, allowed in _PLACEMENT_ORDER:
        for cell in rand.sample([c for c in allowed if c not in used], count):
            cells[cell] = kind
            used.add(cell)
    rest = list(_UNCONSTRAINED_ARMY)
    rand.shuffle(rest)
    # strict=True also guarantees every free cell got a piece: the army exactly fills them.
    for cell, kind in zip([c for c in PIECE_CELLS if c not in used], rest, strict=True):
        cells[cell] = kind
    return tuple(cells)


# The constrained types first, each with the cells that allow it (increasing), then the rest.
_PLACEMENT_ORDER = (
    (FLAG, 1, tuple(sorted(HEADQUARTERS_CELLS))),
    (MINE, ARMY_COUNTS[MINE], tuple(c for c in PIECE_CELLS if c in BACK_TWO_ROWS_CELLS)),
    (BOMB, ARMY_COUNTS[BOMB], tuple(c for c in PIECE_CELLS if c not in FRONT_ROW_CELLS)),
)
_UNCONSTRAINED_ARMY = tuple(
    kind for kind in range(NUM_PIECE_TYPES) if kind not in (FLAG, MINE, BOMB)
    for _ in range(ARMY_COUNTS[kind])
)  # fmt: skip


def deployment_choices(placed: Sequence[int]) -> list[int]:
    """Piece types a player may put on its next deployment cell, given the types already placed
    on the first ``len(placed)`` cells of ``DEPLOY_CELLS``. A type is allowed when the cell
    accepts it, one is left, and the remaining pieces still fit the remaining cells."""
    index = len(placed)
    if index >= ARMY_SIZE:
        return []
    remaining = list(ARMY_COUNTS)
    for kind in placed:
        remaining[kind] -= 1
    cell = DEPLOY_CELLS[index]
    later = DEPLOY_CELLS[index + 1 :]
    choices = []
    for kind in range(NUM_PIECE_TYPES):
        if remaining[kind] <= 0 or not cell_allows(cell, kind):
            continue
        remaining[kind] -= 1
        if _fits(remaining, later):
            choices.append(kind)
        remaining[kind] += 1
    return choices


def _fits(remaining: list[int], cells: Sequence[int]) -> bool:
    # The cells allowed to flag, mine and bomb are nested (headquarters within the last two rows
    # within the non-front rows), so Hall's condition reduces to three counting checks.
    headquarters = sum(1 for cell in cells if cell in HEADQUARTERS_CELLS)
    back = sum(1 for cell in cells if cell in BACK_TWO_ROWS_CELLS)
    non_front = sum(1 for cell in cells if cell not in FRONT_ROW_CELLS)
    return (
        remaining[FLAG] <= headquarters
        and remaining[FLAG] + remaining[MINE] <= back
        and remaining[FLAG] + remaining[MINE] + remaining[BOMB] <= non_front
    )
