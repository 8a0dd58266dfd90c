"""``scripts/integrations/torchrl_masked.py``: TorchRL runs masked PPO iterations on both games;
skipped when torchrl (the integrations extra) is not installed (CI's ``--require-integrations``
fails it instead)."""

from __future__ import annotations

import math

import pytest

from tests.helpers.recipes import assert_trained


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_torchrl_recipe_runs_masked_ppo_iterations(game):
    pytest.importorskip("torchrl", reason="torchrl is not installed (the integrations extra)")
    from scripts.integrations import torchrl_masked

    result = torchrl_masked.run(game, iterations=2, frames_per_batch=128, epochs=2)
    assert_trained(result)
    assert result["iterations"] == 2 and result["moves"] == 256
    assert all(math.isfinite(loss) for loss in result["loss"])
