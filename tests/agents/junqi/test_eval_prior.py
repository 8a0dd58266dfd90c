"""The move evaluation as a PPO prior (``agents.junqi.eval_prior``, ``eval_prior_net``): the
scores in the observation are greedy's scores in the env's frame, zero once the episode is over,
the prior's settings are checked, and the untrained policy plays greedy's move. Training with
``--eval-prior`` is tested in tests/agents/cli/test_train.py."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.junqi.belief import make_belief
from agents.junqi.eval_prior import (
    SCORES_KEY,
    EvalPrior,
    EvalPriorObservation,
    as_eval_prior,
    make_junqi_eval_prior,
)
from agents.junqi.greedy import GreedyAgent
from tbw_envs.junqi.observation import action_to_absolute
from tbw_envs.junqi.state import NUM_ACTIONS
from tbw_envs.tbw.env.single import make_tbw_single
from tests.helpers.ppo import needs_torch_and_sb3_contrib


def _greedy_expectation(view, prior: EvalPrior):
    """What greedy computes for ``view``: its scores of the legal moves (absolute actions),
    and the env-frame vector the observation should hold."""
    greedy = GreedyAgent(seed=0)
    legal = view.legal_actions()
    raw = greedy.evaluation.context(view, make_belief(greedy.belief_name, view)).scores(legal)
    expected = np.zeros(NUM_ACTIONS, dtype=np.float32)
    best = max(raw)
    for action, score in zip(legal, raw, strict=True):
        frame = action_to_absolute(action, view.player)  # the top player's moves are mirrored
        expected[frame] = max((score - best) / prior.temperature, -prior.clip)
    return legal, np.asarray(raw), expected


def _walk(env, seed, steps, rng):
    """Observations of the learner along one or more games (the learner mixes greedy's move
    and random legal moves, so games reach captures and flag threats)."""
    obs, _ = env.reset(seed=seed)
    greedy = GreedyAgent(seed=seed)
    for _ in range(steps):
        inner = env.unwrapped
        view = inner.aec.view(inner.learner)
        yield obs, view
        if rng.random() < 0.5:
            action = inner.aec.to_env_action(inner.learner, greedy.act(view))
        else:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            obs, _ = env.reset()


@pytest.mark.parametrize("seat", [0, 1])
def test_scores_in_the_observation_are_greedys_scores_in_the_env_frame(seat):
    prior = EvalPrior()
    env = make_junqi_eval_prior(opponent=GreedyAgent(seed=3), learner_seat=seat)
    assert env.observation_space[SCORES_KEY].shape == (NUM_ACTIONS,)
    rng = np.random.default_rng(seat)
    mirrored_differs = 0
    checked = 0
    for obs, view in _walk(env, seed=10 + seat, steps=120, rng=rng):
        assert view.player == seat
        assert env.observation_space.contains(obs)
        legal, raw, expected = _greedy_expectation(view, prior)
        np.testing.assert_allclose(obs[SCORES_KEY], expected, rtol=0, atol=1e-5)
        mask = obs["action_mask"].astype(bool)
        np.testing.assert_array_equal(mask, env.action_masks())
        assert not obs[SCORES_KEY][~mask].any()  # illegal actions score 0
        # Greedy's move (any of its ties) is a best move of the observation (score 0).
        frame = [action_to_absolute(a, seat) for a in legal]
        best_frame = {f for f, s in zip(frame, raw, strict=True) if s >= raw.max() - 1e-9}
        greedy_move = action_to_absolute(GreedyAgent(seed=checked).act(view), seat)
        assert greedy_move in best_frame
        assert obs[SCORES_KEY][greedy_move] == 0.0
        if seat == 1:
            unmirrored = np.zeros(NUM_ACTIONS, dtype=np.float32)
            unmirrored[legal] = expected[frame]
            mirrored_differs += not np.array_equal(unmirrored, expected)
        checked += 1
    assert checked == 120
    if seat == 1:
        assert mirrored_differs == checked  # the check above would catch a missing mirror


def test_scores_are_zero_once_the_episode_is_over():
    env = make_junqi_eval_prior(opponent="random")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
    assert not obs[SCORES_KEY].any()


def test_prior_settings_are_checked():
    with pytest.raises(ValueError, match="temperature must be a positive number"):
        EvalPrior(temperature=0)
    with pytest.raises(ValueError, match="clip must be a positive number"):
        EvalPrior(clip=float("nan"))
    with pytest.raises(ValueError, match="unknown belief"):
        EvalPrior(belief="oracle")
    with pytest.raises(ValueError, match="unknown key"):
        EvalPrior.from_dict({"temperature": 1.0, "beta": 2.0})
    with pytest.raises(TypeError, match="EvalPrior settings"):
        as_eval_prior("default")
    with pytest.raises(ValueError, match="Junqi only"):
        EvalPriorObservation(make_tbw_single("duel_5v5_8x8"))
    # The settings survive a round trip with the weights in full.
    prior = EvalPrior(temperature=3.0, clip=7.0)
    again = EvalPrior.from_dict(json.loads(json.dumps(prior.to_dict())))
    assert again.to_dict() == prior.to_dict()
    assert again.evaluation.config.weights == prior.evaluation.config.weights


def _model(env, seed=0, **kwargs):
    import torch
    from sb3_contrib import MaskablePPO

    from agents.junqi.eval_prior_net import EvalPriorPolicy, eval_prior_policy_kwargs

    torch.set_num_threads(1)
    return MaskablePPO(EvalPriorPolicy, env, n_steps=64, batch_size=32, seed=seed, device="cpu",
                       policy_kwargs=eval_prior_policy_kwargs(**kwargs))


@needs_torch_and_sb3_contrib
def test_untrained_policy_plays_greedys_move():
    import torch

    from agents.policy.agent import PPOAgent

    env = make_junqi_eval_prior(opponent=GreedyAgent(seed=1), learner_seat="alternate")
    policy = _model(env).policy
    assert float(policy.beta.detach()) == pytest.approx(2.0)
    agent = PPOAgent.from_policy(policy, "junqi")
    assert agent.prior is not None
    rng = np.random.default_rng(0)
    unique = agrees = agent_agrees = 0
    seats = set()
    for obs, view in _walk(env, seed=5, steps=150, rng=rng):
        seats.add(view.player)
        legal, raw, _ = _greedy_expectation(view, EvalPrior())
        ordered = np.sort(raw)
        if len(raw) < 2 or ordered[-1] - ordered[-2] < 1e-9:
            continue  # greedy breaks ties at random
        unique += 1
        greedy_move = action_to_absolute(legal[int(np.argmax(raw))], view.player)
        tensors = {k: torch.as_tensor(v[None]).float() for k, v in obs.items()}
        with torch.no_grad():
            distribution = policy.get_distribution(tensors, action_masks=obs["action_mask"][None])
            logits = distribution.distribution.logits[0].numpy()
        agrees += int(np.argmax(logits)) == greedy_move
        agent_agrees += agent.act(view) == legal[int(np.argmax(raw))]
        # The agent sees exactly the observation the wrapper gave the learner.
        agent_obs, mask = agent.encode(view)
        for key in obs:
            np.testing.assert_array_equal(agent_obs[key], obs[key])
        np.testing.assert_array_equal(mask, env.action_masks())
    assert seats == {0, 1}
    assert unique >= 60
    assert agrees >= 0.9 * unique
    assert agent_agrees == agrees


@needs_torch_and_sb3_contrib
def test_policy_rejects_plain_observations():
    from sb3_contrib import MaskablePPO

    from agents.junqi.eval_prior_net import EvalPriorPolicy
    from tbw_envs.junqi.env.single import make_junqi_single

    with pytest.raises(ValueError, match="Dict observations"):
        MaskablePPO(EvalPriorPolicy, make_junqi_single(), device="cpu")
    with pytest.raises(ValueError, match="beta_init"):
        _model(make_junqi_eval_prior(), beta_init=-1.0)
