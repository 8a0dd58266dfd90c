"""The move evaluation's data: piece values, feature weights and feature parameters
(``EvalConfig``), read from ``configs/agents/junqi_eval_*.yaml``, a YAML path or a dict, every
field checked (``load_eval_config``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from tbw_envs.core.configs_path import configs_dir
from tbw_envs.core.contract import (
    check_text,
    is_integer,
    is_real_number,
    kind_of,
    short_list,
    short_repr,
)
from tbw_envs.core.yaml_loader import (
    ConfigError,
    cached_by_file,
    is_file,
    load_yaml,
    number_text_hint,
)
from tbw_envs.junqi.board import NUM_POSTS
from tbw_envs.junqi.pieces import PIECE_NAMES

FEATURE_NAMES = (
    "attack_gain", "exposure", "protection", "flag_defence", "progress", "no_collision",
)  # fmt: skip
NUM_FEATURES = len(FEATURE_NAMES)
# The ranges every config (file, dict, with_weights) is held to (load_eval_config): far above
# any useful value (the flag is worth 5000, the largest default weight is 300), far below
# where the sums lose precision or overflow.
MAX_WEIGHT = 1e6
MAX_PIECE_VALUE = 1e6
MAX_FLAG_ALARM_STEPS = NUM_POSTS  # a BFS radius: no two posts are farther apart
MAX_NO_COLLISION_WINDOW = 1_000_000  # rule sets' ply counts stop there too
MAX_NAME_CHARS = 100


@dataclass(frozen=True)
class EvalConfig:
    """Piece values, feature weights and feature parameters of the move evaluation."""

    name: str
    piece_values: tuple[float, ...]  # by piece type
    weights: tuple[float, ...]  # by FEATURE_NAMES
    protect_min_value: float = 40.0
    flag_alarm_steps: int = 4
    no_collision_window: int = 10

    def weight_dict(self) -> dict[str, float]:
        return dict(zip(FEATURE_NAMES, self.weights, strict=True))

    def with_weights(self, weights, name: str | None = None) -> EvalConfig:
        """A copy with new weights: a dict by feature name (missing ones kept) or a vector.
        Each weight must be a real number with ``|w| <= MAX_WEIGHT``."""
        if isinstance(weights, Mapping):
            unknown = set(weights) - set(FEATURE_NAMES)
            if unknown:
                raise ValueError(f"unknown feature(s) {short_list(unknown)}; features: "
                                 f"{list(FEATURE_NAMES)}")
            merged = self.weight_dict() | {
                k: _number(v, f"weights.{k}", "with_weights", -MAX_WEIGHT, MAX_WEIGHT)
                for k, v in weights.items()
            }
            vector = tuple(merged[f] for f in FEATURE_NAMES)
        else:
            if isinstance(weights, np.ndarray) and weights.ndim == 1:
                values = weights.tolist() if weights.dtype.kind in "iuf" else list(weights)
            elif isinstance(weights, (list, tuple)):
                values = list(weights)
            else:
                raise ValueError(f"weights must be a mapping by feature name or a vector of "
                                 f"{NUM_FEATURES} numbers, got {type(weights).__name__} "
                                 f"{short_repr(weights)}")
            if len(values) != NUM_FEATURES:
                raise ValueError(f"expected {NUM_FEATURES} weights, got {len(values)}")
            vector = tuple(
                _number(v, f"weights.{f}", "with_weights", -MAX_WEIGHT, MAX_WEIGHT)
                for f, v in zip(FEATURE_NAMES, values, strict=True)
            )
        if name is not None:
            check_text(name, MAX_NAME_CHARS, "with_weights: name")
        return replace(self, weights=vector, name=name or self.name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "piece_values": dict(zip(PIECE_NAMES, self.piece_values, strict=True)),
            "weights": self.weight_dict(),
            "params": {
                "protect_min_value": self.protect_min_value,
                "flag_alarm_steps": self.flag_alarm_steps,
                "no_collision_window": self.no_collision_window,
            },
        }

    def save(self, path: str | Path) -> None:
        data = self.to_dict()
        _config_from_dict(data, str(path))  # never write a file load_eval_config would refuse
        Path(path).write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def eval_config_path(name: str) -> Path:
    return configs_dir() / "agents" / f"junqi_eval_{name}.yaml"


def load_eval_config(spec: str | Path | dict | EvalConfig | None = "default") -> EvalConfig:
    """An evaluation config from a name (``default``, ``tuned`` ->
    ``configs/agents/junqi_eval_<name>.yaml``), a YAML path, a dict or an EvalConfig.

    A file goes through the project's strict YAML loader (``tbw_envs.core.yaml_loader``); a file or
    a dict holds ``name`` (optional, a string), ``piece_values`` (every piece type once, each
    in ``[0, MAX_PIECE_VALUE]``), ``weights`` (every feature once, each with
    ``|w| <= MAX_WEIGHT``) and optionally ``params``: ``protect_min_value`` a number in
    ``[0, MAX_PIECE_VALUE]``, ``flag_alarm_steps`` an integer in ``[0, MAX_FLAG_ALARM_STEPS]``
    (0 turns the alarm off), ``no_collision_window`` an integer in
    ``[1, MAX_NO_COLLISION_WINDOW]``. Numbers are finite reals, never bools; integer fields
    take integers only (``2.7`` is refused, not truncated). Anything else raises
    ``ConfigError`` (a ValueError) naming the file and the field."""
    if spec is None:
        spec = "default"
    if isinstance(spec, EvalConfig):
        return spec
    if isinstance(spec, Mapping):
        return _config_from_dict(spec, "evaluation dict")
    if isinstance(spec, (str, Path)):
        return _load_config_file(str(spec))
    raise ValueError(f"evaluation config must be a name, a path, a dict or EvalConfig, got "
                     f"{type(spec).__name__} {short_repr(spec)}")


def _load_config_file(spec: str) -> EvalConfig:
    path = Path(spec)
    if path.suffix not in (".yaml", ".yml"):
        path = eval_config_path(spec)
        if not is_file(path):
            known = sorted(p.stem.removeprefix("junqi_eval_")
                           for p in (configs_dir() / "agents").glob("junqi_eval_*.yaml"))
            raise ValueError(f"unknown Junqi evaluation weights {short_repr(spec)}; "
                             f"available: {known}, or a path to a .yaml file")
    if not is_file(path):
        raise ValueError(f"Junqi evaluation file {short_repr(str(path))} does not exist")
    # Cached by the file's identity and modification, so a re-tuned file is read again.
    return _read_config_file(path)


@cached_by_file(maxsize=16)
def _read_config_file(path: str) -> EvalConfig:
    data = load_yaml(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping, got "
                          f"{type(data).__name__} {short_repr(data)}")
    data.setdefault("name", Path(path).stem.removeprefix("junqi_eval_"))
    return _config_from_dict(data, path)


_PARAMS = ("protect_min_value", "flag_alarm_steps", "no_collision_window")


def _config_from_dict(data, source: str) -> EvalConfig:
    """The config from a mapping, every field checked (``ConfigError`` naming ``source`` and
    the field)."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: an evaluation config must be a mapping, got "
                          f"{type(data).__name__} {short_repr(data)}")
    unknown = set(data) - {"name", "piece_values", "weights", "params"}
    if unknown:
        raise ConfigError(f"{source}: unknown field(s) {short_list(unknown)}; expected name, "
                          "piece_values, weights and params")

    def numbers(field: str, names: tuple[str, ...], low: float, high: float):
        table = data.get(field)
        if not isinstance(table, Mapping):
            raise ConfigError(f"{source}: {field!r} must map each of {list(names)} to a "
                              f"number, got {type(table).__name__} {short_repr(table)}")
        unknown = set(table) - set(names)
        if unknown:
            raise ConfigError(f"{source}: {field}: unknown name(s) {short_list(unknown)}; "
                              f"expected {list(names)}")
        missing = [n for n in names if n not in table]
        if missing:
            raise ConfigError(f"{source}: {field}: missing {missing}; {field!r} must map "
                              f"exactly {list(names)} to numbers")
        return tuple(_number(table[n], f"{field}.{n}", source, low, high) for n in names)

    name = data.get("name", "custom")
    check_text(name, MAX_NAME_CHARS, f"{source}: name", ConfigError)
    piece_values = numbers("piece_values", PIECE_NAMES, 0.0, MAX_PIECE_VALUE)
    weights = numbers("weights", FEATURE_NAMES, -MAX_WEIGHT, MAX_WEIGHT)
    params = data.get("params", {})
    if not isinstance(params, Mapping):
        raise ConfigError(f"{source}: 'params' must be a mapping of {list(_PARAMS)}, got "
                          f"{type(params).__name__} {short_repr(params)}")
    if set(params) - set(_PARAMS):
        raise ConfigError(f"{source}: unknown params {short_list(set(params) - set(_PARAMS))}; "
                          f"known: {list(_PARAMS)}")
    return EvalConfig(
        name=name,
        piece_values=piece_values,
        weights=weights,
        protect_min_value=_number(params.get("protect_min_value", 40.0),
                                  "params.protect_min_value", source, 0.0, MAX_PIECE_VALUE),
        flag_alarm_steps=_integer(params.get("flag_alarm_steps", 4), "params.flag_alarm_steps",
                                  source, 0, MAX_FLAG_ALARM_STEPS),
        no_collision_window=_integer(params.get("no_collision_window", 10),
                                     "params.no_collision_window", source, 1,
                                     MAX_NO_COLLISION_WINDOW),
    )


def _number(value, field: str, source: str, low: float, high: float) -> float:
    """``value`` as a float: a real number (no bool, no string), finite, in ``[low, high]``."""
    if not is_real_number(value):
        raise ConfigError(f"{source}: {field} must be a number, got {kind_of(value)} "
                          f"{short_repr(value)}{number_text_hint(value)}")
    out_of_range = ConfigError(f"{source}: {field} must lie in [{low:g}, {high:g}], got "
                               f"{short_repr(value)}")
    if is_integer(value) and not low <= value <= high:  # before float(): it overflows
        raise out_of_range
    number = float(value)
    if not math.isfinite(number):
        raise ConfigError(f"{source}: {field} must be finite, got {short_repr(value)}")
    if not low <= number <= high:
        raise out_of_range
    return number


def _integer(value, field: str, source: str, low: int, high: int) -> int:
    """``value`` as an int in ``[low, high]``: an integer (no bool, no float, not even 4.0)."""
    if not is_integer(value) or not low <= value <= high:
        raise ConfigError(f"{source}: {field} must be an integer in [{low}, {high}], got "
                          f"{kind_of(value)} {short_repr(value)}")
    return int(value)
