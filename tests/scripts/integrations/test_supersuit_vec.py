"""``scripts/integrations/supersuit_vec.py``: self-play PPO trains through SuperSuit, and
MaskablePPO through the SB3 adapter; skipped when supersuit (the integrations extra) is not
installed (CI's ``--require-integrations`` fails it instead)."""

from __future__ import annotations

import pytest

from tests.helpers.recipes import assert_trained


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_supersuit_recipe_trains_self_play_ppo(game):
    pytest.importorskip("supersuit", reason="supersuit is not installed (the integrations extra)")
    pytest.importorskip("torch", reason="torch is not installed (the train extra)")
    from scripts.integrations import supersuit_vec

    result = supersuit_vec.run(game, copies=1, iterations=2, num_steps=32)
    assert_trained(result)
    assert result["steps"] == 2 * 2 * 32  # two seats per game, one game, two iterations


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_supersuit_recipe_trains_maskable_ppo_through_the_sb3_adapter(game):
    pytest.importorskip("supersuit", reason="supersuit is not installed (the integrations extra)")
    pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (the train extra)")
    from scripts.integrations import supersuit_vec

    result = supersuit_vec.run_sb3(game, copies=1, timesteps=128, n_steps=64)
    assert result == {"steps": 128, "parameters_changed": True, "rows": 2}
