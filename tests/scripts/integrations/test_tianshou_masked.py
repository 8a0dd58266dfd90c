"""``scripts/integrations/tianshou_masked.py``: Tianshou trains a masked DQN per seat on both games;
skipped when tianshou (the integrations extra) is not installed (CI's ``--require-integrations``
fails it instead)."""

from __future__ import annotations

import pytest

from tests.helpers.recipes import assert_trained

# Env steps per game: each run's buffer holds a finished game (here TBW's default scenario first
# ends between plies 250 and 300, Junqi twice within 100), the transition whose infos Tianshou's
# trainer checks for NaNs; more steps repeat the same checks.
STEPS = {"tbw": 300, "junqi": 100}


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_tianshou_recipe_trains_a_masked_dqn_per_seat(game):
    pytest.importorskip("tianshou", reason="tianshou is not installed (the integrations extra)")
    from scripts.integrations import tianshou_masked

    result = tianshou_masked.run(game, steps=STEPS[game])
    assert_trained(result)
    assert result["moves"] >= STEPS[game] and result["update_steps"] > 0
    assert result["games"] >= 1
