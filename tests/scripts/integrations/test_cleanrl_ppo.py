"""``scripts/integrations/cleanrl_ppo.py``: a CleanRL-style PPO trains over a SyncVectorEnv of
either game; skipped when torch (the train extra) is not installed (CI's ``--require-integrations``
fails it instead)."""

from __future__ import annotations

import math

import pytest

from tests.helpers.recipes import assert_trained


@pytest.mark.parametrize("game, dict_obs", [("tbw", False), ("junqi", True)])
def test_cleanrl_style_ppo_trains_over_a_sync_vector_env(game, dict_obs):
    pytest.importorskip("torch", reason="torch is not installed (the train extra)")
    from scripts.integrations import cleanrl_ppo

    args = cleanrl_ppo.Args(game=game, iterations=2, num_envs=2, num_steps=32,
                            dict_obs=dict_obs)
    result = cleanrl_ppo.run(args)
    assert_trained(result)
    assert result["steps"] == 2 * 2 * 32 and math.isfinite(result["final_loss"])
