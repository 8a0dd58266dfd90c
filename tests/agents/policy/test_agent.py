"""The MaskablePPO arena agent (``agents.policy.agent``): it encodes views exactly as the wrapper
observes them, plays only legal actions in both seats, samples reproducibly by seed, and names
the problem when it is built without the train extra or asked to play another game."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from agents.arena import junqi_game, tbw_game
from agents.policy.agent import PPOAgent  # torch-free until a policy is used
from agents.random_agent import RandomAgent
from agents.registry import make_agent
from tbw_envs import junqi_v0, tbw_v0
from tbw_envs.junqi.env.single import make_junqi_single
from tbw_envs.tbw.env.single import make_tbw_single
from tests.helpers.ppo import maskable_ppo_or_skip, untrained_policy


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
    agent = PPOAgent.from_policy(untrained_policy(env), game)
    raw.reset(seed=3)
    assert _walk_game(raw, agent, np.random.default_rng(0)) == {"player_0", "player_1"}


@pytest.mark.parametrize("game", ["tbw", "junqi"])
@pytest.mark.parametrize("deterministic", [True, False])
def test_ppo_agent_plays_only_legal_actions_in_both_seats(game, deterministic):
    env = make_tbw_single("duel_5v5_8x8") if game == "tbw" else make_junqi_single()
    agent = PPOAgent.from_policy(untrained_policy(env, seed=1), game,
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
    policy = untrained_policy(env)
    state = junqi_game("ccgc")(0)
    view = state.view(state.current_player)
    picks = []
    for _ in range(2):
        agent = PPOAgent.from_policy(policy, "junqi", deterministic=False, seed=11)
        picks.append([agent.act(view) for _ in range(30)])
    assert picks[0] == picks[1]
    assert len(set(picks[0])) > 1  # sampling, not a fixed choice


def test_ppo_agent_without_the_train_extra_names_the_extra(monkeypatch, tmp_path):
    """Runs everywhere: sb3-contrib is hidden (a None entry in sys.modules fails its import)."""
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)
    for build in (lambda: make_agent(f"ppo:path={tmp_path / 'model.zip'}", game="tbw"),
                  lambda: PPOAgent(policy=object(), game_info={"game": "tbw"})):
        with pytest.raises(ImportError, match=r"torch and sb3-contrib \(the train extra\)"):
            build()


def test_registry_errors_name_the_problem(tmp_path):
    maskable_ppo_or_skip()
    with pytest.raises(FileNotFoundError, match="not found"):
        make_agent(f"ppo:path={tmp_path / 'missing.npz'}", game="tbw")
    with pytest.raises(ValueError, match="deterministic"):
        make_agent(f"ppo:path={tmp_path / 'x.zip'},deterministic=maybe", game="tbw")
    env = make_tbw_single("duel_5v5_8x8")
    agent = PPOAgent.from_policy(untrained_policy(env), "tbw")
    junqi_state = junqi_game()(0)
    with pytest.raises(ValueError, match="trained on tbw"):
        agent.act(junqi_state.view(0))
    # A TBW scenario of another shape than the model's is refused, naming both shapes.
    other = tbw_game("hex_skirmish")(0)
    with pytest.raises(ValueError, match="hex_skirmish"):
        agent.act(other.view(0))
