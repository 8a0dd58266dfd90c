"""Self-play PPO on the batched cores (``agents.learned``): the zero-sum advantages against a
per-game loop written from their definition, the legal-action lists and the pairs head against
plain full computations, the checkpoints (a resumed run makes the same weights as one never
stopped; a damaged file is refused by name), and a short run that learns."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (the train extra)")
pytest.importorskip("numba", reason="numba not installed (the fast extra)")

from agents.learned.files import NetFileError, load_net  # noqa: E402
from agents.learned.net import (  # noqa: E402
    PolicyValueNet,
    check_config,
    default_config,
    legal_lists,
    policy_head_for,
)
from agents.training import selfplay_checkpoints as checkpoints  # noqa: E402
from agents.training.selfplay import (  # noqa: E402
    SelfPlayConfig,
    SelfPlayTrainer,
    negamax_gae,
)


def gae_by_definition(rewards, values, dones, signs, last_values, gamma, lam):
    """Per game, backwards: the mover's lambda-return, turning the next mover's return and
    value into this mover's by the sign (negamax)."""
    steps, n = rewards.shape
    advantages = np.zeros((steps, n))
    for game in range(n):
        for t in range(steps):
            # A_t = sum_k (gamma * lam)^k * (product of signs up to k) * delta_{t+k}, stopped
            # after the first move that ends a game.
            total, scale = 0.0, 1.0
            for k in range(t, steps):
                next_value = last_values[game] if k + 1 == steps else values[k + 1, game]
                carry = 0.0 if dones[k, game] else signs[k, game]
                delta = rewards[k, game] + gamma * carry * next_value - values[k, game]
                total += scale * delta
                if dones[k, game]:
                    break
                scale *= gamma * lam * signs[k, game]
            advantages[t, game] = total
    return advantages


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_negamax_gae_equals_its_definition(seed):
    rng = np.random.default_rng(seed)
    steps, n = 17, 6
    rewards = np.zeros((steps, n), np.float32)
    dones = (rng.random((steps, n)) < 0.15).astype(np.float32)
    rewards[dones > 0] = rng.choice([-1.0, 1.0, 0.0], size=int(dones.sum()))
    values = rng.uniform(-1, 1, (steps, n)).astype(np.float32)
    signs = rng.choice([-1.0, 1.0], size=(steps, n)).astype(np.float32)
    last = rng.uniform(-1, 1, n).astype(np.float32)
    for gamma, lam in ((1.0, 0.95), (0.99, 0.0), (1.0, 1.0)):
        advantages, targets = negamax_gae(rewards, values, dones, signs, last, gamma, lam)
        expected = gae_by_definition(rewards, values, dones, signs, last, gamma, lam)
        assert np.allclose(advantages, expected, atol=1e-5)
        assert np.allclose(targets, expected + values, atol=1e-5)


def test_negamax_gae_credits_the_winner_and_debits_the_loser():
    """Two alternating players, lam = 1, zero values: the move that wins gets +1, every earlier
    move of the winner +1 and every move of the loser -1."""
    steps = 5
    rewards = np.zeros((steps, 1), np.float32)
    rewards[-1, 0] = 1.0  # the mover of the last move (player 0: moves 0, 2, 4) wins
    dones = np.zeros((steps, 1), np.float32)
    dones[-1, 0] = 1.0
    signs = -np.ones((steps, 1), np.float32)
    advantages, _ = negamax_gae(rewards, np.zeros((steps, 1), np.float32), dones, signs,
                                np.zeros(1, np.float32), 1.0, 1.0)
    assert advantages[:, 0].tolist() == [1.0, -1.0, 1.0, -1.0, 1.0]


def test_legal_lists_list_every_legal_action_in_order():
    rng = np.random.default_rng(0)
    mask = rng.random((50, 40)) < 0.1
    mask[3] = False  # a finished game's row
    listed, valid = legal_lists(mask)
    for row in range(50):
        expected = np.flatnonzero(mask[row]).tolist() or [0]
        assert listed[row][valid[row]].tolist() == expected
        assert not valid[row, len(expected):].any()
    assert listed.shape[1] == max(mask.sum(axis=1).max(), 1)


