"""Two references that put the gap between the belief trackers in context.

- ``IndependentExactPrior`` (``independent``): the paper's independent tables, with the exact
  uniform-layout prior on the headquarters too, so that the paper/count gap splits into "prior"
  and "army counting".
- ``exact_posterior`` (``exact``): the exact posterior of the same evidence, uniform over every
  type assignment that fits every mask and the army counts (the posterior under uniform layouts
  when the opponent's choice of moves is ignored), estimated by a Markov chain.

``reference_losses`` scores both, with the paper and count trackers, on the same views
(``agents.junqi.belief.scoring`` reports them; ``scripts/research/eval_beliefs.py
--ceiling-views``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

import numpy as np

from agents.junqi.belief import (
    LAYOUT_MARGINALS,
    CountBelief,
    PaperBelief,
    complete_assignment,
    normalise_rows,
)
from tbw_envs.junqi.pieces import ARMY_COUNTS

CLIP = 1e-12  # a probability below this is scored as this (-log 1e-12 = 27.6 nats)
SAMPLE_EVERY = 5  # the chain's state is counted every this many steps after the burn-in


def clipped_loss(probability: float) -> float:
    """``-log p`` of a true type, ``p`` clipped at ``CLIP`` (an impossible truth scores 27.6)."""
    return -float(np.log(max(probability, CLIP)))


class IndependentExactPrior(PaperBelief):
    """Reference: independent tables like the paper's, with the exact uniform-layout prior on
    every post (headquarters included) instead of Table 1."""

    name = "independent"

    def _token_probabilities(self) -> np.ndarray:
        masks = self._mask_matrix()
        return normalise_rows(LAYOUT_MARGINALS[list(self.evidence.cells)] * masks, masks)


def exact_posterior(masks: Sequence[int], rand: random.Random, steps: int,
                    burn_in: int) -> np.ndarray:
    """``(tokens, 12)`` marginals of the uniform distribution over type assignments that fit
    every mask (bit k: type k allowed) and the army counts, by a Markov chain: propose swapping
    the types of two tokens or rotating three, keep it when every mask allows (symmetric
    proposals, so the uniform law is stationary). The state is counted every ``SAMPLE_EVERY``
    steps from ``burn_in`` on."""
    count = len(masks)
    assign = complete_assignment(masks, ARMY_COUNTS)
    visits = np.zeros((count, len(ARMY_COUNTS)))
    tokens = range(count)
    rows = np.arange(count)
    for step in range(steps):
        if rand.random() < 0.5:
            a, b = rand.sample(tokens, 2)
            if masks[a] >> assign[b] & 1 and masks[b] >> assign[a] & 1:
                assign[a], assign[b] = assign[b], assign[a]
        else:
            a, b, c = rand.sample(tokens, 3)
            ka, kb, kc = assign[a], assign[b], assign[c]
            if masks[a] >> kc & 1 and masks[b] >> ka & 1 and masks[c] >> kb & 1:
                assign[a], assign[b], assign[c] = kc, ka, kb
        if step >= burn_in and step % SAMPLE_EVERY == 0:
            visits[rows, assign] += 1
    # Half a pseudo-visit per allowed type, so a rare type the chain missed is not scored as
    # impossible (the clipped log-loss would be 27.6 for it).
    allowed = np.asarray(masks)[:, None] >> np.arange(len(ARMY_COUNTS)) & 1
    visits += 0.5 * allowed
    return visits / visits.sum(axis=1, keepdims=True)


def reference_losses(views_and_states: Iterable, rand: random.Random, steps: int) -> dict:
    """Mean log-loss on the true types of the living opponent pieces, pooled over the
    ``(view, true state)`` pairs (any iterable, a progress bar's included), of ``paper``,
    ``independent``, ``count`` and ``exact`` (a chain of ``steps`` steps, a tenth of them
    burn-in); with the views, the pieces scored and the chain's length."""
    losses: dict[str, list[float]] = {"paper": [], "independent": [], "count": [], "exact": []}
    views = 0
    for view, state in views_and_states:
        views += 1
        count = CountBelief.from_view(view)
        tables = {
            "paper": PaperBelief(view, count.evidence).token_matrix(),
            "independent": IndependentExactPrior(view, count.evidence).token_matrix(),
            "count": count.token_matrix(),
            "exact": exact_posterior(list(count.evidence.masks), rand, steps, steps // 10),
        }
        for token, post in enumerate(count.evidence.posts):
            if post is None:
                continue
            kind = state.kind[post]
            for name, table in tables.items():
                losses[name].append(clipped_loss(table[token, kind]))
    return {name: float(np.mean(values)) for name, values in losses.items()} | {
        "views": views,
        "pieces": len(losses["exact"]),
        "chain_steps": steps,
    }
