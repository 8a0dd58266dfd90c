"""A learned value of a full Junqi state: how likely a side is to win from here.

A search scores the worlds it reaches (determinizations, so every identity is known) by their
material (``leaf="material"``). This module learns that score from game outcomes instead: a
logistic model of the winning chance over features of the state, every feature one side's
count minus the other's, so the value is antisymmetric (a draw-even position is worth 0):

- ``<piece>`` (11 features, the flag excluded): the pieces of that type each side has left;
  their weights are learned piece values.
- ``flag_threat``: the opponent's movable pieces within ``THREAT_STEPS`` board steps of our
  flag, against ours near theirs (counted with the sign that makes "we threaten" positive).
- ``flag_guards``: our pieces next to our flag (mines included), against theirs next to theirs.
- ``advance``: our movable pieces in the opponent's half, against theirs in ours.

``fit_state_value`` fits the weights by maximum likelihood (Newton's method, a small ridge) on
positions of recorded games with their outcome (a win 1, a loss 0, a draw 1/2). A
``StateValue`` scores in piece-value units: its logit divided by ``scale``, the logit's worth of
one piece-value unit (the least-squares fit of the learned piece values to the evaluation's), so
it can stand where the material balance stood, on the scale of the search's other numbers.
``configs/agents/junqi_state_value.yaml`` holds the shipped fit: ``fit_report`` fits and scores
it, ``state_value_yaml`` writes it (``scripts/research/fit_state_value.py``), and
``load_state_value`` reads it back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import yaml

from agents.junqi.evaluation import board_distances
from tbw_envs.core.configs_path import configs_dir
from tbw_envs.junqi.board import COLS, NUM_POSTS, owner_rows
from tbw_envs.junqi.pieces import FLAG, MINE, NUM_PIECE_TYPES, PIECE_NAMES

PIECE_FEATURES = tuple(PIECE_NAMES[k] for k in range(NUM_PIECE_TYPES) if k != FLAG)
STATE_FEATURES = (*PIECE_FEATURES, "flag_threat", "flag_guards", "advance")
THREAT_STEPS = 2  # board steps (any link) from a flag that count as a threat to it
RIDGE = 1e-3  # per sample, on every weight: keeps a feature that never varies at zero
SHIPPED_NAME = "junqi_state_value.yaml"  # in configs/agents/


_HALF = tuple(frozenset(r for r in owner_rows(p)) for p in (0, 1))


def state_features(owner: Sequence[int], kind: Sequence[int], player: int) -> list[float]:
    """``STATE_FEATURES`` of a full state (``owner``, ``kind`` by post), for ``player``."""
    steps = board_distances()
    counts = [[0] * NUM_PIECE_TYPES, [0] * NUM_PIECE_TYPES]
    flags = [None, None]
    for post in range(NUM_POSTS):
        side = owner[post]
        if side in (0, 1):
            counts[side][kind[post]] += 1
            if kind[post] == FLAG:
                flags[side] = post
    threat = [0, 0]  # threat[s]: pieces of side s near the other side's flag
    guards = [0, 0]
    advance = [0, 0]
    for post in range(NUM_POSTS):
        side = owner[post]
        if side not in (0, 1):
            continue
        k = kind[post]
        mobile = k != FLAG and k != MINE
        own_flag, their_flag = flags[side], flags[1 - side]
        if mobile and their_flag is not None and steps[post][their_flag] <= THREAT_STEPS:
            threat[side] += 1
        if own_flag is not None and steps[post][own_flag] == 1:
            guards[side] += 1
        if mobile and post // COLS in _HALF[1 - side]:
            advance[side] += 1
    me, them = player, 1 - player
    pieces = [counts[me][k] - counts[them][k] for k in range(NUM_PIECE_TYPES) if k != FLAG]
    return [*pieces, threat[me] - threat[them], guards[me] - guards[them],
            advance[me] - advance[them]]


@dataclass(frozen=True)
class StateValue:
    """A fitted state value: ``weights`` by ``STATE_FEATURES`` (logit units) and ``scale``
    (logit units per piece-value unit)."""

    weights: tuple[float, ...]
    scale: float

    def logit(self, owner, kind, player: int) -> float:
        """The log-odds of ``player`` winning the full state."""
        return sum(w * f for w, f in zip(self.weights, state_features(owner, kind, player),
                                         strict=True))

    def balance(self, owner, kind, player: int) -> float:
        """The value for ``player`` in piece-value units (0 for an even position)."""
        return self.logit(owner, kind, player) / self.scale

    def as_dict(self) -> dict[str, float]:
        return dict(zip(STATE_FEATURES, self.weights, strict=True))


def state_value_yaml(value: StateValue, made_by: Mapping) -> str:
    """``value`` as the plain YAML ``load_state_value`` reads (weights by feature, the scale),
    with ``made_by`` (how it was made) after them."""
    data = {"weights": {n: float(w) for n, w in zip(STATE_FEATURES, value.weights, strict=True)},
            "scale": value.scale, "made_by": dict(made_by)}
    return ("# The learned Junqi state value (agents/junqi/state_value.py); plain data.\n"
            + yaml.safe_dump(data, sort_keys=False))


def load_state_value(path: str | Path | None = None) -> StateValue:
    """A ``StateValue`` from YAML (``weights`` by feature name, ``scale``; default: the shipped
    fit); plain data only."""
    if path is None:
        path = configs_dir() / "agents" / SHIPPED_NAME
    data = yaml.safe_load(Path(path).read_text())
    if not isinstance(data, Mapping) or not isinstance(data.get("weights"), Mapping):
        raise ValueError(f"{path}: expected a mapping with 'weights' (by feature) and 'scale'")
    weights = data["weights"]
    missing = [name for name in STATE_FEATURES if name not in weights]
    unknown = sorted(set(weights) - set(STATE_FEATURES))
    if missing or unknown:
        raise ValueError(f"{path}: weights missing {missing}, unknown {unknown}")
    values = [weights[name] for name in STATE_FEATURES]
    scale = data.get("scale")
    if not all(isinstance(v, (int, float)) and np.isfinite(v) for v in values):
        raise ValueError(f"{path}: every weight must be a finite number")
    if not isinstance(scale, (int, float)) or not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"{path}: scale must be a positive finite number, got {scale!r}")
    return StateValue(tuple(float(v) for v in values), float(scale))


@lru_cache(maxsize=1)
def shipped_state_value() -> StateValue:
    """The shipped fit, read once per process."""
    return load_state_value()


# --------------------------------------------------------------------------------- fitting
def played_positions(games: Iterable, every: int = 4):
    """Every ``every``-th position of play of each finished ``(start state, actions)`` game, as
    ``(game index, ply, player to move, owner, kind, that player's result)``, the result 1 for
    a win, 0 for a loss, 1/2 for a draw; a game cut short (no result to learn from) is skipped."""
    for index, (start, actions) in enumerate(games):
        state = start.clone()
        positions = []
        for ply, action in enumerate(actions):
            if state.is_terminal():
                break
            if ply % every == 0:
                positions.append((ply, state.current_player, list(state.owner), list(state.kind)))
            state.apply(action)
        if not state.is_terminal():
            continue
        returns = state.returns()
        for ply, player, owner, kind in positions:
            yield index, ply, player, owner, kind, (returns[player] + 1.0) / 2.0


def outcome_samples(games: Iterable, every: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows (``STATE_FEATURES``, for the side to move) and targets (its result) of
    ``played_positions``."""
    rows, targets = [], []
    for _, _, player, owner, kind, result in played_positions(games, every):
        rows.append(state_features(owner, kind, player))
        targets.append(result)
    return np.asarray(rows, dtype=float).reshape(-1, len(STATE_FEATURES)), np.asarray(targets)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def fit_logistic(x: np.ndarray, y: np.ndarray, ridge: float = RIDGE,
                 iterations: int = 50) -> np.ndarray:
    """Weights maximising the mean log-likelihood of targets ``y`` in [0, 1] under
    sigmoid(x @ w), minus ``ridge`` / 2 |w|^2 (Newton's method)."""
    n, d = x.shape
    if n == 0:
        raise ValueError("no samples to fit")
    w = np.zeros(d)
    for _ in range(iterations):
        p = _sigmoid(x @ w)
        gradient = x.T @ (y - p) / n - ridge * w
        hessian = (x.T * (p * (1 - p))) @ x / n + ridge * np.eye(d)
        step = np.linalg.solve(hessian, gradient)
        w += step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w


def log_loss(x: np.ndarray, y: np.ndarray, w) -> float:
    """The mean log-loss of targets ``y`` under sigmoid(x @ w)."""
    p = np.clip(_sigmoid(x @ np.asarray(w, dtype=float)), 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def piece_value_scale(weights: np.ndarray, piece_values: Mapping[str, float]) -> float:
    """Logit units per piece-value unit: the least-squares ``s`` in weight ~ s x value over
    the piece features."""
    learned = np.asarray(weights[:len(PIECE_FEATURES)], dtype=float)
    hand = np.asarray([piece_values[name] for name in PIECE_FEATURES], dtype=float)
    scale = float(learned @ hand / (hand @ hand))
    if not scale > 0:
        raise ValueError("the learned piece values do not rise with the evaluation's; "
                         "no piece-value scale")
    return scale


def fit_samples(x: np.ndarray, y: np.ndarray, piece_values: Mapping[str, float],
                ridge: float = RIDGE) -> tuple[StateValue, dict]:
    """Fit a ``StateValue`` on ``outcome_samples``; also their count and the fit's log-loss."""
    w = fit_logistic(x, y, ridge)
    value = StateValue(tuple(float(v) for v in w), piece_value_scale(w, piece_values))
    return value, {"samples": int(len(y)), "log_loss": log_loss(x, y, w),
                   "draws": float(np.mean(y == 0.5))}


def fit_state_value(games: Iterable, piece_values: Mapping[str, float], every: int = 4,
                    ridge: float = RIDGE) -> tuple[StateValue, dict]:
    """Fit a ``StateValue`` on recorded games (``outcome_samples`` then ``fit_samples``)."""
    x, y = outcome_samples(games, every)
    return fit_samples(x, y, piece_values, ridge)


def fit_report(fit_games: Iterable, test_games: Iterable | None,
               piece_values: Mapping[str, float], every: int = 4) -> tuple[StateValue, dict]:
    """Fit a ``StateValue`` on ``fit_games`` (every ``every``-th position) and report it: the
    fit's samples and log-loss, the weights, the scale and the piece values it implies
    (``piece_values``' units). With ``test_games``, also the log-loss on them of the fit and of
    a logistic fit of the material balance alone (``piece_values``, fitted on the same
    positions), under ``"test"``."""
    x_fit, y_fit = outcome_samples(fit_games, every)
    value, info = fit_samples(x_fit, y_fit, piece_values)
    report = {"fit": info, "weights": value.as_dict(), "scale": value.scale,
              "piece_values": {n: w / value.scale
                               for n, w in zip(PIECE_FEATURES, value.weights, strict=False)}}
    if test_games:
        x, y = outcome_samples(test_games, every)
        hand = np.asarray([piece_values[n] for n in PIECE_FEATURES])
        material_only = fit_logistic((x_fit[:, :len(hand)] @ hand)[:, None], y_fit)
        report["test"] = {
            "samples": int(len(y)),
            "log_loss": log_loss(x, y, value.weights),
            "material_log_loss": log_loss((x[:, :len(hand)] @ hand)[:, None], y, material_only),
        }
    return value, report