def test_the_pairs_head_scores_the_pairs_and_the_extra_actions():
    """The listed actions' logits equal the full (from, to) dot-product table and the extra
    layer read at those ids; the log-probabilities are the softmax over the legal ones only."""
    torch.manual_seed(0)
    config = default_config((5, 3, 2), 36 + 4, channels=8, blocks=1, head_channels=3,
                            policy_head="pairs")
    net = PolicyValueNet(config)
    planes = torch.rand(4, 5, 3, 2)
    mask = np.zeros((4, 40), bool)
    mask[0, [0, 7, 35, 36, 39]] = True
    mask[1, [12]] = True
    mask[2, [38]] = True
    mask[3, 5:30] = True
    listed, valid = legal_lists(mask)
    log_probs, values = net(planes, torch.from_numpy(listed), torch.from_numpy(valid))
    head = net.policy_head
    features = net.blocks(net.stem(planes))
    sources, targets = head.project(features).flatten(2).split(3, dim=1)
    table = torch.einsum("bkf,bkt->bft", sources, targets).reshape(4, 36) / 3 ** 0.5
    full = torch.cat([table, head.extra(features.mean(dim=(2, 3)))], dim=1)
    full = full.masked_fill(~torch.from_numpy(mask), float("-inf"))
    expected = torch.log_softmax(full, dim=1)
    for row in range(4):
        ids = listed[row][valid[row]]
        assert torch.allclose(log_probs[row][torch.from_numpy(valid[row])], expected[row, ids],
                              atol=1e-5)
    assert values.shape == (4,) and bool((values.abs() <= 1).all())


def test_a_bad_config_is_refused_by_name():
    good = default_config((3, 4, 4), 300, policy_head="pairs")
    with pytest.raises(ValueError, match="policy_head"):
        check_config({**good, "policy_head": "mlp"})
    with pytest.raises(ValueError, match="at least 256 actions"):
        check_config({**good, "num_actions": 100})
    with pytest.raises(ValueError, match="channels"):
        check_config({**good, "channels": 0})
    with pytest.raises(ValueError, match="exactly the keys"):
        check_config({k: v for k, v in good.items() if k != "blocks"})
    with pytest.raises(ValueError, match="num_envs"):
        SelfPlayConfig(num_envs=0).check()
    with pytest.raises(ValueError, match="lr"):
        SelfPlayConfig(lr=0).check()


def small(game="junqi", **changes):
    variant = {"rules": "ccgc"} if game == "junqi" else {"scenario": "duel_5v5_8x8"}
    settings = dict(game=game, variant=variant, num_envs=16, rollout_steps=8, minibatch=64,
                    channels=8, blocks=1, head_channels=4, value_hidden=16, restart_every=2,
                    policy_head=policy_head_for(game))
    return SelfPlayConfig(**{**settings, **changes})


def weights(trainer):
    return [p.detach().clone() for p in trainer.net.parameters()]


@pytest.mark.parametrize("game", ["junqi", "tbw"])
def test_a_resumed_run_makes_the_same_weights_as_one_never_stopped(game, tmp_path):
    # A league too: its snapshots are part of what a checkpoint restores.
    league = {"league_fraction": 0.5, "snapshot_every": 1, "league_size": 2}
    straight = SelfPlayTrainer(small(game, **league), seed=5)
    for _ in range(4):
        straight.update()
    first = SelfPlayTrainer(small(game, **league), seed=5)
    for _ in range(2):
        first.update()
    path = checkpoints.save(first, tmp_path / "run.npz")
    del first
    resumed = checkpoints.resume(path)
    assert resumed.updates_done == 2 and len(resumed.league) == 2
    for _ in range(2):
        resumed.update()
    assert resumed.env_steps == straight.env_steps
    for ours, theirs in zip(weights(resumed), weights(straight), strict=True):
        assert torch.equal(ours, theirs)
    # Another seed makes other weights: the equality above is not a constant.
    other = SelfPlayTrainer(small(game, **league), seed=6)
    for _ in range(4):
        other.update()
    assert not all(torch.equal(a, b) for a, b in zip(weights(other), weights(straight),
                                                      strict=True))


def test_weights_only_files_play_and_do_not_resume(tmp_path):
    trainer = SelfPlayTrainer(small(), seed=1)
    trainer.update()
    path = checkpoints.save(trainer, tmp_path / "net.npz", weights_only=True)
    net, meta = load_net(path)
    assert meta["game"] == "junqi" and meta["updates_done"] == 1
    for ours, theirs in zip(net.parameters(), trainer.net.parameters(), strict=True):
        assert torch.equal(ours, theirs)
    with pytest.raises(NetFileError, match="weights-only"):
        checkpoints.resume(path)


