"""MaskablePPO training, the plane CNN and the PPO arena agent (the train extra).

Each test skips only for what it needs: the plane CNN needs torch and stable-baselines3, anything
with a MaskablePPO policy needs sb3-contrib, and the error of the PPO agent without the train
extra is checked everywhere."""

from __future__ import annotations

import csv
import json
import random
import sys

import numpy as np
import pytest
from gymnasium import spaces

from agents.arena import junqi_game, play_game, tbw_game
from agents.learning.agent import PPOAgent  # torch-free until a policy is used
from agents.random_agent import RandomAgent
from agents.registry import make_agent
from tbw_envs import junqi_v0, tbw_v0
from tbw_envs.wrappers import make_junqi_single, make_tbw_single


def _torch():
    """torch, on one thread (skips the test without it)."""
    torch = pytest.importorskip("torch", reason="torch is not installed (the train extra)")
    torch.set_num_threads(1)
    return torch


def _nets():
    """agents.nets (the plane CNN): torch and stable-baselines3, not sb3-contrib."""
    _torch()
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed")
    from agents.learning import nets

    return nets


def _maskable_ppo():
    _nets()
    return pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed").MaskablePPO

BOARDS = {
    "tbw duel 8x8": lambda: make_tbw_single("duel_5v5_8x8"),
    "tbw battle 16x16": lambda: make_tbw_single("battle_10v10_16x16"),
    "tbw hex 8x10": lambda: make_tbw_single("hex_skirmish"),
    "junqi 12x5": lambda: make_junqi_single(),
}


def _untrained_policy(env, policy_kwargs=None, seed=0):
    """An untrained MaskablePPO policy (skips the test without sb3-contrib)."""
    maskable_ppo = _maskable_ppo()
    kwargs = policy_kwargs or _nets().plane_policy_kwargs(channels=(8,), features_dim=32)
    model = maskable_ppo("MlpPolicy", env, n_steps=32, batch_size=32, seed=seed, device="cpu",
                         policy_kwargs=kwargs)
    return model.policy


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_plane_cnn_keeps_every_board(board):
    torch, nets = _torch(), _nets()
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
    torch = _torch()
    env = BOARDS[board]()
    policy = _untrained_policy(env)
    obs, _ = env.reset(seed=0)
    distribution = policy.get_distribution(torch.as_tensor(obs[None]),
                                           action_masks=env.action_masks()[None])
    probs = distribution.distribution.probs[0].detach().numpy()
    assert probs.shape == (env.action_space.n,)
    assert probs[~env.action_masks()].max() == 0.0
    assert probs.sum() == pytest.approx(1.0, abs=1e-5)


def test_plane_cnn_rejects_flat_spaces_and_empty_layers():
    plane_cnn = _nets().PlaneCNN
    with pytest.raises(ValueError, match="channel-first"):
        plane_cnn(spaces.Box(0, 1, (10,), np.float32))
    with pytest.raises(ValueError, match="channel count"):
        plane_cnn(spaces.Box(0, 1, (3, 4, 4), np.float32), channels=())


def _walk_game(raw, agent_obj, rng, plies=400):
    """Random legal play of a raw AEC env; at every ply the PPO agent's encoding of the core
    view must equal what the env gives that seat, and its actions must map back the same."""
    checked = set()
    for _ in range(plies):
        if any(raw.terminations.values()):
            break
        seat = raw.agent_selection
        view = raw.view(seat)
        obs, mask = agent_obj.encode(view)
        expected = raw.observe(seat)
        np.testing.assert_array_equal(obs, expected["observation"])
        np.testing.assert_array_equal(mask, expected["action_mask"].astype(bool))
        legal = np.flatnonzero(mask)
        action = int(rng.choice(legal))
        codec = agent_obj._codec(view)
        assert codec.to_core(view, action) == raw.to_core_action(seat, action)
        checked.add(seat)
        raw.step(action)
    return checked


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_agent_encodes_views_exactly_as_the_wrapper_observes(game):
    if game == "tbw":
        raw = tbw_v0.raw_env(scenario="duel_5v5_8x8")
        env = make_tbw_single("duel_5v5_8x8")
    else:
        raw = junqi_v0.raw_env()
        env = make_junqi_single()
    agent = PPOAgent.from_policy(_untrained_policy(env), game)
    raw.reset(seed=3)
    assert _walk_game(raw, agent, np.random.default_rng(0)) == {"player_0", "player_1"}


@pytest.mark.parametrize("game", ["tbw", "junqi"])
@pytest.mark.parametrize("deterministic", [True, False])
def test_ppo_agent_plays_only_legal_actions_in_both_seats(game, deterministic):
    env = make_tbw_single("duel_5v5_8x8") if game == "tbw" else make_junqi_single()
    agent = PPOAgent.from_policy(_untrained_policy(env, seed=1), game,
                                 deterministic=deterministic, seed=5)
    new_game = tbw_game("duel_5v5_8x8") if game == "tbw" else junqi_game("ccgc")
    seats_played = set()
    for seat in (0, 1):
        state = new_game(seat)
        opponent = RandomAgent(seed=seat)
        agent.reset(seat)
        for _ in range(150):
            if state.is_terminal():
                break
            player = state.current_player
            view = state.view(player)
            if player == seat:
                action = agent.act(view)
                assert action in view.legal_actions()
                if deterministic:
                    # The most likely legal action of the policy, mapped to the core frame.
                    probs = agent.action_probabilities(view)
                    _, mask = agent.encode(view)
                    best = int(np.flatnonzero(mask)[np.argmax(probs[mask])])
                    assert action == agent._codec(view).to_core(view, best)
                seats_played.add(seat)
            else:
                action = opponent.act(view)
            state.apply(action)
    assert seats_played == {0, 1}


