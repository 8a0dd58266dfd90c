"""``scripts/integrations/tianshou_masked.py``: Tianshou trains a masked DQN per seat on both games;
skipped when tianshou (the integrations extra) is not installed (CI's ``--require-integrations``
fails it instead)."""

from __future__ import annotations

import pytest

from tests.helpers.recipes import assert_trained


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_tianshou_recipe_trains_a_masked_dqn_per_seat(game):
    pytest.importorskip("tianshou", reason="tianshou is not installed (the integrations extra)")
    from scripts.integrations import tianshou_masked

    result = tianshou_masked.run(game, steps=300)
    assert_trained(result)
    assert result["moves"] >= 300 and result["update_steps"] > 0
