"""Registration (``tbw_envs.registration``): the envs are made by name through both registries,
PettingZoo's and Gymnasium's."""

from __future__ import annotations

import gymnasium

import tbw_envs  # noqa: F401 - registers the envs


def test_registered_with_both_registries():
    import pettingzoo

    aec = pettingzoo.make("aec", "tbw_envs/tbw-v0", scenario="hex_skirmish")
    aec.reset()
    assert aec.unwrapped.scenario.name == "hex_skirmish"
    single = gymnasium.make("tbw_envs/TBWSingle-v0", scenario="paper_figure3")
    obs, _ = single.reset(seed=1)
    assert single.observation_space.contains(obs)
