"""Evaluation of an end-of-turn TBW state, for the single-turn search in ``agents.tbw.search``.

An evaluation is any callable ``evaluate(state, side) -> float``: it scores ``state`` (a game-core
``TBWState`` as the core produces it after a plan, so the turn may already have passed to the
other side) from ``side``'s point of view; larger is better for ``side``. The side is passed
explicitly because the core ends the turn automatically after the last unit acts, so the state
alone cannot say who just moved. The planners also take ``evaluate(state)``, scored for the side
that moved (``as_two_argument_evaluation``).

``DefaultEvaluation`` (the default) adds, for ``side`` = "us" and the other side = "them":

* material: ``sum(Hp x ATK)`` of our living units minus the same for theirs, plus
  ``kill_bonus x ATK`` for each dead enemy unit (minus the same for each of ours): a kill also
  removes the unit's future attacks, which its remaining Hp alone undervalues;
* victory: ``+win_value`` if they have lost (annihilated, or leader dead under the ``leader`` win
  rule), ``-win_value`` if we have;
* leader safety: for each of our living leaders, ``-leader_weight x`` the summed ATK of living
  enemies that could reach it next turn (board distance <= their movement + maximum range;
  terrain ignored, a cheap over-estimate of the threat);
* exposure: the same threat sum, ``x exposure_weight``, for every living unit of ours (keeps
  units out of reach unless the attack pays; the default weight came out of a small sweep
  against the greedy baseline);
* position: ``-position_weight x`` the board distance from each of our living units to the
  nearest living enemy (draws the army forward when nothing is in reach);
* an optional per-tile bonus ``tile_bonus[tile]`` for each of our living units (objectives,
  benchmark evaluations).

Decomposition. Every term except material and victory is a sum over our units of a value that
depends only on the unit's tile and on which enemies are alive; material and victory depend only
on the Hp vector. ``decompose(root, side)`` returns exactly that split (``Decomposition``), and
the exact solver relies on it: it is only used when the evaluation provides it, and the tests
check ``decomposition.value(state) == evaluate(state, side)`` on random states, for any weights.

Features and weights. Without ``tile_bonus`` the evaluation is linear in six named features,
``DefaultEvaluation(...)(state, side) == weights . features(state, side)`` (``FEATURE_NAMES``;
the tile bonus, when given, is added on top). Each feature is the plain quantity, its sign in
the weight:

* ``material``: ``sum(Hp x ATK)`` of our living units minus theirs (default weight 1,
  the field ``material_weight``);
* ``kills``: the summed ATK of their dead units minus that of ours (5, ``kill_bonus``);
* ``victory``: +1 they have lost, -1 we have, 0 otherwise (1e6, ``win_value``);
* ``leader_threat``: the threat sum (see leader safety) on our living leaders (-2,
  ``-leader_weight``);
* ``exposure``: the threat sum on every living unit of ours (-2, ``-exposure_weight``);
* ``distance``: the summed board distance from each of our living units to the nearest living
  enemy (-0.1, ``-position_weight``).

The weights are data: ``configs/agents/tbw_eval_default.yaml`` holds the defaults above,
``tbw_eval_tuned.yaml`` the ones Q-learning tuned (``agents.training.tbw_tuning``), and
``load_weights("default" | "tuned" | path)`` builds the evaluation from a file, read as both
games' weights are (``agents.common.weights``).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from agents.common.weights import WeightsError, WeightsFiles, check_number, check_weights_name
from tbw_envs.core.contract import short_list, short_repr

FEATURE_NAMES = ("material", "kills", "victory", "leader_threat", "exposure", "distance")
NUM_FEATURES = len(FEATURE_NAMES)
# Every weight (files, mappings, vectors) lies in [-MAX_WEIGHT, MAX_WEIGHT]: far above any
# useful weight (the victory switch is 1e6), far below where the sums overflow to inf and NaN.
MAX_WEIGHT = 1e6


class Decomposition:
    """``evaluate(end, side) == base(end.hp) + sum(unit_table(u, alive)[end.pos[u]])`` over our
    living units ``u``, valid for every state reachable from ``root`` within ``side``'s turn
    (enemy units do not move during it; only their Hp changes)."""

    side: int

    def base(self, hp: Sequence[int]) -> float:  # pragma: no cover - interface
        raise NotImplementedError

    def unit_table(self, uid: int, alive: frozenset[int]) -> Sequence[float]:
        """Per-tile value of our unit ``uid`` when exactly the enemies in ``alive`` live."""
        raise NotImplementedError  # pragma: no cover - interface

    def value(self, state) -> float:
        sc = state.scenario
        alive = frozenset(e for e in sc.side_units[1 - self.side] if state.hp[e] > 0)
        total = self.base(state.hp)
        for u in sc.side_units[self.side]:
            if state.hp[u] > 0:
                total += self.unit_table(u, alive)[state.pos[u]]
        return total


@dataclass(frozen=True)
class DefaultEvaluation:
    """Material, victory, leader safety and position (see the module docstring). The fields
    keep the sign they always had (penalties positive); ``weights`` / ``from_weights`` speak
    the signed feature weights of ``FEATURE_NAMES``."""

    kill_bonus: float = 5.0
    win_value: float = 1_000_000.0
    leader_weight: float = 2.0
    exposure_weight: float = 2.0
    position_weight: float = 0.1
    tile_bonus: tuple[float, ...] | None = None
    material_weight: float = 1.0

    decomposable = True

    def __call__(self, state, side: int) -> float:
        return self.decompose(state, side).value(state)

    @property
    def weights(self) -> np.ndarray:
        """The signed weights in ``FEATURE_NAMES`` order: ``self(state, side) ==
        weights @ features(state, side)`` (plus the tile bonus, if any)."""
        return np.array([
            self.material_weight, self.kill_bonus, self.win_value, -self.leader_weight,
            -self.exposure_weight, -self.position_weight,
        ])  # fmt: skip

    def weight_dict(self) -> dict[str, float]:
        return dict(zip(FEATURE_NAMES, map(float, self.weights), strict=True))

    @classmethod
    def from_weights(cls, weights, tile_bonus: tuple[float, ...] | None = None,
                     source: str = "weights") -> DefaultEvaluation:
        """The evaluation with signed feature weights: a mapping naming every feature of
        ``FEATURE_NAMES`` exactly once, or a vector in that order. Weights must be real numbers
        with ``|w| <= MAX_WEIGHT`` (1e6) and the victory weight positive (a win must outscore
        every other plan)."""
        vector = _weight_vector(weights, source)
        material, kills, victory, leader, exposure, distance = vector
        if not victory > 0:
            raise ValueError(f"{source}: the victory weight must be positive (a win must "
                             f"outscore every other plan), got {short_repr(victory)}")
        return cls(kill_bonus=kills, win_value=victory, leader_weight=-leader,
                   exposure_weight=-exposure, position_weight=-distance, tile_bonus=tile_bonus,
                   material_weight=material)

    def with_weights(self, weights, source: str = "weights") -> DefaultEvaluation:
        """A copy with other weights (a full mapping or vector, as ``from_weights``); the tile
        bonus stays."""
        return DefaultEvaluation.from_weights(weights, self.tile_bonus, source)

    def features(self, state, side: int) -> np.ndarray:
        return features(state, side)

    def decompose(self, root, side: int) -> Decomposition:
        return _DefaultDecomposition(self, root, side)


class _DefaultDecomposition(Decomposition):
    def __init__(self, weights: DefaultEvaluation, root, side: int):
        sc = root.scenario
        self.side = side
        self.weights = weights
        self.scenario = sc
        self.enemy_pos = {e: root.pos[e] for e in sc.side_units[1 - side]}
        self._tables: dict[tuple[int, frozenset[int]], tuple[float, ...]] = {}
        if weights.tile_bonus is not None and len(weights.tile_bonus) != sc.board.size:
            raise ValueError(
                f"tile_bonus has {len(weights.tile_bonus)} entries, the board has "
                f"{sc.board.size} tiles"
            )

    def base(self, hp: Sequence[int]) -> float:
        sc, w = self.scenario, self.weights
        total = 0.0
        lost = [False, False]
        for s in (0, 1):
            sign = 1.0 if s == self.side else -1.0
            ids = sc.side_units[s]
            for u in ids:
                atk = sc.units[u].type.atk
                if hp[u] > 0:
                    # material_weight is 1 by default, and x 1.0 is exact: the default sums
                    # are bit for bit what they were before the weight existed.
                    total += sign * w.material_weight * hp[u] * atk
                else:
                    total -= sign * w.kill_bonus * atk
            if sc.win != "none" and ids:
                lost[s] = all(hp[u] <= 0 for u in ids) or (
                    sc.win == "leader" and any(sc.units[u].leader and hp[u] <= 0 for u in ids)
                )
        if lost[0] != lost[1]:
            total += w.win_value if lost[1 - self.side] else -w.win_value
        return total

    def linear_hp_coefficients(self) -> dict[int, float]:
        """For the compiled kernel: ``base(hp) == sum(coef[u] * hp[u] for living enemies u)``
        plus a value that depends only on which units are dead (ours cannot die in our turn)."""
        sc, w = self.scenario, self.weights
        return {u: -w.material_weight * sc.units[u].type.atk for u in sc.side_units[1 - self.side]}

    def unit_table(self, uid: int, alive: frozenset[int]) -> tuple[float, ...]:
        key = (uid, alive)
        table = self._tables.get(key)
        if table is None:
            table = self._build_table(uid, alive)
            self._tables[key] = table
        return table

    def _build_table(self, uid: int, alive: frozenset[int]) -> tuple[float, ...]:
        sc, w = self.scenario, self.weights
        dist = sc.board.distance_table
        spec = sc.units[uid]
        threat_weight = w.exposure_weight + (w.leader_weight if spec.leader else 0.0)
        # Enemies as (tile, reach, ATK); reach = movement + maximum range, terrain ignored.
        enemies = [
            (self.enemy_pos[e], sc.units[e].type.move + sc.units[e].type.range_max,
             sc.units[e].type.atk)
            for e in sorted(alive)
        ]
        bonus = w.tile_bonus
        out = []
        for tile in range(sc.board.size):
            d = dist[tile]
            value = 0.0
            if enemies:
                if w.position_weight:
                    value -= w.position_weight * min(d[p] for p, _, _ in enemies)
                if threat_weight:
                    value -= threat_weight * sum(atk for p, reach, atk in enemies if d[p] <= reach)
            if bonus is not None:
                value += bonus[tile]
            out.append(value)
        return tuple(out)


def decomposition_of(evaluate, root, side: int) -> Decomposition | None:
    """The evaluation's decomposition for this turn, or None when it offers none."""
    if getattr(evaluate, "decomposable", False) and hasattr(evaluate, "decompose"):
        return evaluate.decompose(root, side)
    return None


