"""The single-agent Gymnasium wrapper on the Junqi env: check_env, masks and full episodes."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import tbw_envs  # noqa: F401 - registers the envs
from agents import RandomAgent
from tbw_envs.wrappers import make_junqi_single


@pytest.mark.parametrize("learner_seat", [0, 1])
def test_junqi_single_agent_wrapper_passes_check_env(learner_seat):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(make_junqi_single(learner_seat=learner_seat), skip_render_check=True)


def test_junqi_single_agent_episodes_with_agent_opponent_and_masks():
    env = gymnasium.make(
        "tbw_envs/JunqiSingle-v0", opponent=RandomAgent(), learner_seat="alternate"
    )
    rng = np.random.default_rng(0)
    seats = set()
    for episode in range(3):
        _, info = env.reset(seed=episode)
        seats.add(info["learner"])
        done = False
        while not done:
            mask = env.unwrapped.action_masks()
            assert mask.any()
            _, reward, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = terminated or truncated
        assert reward in (-1.0, 0.0, 1.0)
    assert seats == {0, 1}
