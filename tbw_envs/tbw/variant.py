"""TBW scenarios: YAML files (or dicts of the same shape), validated on load.

Every validation error is a ``ScenarioError`` (a ``ConfigError``, so a ``ValueError``) whose
message names the source (file or ``<dict>``), the field and the problem, for example
``duel.yaml: units[3].pos: (9, 2) is outside the 8 x 8 board``. Files go through the project's
one YAML loader (``tbw_envs.core.yaml_loader``), and the size limits below are checked before
anything is built, so no file can make loading hang or exhaust memory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from tbw_envs.core.configs_path import configs_dir
from tbw_envs.core.contract import is_integer, short_repr
from tbw_envs.core.yaml_loader import ConfigError, is_file, load_yaml
from tbw_envs.tbw.board import TOPOLOGIES, Board

WIN_RULES = ("annihilation", "leader", "none")
TURN_LIMIT_RESULTS = ("draw", "hp")
DEFAULT_MOVE_CLASS = "foot"

# Size limits (docs/input_contract.md). Building a board costs time and memory in the square of
# its tile count (the distance table), so the largest boards are capped.
MAX_BOARD_SIDE = 100
MAX_BOARD_TILES = 2500
MAX_UNITS_PER_SIDE = 32
MAX_TYPES = 64  # terrain types, unit types and movement classes, each
MAX_NAME_CHARS = 100
MAX_DESCRIPTION_CHARS = 4000
# Hp, ATK, movement points, terrain costs, attack ranges and max_turns: far above any real
# scenario, and it keeps every value convertible to float (observations, path costs), which an
# unbounded integer is not.
MAX_STAT = 1_000_000


class ScenarioError(ConfigError):
    """A scenario that cannot be loaded: the message names the source, field and problem."""


@dataclass(frozen=True)
class TerrainType:
    name: str
    # movement class -> cost of entering a tile of this terrain; None = cannot enter.
    cost: dict[str, float | None]
    default_cost: float | None
    shoot_over: bool
    char: str

    def cost_for(self, move_class: str) -> float | None:
        return self.cost.get(move_class, self.default_cost)

    @property
    def passable(self) -> bool:
        return self.default_cost is not None or any(c is not None for c in self.cost.values())


@dataclass(frozen=True)
class UnitType:
    name: str
    hp: int
    atk: int
    move: float
    range_min: int
    range_max: int
    move_class: str


@dataclass(frozen=True)
class UnitSpec:
    id: int
    side: int
    slot: int
    type: UnitType
    row: int
    col: int
    leader: bool
    hp: int


class Scenario:
    """A validated scenario plus the lookup tables the game core needs (built once)."""

    def __init__(
        self,
        *,
        name: str,
        board: Board,
        terrain_grid: list[str],
        terrain_types: dict[str, TerrainType],
        unit_types: dict[str, UnitType],
        units: list[UnitSpec],
        first_side: int,
        max_turns: int,
        win: str,
        line_of_sight: bool,
        turn_limit_result: str,
        source: str,
        description: str = "",
    ):
        self.name = name
        self.description = description
        self.source = source
        self.board = board
        self.terrain_grid = terrain_grid
        self.terrain_types = terrain_types
        self.terrain_names = list(terrain_types)
        self.unit_types = unit_types
        self.units = units
        self.first_side = first_side
        self.max_turns = max_turns
        self.win = win
        self.line_of_sight = line_of_sight
        self.turn_limit_result = turn_limit_result

        self.unit_sides = tuple(u.side for u in units)
        self.units_per_side = max(
            1, max((sum(1 for u in units if u.side == s) for s in (0, 1)), default=1)
        )
        self.side_units: tuple[tuple[int, ...], tuple[int, ...]] = (
            tuple(u.id for u in units if u.side == 0),
            tuple(u.id for u in units if u.side == 1),
        )
        self.terrain_index = [self.terrain_names.index(name) for name in terrain_grid]
        move_classes = sorted({t.move_class for t in unit_types.values()} | {DEFAULT_MOVE_CLASS})
        self.move_costs: dict[str, tuple[float | None, ...]] = {
            cls: tuple(terrain_types[name].cost_for(cls) for name in terrain_grid)
            for cls in move_classes
        }
        # Tiles that stop a ranged attack under the line-of-sight option: impassable to every
        # class and not marked shoot_over (hills, walls; not lakes).
        self.blocks_sight = tuple(
            not terrain_types[name].passable and not terrain_types[name].shoot_over
            for name in terrain_grid
        )
        self.num_actions = self.units_per_side * board.size * (self.units_per_side + 1) + 1

    @property
    def end_turn_action(self) -> int:
        return self.num_actions - 1

    def unit_action(self, slot: int, tile: int, enemy_slot: int | None) -> int:
        """The action id of the acting side's unit in ``slot`` moving to ``tile`` and attacking
        the enemy in ``enemy_slot`` (None: no attack). The one definition of the encoding."""
        n = self.units_per_side
        k = n if enemy_slot is None else enemy_slot
        return (slot * self.board.size + tile) * (n + 1) + k

    def split_action(self, action: int) -> tuple[int, int, int | None]:
        """Inverse of ``unit_action`` for a unit action id: (slot, tile, enemy slot or None)."""
        n = self.units_per_side
        rest, k = divmod(action, n + 1)
        slot, tile = divmod(rest, self.board.size)
        return slot, tile, None if k == n else k

    def longest_game(self) -> tuple[int, str]:
        """The most plies a game can last (every unit acts once a turn, for ``max_turns``
        turns), and how that number comes about."""
        units = len(self.units)
        plies = self.max_turns * units
        return plies, f"{self.max_turns} turns x {units} units = {plies} plies"

    def __repr__(self) -> str:
        b = self.board
        return (
            f"Scenario({self.name!r}, {b.topology} {b.rows}x{b.cols}, "
            f"{len(self.side_units[0])} v {len(self.side_units[1])} units)"
        )


# --------------------------------------------------------------------------- loading


def available_scenarios() -> list[str]:
    return sorted(p.stem for p in (configs_dir() / "tbw").glob("*.yaml"))


def load_scenario(spec: str | Path | dict | Scenario) -> Scenario:
    """Load a scenario from a bundled name (``"duel_5v5_8x8"``), a YAML path, or a dict."""
    if isinstance(spec, Scenario):
        return spec
    if isinstance(spec, dict):
        return parse_scenario(spec, source="<dict>")
    if not isinstance(spec, (str, Path)):
        raise ScenarioError(
            f"scenario must be a name, a path or a dict, got {type(spec).__name__} "
            f"{short_repr(spec)}"
        )
    path = Path(spec)
    if not is_file(path):
        bundled = configs_dir() / "tbw" / f"{spec}.yaml"
        if isinstance(spec, str) and is_file(bundled):
            path = bundled
        else:
            raise ScenarioError(
                f"unknown scenario {short_repr(str(spec))}: not a file and not a bundled "
                f"scenario; bundled: {', '.join(available_scenarios())}"
            )
    data = load_yaml(path, error=ScenarioError, source=path.name)
    return parse_scenario(data, source=path.name, default_name=path.stem)


def _fail(source: str, field: str, problem: str):
    raise ScenarioError(f"{source}: {field}: {problem}")


def _mapping(value, source: str, field: str, max_items: int | None = None) -> dict:
    if not isinstance(value, dict):
        _fail(source, field, f"expected a mapping, got {type(value).__name__} "
                             f"{short_repr(value)}")
    if max_items is not None and len(value) > max_items:
        _fail(source, field, f"at most {max_items} entries, got {len(value)}")
    return value


def _number(value, source: str, field: str, *, minimum=None, maximum=MAX_STAT, integer=False):
    if not (is_integer(value) or isinstance(value, (float, np.floating))):
        _fail(source, field, f"expected a number, got {short_repr(value)}")
    if isinstance(value, (float, np.floating)) and not math.isfinite(value):
        _fail(source, field, f"expected a finite number, got {value!r}")
    if minimum is not None and value < minimum:
        _fail(source, field, f"must be >= {minimum}, got {short_repr(value)}")
    if maximum is not None and value > maximum:
        _fail(source, field, f"must be <= {maximum}, got {short_repr(value)}")
    if integer:
        if int(value) != value:
            _fail(source, field, f"expected an integer, got {value!r}")
        return int(value)
    return int(value) if is_integer(value) else float(value)


def _bool(value, source: str, field: str) -> bool:
    if not isinstance(value, bool):
        _fail(source, field, f"expected true or false, got {short_repr(value)}")
    return value


def _choice(value, choices, source: str, field: str) -> str:
    # The type test keeps lists and dicts away from ``in`` (and from hashing).
    if not isinstance(value, str) or value not in choices:
        _fail(source, field, f"{short_repr(value)} is not one of {list(choices)}")
    return value


def _name(key, source: str, field: str) -> str:
    """A name used as a mapping key (terrain, unit type, movement class)."""
    if is_integer(key):
        key = str(key)
    if not isinstance(key, str):
        hint = " (YAML reads yes/no/on/off/true/false as booleans: quote it)" if isinstance(
            key, bool) else ""
        _fail(source, field, f"names must be strings, got {short_repr(key)}{hint}")
    if not key or len(key) > MAX_NAME_CHARS:
        _fail(source, field, f"names must have 1 to {MAX_NAME_CHARS} characters, got "
                             f"{short_repr(key)}")
    return key


def _defined(name, defined: dict, source: str, field: str, section: str) -> None:
    """``name`` refers to an entry of the ``section`` mapping (``defined``)."""
    # A list or dict here would otherwise reach ``in`` and fail as "unhashable type".
    if not isinstance(name, str):
        _fail(source, field, f"expected the name of an entry under {section}:, got "
                             f"{type(name).__name__} {short_repr(name)}")
    if name not in defined:
        if section == "unit_types":
            _fail(source, field, f"unknown unit type {short_repr(name)}; known: {sorted(defined)}")
        _fail(source, field, f"{section} {short_repr(name)} is not defined under {section}: "
                             f"{sorted(defined)}")


def _text(value, source: str, field: str, max_chars: int) -> str:
    if not isinstance(value, str):
        _fail(source, field, f"expected a string, got {type(value).__name__} {short_repr(value)}")
    if len(value) > max_chars:
        _fail(source, field, f"at most {max_chars} characters, got {len(value)}")
    return value


def _check_keys(data: dict, allowed: set[str], source: str, field: str):
    unknown = [k for k in data if not isinstance(k, str) or k not in allowed]
    if unknown:
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        shown = "[" + ", ".join(short_repr(k) for k in unknown[:5]) + more + "]"
        _fail(source, field, f"unknown key(s) {shown}; allowed: {sorted(allowed)}")


def _parse_terrain(name: str, spec, source: str) -> TerrainType:
    field = f"terrain.{name}"
    spec = _mapping(spec if spec is not None else {}, source, field)
    _check_keys(spec, {"cost", "passable", "shoot_over", "char"}, source, field)
    passable = _bool(spec.get("passable", True), source, f"{field}.passable")
    shoot_over = _bool(spec.get("shoot_over", False), source, f"{field}.shoot_over")
    raw_cost = spec.get("cost", 1)
    per_class: dict[str, float | None] = {}
    default: float | None
    if isinstance(raw_cost, dict):
        _mapping(raw_cost, source, f"{field}.cost", max_items=MAX_TYPES + 1)
        default = None
        for raw_cls, c in raw_cost.items():
            cls = _name(raw_cls, source, f"{field}.cost")
            value = None if c is None else _number(c, source, f"{field}.cost.{cls}", minimum=0)
            if value == 0:
                _fail(source, f"{field}.cost.{cls}", "must be positive (use null for impassable)")
            if cls == "default":
                default = value
            else:
                per_class[cls] = value
    else:
        default = _number(raw_cost, source, f"{field}.cost", minimum=0)
        if default == 0:
            _fail(source, f"{field}.cost", "must be positive")
    if not passable:
        per_class = {}
        default = None
    char = spec.get("char", "")
    if is_integer(char):  # YAML reads ``char: 7`` as a number
        char = str(char)
    if not isinstance(char, str) or len(char) > 1:
        _fail(source, f"{field}.char", f"expected a single character, got {short_repr(char)}")
    return TerrainType(name, per_class, default, shoot_over, char)


def _parse_unit_type(name: str, spec, source: str) -> UnitType:
    field = f"unit_types.{name}"
    spec = _mapping(spec, source, field)
    _check_keys(spec, {"hp", "atk", "move", "range", "move_class"}, source, field)
    for key in ("hp", "atk", "move"):
        if key not in spec:
            _fail(source, f"{field}.{key}", "missing")
    hp = _number(spec["hp"], source, f"{field}.hp", minimum=1, integer=True)
    atk = _number(spec["atk"], source, f"{field}.atk", minimum=0, integer=True)
    move = _number(spec["move"], source, f"{field}.move", minimum=0)
    rng = spec.get("range", [1, 1])
    if is_integer(rng):
        rng = [rng, rng]
    if not isinstance(rng, (list, tuple)) or len(rng) != 2:
        _fail(source, f"{field}.range", f"expected [min, max], got {short_repr(rng)}")
    rmin = _number(rng[0], source, f"{field}.range[0]", minimum=1, integer=True)
    rmax = _number(rng[1], source, f"{field}.range[1]", minimum=1, integer=True)
    if rmin > rmax:
        _fail(source, f"{field}.range", f"min {rmin} is greater than max {rmax}")
    move_class = spec.get("move_class", DEFAULT_MOVE_CLASS)
    if not isinstance(move_class, str):
        _fail(source, f"{field}.move_class", f"expected a name, got {short_repr(move_class)}")
    move_class = _name(move_class, source, f"{field}.move_class")
    return UnitType(name, hp, atk, move, rmin, rmax, move_class)


def parse_scenario(data: Any, source: str = "<dict>", default_name: str = "scenario") -> Scenario:
    """Validate ``data`` (a scenario mapping) and build the Scenario; ``ScenarioError`` names
    ``source``, the field and the problem. Size limits are checked before anything is built."""
    data = _mapping(data, source, "scenario")
    _check_keys(
        data,
        {"name", "description", "board", "terrain", "unit_types", "units", "first_side",
         "max_turns", "win", "rules"},
        source,
        "scenario",
    )
    for key in ("board", "unit_types", "units"):
        if key not in data:
            _fail(source, key, "missing")
    # Counted here, before the board (the costly part) is built.
    if isinstance(data["units"], list) and len(data["units"]) > 2 * MAX_UNITS_PER_SIDE:
        _fail(source, "units",
              f"{len(data['units'])} units; at most {MAX_UNITS_PER_SIDE} per side")
    name = _text(data.get("name", default_name), source, "name", MAX_NAME_CHARS)
    if not name:
        _fail(source, "name", "must not be empty")
    description = data.get("description", "")
    description = _text(
        "" if description is None else description, source, "description", MAX_DESCRIPTION_CHARS
    )

    terrain_specs = _mapping(
        data.get("terrain", {"plain": {"cost": 1}}), source, "terrain", max_items=MAX_TYPES
    )
    if not terrain_specs:
        _fail(source, "terrain", "at least one terrain type is needed")
    terrain_types = {}
    for key, spec in terrain_specs.items():
        tname = _name(key, source, "terrain")
        if tname in terrain_types:
            _fail(source, f"terrain.{tname}", "given twice (as a string and a number)")
        terrain_types[tname] = _parse_terrain(tname, spec, source)

    board_spec = _mapping(data["board"], source, "board")
    _check_keys(
        board_spec, {"topology", "terrain", "legend", "rows", "cols", "default_terrain"},
        source, "board",
    )
    topology = _choice(board_spec.get("topology", "square4"), TOPOLOGIES, source, "board.topology")
    terrain_grid = _parse_terrain_grid(board_spec, terrain_types, source)
    rows, cols = len(terrain_grid), len(terrain_grid[0])
    board = Board(topology, rows, cols)
    flat_terrain = [name for row in terrain_grid for name in row]

    type_specs = _mapping(data["unit_types"], source, "unit_types", max_items=MAX_TYPES)
    if not type_specs:
        _fail(source, "unit_types", "at least one unit type is needed")
    unit_types = {}
    for key, spec in type_specs.items():
        uname = _name(key, source, "unit_types")
        if uname in unit_types:
            _fail(source, f"unit_types.{uname}", "given twice (as a string and a number)")
        unit_types[uname] = _parse_unit_type(uname, spec, source)
    for ut in unit_types.values():
        for tname, tt in terrain_types.items():
            # A per-class mapping must say something about every class in play: a forgotten
            # class would otherwise silently make the terrain impassable to it.
            if tt.passable and ut.move_class not in tt.cost and tt.default_cost is None:
                _fail(source, f"terrain.{tname}.cost",
                      f"no cost for move class {ut.move_class!r} (used by unit type "
                      f"{ut.name!r}); give it a number, null for impassable, or a 'default'")

    win = _choice(data.get("win", "annihilation"), WIN_RULES, source, "win")
    units = _parse_units(data["units"], unit_types, terrain_types, flat_terrain, board, source)
    if win == "leader":
        for side in (0, 1):
            side_units = [u for u in units if u.side == side]
            if side_units and not any(u.leader for u in side_units):
                _fail(source, "units", f"win is 'leader' but side {side} has no leader")

    first_side = data.get("first_side", 0)
    if not is_integer(first_side) or first_side not in (0, 1):
        _fail(source, "first_side", f"must be 0 or 1, got {short_repr(first_side)}")
    max_turns = _number(data.get("max_turns", 50), source, "max_turns", minimum=1, integer=True)

    rules = data.get("rules")
    rules = _mapping({} if rules is None else rules, source, "rules")
    _check_keys(rules, {"line_of_sight", "turn_limit_result"}, source, "rules")
    line_of_sight = _bool(rules.get("line_of_sight", False), source, "rules.line_of_sight")
    turn_limit_result = _choice(
        rules.get("turn_limit_result", "draw"), TURN_LIMIT_RESULTS, source,
        "rules.turn_limit_result",
    )
    return Scenario(
        name=name,
        board=board,
        terrain_grid=flat_terrain,
        terrain_types=terrain_types,
        unit_types=unit_types,
        units=units,
        first_side=int(first_side),
        max_turns=max_turns,
        win=win,
        line_of_sight=line_of_sight,
        turn_limit_result=turn_limit_result,
        source=source,
        description=description,
    )


def _check_board_size(rows: int, cols: int, source: str, field: str) -> None:
    if rows > MAX_BOARD_SIDE or cols > MAX_BOARD_SIDE:
        _fail(source, field, f"{rows} x {cols} board: at most {MAX_BOARD_SIDE} rows and "
                             f"{MAX_BOARD_SIDE} columns")
    if rows * cols > MAX_BOARD_TILES:
        _fail(source, field, f"{rows} x {cols} board has {rows * cols} tiles; at most "
                             f"{MAX_BOARD_TILES}")


def _parse_terrain_grid(board_spec: dict, terrain_types: dict, source: str) -> list[list[str]]:
    if "terrain" in board_spec:
        rows = board_spec["terrain"]
        if not isinstance(rows, list) or not rows or not all(isinstance(r, str) for r in rows):
            _fail(source, "board.terrain", "expected a non-empty list of strings, one per row")
        width = len(rows[0])
        if width == 0:
            _fail(source, "board.terrain", "rows are empty")
        _check_board_size(len(rows), width, source, "board.terrain")
        legend = _mapping(board_spec.get("legend", {}), source, "board.legend")
        checked = {}
        for key, tname in legend.items():
            char = str(key) if is_integer(key) else key
            if not isinstance(char, str) or len(char) != 1:
                shown = key if isinstance(key, str) and len(key) <= 20 else short_repr(key)
                _fail(source, f"board.legend.{shown}",
                      "legend keys must be single characters")
            _defined(tname, terrain_types, source, f"board.legend.{char}", "terrain")
            checked[char] = tname
        legend = checked
        grid = []
        for r, line in enumerate(rows):
            if len(line) != width:
                _fail(source, f"board.terrain[{r}]",
                      f"has {len(line)} columns, row 0 has {width}")
            row = []
            for c, char in enumerate(line):
                if char not in legend:
                    _fail(source, f"board.terrain[{r}][{c}]",
                          f"character {char!r} is not in board.legend {sorted(legend)}")
                row.append(legend[char])
            grid.append(row)
        for char, tname in legend.items():
            if not terrain_types[tname].char:
                terrain_types[tname] = replace(terrain_types[tname], char=char)
        return grid
    for key in ("rows", "cols"):
        if key not in board_spec:
            _fail(source, f"board.{key}", "missing (give board.terrain strings or rows and cols)")
    rows = _number(board_spec["rows"], source, "board.rows", minimum=1,
                   maximum=MAX_BOARD_SIDE, integer=True)
    cols = _number(board_spec["cols"], source, "board.cols", minimum=1,
                   maximum=MAX_BOARD_SIDE, integer=True)
    _check_board_size(rows, cols, source, "board")
    fill = board_spec.get("default_terrain", next(iter(terrain_types)))
    _defined(fill, terrain_types, source, "board.default_terrain", "terrain")
    return [[fill] * cols for _ in range(rows)]


def _parse_units(specs, unit_types, terrain_types, flat_terrain, board, source) -> list[UnitSpec]:
    if not isinstance(specs, list):
        _fail(source, "units", f"expected a list, got {type(specs).__name__}")
    if len(specs) > 2 * MAX_UNITS_PER_SIDE:
        _fail(source, "units", f"{len(specs)} units; at most {MAX_UNITS_PER_SIDE} per side")
    occupied: dict[int, int] = {}
    units: list[UnitSpec] = []
    slots = [0, 0]
    for i, spec in enumerate(specs):
        field = f"units[{i}]"
        spec = _mapping(spec, source, field)
        _check_keys(spec, {"side", "type", "pos", "leader", "hp"}, source, field)
        side = spec.get("side")
        # 1.0 and True compare equal to 1; only integers name a side.
        if not is_integer(side) or side not in (0, 1):
            _fail(source, f"{field}.side", f"must be 0 or 1, got {short_repr(side)}")
        side = int(side)
        if slots[side] >= MAX_UNITS_PER_SIDE:
            _fail(source, f"{field}.side", f"side {side} has more than {MAX_UNITS_PER_SIDE} units")
        tname = spec.get("type")
        _defined(tname, unit_types, source, f"{field}.type", "unit_types")
        utype = unit_types[tname]
        pos = spec.get("pos")
        if not isinstance(pos, (list, tuple)) or len(pos) != 2 or not all(map(is_integer, pos)):
            _fail(source, f"{field}.pos", f"expected [row, col] integers, got {short_repr(pos)}")
        row, col = int(pos[0]), int(pos[1])
        if not board.in_bounds(row, col):
            _fail(source, f"{field}.pos",
                  f"({row}, {col}) is outside the {board.rows} x {board.cols} board")
        tile = board.tile(row, col)
        if terrain_types[flat_terrain[tile]].cost_for(utype.move_class) is None:
            _fail(source, f"{field}.pos",
                  f"({row}, {col}) is {flat_terrain[tile]!r}, which a {tname} cannot stand on")
        if tile in occupied:
            _fail(source, f"{field}.pos",
                  f"({row}, {col}) is already taken by units[{occupied[tile]}]")
        occupied[tile] = i
        leader = _bool(spec.get("leader", False), source, f"{field}.leader")
        hp = _number(spec.get("hp", utype.hp), source, f"{field}.hp", minimum=1, integer=True)
        units.append(UnitSpec(i, side, slots[side], utype, row, col, leader, hp))
        slots[side] += 1
    return units
