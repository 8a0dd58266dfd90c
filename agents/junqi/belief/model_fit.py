"""Maximum-likelihood weights for the opponent model of ``opponent_model`` (``ModelBelief``).

The model picks move m among the mover's legal moves with probability
``exp(w . f(m)) / sum over its legal moves``: a conditional (multinomial) logit whose features
``f`` are the move evaluation's (``agents.junqi.evaluation``, ``FEATURE_NAMES``) from the mover's
side: its own true types and its public deductions about the other side's pieces, as
``JunqiEvaluation.state_context(state)`` gives them on the true state. On recorded games every
type is known, so the likelihood of the played moves is exact, and its negative log is convex in
``w`` (the temperature is absorbed in ``w``): ``fit_weights`` minimises it by Newton's method
with a backtracking line search from ``w = 0`` (deterministic, no randomness involved).

- ``choice_data(games, config, features)``: the choice sets of every ply of the games (both
  players), the features of ``features`` only;
- ``negative_log_likelihood(w, data)``: the mean over the choices of ``-log P(played move)``,
  with its gradient and Hessian;
- ``fit_weights(data)``: the minimiser, and a summary of the fit;
- ``fit_opponent_model(games)``: the fit of the ``model`` tracker's own features
  (``MODEL_FEATURES`` under ``FEATURE_CONFIG``), and ``fit_markdown`` its table
  (``scripts/research/eval_beliefs.py --fit-model``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from agents.junqi.belief.opponent_model import FEATURE_CONFIG, MODEL_FEATURES
from agents.junqi.evaluation import FEATURE_NAMES, JunqiEvaluation

# Newton's method stops when the step's predicted decrease of the mean negative log-likelihood
# (half the Newton decrement squared) falls below this, or after MAX_NEWTON_STEPS steps.
NEWTON_TOLERANCE = 1e-12
MAX_NEWTON_STEPS = 100
# A ridge added to the Hessian of the mean: keeps the step defined when a feature never varies
# within a choice set (then its weight stays at 0), too small to move a fitted weight.
RIDGE = 1e-10


@dataclass(frozen=True)
class ChoiceData:
    """Stacked choice sets: ``features[starts[g]:starts[g + 1]]`` are the legal moves of choice
    ``g`` and ``chosen[g]`` the row of the move played (an index into ``features``)."""

    names: tuple[str, ...]
    features: np.ndarray  # (rows, len(names))
    starts: np.ndarray  # (choices + 1,)
    chosen: np.ndarray  # (choices,)

    @property
    def choices(self) -> int:
        return len(self.chosen)

    @classmethod
    def from_sets(cls, names: Sequence[str], sets: Iterable[tuple[np.ndarray, int]]):
        """From ``(features of the legal moves, index of the played one)`` pairs."""
        blocks, starts, chosen, rows = [], [0], [], 0
        for matrix, index in sets:
            matrix = np.asarray(matrix, dtype=np.float64).reshape(-1, len(names))
            if not 0 <= index < len(matrix):
                raise ValueError(f"played move {index} outside a choice of {len(matrix)}")
            blocks.append(matrix)
            chosen.append(rows + index)
            rows += len(matrix)
            starts.append(rows)
        features = np.concatenate(blocks) if blocks else np.zeros((0, len(names)))
        return cls(tuple(names), features, np.asarray(starts), np.asarray(chosen, dtype=np.int64))


def choice_data(games, config="tuned", features: Sequence[str] = FEATURE_NAMES) -> ChoiceData:
    """The choice sets of every ply of ``games`` (``(starting state, actions)`` pairs, as
    ``scripts/research/eval_beliefs.py`` reads them from arena records), both players' moves,
    each move's features (those named in ``features``) from the mover's side on the true state,
    under the evaluation config ``config`` (its piece values and feature parameters; its
    weights unused). Plies with a single legal move carry no information and are left out."""
    unknown = set(features) - set(FEATURE_NAMES)
    if unknown:
        raise ValueError(f"unknown feature(s) {sorted(unknown)}; features: {list(FEATURE_NAMES)}")
    columns = [FEATURE_NAMES.index(name) for name in features]
    evaluation = JunqiEvaluation(config)
    sets = []
    for start, actions in games:
        state = start.clone()
        for action in actions:
            legal = state.legal_actions()
            if len(legal) > 1:
                context = evaluation.state_context(state)
                matrix = np.asarray([context.features(a) for a in legal], dtype=np.float64)
                sets.append((matrix[:, columns], legal.index(action)))
            state.apply(action)
    return ChoiceData.from_sets(features, sets)


def negative_log_likelihood(weights, data: ChoiceData) -> tuple[float, np.ndarray, np.ndarray]:
    """The mean over the choices of ``-log P(played move)`` at ``weights``, its gradient and its
    Hessian (the mean over the choices of the features' covariance under the model)."""
    weights = np.asarray(weights, dtype=np.float64)
    x, starts = data.features, data.starts
    sizes = np.diff(starts)
    group = np.repeat(np.arange(data.choices), sizes)
    scores = x @ weights
    top = np.maximum.reduceat(scores, starts[:-1])
    exp = np.exp(scores - top[group])
    totals = np.add.reduceat(exp, starts[:-1])
    log_totals = top + np.log(totals)
    p = exp / totals[group]
    value = float(np.mean(log_totals - scores[data.chosen]))
    means = np.add.reduceat(p[:, None] * x, starts[:-1])  # (choices, features)
    gradient = (means.sum(axis=0) - x[data.chosen].sum(axis=0)) / data.choices
    hessian = ((x * p[:, None]).T @ x - means.T @ means) / data.choices
    return value, gradient, hessian


def fit_weights(data: ChoiceData, start=None) -> tuple[np.ndarray, dict]:
    """The maximum-likelihood weights (``data.names`` order), by Newton's method with a
    backtracking line search; and a summary: the mean negative log-likelihood at the optimum and
    at ``w = 0`` (uniform choice), the steps taken and the standard errors (from the inverse
    Hessian of the summed likelihood)."""
    if not data.choices:
        raise ValueError("no choices to fit")
    # Each choice's features less those of its played move: the same likelihood (a softmax does
    # not see a shift common to its moves), better conditioned, and a feature that never varies
    # within a choice becomes exactly 0.
    played = data.features[np.repeat(data.chosen, np.diff(data.starts))]
    data = replace(data, features=data.features - played)
    dimension = len(data.names)
    weights = np.zeros(dimension) if start is None else np.asarray(start, dtype=np.float64)
    uniform = negative_log_likelihood(np.zeros(dimension), data)[0]
    value, gradient, hessian = negative_log_likelihood(weights, data)
    steps = 0
    while steps < MAX_NEWTON_STEPS:
        direction = -np.linalg.solve(hessian + RIDGE * np.eye(dimension), gradient)
        decrement = -float(gradient @ direction)
        if decrement / 2.0 < NEWTON_TOLERANCE:
            break
        size = 1.0
        while True:
            trial = weights + size * direction
            trial_value, trial_gradient, trial_hessian = negative_log_likelihood(trial, data)
            if trial_value <= value - 0.25 * size * decrement or size < 1e-10:
                break
            size /= 2.0
        weights, value, gradient, hessian = trial, trial_value, trial_gradient, trial_hessian
        steps += 1
    covariance = np.linalg.pinv(hessian * data.choices)
    summary = {
        "features": list(data.names),
        "weights": dict(zip(data.names, map(float, weights), strict=True)),
        "standard_errors": dict(
            zip(data.names, map(float, np.sqrt(np.maximum(np.diag(covariance), 0.0))), strict=True)
        ),
        "choices": data.choices,
        "moves": int(len(data.features)),
        "mean_nll": value,
        "mean_nll_uniform": uniform,
        "newton_steps": steps,
        "gradient_norm": float(np.linalg.norm(gradient)),
    }
    return weights, summary


def fit_opponent_model(games) -> dict:
    """The maximum-likelihood weights of the ``model`` tracker's features (``MODEL_FEATURES``
    under ``FEATURE_CONFIG``) on every move of ``games``: ``fit_weights``' summary, with the
    games counted and the config named."""
    data = choice_data(games, FEATURE_CONFIG, MODEL_FEATURES)
    _, summary = fit_weights(data)
    return summary | {"games": len(games), "feature_config": FEATURE_CONFIG}


def fit_markdown(fit: dict) -> str:
    """``fit_opponent_model``'s weights with their standard errors, the likelihoods, and the
    weights as a ``FITTED_WEIGHTS`` literal to paste into ``opponent_model``."""
    lines = ["| feature | weight | standard error |", "|---|---:|---:|"]
    for name, weight in fit["weights"].items():
        lines.append(f"| {name} | {weight:.6g} | {fit['standard_errors'][name]:.2g} |")
    lines.append("")
    lines.append(
        f"{fit['games']} games, {fit['choices']} choices ({fit['moves']} legal moves), "
        f"{fit['newton_steps']} Newton steps: mean -log P(played move) {fit['mean_nll']:.4f} "
        f"(uniform choice {fit['mean_nll_uniform']:.4f})"
    )
    lines.append("")
    lines.append("FITTED_WEIGHTS = {")
    lines.extend(f'    "{name}": {weight!r},' for name, weight in fit["weights"].items())
    lines.append("}")
    return "\n".join(lines)