def test_damaged_checkpoints_are_refused_by_name(tmp_path):
    trainer = SelfPlayTrainer(small(), seed=1)
    path = checkpoints.save(trainer, tmp_path / "net.npz")
    arrays = dict(np.load(path, allow_pickle=False))
    name = next(key for key in arrays if key.startswith("param/"))
    cases = {
        "shape": {**arrays, name: arrays[name][..., :1]},
        "nan": {**arrays, name: np.full_like(arrays[name], np.nan)},
        "missing": {key: value for key, value in arrays.items() if key != name},
    }
    for label, content in cases.items():
        bad = tmp_path / f"{label}.npz"
        np.savez(bad, **content)
        with pytest.raises(NetFileError, match="param/|NaN"):
            load_net(bad)
    (tmp_path / "text.npz").write_text("not an archive")
    with pytest.raises(NetFileError, match="not a network file"):
        load_net(tmp_path / "text.npz")
    np.savez(tmp_path / "other.npz", metadata=np.frombuffer(b'{"format": "x"}', np.uint8))
    with pytest.raises(NetFileError, match="not a tbw-envs-selfplay"):
        load_net(tmp_path / "other.npz")


@pytest.mark.parametrize("game", ["junqi", "tbw"])
def test_every_sample_is_the_movers_and_legal(game):
    """A rollout's actions are legal in their masks, the rewards sit on the moves that ended a
    game, and the sign says whether the same player moved next."""
    trainer = SelfPlayTrainer(small(game, rollout_steps=40), seed=2)
    batch = trainer.collect()
    steps, n = batch["action"].shape
    rows = batch["action"].reshape(-1)
    masks = batch["mask"].reshape(steps * n, -1)
    assert masks[np.arange(steps * n), rows].all()
    assert (batch["reward"][batch["done"] == 0] == 0).all()
    assert set(np.unique(batch["sign"])) <= {-1.0, 1.0}
    within = batch["sign"][batch["done"] == 0]  # after an ending the sign is never used
    if game == "tbw":  # a turn is several unit actions by one side
        assert (within == 1).any() and (within == -1).any()
    else:  # ccgc: the players alternate
        assert (within == -1).all()


def test_league_games_train_on_the_learners_moves_only():
    """With a league, the first games are played against a frozen snapshot, the learner in seat
    slot % 2; exactly the snapshot's moves there carry no policy weight, and a snapshot does not
    move when the learner learns."""
    trainer = SelfPlayTrainer(small(num_envs=8, league_fraction=0.5, snapshot_every=1,
                                    rollout_steps=12), seed=4)
    trainer.update()  # update 0 takes the first snapshot (the untrained net)
    snapshot = [p.detach().clone() for p in trainer.league[0].parameters()]
    assert not all(torch.equal(a, b) for a, b in zip(snapshot, weights(trainer), strict=True))
    batch = trainer.collect()
    league = np.arange(8) < 4
    learner_seat = np.arange(8) % 2
    expected = league[None, :] & (batch["mover"] != learner_seat[None, :])
    assert np.array_equal(batch["learner"] == 0, expected)
    assert expected.any() and (league[None, :] & ~expected).any()
    for before, after in zip(snapshot, trainer.league[0].parameters(), strict=True):
        assert torch.equal(before, after)
    stats = trainer.learn(batch)
    assert np.isfinite(list(stats.values())).all()


def test_the_units_head_scores_each_unit_tile_and_target():
    """TBW's ids ``(slot * T + tile) * (U + 1) + target`` read the 1x1 convolution's channel
    ``slot * (U + 1) + target`` at the tile; the last id (end the turn) the mean features."""
    torch.manual_seed(1)
    units, tiles = 2, 6
    actions = units * tiles * (units + 1) + 1
    net = PolicyValueNet(default_config((4, 2, 3), actions, channels=8, blocks=0,
                                        policy_head="units"))
    planes = torch.rand(3, 4, 2, 3)
    mask = np.ones((3, actions), bool)
    listed, valid = legal_lists(mask)
    log_probs, _ = net(planes, torch.from_numpy(listed), torch.from_numpy(valid))
    features = net.blocks(net.stem(planes))
    table = net.policy_head.per_tile(features).flatten(2)
    last = net.policy_head.last(features.mean(dim=(2, 3)))[:, 0]
    expected = torch.zeros(3, actions)
    for slot in range(units):
        for tile in range(tiles):
            for target in range(units + 1):
                action = (slot * tiles + tile) * (units + 1) + target
                expected[:, action] = table[:, slot * (units + 1) + target, tile]
    expected[:, -1] = last
    assert torch.allclose(log_probs, torch.log_softmax(expected, dim=1), atol=1e-5)
    with pytest.raises(ValueError, match="units policy head"):
        default_config((4, 2, 3), actions + 1, policy_head="units")
