"""The one-ply best move by the move evaluation (Junqi's ``greedy`` in the registry)."""

from __future__ import annotations

from agents.junqi.deployment import JunqiAgentBase
from agents.junqi.evaluation import JunqiEvaluation


class GreedyEvalAgent(JunqiAgentBase):
    """Plays the legal move the evaluation scores highest under its belief; ties go to a
    seeded random choice, so two seeds give two different (equally greedy) games."""

    name = "greedy"

    def __init__(self, belief: str | None = None, weights="default", seed: int | None = None,
                 layout: str = "random"):
        super().__init__(seed=seed, layout=layout)
        from agents.junqi.belief import BELIEFS, DEFAULT_BELIEF

        self.belief_name = DEFAULT_BELIEF if belief is None else belief
        if self.belief_name not in BELIEFS:
            raise ValueError(f"unknown belief {belief!r}; known: {sorted(BELIEFS)}")
        self.evaluation = JunqiEvaluation(weights)

    def choose(self, view, actions: list[int]) -> int:
        from agents.junqi.belief import make_belief

        context = self.evaluation.context(view, make_belief(self.belief_name, view))
        scores = context.scores(actions)
        best = max(scores)
        ties = [a for a, s in zip(actions, scores, strict=True) if s >= best - 1e-9]
        return ties[self._rng.randrange(len(ties))]
