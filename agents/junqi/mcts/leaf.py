"""Leaf evaluators: how a search values the world it reached at the end of a descent.

``RandomRollout`` is plain UCT's: uniformly random moves to the end of the game, reward 1 / 0.5 /
0. The others play evaluation-guided moves (the best of ``sample_k`` random legal moves by the
move evaluation, with the mover's public deductions) down to a horizon, then score the leaf one
of four ways (the agents' ``leaf`` parameter):

``MaterialLeaf`` (``leaf="material"``)
    The change of material (piece values, flag excluded) since the root in the determinized
    world, plus the positional features (flag defence, progress, no-collision) of the moves on
    the path, ours added and the opponent's subtracted: the positional part is what a material
    count does not already show.
``ValueLeaf`` (``leaf="value"``)
    The same, with the learned state value (``agents.junqi.state_value``: a logistic model of
    the winning chance fitted on game outcomes, in piece-value units) in place of material.
``NetLeaf`` (``leaf="net"``)
    The same, with the learned value network (``agents.junqi.value_net``: every piece where it
    stands, in piece-value units) in place of material.
``EvaluationLeaf`` (``leaf="evaluation"``)
    The evaluation's whole score of every move on the path, ours added and the opponent's
    subtracted.

The credit a move on the path earns is weighed with ``credit_config``'s weights (by default the
evaluation's own): ISMCTS's ``leaf_weights`` lets the tree rank moves with one set of weights and
credit their positional features with another.

A finished game scores +/-``WIN_VALUE`` either way.
"""

from __future__ import annotations

import math
import random
from operator import mul
from typing import Protocol

from agents.junqi.eval_config import FEATURE_NAMES, EvalConfig
from agents.junqi.evaluation import JunqiEvaluation, material
from agents.junqi.state_value import shipped_state_value
from agents.junqi.value_net import shipped_value_net

WIN_VALUE = 1000.0
# Features whose effect a leaf's material change does not already show.
POSITIONAL_FEATURES = ("flag_defence", "progress", "no_collision")


class LeafEvaluator(Protocol):
    """What the search loop asks of a leaf evaluator."""

    def origin(self, state, player: int) -> float:
        """What leaves are measured against, taken in the world just drawn (before the descent)."""

    def value(self, state, player: int, origin: float, path_credit: float, depth: int) -> float:
        """The value for ``player`` of the world reached ``depth`` plies below the root, whose
        moves in the tree earned ``path_credit`` (see ``GuidedLeaf.credit``)."""


class RandomRollout:
    """Uniformly random moves until the game ends or ``rollout_limit`` plies (scored as a draw);
    the value is the searching player's reward: 1 for a win, 0.5 for a draw, 0 for a loss."""

    def __init__(self, rng: random.Random, rollout_limit: int):
        self.rng = rng
        self.rollout_limit = rollout_limit

    def origin(self, state, player: int) -> float:
        return 0.0

    def value(self, state, player: int, origin: float, path_credit: float, depth: int) -> float:
        rng = self.rng
        plies = 0
        while not state.is_terminal() and plies < self.rollout_limit:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            plies += 1
        return (state.returns()[player] + 1.0) / 2.0


