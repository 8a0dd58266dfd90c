"""``parallel_env()`` holds to the input contract (docs/input_contract.md): a bad ``step`` gets
an error that names the problem and changes nothing."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tbw_envs import junqi_v0, tbw_v0
from tbw_envs.core.contract import GameOverError

MAKE = {"tbw": lambda: tbw_v0.parallel_env(scenario="paper_figure3"),
        "junqi": lambda: junqi_v0.parallel_env()}

BAD_STEPS = [
    # (actions given the agent to move `a`, the waiting agent `w` and a legal action `ok`,
    #  error type, what the message must say)
    (lambda a, w, ok: {a: ok, "player_9": 0}, ValueError, "player_9"),
    (lambda a, w, ok: {w: ok}, ValueError, "no action for"),
    (lambda a, w, ok: {}, ValueError, "no action for"),
    (lambda a, w, ok: {a: None}, ValueError, "no action for"),
    (lambda a, w, ok: {a: "0"}, ValueError, "integer"),
    (lambda a, w, ok: {a: 1.0}, ValueError, "integer"),
    (lambda a, w, ok: {a: True}, ValueError, "integer"),
    (lambda a, w, ok: {a: -1}, ValueError, "out of range"),
    (lambda a, w, ok: {a: ok, w: "x"}, ValueError, "integer"),
    (lambda a, w, ok: [ok], TypeError, "dict"),
    (lambda a, w, ok: ok, TypeError, "dict"),
]


@pytest.mark.parametrize("game", MAKE)
@pytest.mark.parametrize("case", range(len(BAD_STEPS)))
def test_bad_steps_are_refused_and_change_nothing(game, case):
    make_actions, error, words = BAD_STEPS[case]
    env = MAKE[game]()
    observations, infos = env.reset(seed=1)
    active = env.possible_agents[infos["player_0"]["active_agent"]]
    waiting = next(a for a in env.possible_agents if a != active)
    ok = int(np.flatnonzero(observations[active]["action_mask"])[0])
    before = env.state().copy()
    with pytest.raises(error, match=words):
        env.step(make_actions(active, waiting, ok))
    assert np.array_equal(env.state(), before) and env.agents == list(env.possible_agents)
    # The env plays on as if nothing happened.
    _, rewards, _, _, _ = env.step({active: ok})
    assert set(rewards) == set(env.possible_agents)


@pytest.mark.parametrize("game", MAKE)
def test_step_before_reset_and_after_the_end(game):
    env = MAKE[game]()
    with pytest.raises(RuntimeError, match="before reset"):
        env.step({"player_0": 0})
    observations, infos = env.reset(seed=2)
    active = env.possible_agents[infos["player_0"]["active_agent"]]
    illegal = int(np.flatnonzero(observations[active]["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's illegal-move warning
        _, rewards, terminations, _, _ = env.step({active: illegal})
    assert all(terminations.values()) and rewards[active] == -1 and not env.agents
    with pytest.raises(GameOverError, match="reset"):
        env.step({active: 0})
    env.reset(seed=2)
    assert env.agents == list(env.possible_agents)