def as_two_argument_evaluation(evaluate):
    """Accept ``evaluate(state)`` as well as ``evaluate(state, side)``: a one-argument
    evaluation scores for ``state.last_side``, the side that moved."""
    if not callable(evaluate):
        raise TypeError(f"evaluate must be callable, got {type(evaluate).__name__} "
                        f"{short_repr(evaluate)}")
    try:
        params = inspect.signature(evaluate).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature: assume (state, side)
        return evaluate
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    takes_varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    if len(positional) == 1 and not takes_varargs:
        return lambda state, side: evaluate(state)
    return evaluate


# ---------------------------------------------------------------------------------- features
def features(state, side: int) -> np.ndarray:
    """The named features of ``state`` for ``side`` (``FEATURE_NAMES``, see the module doc),
    computed straight from the state, independently of the decomposition's tables."""
    sc = state.scenario
    dist = sc.board.distance_table
    hp, pos = state.hp, state.pos
    material = kills = 0.0
    lost = [False, False]
    for s in (0, 1):
        sign = 1.0 if s == side else -1.0
        ids = sc.side_units[s]
        for u in ids:
            atk = sc.units[u].type.atk
            if hp[u] > 0:
                material += sign * hp[u] * atk
            else:
                kills -= sign * atk
        if sc.win != "none" and ids:
            lost[s] = all(hp[u] <= 0 for u in ids) or (
                sc.win == "leader" and any(sc.units[u].leader and hp[u] <= 0 for u in ids)
            )
    victory = 0.0
    if lost[0] != lost[1]:
        victory = 1.0 if lost[1 - side] else -1.0
    # Enemies as (tile, reach, ATK); reach = movement + maximum range, terrain ignored.
    enemies = [
        (pos[e], sc.units[e].type.move + sc.units[e].type.range_max, sc.units[e].type.atk)
        for e in sc.side_units[1 - side] if hp[e] > 0
    ]
    leader_threat = exposure = distance = 0.0
    if enemies:
        for u in sc.side_units[side]:
            if hp[u] <= 0:
                continue
            d = dist[pos[u]]
            threat = sum(atk for p, reach, atk in enemies if d[p] <= reach)
            exposure += threat
            if sc.units[u].leader:
                leader_threat += threat
            distance += min(d[p] for p, _, _ in enemies)
    return np.array([material, kills, victory, leader_threat, exposure, distance])


