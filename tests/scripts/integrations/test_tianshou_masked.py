"""``scripts/integrations/tianshou_masked.py``: Tianshou trains a masked DQN per seat on both games;
skipped when tianshou (the integrations extra) is not installed (CI's ``--require-integrations``
fails it instead)."""

from __future__ import annotations

import pytest

from tests.helpers.quick_games import SKIRMISH
from tests.helpers.recipes import assert_trained

# 100 env steps per game: two collects with an update each. Each run's buffer must hold finished
# games, the transitions whose infos Tianshou's trainer checks for NaNs. Junqi's default rule set
# ends twice within 100; TBW's default scenario first ends only between plies 250 and 300 (5 s of
# stepping a DQN per seat), so TBW plays the skirmish, the same env on a 1 x 5 strip, which ends
# 16 times in 100 steps, in wins for either seat and draws.
STEPS = 100
VARIANTS = {"tbw": {"scenario": SKIRMISH}, "junqi": {}}
GAMES = {"tbw": 10, "junqi": 2}


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_tianshou_recipe_trains_a_masked_dqn_per_seat(game):
    pytest.importorskip("tianshou", reason="tianshou is not installed (the integrations extra)")
    from scripts.integrations import tianshou_masked

    result = tianshou_masked.run(game, steps=STEPS, **VARIANTS[game])
    assert_trained(result)
    assert result["moves"] >= STEPS and result["update_steps"] > 0
    assert result["games"] >= GAMES[game]
