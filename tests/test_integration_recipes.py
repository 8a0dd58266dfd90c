"""The recipes in scripts/integrations/ run and respect masks; each is skipped when its library
is not installed (they need their own installs: docs/integrations.md)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_torchrl_recipe_plays_only_legal_actions(game):
    pytest.importorskip("torchrl", reason="torchrl is not installed (pip install torchrl)")
    from scripts.integrations import torchrl_masked

    result = torchrl_masked.run(game, seconds=1.0)
    assert result["steps"] > 0 and result["illegal"] == 0


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_tianshou_recipe_collects_whole_games_with_legal_actions(game):
    pytest.importorskip("tianshou", reason="tianshou is not installed (pip install tianshou)")
    from scripts.integrations import tianshou_masked

    result = tianshou_masked.run(game, seconds=1.0)
    assert result["games"] >= 1 and result["illegal"] == 0


@pytest.mark.slow
def test_rllib_recipe_runs_one_ppo_iteration():
    pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed; it needs its own "
                        "environment (docs/integrations.md)")
    from scripts.integrations import rllib_ppo

    result = rllib_ppo.run("tbw", iterations=1)
    assert result["iterations"] == 1


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_rllib_observation_wrapper_renames_and_flattens_without_ray(game):
    import numpy as np

    from scripts.integrations.rllib_ppo import make_aec

    env = make_aec(game)
    env.reset(seed=0)
    agent = env.agent_selection
    obs = env.observe(agent)
    assert env.observation_space(agent).contains(obs)
    raw = env.unwrapped.observe(agent)
    assert np.array_equal(obs["observations"], raw["observation"].reshape(-1))
    assert np.array_equal(obs["action_mask"] == 1, raw["action_mask"] == 1)
