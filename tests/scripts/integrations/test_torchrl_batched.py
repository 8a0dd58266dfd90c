"""``scripts/integrations/torchrl_batched.py``: TorchRL's ``GymWrapper`` over the batched env
collects batches and takes PPO updates with masks respected, and the finished games' last planes
reach ``("next", "observation")``; skipped when torchrl (the integrations extra) is not
installed (CI's ``--require-integrations`` fails it instead)."""

from __future__ import annotations

import math

import pytest

from tests.helpers.quick_games import QUICK_JUNQI, SKIRMISH
from tests.helpers.recipes import assert_trained

# Variants whose games end in a few moves, so that batches hold finished games and autoresets.
QUICK_VARIANTS = {"junqi": {"rules": QUICK_JUNQI}, "tbw": {"scenario": SKIRMISH}}


@pytest.mark.parametrize("game", sorted(QUICK_VARIANTS))
def test_torchrl_recipe_runs_masked_ppo_on_the_batched_env(game):
    pytest.importorskip("torchrl", reason="torchrl is not installed (the integrations extra)")
    pytest.importorskip("numba", reason="numba not installed (the fast extra)")
    from scripts.integrations import torchrl_batched

    result = torchrl_batched.run(game, num_envs=8, iterations=2, frames_per_batch=64, epochs=2,
                                 **QUICK_VARIANTS[game])
    assert_trained(result)
    assert result["iterations"] == 2 and result["steps"] == 128
    assert all(math.isfinite(loss) for loss in result["loss"])
    assert result["episodes"] >= 8 and result["final_planes_swapped"]
