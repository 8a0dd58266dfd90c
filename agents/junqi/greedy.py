"""The one-ply best move by the move evaluation (Junqi's ``greedy`` in the registry)."""

from __future__ import annotations

from agents.common.params import check_params
from agents.junqi.base import BASE_PARAMS, BELIEF, WEIGHTS, JunqiAgentBase
from agents.junqi.belief import DEFAULT_BELIEF, make_belief
from agents.junqi.evaluation import JunqiEvaluation


class GreedyAgent(JunqiAgentBase):
    """Plays the legal move the evaluation scores highest under its belief; ties go to a
    seeded random choice, so two seeds give two different (equally greedy) games."""

    name = "greedy"
    PARAMS = {**BASE_PARAMS, "belief": BELIEF, "weights": WEIGHTS}

    def __init__(self, belief: str | None = None, weights="default", seed: int | None = None,
                 layout: str = "random"):
        super().__init__(seed=seed, layout=layout)
        check_params(self.PARAMS, type(self).__name__, belief=belief, weights=weights)
        self.belief_name = DEFAULT_BELIEF if belief is None else belief
        self.evaluation = JunqiEvaluation(weights)

    def choose(self, view, actions: list[int]) -> int:
        context = self.evaluation.context(view, make_belief(self.belief_name, view))
        scores = context.scores(actions)
        best = max(scores)
        ties = [a for a, s in zip(actions, scores, strict=True) if s >= best - 1e-9]
        return ties[self._rng.randrange(len(ties))]
