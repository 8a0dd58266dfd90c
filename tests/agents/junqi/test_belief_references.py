"""``agents.junqi.belief.references``: the Markov chain's marginals against an enumeration of
every assignment, and at the start of play (no evidence but the deployment rules) both
references are the exact uniform-layout marginals."""

from __future__ import annotations

import random
from itertools import permutations

import numpy as np
import pytest

from agents.junqi.belief import LAYOUT_MARGINALS, CountBelief
from agents.junqi.belief.references import (
    IndependentExactPrior,
    clipped_loss,
    exact_posterior,
    reference_losses,
)
from tbw_envs.junqi import JunqiState
from tbw_envs.junqi.pieces import ARMY_COUNTS, BOMB, FLAG, MARSHAL, NUM_PIECE_TYPES

FREE = (BOMB, BOMB, FLAG, MARSHAL)  # the types the four free tokens share between them
FREE_MASKS = (1 << BOMB | 1 << FLAG, 1 << BOMB | 1 << FLAG | 1 << MARSHAL,
              1 << BOMB | 1 << MARSHAL, 1 << BOMB | 1 << FLAG | 1 << MARSHAL)


def pinned_army_masks() -> list[int]:
    """An army whose tokens are pinned to one type each, but for four that share two bombs,
    the flag and the marshal under ``FREE_MASKS``."""
    counts = list(ARMY_COUNTS)
    for kind in FREE:
        counts[kind] -= 1
    pinned = [1 << kind for kind in range(NUM_PIECE_TYPES) for _ in range(counts[kind])]
    return [*FREE_MASKS, *pinned]


def enumerated_marginals(masks) -> np.ndarray:
    """The marginals of the free tokens, uniform over every distinct assignment that fits."""
    fits = {types for types in permutations(FREE)
            if all(masks[t] >> kind & 1 for t, kind in enumerate(types))}
    marginals = np.zeros((len(FREE), NUM_PIECE_TYPES))
    for types in fits:
        marginals[np.arange(len(FREE)), types] += 1
    return marginals / len(fits)


def test_the_chain_finds_the_marginals_of_every_fitting_assignment():
    masks = pinned_army_masks()
    expected = enumerated_marginals(masks)
    # By hand: the flag on token 0, 1 or 3 and the marshal on another of 1, 2 or 3 (the rest
    # bombs): 3 + 2 + 2 = 7 assignments, the flag on token 0 in 3, the marshal on token 2 in 3.
    assert expected[0, FLAG] == pytest.approx(3 / 7)
    assert expected[2, MARSHAL] == pytest.approx(3 / 7)
    # Most proposals move a pinned token and are refused, so the chain mixes slowly: at this
    # length its marginals were within 0.05 of the enumeration for each of six seeds tried.
    found = exact_posterior(masks, random.Random(2), steps=300_000, burn_in=1000)
    np.testing.assert_allclose(found[:4], expected, atol=0.05)
    # The pinned tokens keep their type (up to the half pseudo-visit of an allowed type).
    assert all(found[t, masks[t].bit_length() - 1] == 1.0 for t in range(4, len(masks)))


def test_a_type_the_chain_never_visits_keeps_a_little_probability():
    masks = pinned_army_masks()
    found = exact_posterior(masks, random.Random(0), steps=10, burn_in=10)  # counts nothing
    for token, mask in enumerate(masks[:4]):
        allowed = [kind for kind in range(NUM_PIECE_TYPES) if mask >> kind & 1]
        assert found[token, allowed] == pytest.approx([1 / len(allowed)] * len(allowed))


def test_at_the_start_both_references_are_the_uniform_layout_marginals():
    state = JunqiState.random_initial(random.Random(4))
    view = state.view(0)
    count = CountBelief.from_view(view)
    marginals = LAYOUT_MARGINALS[list(count.evidence.cells)]
    np.testing.assert_allclose(IndependentExactPrior(view, count.evidence).token_matrix(),
                               marginals, atol=1e-12)
    exact = exact_posterior(list(count.evidence.masks), random.Random(2), 60_000, 6000)
    np.testing.assert_allclose(exact, marginals, atol=0.08)


def test_reference_losses_score_every_living_piece_on_its_true_type():
    rand = random.Random(6)
    state = JunqiState.random_initial(rand)
    for _ in range(30):
        state.apply(rand.choice(state.legal_actions()))
    pairs = [(state.view(player), state) for player in (0, 1)]
    losses = reference_losses(iter(pairs), random.Random(0), steps=2000)
    living = sum(state.owner[post] == 1 - player
                 for player in (0, 1) for post in range(len(state.owner)))
    assert (losses["views"], losses["pieces"], losses["chain_steps"]) == (2, living, 2000)
    expected = np.mean([clipped_loss(CountBelief.from_view(view).probs(post)[state.kind[post]])
                        for view, _ in pairs for post in view.opponent_posts()])
    assert losses["count"] == pytest.approx(expected)
    assert all(0 < losses[name] < 3 for name in ("paper", "independent", "count", "exact"))


def test_an_impossible_truth_costs_the_clip():
    assert clipped_loss(0.0) == pytest.approx(-np.log(1e-12))
    assert clipped_loss(1.0) == 0.0