def test_sampled_play_is_reproducible_by_seed():
    env = make_junqi_single()
    policy = _untrained_policy(env)
    state = junqi_game("ccgc")(0)
    view = state.view(state.current_player)
    picks = []
    for _ in range(2):
        agent = PPOAgent.from_policy(policy, "junqi", deterministic=False, seed=11)
        picks.append([agent.act(view) for _ in range(30)])
    assert picks[0] == picks[1]
    assert len(set(picks[0])) > 1  # sampling, not a fixed choice


def _train(tmp_path, game, *extra):
    _maskable_ppo()
    from scripts.train_ppo import main

    out = tmp_path / game
    argv = ["--game", game, "--timesteps", "128", "--n-steps", "64", "--batch-size", "32",
            "--n-epochs", "1", "--checkpoint-every", "64", "--eval-every", "0",
            "--eval-games", "2", "--eval-opponents", "random", "--no-progress",
            "--out", str(out), "--seed", "0", *extra]
    assert main(argv) == 0
    return out


@pytest.mark.parametrize("game, extra", [
    ("tbw", ("--opponent", "random", "--policy", "cnn", "--opening-plies", "6")),
    # Self-play with a snapshot every 64 steps, and the MLP policy.
    ("junqi", ("--opponent", "self", "--snapshot-every", "64", "--policy", "mlp")),
])
def test_train_save_load_and_play_an_arena_game(tmp_path, game, extra):
    out = _train(tmp_path, game, *extra)
    for name in ("policy.npz", "model.zip", "monitor.csv", "eval.csv", "learning_curve.png",
                 "run.json"):
        assert (out / name).is_file(), name
    # Each checkpoint as SB3's zip (to resume) and as a policy file (what the arena loads).
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [
        "ppo_128_steps.npz", "ppo_128_steps.zip", "ppo_64_steps.npz", "ppo_64_steps.zip"]
    with (out / "monitor.csv").open() as f:
        episodes = list(csv.DictReader(line for line in f if not line.startswith("#")))
    assert episodes and {e["learner"] for e in episodes} <= {"player_0", "player_1"}
    assert all(float(e["r"]) in (-1.0, 0.0, 1.0) for e in episodes)
    run = json.loads((out / "run.json").read_text())
    assert run["timesteps"] == 128
    assert [row["opponent"] for row in run["final_eval"]] == ["random"]
    if game == "junqi":
        # The initial snapshot plus one at 64 steps (the 128th step ends training).
        assert run["pool"]["snapshot_steps"][:2] == [0, 64]
        assert sum(run["pool"]["episodes_per_snapshot"].values()) >= 1
    agent = make_agent(f"ppo:path={out / 'policy.npz'}", seed=0, game=game)
    assert agent.game_info["game"] == game
    new_game = tbw_game() if game == "tbw" else junqi_game()
    record = play_game(new_game, [agent, RandomAgent(seed=1)], seed=0)
    assert record.final_state.is_terminal()
    assert record.moves_per_agent[agent.name] > 0


def test_ppo_agent_without_the_train_extra_names_the_extra(monkeypatch, tmp_path):
    """Runs everywhere: sb3-contrib is hidden (a None entry in sys.modules fails its import)."""
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)
    for build in (lambda: make_agent(f"ppo:path={tmp_path / 'model.zip'}", game="tbw"),
                  lambda: PPOAgent(policy=object(), game_info={"game": "tbw"})):
        with pytest.raises(ImportError, match=r"torch and sb3-contrib \(the train extra\)"):
            build()


def test_registry_errors_name_the_problem(tmp_path):
    _maskable_ppo()
    with pytest.raises(FileNotFoundError, match="not found"):
        make_agent(f"ppo:path={tmp_path / 'missing.npz'}", game="tbw")
    with pytest.raises(ValueError, match="deterministic"):
        make_agent(f"ppo:path={tmp_path / 'x.zip'},deterministic=maybe", game="tbw")
    env = make_tbw_single("duel_5v5_8x8")
    agent = PPOAgent.from_policy(_untrained_policy(env), "tbw")
    junqi_state = junqi_game()(0)
    with pytest.raises(ValueError, match="trained on tbw"):
        agent.act(junqi_state.view(0))
    # A TBW scenario of another shape than the model's is refused, naming both shapes.
    other = tbw_game("hex_skirmish")(0)
    with pytest.raises(ValueError, match="hex_skirmish"):
        agent.act(other.view(0))


def test_snapshot_pool_draws_per_env_and_keeps_frozen_copies():
    torch = _torch()
    _maskable_ppo()
    from agents.learning.pools import SnapshotPool

    env = make_tbw_single("duel_5v5_8x8")
    pool = SnapshotPool("tbw", pool_size=2, latest_prob=0.0)
    first_env, second_env = pool.opponent(seed=1), pool.opponent(seed=2)
    with pytest.raises(RuntimeError, match="empty"):
        first_env.reset(0)
    policies = [_untrained_policy(env, seed=s) for s in range(3)]
    for steps, policy in enumerate(policies):
        pool.add(policy, steps)
    assert pool.steps == [1, 2]  # the oldest left the pool
    # Frozen copies: training the live policy later does not change a snapshot.
    live = next(policies[2].parameters())
    with torch.no_grad():
        live.add_(1.0)
    assert not torch.equal(live, next(pool.policies[-1].parameters()))
    # Each env keeps its own draw for its whole episode while other envs reset.
    first_env.reset(5)
    drawn = first_env._current
    rng = random.Random(0)
    for _ in range(40):
        second_env.reset(rng.randrange(1000))
    assert first_env._current is drawn
    assert set(pool.games_against) == {1, 2}
    state = tbw_game()(0)
    assert first_env.act(state.view(state.current_player)) in state.legal_actions()