def _weight_vector(weights, source: str) -> tuple[float, ...]:
    """Signed weights in ``FEATURE_NAMES`` order from a mapping or a vector, checked: known
    features only, every one given, each a real number (no bool, no string) within
    ``MAX_WEIGHT``."""
    if isinstance(weights, Mapping):
        unknown = set(weights) - set(FEATURE_NAMES)
        if unknown:
            raise ValueError(f"{source}: unknown feature(s) {short_list(unknown)}; the TBW "
                             f"evaluation's features are {list(FEATURE_NAMES)}")
        missing = [f for f in FEATURE_NAMES if f not in weights]
        if missing:
            raise ValueError(f"{source}: missing weight(s) for {missing}; every feature of "
                             f"{list(FEATURE_NAMES)} needs one")
        raw = [(name, weights[name]) for name in FEATURE_NAMES]
    else:
        if isinstance(weights, np.ndarray):
            if weights.ndim != 1:
                raise ValueError(f"{source}: a weight vector must be one-dimensional, got "
                                 f"shape {weights.shape}")
            values = weights.tolist() if weights.dtype.kind in "iuf" else list(weights)
        elif isinstance(weights, (list, tuple)):
            values = list(weights)
        else:
            raise ValueError(f"{source}: weights must be a mapping of feature weights or a "
                             f"sequence of {NUM_FEATURES} numbers, got "
                             f"{type(weights).__name__} {short_repr(weights)}")
        if len(values) != NUM_FEATURES:
            raise ValueError(f"{source}: expected {NUM_FEATURES} weights "
                             f"({list(FEATURE_NAMES)}), got {len(values)}")
        raw = list(zip(FEATURE_NAMES, values, strict=True))
    return tuple(check_number(value, f"weight {name!r}", source, -MAX_WEIGHT, MAX_WEIGHT,
                              ValueError) for name, value in raw)


