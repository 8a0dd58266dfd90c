"""The random baseline (``agents.random_agent``): seeded and legal."""

from __future__ import annotations

from agents import RandomAgent
from tbw_envs.tbw import TBWState, load_scenario


def test_random_agent_is_seeded_and_legal():
    state = TBWState.initial(load_scenario("duel_5v5_8x8"))
    a, b = RandomAgent(3), RandomAgent(3)
    picks = [a.act(state) for _ in range(20)]
    assert picks == [b.act(state) for _ in range(20)]
    assert set(picks) <= set(state.legal_actions())
