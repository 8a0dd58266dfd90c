"""The search's fast paths against their plain reference twins, on many random positions: the
sampler draws the same types from the same random numbers (and leaves the generator in the same
state), and the move evaluation's features are equal to the last bit. The searches' games stay
byte-identical under a seed only if all of these hold."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from agents.junqi.belief import TokenSampler, make_belief
from agents.junqi.belief.sampling import (
    _pick,
    _pick_table,
    _types_reaching,
    _types_reaching_reference,
    _weighted_pick,
    complete_assignment,
)
from agents.junqi.evaluation import (
    JunqiEvaluation,
    MoveContext,
    _combat_for,
    _combat_tables,
    _mask_tables,
    material,
)
from tbw_envs.junqi import JunqiState
from tbw_envs.junqi.pieces import ARMY_COUNTS, FLAG
from tests.helpers.junqi_fast_reference import ReferenceMoveContext

TRACKERS = ("paper", "count", "uniform")


def _played(rand, rules="ccgc", count=30, longest=400):
    states = []
    while len(states) < count:
        state = JunqiState.random_initial(rand, rules)
        for _ in range(rand.randrange(0, longest)):
            if state.is_terminal():
                break
            state.apply(rand.choice(state.legal_actions()))
        if not state.is_terminal():
            states.append(state)
    return states


def _custom(rand, rules="ccgc"):
    """A custom position: a random part of each army on random posts (several flags allowed
    only as the army has them), either side to move."""
    army = [kind for kind, count in enumerate(ARMY_COUNTS) for _ in range(count)]
    posts = rand.sample(range(60), rand.randint(4, 40))
    pieces = {}
    for index, post in enumerate(posts):
        side = index % 2
        pieces[post] = (side, army[rand.randrange(len(army))])
    for side in (0, 1):  # at most the army's counts of each type per side
        kinds = [kind for post, (s, kind) in sorted(pieces.items()) if s == side]
        for kind in set(kinds):
            extra = kinds.count(kind) - ARMY_COUNTS[kind]
            for post in [p for p, (s, k) in sorted(pieces.items()) if s == side and k == kind]:
                if extra <= 0:
                    break
                del pieces[post]
                extra -= 1
    if not any(s == 0 for s, _ in pieces.values()) or not any(s == 1 for s, _ in pieces.values()):
        return None
    state = JunqiState.from_pieces(pieces, to_move=rand.randrange(2), rules=rules)
    return None if state.is_terminal() else state


def _same_draws(sampler, seed, draws=6, **kwargs):
    fast, slow = random.Random(seed), random.Random(seed)
    for _ in range(draws):
        try:
            got = sampler.draw(fast, **kwargs)
        except ValueError as error:
            with pytest.raises(ValueError, match=str(error)):
                sampler.draw_reference(slow, **kwargs)
        else:
            assert got == sampler.draw_reference(slow, **kwargs)
        assert fast.getstate() == slow.getstate()


# ---------------------------------------------------------------------------------- sampling
def test_tracker_draws_match_the_reference_on_played_games():
    rand = random.Random(1)
    for state in _played(rand):
        view = state.view(state.current_player)
        for name in TRACKERS:
            belief = make_belief(name, view)
            belief.sample_tokens(random.Random(0))  # builds the sampler
            sampler = belief._sampler
            assert sampler._tight  # a full army: no spare slot
            _same_draws(sampler, seed=rand.randrange(1 << 30))
            token = rand.randrange(len(sampler.masks))
            _same_draws(sampler, seed=rand.randrange(1 << 30), first=token,
                        first_mask=rand.randrange(1, 1 << 12))


def test_tracker_draws_match_the_reference_on_custom_positions():
    rand = random.Random(2)
    checked = 0
    while checked < 60:
        state = _custom(rand)
        if state is None:
            continue
        view = state.view(rand.randrange(2))
        belief = make_belief(TRACKERS[checked % 3], view)
        belief.sample_tokens(random.Random(0))
        sampler = belief._sampler
        assert not sampler._tight  # upper counts: spare slots
        _same_draws(sampler, seed=checked)
        _same_draws(sampler, seed=checked, first=rand.randrange(len(sampler.masks)),
                    first_mask=rand.randrange(1, 1 << 12))
        checked += 1


def test_random_samplers_match_the_reference():
    """Masks, weights (some vanishing on a whole mask) and counts drawn at random."""
    rand = random.Random(3)
    built = 0
    while built < 150:
        tokens = rand.randint(1, 25)
        masks = [rand.randrange(1, 1 << 12) | (1 << rand.randrange(12)) for _ in range(tokens)]
        if rand.random() < 0.5:
            masks = [mask & rand.randrange(1, 1 << 12) or 1 << rand.randrange(12)
                     for mask in masks]  # fmt: skip
        weights = [[rand.choice((0.0, rand.random(), rand.random() * 1e-9)) for _ in range(12)]
                   for _ in range(tokens)]  # fmt: skip
        capacity = list(ARMY_COUNTS) if rand.random() < 0.7 else [3] * 12
        try:
            complete_assignment(masks, capacity)
        except ValueError:
            continue
        sampler = TokenSampler(masks, weights, capacity)
        _same_draws(sampler, seed=built, draws=4)
        _same_draws(sampler, seed=built, draws=2, first=rand.randrange(tokens),
                    first_mask=rand.randrange(1, 1 << 12))
        built += 1


def test_sampler_building_blocks_match_their_references():
    rand = random.Random(4)
    for _ in range(3000):
        union = [rand.choice((0, rand.randrange(1 << 12))) for _ in range(12)]
        targets = rand.randrange(1 << 12)
        assert _types_reaching(targets, union) == _types_reaching_reference(targets, union)
        pairs = [(kind, rand.choice((rand.random(), 1e-300, 1.0)))
                 for kind in sorted(rand.sample(range(12), rand.randint(0, 12)))]  # fmt: skip
        allowed = rand.randrange(1 << 12)
        seed = rand.randrange(1 << 30)
        fast, slow = random.Random(seed), random.Random(seed)
        assert _pick(_pick_table(pairs, allowed), fast.random) == _weighted_pick(
            pairs, allowed, slow.random
        )
        assert fast.getstate() == slow.getstate()


# ---------------------------------------------------------------------------------- evaluation
def _configs():
    evaluation = JunqiEvaluation("default")
    wide = dataclasses.replace(evaluation.config, name="wide", flag_alarm_steps=12,
                               protect_min_value=0.0, no_collision_window=40)
    return ("default", "tuned", wide)


def _reference_mask_context(evaluation, state, mover):
    gain, loss, pwin = _mask_tables(_combat_for(state.rules), evaluation.config.piece_values)
    possible = state.possible[mover]
    return ReferenceMoveContext(
        evaluation.config, state.rules, mover, state.owner, state.kind, state.quiet_plies,
        [gain[m] for m in possible], [loss[m] for m in possible], [pwin[m] for m in possible],
        state.flag_revealed,
    )


def _same_context(fast: MoveContext, reference: ReferenceMoveContext, actions) -> None:
    assert fast._flag_alarm == reference._flag_alarm
    assert repr(fast.flag_alarm_urgency) == repr(reference.flag_alarm_urgency)
    for post in range(60):
        assert fast.strikers(post) == reference.strikers(post)
        for piece in (0, 3, 8):
            assert repr(fast.expected_loss(piece, post)) == repr(
                reference.expected_loss(piece, post)
            )
    for action in actions:
        features = fast.features(action)
        # repr tells 0.0 from -0.0: the features must be equal to the last bit.
        assert repr(features) == repr(reference.features(action)), action
        assert repr(fast.weighted(features)) == repr(reference.weighted(features))
    assert repr(fast.scores(actions)) == repr(reference.scores(actions))


@pytest.mark.parametrize("rules", ("ccgc", "house", "qq"))
def test_state_context_features_match_the_reference(rules):
    rand = random.Random(6)
    states = _played(rand, rules, count=25)
    states += [s for s in (_custom(rand, rules) for _ in range(40)) if s is not None]
    for config in _configs():
        evaluation = JunqiEvaluation(config)
        for state in states:
            for mover in (0, 1):
                actions = state._moves.legal_moves_reference(state.owner, state.kind, mover)
                _same_context(evaluation.state_context(state, mover),
                              _reference_mask_context(evaluation, state, mover), actions)


def test_belief_context_features_match_the_reference():
    rand = random.Random(7)
    for config in _configs():
        evaluation = JunqiEvaluation(config)
        for state in _played(rand, count=15):
            view = state.view(state.current_player)
            for name in TRACKERS:
                matrix = make_belief(name, view).matrix()
                tables = _combat_tables(_combat_for(view.rules), evaluation.config.piece_values)
                reference = ReferenceMoveContext(
                    evaluation.config, view.rules, view.player, view.owner, view.kind,
                    view.quiet_plies, (matrix @ tables.gain.T).tolist(),
                    (matrix @ tables.loss.T).tolist(), (matrix @ tables.wins.T).tolist(),
                    view.flag_revealed,
                )
                _same_context(evaluation.context(view, matrix), reference, view.legal_actions())


def test_the_flag_alarm_fires_in_these_positions():
    """The cross-checks above only mean something if the alarm and its defender are exercised."""
    rand = random.Random(6)
    evaluation = JunqiEvaluation(_configs()[2])
    alarms = [evaluation.state_context(s)._flag_alarm for s in _played(rand, count=25)]
    assert sum(alarm is not None for alarm in alarms) >= 5


def test_material_and_weights_match_the_reference_sums():
    rand = random.Random(8)
    values = JunqiEvaluation("tuned").config.piece_values
    for state in _played(rand, count=20):
        for player in (0, 1):
            expected = sum(
                values[state.kind[p]] for p in range(60)
                if state.owner[p] == player and state.kind[p] != FLAG
            )  # fmt: skip
            assert repr(material(state.owner, state.kind, player, values)) == repr(expected)
    context = JunqiEvaluation("tuned").state_context(_played(rand, count=1)[0])
    features = [rand.uniform(-5, 5) for _ in range(6)]
    assert context.weighted(features) == sum(
        w * f for w, f in zip(context.config.weights, features, strict=True)
    )
    assert context.weighted(np.asarray(features)) == context.weighted(features)
    with pytest.raises(ValueError):
        context.weighted(features[:5])
