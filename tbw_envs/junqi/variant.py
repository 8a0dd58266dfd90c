"""Rule sets: a frozen dataclass, loaded from YAML in ``configs/junqi/`` and validated on load.

A rule set is given as a name (``"ccgc"`` -> ``configs/junqi/ccgc.yaml``), a path to a YAML file,
a dict, or a ``JunqiRules``. Files and dicts list only the fields they change; everything else
keeps the CCGC value, which is the dataclass default. Files go through the project's one YAML
loader; every error is a ``RulesError`` (a ``ValueError``) naming the
source, the field and the problem.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tbw_envs.core.configs_path import configs_dir
from tbw_envs.core.contract import is_integer, short_repr
from tbw_envs.core.yaml_loader import ConfigError, cached_by_file, is_file, load_yaml

_CHOICES = {
    "no_collision_result": ("side_to_move_loses", "draw"),
    "mine_vs_attacker": ("mine_stays", "both_removed"),
    "bomb_vs_flag": ("flag_lost", "bomb_removed"),
}
_OPTIONAL_LIMITS = ("no_collision_limit", "total_ply_limit", "non_engineer_rail_steps")
# Limits (docs/input_contract.md): a rule set is shared data, so its text and counts are bounded.
MAX_NAME_CHARS = 100
MAX_DESCRIPTION_CHARS = 4000
MAX_PLIES = 1_000_000


class RulesError(ConfigError):
    """A rule set that cannot be used: the message names the source, field and problem."""


@dataclass(frozen=True)
class JunqiRules:
    """All counts are in plies (one side's move); CCGC values are the defaults."""

    name: str = "ccgc"
    description: str = ""
    # End of game: plies in a row without a collision; None disables the rule.
    no_collision_limit: int | None = 31
    no_collision_result: str = "side_to_move_loses"
    # Plies in all after which the game is drawn; None disables the rule.
    total_ply_limit: int | None = None
    # Hard cap that guarantees every game ends (a draw).
    ply_cap: int = 2000
    mine_vs_attacker: str = "mine_stays"
    bomb_vs_flag: str = "flag_lost"
    marshal_takes_flag: bool = True
    # A piece that enters a headquarters never moves again.
    headquarters_lock: bool = True
    non_engineer_rail_turns: bool = False
    # Longest railroad move of a non-engineer in posts; None means unlimited.
    non_engineer_rail_steps: int | None = None
    flag_revealed_on_marshal_death: bool = True

    def __post_init__(self) -> None:
        # A rule set built directly (not through load_rules) gets the same checks as a file.
        for field in dataclasses.fields(self):
            # Stored as checked, so a numpy integer becomes a plain int.
            value = _check_field("JunqiRules", field.name, getattr(self, field.name))
            object.__setattr__(self, field.name, value)

    def longest_game(self) -> tuple[int, str]:
        """The most plies a game can last (``ply_cap``, or ``total_ply_limit`` if lower), and
        how that number comes about."""
        if self.total_ply_limit is not None and self.total_ply_limit < self.ply_cap:
            return self.total_ply_limit, f"total_ply_limit {self.total_ply_limit} plies"
        return self.ply_cap, f"ply_cap {self.ply_cap} plies"


_FIELDS = {f.name: f for f in dataclasses.fields(JunqiRules)}


def rules_dir() -> Path:
    return configs_dir() / "junqi"


def available_rule_sets() -> list[str]:
    return sorted(path.stem for path in rules_dir().glob("*.yaml"))


def load_rules(spec: str | Path | dict | JunqiRules | None = "ccgc") -> JunqiRules:
    """Rule set from a name, a YAML path, a dict or a JunqiRules (returned as is)."""
    if spec is None:
        spec = "ccgc"
    if isinstance(spec, JunqiRules):
        return spec
    if isinstance(spec, dict):
        return rules_from_dict(spec, source="rules dict")
    if isinstance(spec, (str, Path)):
        path = _rules_path(spec)
        try:
            return _load_file(path)
        except OSError as exc:
            raise RulesError(f"{path}: cannot read the file: {exc.strerror or exc}") from None
    raise RulesError(
        f"rules must be a rule-set name, a YAML path, a dict or JunqiRules, "
        f"got {type(spec).__name__} {short_repr(spec)}"
    )


def _rules_path(spec: str | Path) -> Path:
    text = str(spec)
    path = Path(spec)
    looks_like_path = (
        path.suffix in (".yaml", ".yml") or "/" in text or "\\" in text
    )
    if not looks_like_path:
        path = rules_dir() / f"{text}.yaml"
        if not is_file(path):
            raise RulesError(
                f"unknown Junqi rule set {short_repr(text)}; available: "
                f"{', '.join(available_rule_sets())} (or give a path to a YAML file)"
            )
    elif not is_file(path):
        raise RulesError(f"Junqi rule-set file {short_repr(text)} does not exist")
    return path.resolve()


@cached_by_file(maxsize=32)
def _load_file(path: str) -> JunqiRules:
    data = load_yaml(path, error=RulesError)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise RulesError(f"{path}: top level must be a mapping of rule options")
    data.setdefault("name", Path(path).stem)
    return rules_from_dict(data, source=path)


def rules_from_dict(data: dict[str, Any], source: str = "rules dict") -> JunqiRules:
    """Validate ``data`` (fields over the CCGC defaults); errors name source, field and problem."""
    if not isinstance(data, dict):
        raise RulesError(f"{source}: expected a mapping of rule options, got "
                         f"{type(data).__name__} {short_repr(data)}")
    values: dict[str, Any] = {}
    for key, value in data.items():
        if not isinstance(key, str) or key not in _FIELDS:
            raise RulesError(
                f"{source}: unknown field {short_repr(key)}; known fields: {', '.join(_FIELDS)}"
            )
        values[key] = _check_field(source, key, value)
    values.setdefault("name", "custom")
    return JunqiRules(**values)


def _check_field(source: str, key: str, value: Any) -> Any:
    """``value`` checked for rule field ``key`` (numpy integers become ints)."""

    def fail(problem: str) -> RulesError:
        return RulesError(f"{source}: field {key!r}: {problem} (got {short_repr(value)})")

    def plies(minimum: int) -> int:
        if not is_integer(value) or not minimum <= value <= MAX_PLIES:
            raise fail(
                "must be a positive integer" + (" or null" if key in _OPTIONAL_LIMITS else "")
                + f" (at most {MAX_PLIES})"
            )
        return int(value)

    default = _FIELDS[key].default
    if key in _CHOICES:
        # The type test keeps lists and dicts away from ``in``.
        if not isinstance(value, str) or value not in _CHOICES[key]:
            raise fail(f"must be one of {', '.join(_CHOICES[key])}")
        return value
    if key in _OPTIONAL_LIMITS:
        return None if value is None else plies(1)
    if key == "ply_cap":
        return plies(1)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise fail("must be true or false")
        return value
    if isinstance(default, str):
        limit = MAX_NAME_CHARS if key == "name" else MAX_DESCRIPTION_CHARS
        if not isinstance(value, str):
            raise fail("must be a string")
        if len(value) > limit:
            raise RulesError(
                f"{source}: field {key!r}: at most {limit} characters, got {len(value)}"
            )
        return value
    raise RulesError(f"no validator for rule field {key}")  # pragma: no cover - a new field
