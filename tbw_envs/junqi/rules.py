"""Rule sets: a frozen dataclass, loaded from YAML in ``configs/junqi/`` and validated on load.

A rule set is given as a name (``"ccgc"`` -> ``configs/junqi/ccgc.yaml``), a path to a YAML file,
a dict, or a ``JunqiRules``. Files and dicts list only the fields they change; everything else
keeps the CCGC value, which is the dataclass default.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from tbw_envs.configs_path import configs_dir

_CHOICES = {
    "no_collision_result": ("side_to_move_loses", "draw"),
    "mine_vs_attacker": ("mine_stays", "both_removed"),
    "bomb_vs_flag": ("flag_lost", "bomb_removed"),
}
_OPTIONAL_LIMITS = ("no_collision_limit", "total_ply_limit", "non_engineer_rail_steps")


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
            _check_field("JunqiRules", field.name, getattr(self, field.name))


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
        return _load_file(str(spec))
    raise ValueError(
        f"rules must be a rule-set name, a YAML path, a dict or JunqiRules, "
        f"got {type(spec).__name__}"
    )


@lru_cache(maxsize=32)
def _load_file(spec: str) -> JunqiRules:
    path = Path(spec)
    looks_like_path = path.suffix in (".yaml", ".yml") or "/" in spec or "\\" in spec
    if not looks_like_path:
        path = rules_dir() / f"{spec}.yaml"
        if not path.is_file():
            raise ValueError(
                f"unknown Junqi rule set {spec!r}; available: {', '.join(available_rule_sets())} "
                f"(or give a path to a YAML file)"
            )
    elif not path.is_file():
        raise ValueError(f"Junqi rule-set file {str(path)!r} does not exist")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not valid YAML: {exc}") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: top level must be a mapping of rule options")
    data.setdefault("name", path.stem)
    return rules_from_dict(data, source=str(path))


def rules_from_dict(data: dict[str, Any], source: str = "rules dict") -> JunqiRules:
    """Validate ``data`` (fields over the CCGC defaults); errors name source, field and problem."""
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in _FIELDS:
            raise ValueError(f"{source}: unknown field {key!r}; known fields: {', '.join(_FIELDS)}")
        values[key] = _check_field(source, key, value)
    values.setdefault("name", "custom")
    return JunqiRules(**values)


def _check_field(source: str, key: str, value: Any) -> Any:
    def fail(problem: str) -> ValueError:
        return ValueError(f"{source}: field {key!r}: {problem} (got {value!r})")

    default = _FIELDS[key].default
    if key in _CHOICES:
        if value not in _CHOICES[key]:
            raise fail(f"must be one of {', '.join(_CHOICES[key])}")
        return value
    if key in _OPTIONAL_LIMITS:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise fail("must be a positive integer or null")
        return value
    if key == "ply_cap":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise fail("must be a positive integer")
        return value
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise fail("must be true or false")
        return value
    if isinstance(default, str):
        if not isinstance(value, str):
            raise fail("must be a string")
        return value
    raise AssertionError(f"no validator for rule field {key}")  # pragma: no cover
