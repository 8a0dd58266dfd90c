"""``scripts/integrations/tianshou_single.py``: Tianshou trains a masked DQN on the single-agent
env of both games, and no episode ends on an illegal move; skipped when tianshou (the
integrations extra) is not installed (CI's ``--require-integrations`` fails it instead)."""

from __future__ import annotations

import pytest

from tests.helpers.quick_games import QUICK_JUNQI, SKIRMISH
from tests.helpers.recipes import assert_trained

SHORT_GAMES = {"tbw": {"scenario": SKIRMISH}, "junqi": {"rules": QUICK_JUNQI}}


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_tianshou_single_agent_recipe_never_ends_an_episode_on_an_illegal_move(game):
    pytest.importorskip("tianshou", reason="tianshou is not installed (the integrations extra)")
    from scripts.integrations import tianshou_single

    # 100 steps: two collects with an update each, and 25 or more short games with both
    # learner seats; 300 gave the same results three times over.
    result = tianshou_single.run(game, steps=100, **SHORT_GAMES[game])
    assert_trained(result)
    assert result["moves"] >= 100 and result["update_steps"] > 0
    # Unmasked, nearly every episode ended on the learner's first move; count them.
    assert result["games"] >= 3
    assert result["illegal_endings"] == 0
    assert result["learner_seats"] == [0, 1]
