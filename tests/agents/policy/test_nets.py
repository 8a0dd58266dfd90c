"""The plane CNN (``agents.policy.nets``): it keeps every board, feeds the masked action head,
and refuses flat spaces and empty layers."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

from tbw_envs.junqi.env.single import make_junqi_single
from tbw_envs.tbw.env.single import make_tbw_single
from tests.helpers.ppo import nets_or_skip, torch_or_skip, untrained_policy

BOARDS = {
    "tbw duel 8x8": lambda: make_tbw_single("duel_5v5_8x8"),
    "tbw battle 16x16": lambda: make_tbw_single("battle_10v10_16x16"),
    "tbw hex 8x10": lambda: make_tbw_single("hex_skirmish"),
    "junqi 12x5": lambda: make_junqi_single(),
}


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_plane_cnn_keeps_every_board(board):
    torch, nets = torch_or_skip(), nets_or_skip()
    env = BOARDS[board]()
    shape = env.observation_space.shape
    extractor = nets.PlaneCNN(env.observation_space, features_dim=24, channels=(8, 4))
    obs = torch.rand((3, *shape))
    features = extractor(obs)
    assert features.shape == (3, 24)
    # Padding keeps the board: the flattened conv output is channels x rows x cols.
    assert extractor.convs(obs).shape == (3, 4 * shape[1] * shape[2])
    # Different planes give different features (the network reads its input).
    assert not torch.allclose(features[0], features[1])


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_plane_cnn_feeds_the_masked_action_head(board):
    torch = torch_or_skip()
    env = BOARDS[board]()
    policy = untrained_policy(env)
    obs, _ = env.reset(seed=0)
    distribution = policy.get_distribution(torch.as_tensor(obs[None]),
                                           action_masks=env.action_masks()[None])
    probs = distribution.distribution.probs[0].detach().numpy()
    assert probs.shape == (env.action_space.n,)
    assert probs[~env.action_masks()].max() == 0.0
    assert probs.sum() == pytest.approx(1.0, abs=1e-5)


def test_plane_cnn_rejects_flat_spaces_and_empty_layers():
    plane_cnn = nets_or_skip().PlaneCNN
    with pytest.raises(ValueError, match="channel-first"):
        plane_cnn(spaces.Box(0, 1, (10,), np.float32))
    with pytest.raises(ValueError, match="channel count"):
        plane_cnn(spaces.Box(0, 1, (3, 4, 4), np.float32), channels=())