# ---------------------------------------------------------------------------------- files
def _parse_weights_file(data: dict, path: str) -> DefaultEvaluation:
    unknown = set(data) - {"name", "weights"}
    if unknown:
        raise WeightsError(f"{path}: unknown field(s) {short_list(unknown)}; expected 'name' "
                           "and 'weights'")
    if "name" in data:
        check_weights_name(data["name"], path)
    if not isinstance(data.get("weights"), dict):
        raise WeightsError(f"{path}: 'weights' must map each of {list(FEATURE_NAMES)} to a "
                           f"number, got {short_repr(data.get('weights'))}")
    try:
        return DefaultEvaluation.from_weights(data["weights"], source=f"{path}: weights")
    except ValueError as exc:
        raise WeightsError(str(exc)) from None


WEIGHTS_FILES = WeightsFiles("TBW evaluation weights", "tbw_eval_", _parse_weights_file,
                             also=("a mapping", "a DefaultEvaluation"))


def weights_path(name: str) -> Path:
    """``configs/agents/tbw_eval_<name>.yaml``."""
    return WEIGHTS_FILES.path(name)


def load_weights(spec=None) -> DefaultEvaluation:
    """The evaluation with weights from a name (``default``, ``tuned``: the files
    ``configs/agents/tbw_eval_<name>.yaml``), a YAML path, a mapping of feature weights, or a
    ``DefaultEvaluation`` (returned as is). None means ``default``.

    A file is read as every game's weights are (``agents.common.weights``) and holds ``name``
    (optional, a string) and ``weights``: every feature of ``FEATURE_NAMES`` once, each a real
    number with ``|w| <= MAX_WEIGHT`` (1e6), the victory weight positive. Anything else raises
    ``WeightsError`` (a ``ConfigError``, so a ValueError) naming the file and the field."""
    if spec is None:
        spec = "default"
    if isinstance(spec, DefaultEvaluation):
        return spec
    if isinstance(spec, Mapping):
        return DefaultEvaluation.from_weights(spec, source="TBW evaluation weights")
    return WEIGHTS_FILES.load(spec)


def save_weights(evaluation: DefaultEvaluation, path, name: str, comment: str = "") -> None:
    """Write ``evaluation``'s weights as a file ``load_weights`` reads back exactly."""
    if evaluation.tile_bonus is not None:
        raise ValueError("a tile bonus is not a named feature and cannot be saved as weights")
    # Never write a file that load_weights would refuse.
    DefaultEvaluation.from_weights(evaluation.weight_dict(), source=f"{path}: weights")
    check_weights_name(name, str(path), ValueError)
    header = "".join(f"# {line}\n" for line in comment.splitlines())
    body = yaml.safe_dump({"name": name, "weights": evaluation.weight_dict()}, sort_keys=False)
    Path(path).write_text(header + body, encoding="utf-8")
