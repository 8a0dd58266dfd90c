"""The move evaluation's weights: piece values, feature weights and feature parameters
(``EvalConfig``), every field checked (``EvalConfig.from_dict``). ``agents.junqi.evaluation``'s
``load_weights`` reads them from ``configs/agents/junqi_eval_*.yaml``, a YAML path or a dict."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from agents.common.weights import WeightsError, check_number, check_weights_name
from tbw_envs.core.contract import is_integer, kind_of, short_list, short_repr
from tbw_envs.junqi.board import NUM_POSTS
from tbw_envs.junqi.pieces import PIECE_NAMES

FEATURE_NAMES = (
    "attack_gain", "exposure", "protection", "flag_defence", "progress", "no_collision",
)  # fmt: skip
NUM_FEATURES = len(FEATURE_NAMES)
# The ranges every config (file, dict, with_weights) is held to (load_weights): far above
# any useful value (the flag is worth 5000, the largest default weight is 300), far below
# where the sums lose precision or overflow.
MAX_WEIGHT = 1e6
MAX_PIECE_VALUE = 1e6
MAX_FLAG_ALARM_STEPS = NUM_POSTS  # a BFS radius: no two posts are farther apart
MAX_NO_COLLISION_WINDOW = 1_000_000  # rule sets' ply counts stop there too


@dataclass(frozen=True)
class EvalConfig:
    """Piece values, feature weights and feature parameters of the move evaluation."""

    name: str
    piece_values: tuple[float, ...]  # by piece type
    weights: tuple[float, ...]  # by FEATURE_NAMES
    protect_min_value: float = 40.0
    flag_alarm_steps: int = 4
    no_collision_window: int = 10

    @classmethod
    def from_dict(cls, data, source: str) -> EvalConfig:
        """The config of a mapping (a weights file's, or one given in Python), every field
        checked: ``WeightsError`` naming ``source`` and the field."""
        return _config_from_dict(data, source)

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
                k: check_number(v, f"weights.{k}", "with_weights", -MAX_WEIGHT, MAX_WEIGHT)
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
                check_number(v, f"weights.{f}", "with_weights", -MAX_WEIGHT, MAX_WEIGHT)
                for f, v in zip(FEATURE_NAMES, values, strict=True)
            )
        if name is not None:
            check_weights_name(name, "with_weights", ValueError)
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
        _config_from_dict(data, str(path))  # never write a file load_weights would refuse
        Path(path).write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


_PARAMS = ("protect_min_value", "flag_alarm_steps", "no_collision_window")


def _config_from_dict(data, source: str) -> EvalConfig:
    """The config from a mapping, every field checked (``WeightsError`` naming ``source`` and
    the field)."""
    if not isinstance(data, Mapping):
        raise WeightsError(f"{source}: an evaluation config must be a mapping, got "
                           f"{type(data).__name__} {short_repr(data)}")
    unknown = set(data) - {"name", "piece_values", "weights", "params"}
    if unknown:
        raise WeightsError(f"{source}: unknown field(s) {short_list(unknown)}; expected name, "
                           "piece_values, weights and params")

    def numbers(field: str, names: tuple[str, ...], low: float, high: float):
        table = data.get(field)
        if not isinstance(table, Mapping):
            raise WeightsError(f"{source}: {field!r} must map each of {list(names)} to a "
                               f"number, got {type(table).__name__} {short_repr(table)}")
        unknown = set(table) - set(names)
        if unknown:
            raise WeightsError(f"{source}: {field}: unknown name(s) {short_list(unknown)}; "
                               f"expected {list(names)}")
        missing = [n for n in names if n not in table]
        if missing:
            raise WeightsError(f"{source}: {field}: missing {missing}; {field!r} must map "
                               f"exactly {list(names)} to numbers")
        return tuple(check_number(table[n], f"{field}.{n}", source, low, high) for n in names)

    name = data.get("name", "custom")
    check_weights_name(name, source)
    piece_values = numbers("piece_values", PIECE_NAMES, 0.0, MAX_PIECE_VALUE)
    weights = numbers("weights", FEATURE_NAMES, -MAX_WEIGHT, MAX_WEIGHT)
    params = data.get("params", {})
    if not isinstance(params, Mapping):
        raise WeightsError(f"{source}: 'params' must be a mapping of {list(_PARAMS)}, got "
                           f"{type(params).__name__} {short_repr(params)}")
    if set(params) - set(_PARAMS):
        raise WeightsError(f"{source}: unknown params {short_list(set(params) - set(_PARAMS))}; "
                           f"known: {list(_PARAMS)}")
    return EvalConfig(
        name=name,
        piece_values=piece_values,
        weights=weights,
        protect_min_value=check_number(params.get("protect_min_value", 40.0),
                                       "params.protect_min_value", source, 0.0, MAX_PIECE_VALUE),
        flag_alarm_steps=_integer(params.get("flag_alarm_steps", 4), "params.flag_alarm_steps",
                                  source, 0, MAX_FLAG_ALARM_STEPS),
        no_collision_window=_integer(params.get("no_collision_window", 10),
                                     "params.no_collision_window", source, 1,
                                     MAX_NO_COLLISION_WINDOW),
    )


def _integer(value, field: str, source: str, low: int, high: int) -> int:
    """``value`` as an int in ``[low, high]``: an integer (no bool, no float, not even 4.0)."""
    if not is_integer(value) or not low <= value <= high:
        raise WeightsError(f"{source}: {field} must be an integer in [{low}, {high}], got "
                           f"{kind_of(value)} {short_repr(value)}")
    return int(value)