class GuidedLeaf:
    """Evaluation-guided moves below the tree until ``horizon`` plies from the root (then on to
    an even depth when ``even``, so the opponent has answered our last move) or the end of the
    game. Subclasses say what a move adds to the leaf (``credit``) and how a reached world
    scores against the root's (``origin``, ``score``)."""

    def __init__(self, evaluation: JunqiEvaluation, rng: random.Random, sample_k: int,
                 horizon: int, even: bool, credit_config: EvalConfig | None = None):
        self.evaluation = evaluation
        self.rng = rng
        self.sample_k = sample_k
        self.horizon = horizon
        self.even = even
        self.credit_config = evaluation.config if credit_config is None else credit_config

    def origin(self, state, player: int) -> float:
        return 0.0

    def credit(self, score: float, features) -> float:  # pragma: no cover - interface
        """What a move of evaluation ``score`` and ``features`` adds to a leaf's value, for its
        mover (the tree policies rank and credit their candidates with it too)."""
        raise NotImplementedError

    def score(self, state, player: int, origin: float) -> float:  # pragma: no cover - interface
        """The reached world's part of the leaf value, for ``player``."""
        raise NotImplementedError

    def value(self, state, player: int, origin: float, path_credit: float, depth: int) -> float:
        """Play on from ``depth`` plies below the root; the leaf's value, with the credit of
        the whole path unless the game ended."""
        horizon, even = self.horizon, self.even
        while (depth < horizon or (even and depth % 2)) and not state.is_terminal():
            mover = state.current_player
            action, credit = self.guided_move(state)
            state.apply(action)
            path_credit += credit if mover == player else -credit
            depth += 1
        if state.is_terminal():
            return state.returns()[player] * WIN_VALUE
        return self.score(state, player, origin) + path_credit

    def guided_move(self, state) -> tuple[int, float]:
        """The best of ``sample_k`` random legal moves by the evaluation (with the mover's
        public deductions), and its leaf credit."""
        legal = state.legal_actions()
        if len(legal) > self.sample_k:
            legal = self.rng.sample(legal, self.sample_k)
        context = self.evaluation.state_context(state)
        best, best_score, best_features = legal[0], -math.inf, None
        for action in legal:
            features = context.features(action)
            score = context.weighted(features)
            if score > best_score:
                best, best_score, best_features = action, score, features
        return best, self.credit(best_score, best_features)


class MaterialLeaf(GuidedLeaf):
    """Material change since the root plus the path's positional features (weighed with
    ``credit_config``'s weights)."""

    def __init__(self, evaluation: JunqiEvaluation, rng: random.Random, sample_k: int,
                 horizon: int, even: bool, credit_config: EvalConfig | None = None):
        super().__init__(evaluation, rng, sample_k, horizon, even, credit_config)
        self.values = evaluation.config.piece_values
        self.positional_weights = [
            w if name in POSITIONAL_FEATURES else 0.0
            for name, w in zip(FEATURE_NAMES, self.credit_config.weights, strict=True)
        ]

    def origin(self, state, player: int) -> float:
        return self.balance(state, player)

    def credit(self, score: float, features) -> float:
        return sum(w * f for w, f in zip(self.positional_weights, features, strict=True))

    def score(self, state, player: int, origin: float) -> float:
        return self.balance(state, player) - origin

    def balance(self, state, player: int) -> float:
        """Our material minus the opponent's."""
        values = self.values
        return material(state.owner, state.kind, player, values) - material(
            state.owner, state.kind, 1 - player, values
        )


class ValueLeaf(MaterialLeaf):
    """The learned state value's change since the root (``agents.junqi.state_value``, in
    piece-value units) in place of the material balance, plus the path's positional features."""

    shipped = staticmethod(shipped_state_value)  # the learned value: ``balance(owner, kind, p)``

    def __init__(self, evaluation: JunqiEvaluation, rng: random.Random, sample_k: int,
                 horizon: int, even: bool, credit_config: EvalConfig | None = None):
        super().__init__(evaluation, rng, sample_k, horizon, even, credit_config)
        self.learned = self.shipped()

    def balance(self, state, player: int) -> float:
        return self.learned.balance(state.owner, state.kind, player)


class NetLeaf(ValueLeaf):
    """The value network's change since the root (``agents.junqi.value_net``) in place of the
    state value's."""

    shipped = staticmethod(shipped_value_net)


class EvaluationLeaf(GuidedLeaf):
    """The evaluation's score of every move on the path (weighed with ``credit_config``'s
    weights), nothing for the world reached."""

    def credit(self, score: float, features) -> float:
        if self.credit_config is self.evaluation.config:
            return score
        return sum(map(mul, self.credit_config.weights, features))

    def score(self, state, player: int, origin: float) -> float:
        return 0.0


# The ``leaf`` parameter of the guided searches.
GUIDED_LEAVES = {"material": MaterialLeaf, "evaluation": EvaluationLeaf, "value": ValueLeaf,
                 "net": NetLeaf}
