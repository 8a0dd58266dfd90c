"""``scripts/integrations/rllib_ppo.py``: one PPO iteration trains (slow; ray[rllib] is the
``rllib`` extra, in its own environment), and its observation wrapper renames and flattens
without Ray."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.mark.slow
def test_rllib_recipe_runs_one_ppo_iteration():
    pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed; it needs its own "
                        "environment (docs/integrations.md)")
    from scripts.integrations import rllib_ppo

    result = rllib_ppo.run("tbw", iterations=1)
    assert result["iterations"] == 1


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_rllib_observation_wrapper_renames_and_flattens_without_ray(game):

    from scripts.integrations.rllib_ppo import make_aec

    env = make_aec(game)
    env.reset(seed=0)
    agent = env.agent_selection
    obs = env.observe(agent)
    assert env.observation_space(agent).contains(obs)
    raw = env.unwrapped.observe(agent)
    assert np.array_equal(obs["observations"], raw["observation"].reshape(-1))
    assert np.array_equal(obs["action_mask"] == 1, raw["action_mask"] == 1)
