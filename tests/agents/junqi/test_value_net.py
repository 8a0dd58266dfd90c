"""The Junqi value network (``agents.junqi.value_net``): its logit against a plain dense
reference, antisymmetry, the file round trip and refusals, the shipped file, and a search
on it (``leaf="net"``; the leaf itself is tested beside the state value's leaf)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.junqi.state_value import state_features
from agents.junqi.value_net import (
    NUM_DENSE,
    NUM_PLACED,
    ValueNet,
    load_value_net,
    save_value_net,
    shipped_value_net,
)
from agents.registry import make_agent
from tbw_envs.junqi.board import NUM_POSTS, mirror_post
from tbw_envs.junqi.pieces import NUM_PIECE_TYPES
from tests.helpers.junqi_games import midgame_states


def random_net(hidden: int = 8, seed: int = 0) -> ValueNet:
    rng = np.random.default_rng(seed)
    return ValueNet(rng.normal(size=NUM_PLACED), rng.normal(size=NUM_DENSE),
                    rng.normal(size=(NUM_PLACED, hidden)), rng.normal(size=(NUM_DENSE, hidden)),
                    rng.normal(size=hidden), rng.normal(size=hidden), scale=0.5,
                    metadata={"command": "test"})


def one_hot(state, reader: int) -> np.ndarray:
    """The reader's one-hot, built post by post from the module's docstring."""
    x = np.zeros(NUM_PLACED)
    for post in range(NUM_POSTS):
        side = state.owner[post]
        if side in (0, 1):
            seen = post if reader == 0 else mirror_post(post)
            whose = 0 if side == reader else 1
            x[(whose * NUM_PIECE_TYPES + state.kind[post]) * NUM_POSTS + seen] = 1.0
    return x


def reference_logit(net: ValueNet, state, player: int) -> float:
    def side(x, dense):
        hidden = np.maximum(x @ net.placed_hidden + dense @ net.dense_hidden + net.hidden_bias, 0)
        return x @ net.placed_linear + dense @ net.dense_linear + hidden @ net.hidden_out

    dense = np.asarray(state_features(state.owner, state.kind, player), dtype=float)
    return float(side(one_hot(state, player), dense) - side(one_hot(state, 1 - player), -dense))


@pytest.mark.parametrize("seed", [0, 1])
def test_the_logit_matches_a_dense_reference_and_is_antisymmetric(seed):
    net = random_net(seed=seed)
    for state in midgame_states(4, plies=40, seed=seed):
        for player in (0, 1):
            logit = net.logit(state.owner, state.kind, player)
            assert logit == pytest.approx(reference_logit(net, state, player))
            assert logit == pytest.approx(-net.logit(state.owner, state.kind, 1 - player))
            assert net.balance(state.owner, state.kind, player) == pytest.approx(logit / 0.5)


def test_the_file_reads_back_and_bad_files_are_refused(tmp_path):
    net = random_net()
    path = tmp_path / "net.npz"
    save_value_net(net, path)
    again = load_value_net(path)
    assert again.scale == net.scale and again.metadata["command"] == "test"
    for name, array in net.arrays().items():
        np.testing.assert_array_equal(getattr(again, name), array)

    arrays = dict(np.load(path, allow_pickle=False))
    bad = tmp_path / "bad.npz"
    np.savez(bad, **{k: v for k, v in arrays.items() if k != "hidden_out"})
    with pytest.raises(ValueError, match=r"missing \['hidden_out'\]"):
        load_value_net(bad)
    np.savez(bad, **{**arrays, "hidden_bias": np.full(8, np.nan)})
    with pytest.raises(ValueError, match="hidden_bias holds a non-finite"):
        load_value_net(bad)
    np.savez(bad, **{**arrays, "hidden_out": np.zeros(3)})
    with pytest.raises(ValueError, match=r"hidden_out must be a float array of shape \(8,\)"):
        load_value_net(bad)
    for text in (b"not a zip", path.read_bytes()[:2000]):  # not an archive; one cut short
        bad.write_bytes(text)
        with pytest.raises(ValueError, match="not a value-network file"):
            load_value_net(bad)


def test_the_shipped_network_loads_with_its_provenance():
    net = shipped_value_net()
    assert net.scale > 0 and net.hidden >= 1
    made_by = net.metadata
    assert made_by["command"].startswith("python scripts/train_value_net.py")
    assert all(len(digest) == 64 for digest in made_by["games_sha256"].values())
    assert isinstance(made_by["seed"], int)


def test_a_search_on_the_net_leaf_plays_a_legal_move():
    agent = make_agent("ismcts:iterations=30,leaf=net")
    agent.reset(seed=3)
    for state in midgame_states(2, plies=30, seed=7):
        view = state.view(state.current_player)
        assert agent.act(view) in state.legal_actions()
        assert agent.last_stats["iterations"] == 30
