"""``agents.junqi.value_net_training``: the samples read off played positions, the lookahead
targets, and the torch network against the NumPy ``ValueNet`` it is saved as (the training run
itself is tested through its command line, tests/scripts/research/test_train_value_net.py)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.junqi.belief.scoring import random_play_games
from agents.junqi.state_value import played_positions, shipped_state_value, state_features
from agents.junqi.value_net import placed_indices
from agents.junqi.value_net_training import (
    MAX_PIECES,
    PAD,
    all_logits,
    build_model,
    lookahead_targets,
    matched_scale,
    mean_log_loss,
    position_samples,
    subset,
    to_value_net,
)


@pytest.fixture(scope="module")
def games():
    return random_play_games(3, seed=8, rules="ccgc", longest=5000)


def test_the_samples_are_the_played_positions_padded(games):
    samples = position_samples(games, every=5)
    positions = list(played_positions(games, every=5))
    assert len(samples["target"]) == len(positions) > 0
    for row, (game, ply, player, owner, kind, result) in enumerate(positions):
        mine, theirs = placed_indices(owner, kind, player)
        assert list(samples["mine"][row]) == mine + [PAD] * (MAX_PIECES - len(mine))
        assert list(samples["theirs"][row]) == theirs + [PAD] * (MAX_PIECES - len(theirs))
        np.testing.assert_allclose(samples["dense"][row], state_features(owner, kind, player))
        assert (samples["game"][row], samples["ply"][row]) == (game, ply)
        assert samples["target"][row] == result
    kept = subset(samples, samples["game"] == 1)
    assert set(kept["game"]) == {1} and len(kept["mine"]) == len(kept["target"])
    with pytest.raises(ValueError, match="no finished games to learn from"):
        position_samples([(start, actions[:3]) for start, actions in games], every=1)


def test_lookahead_targets_read_the_same_games_later_positions():
    samples = {"game": np.array([0, 0, 0, 1, 1]), "ply": np.array([0, 2, 4, 0, 2]),
               "dense": np.zeros((5, 1)), "target": np.array([1.0, 1.0, 1.0, 0.0, 0.0])}
    samples["dense"][:, 0] = [0.0, 1.0, 2.0, -1.0, 3.0]
    targets = lookahead_targets(samples, [1.0], plies=2)
    expected = [1 / (1 + np.exp(-1.0)), 1 / (1 + np.exp(-2.0)), 1.0,
                1 / (1 + np.exp(-3.0)), 0.0]
    np.testing.assert_allclose(targets, expected)


def test_the_saved_network_scores_positions_as_the_torch_network_does(games):
    torch = pytest.importorskip("torch", reason="torch is not installed (the train extra)")
    torch.manual_seed(3)
    model = build_model(5)
    with torch.no_grad():  # away from zero, so the hidden layer takes part
        for parameter in model.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.3)
        model.placed_linear.weight[PAD].zero_()
        model.placed_hidden.weight[PAD].zero_()
    samples = position_samples(games, every=7)
    logits = all_logits(model, samples, batch=7)  # several batches
    net = to_value_net(model, scale=2.0, metadata={})
    positions = list(played_positions(games, every=7))
    expected = [net.logit(owner, kind, player) for _, _, player, owner, kind, _ in positions]
    np.testing.assert_allclose(logits, expected, rtol=1e-4, atol=1e-4)
    # Antisymmetric: the same position read for the other side is the opposite logit.
    _, _, player, owner, kind, _ = positions[0]
    assert net.logit(owner, kind, 1 - player) == pytest.approx(-expected[0], abs=1e-9)
    target = samples["target"].astype(float)
    assert mean_log_loss(model, samples) == pytest.approx(
        float(np.mean(np.log1p(np.exp(logits)) - target * logits)), rel=1e-6)


def test_the_scale_matches_the_shipped_values_balance(games):
    torch = pytest.importorskip("torch", reason="torch is not installed (the train extra)")
    shipped = shipped_state_value()
    samples = position_samples(games, every=7)
    model = build_model(3)
    with torch.no_grad():  # the shipped state value's logit: dense counted once for each side
        for parameter in model.parameters():
            parameter.zero_()
        model.dense_linear.weight[0] = torch.tensor(shipped.weights) / 2
    assert matched_scale(model, samples) == pytest.approx(shipped.scale, rel=1e-5)
    with torch.no_grad():
        model.dense_linear.weight.neg_()
    with pytest.raises(ValueError, match="do not rise with the state value's"):
        matched_scale(model, samples)
