"""The PettingZoo AEC env junqi_v0: API conformance, frames, rewards, deployment, no leaks."""

import random

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from agents.random_agent import RandomAgent
from tbw_envs import junqi_v0
from tbw_envs.junqi import JunqiState, load_layout, random_layout
from tbw_envs.junqi.encoding import OBSERVATION_PLANES
from tbw_envs.junqi.layout import DEPLOY_CELLS

LAYOUTS = {"player_0": "flag_left_mined", "player_1": "bombs_forward"}


# Dict observations with an action mask are PettingZoo's documented pattern; api_test still
# warns about them.
@pytest.mark.filterwarnings("ignore:Observation space for each agent:UserWarning")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning")
@pytest.mark.parametrize("deployment", ["random", "agents"])
def test_pettingzoo_api(deployment):
    api_test(junqi_v0.env(deployment=deployment), num_cycles=200)


def test_pettingzoo_seed():
    seed_test(junqi_v0.env, num_cycles=200)


def test_pettingzoo_render(capsys, monkeypatch):
    pytest.importorskip("pygame", reason="pygame is not installed (the render extra)")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    render_test(junqi_v0.env)
    assert capsys.readouterr().out == ""  # human mode draws in a window, it does not print


def test_reset_is_seeded_and_takes_explicit_layouts():
    env = junqi_v0.raw_env()
    env.reset(seed=3)
    first = env.state().copy()
    env.reset(seed=3)
    assert np.array_equal(env.state(), first)
    env.reset(options={"layouts": LAYOUTS})
    expected = JunqiState.initial(LAYOUTS)
    assert env.game.pieces() == expected.pieces()
    assert env.state_space.contains(env.state())
    env.reset(options={"rules": "jj"})
    assert env.rules.name == "jj" and env.game.rules.name == "jj"
    with pytest.raises(ValueError, match="unknown Junqi rule set"):
        env.reset(options={"rules": "nope"})
    with pytest.raises(ValueError, match="deployment must be"):
        junqi_v0.raw_env(deployment="manual")
    with pytest.raises(ValueError, match="render_mode"):
        junqi_v0.raw_env(render_mode="pygame")


def test_player_1_sees_its_side_at_the_bottom_and_acts_in_that_frame():
    env = junqi_v0.raw_env()
    env.reset(options={"layouts": {"player_0": "flag_left_mined", "player_1": "flag_left_mined"}})
    obs0, obs1 = env.observe("player_0"), env.observe("player_1")
    # Same layout for both seats: each sees the same own pieces in its own frame.
    assert np.array_equal(obs0["observation"][:12], obs1["observation"][:12])
    flag_plane = OBSERVATION_PLANES.index("own_flag")
    assert obs1["observation"][flag_plane, 11, 1] == 1  # bottom row, column 1
    env.step(env.encode_action("G0", "F0"))  # player_0 is to act  # attack; whatever the result
    mask = env.observe("player_1")["action_mask"]
    core = env.game.legal_actions()
    assert {env.to_core_action("player_1", a) for a in np.flatnonzero(mask)} == set(core)
    for action in np.flatnonzero(mask):
        from_post, to_post = env.decode_action(int(action), "player_1")
        assert env.game.owner[from_post] == 1
        assert env.encode_action(from_post, to_post, "player_1") == action
    # Half a turn: player 1 stepping back from its front row (F0-E0) is, in its own frame, the
    # same action as player 0 stepping back from the mirrored post (G4-H4).
    assert env.encode_action("F0", "E0", "player_1") == env.encode_action("G4", "H4", "player_0")


def test_illegal_actions():
    raw = junqi_v0.raw_env()
    raw.reset(seed=0)
    illegal = int(np.flatnonzero(raw.observe("player_0")["action_mask"] == 0)[0])
    legal_count = len(raw.game.legal_actions())
    with pytest.raises(ValueError, match=rf"illegal action {illegal} .*{legal_count} legal"):
        raw.step(illegal)
    wrapped = junqi_v0.env()
    wrapped.reset(seed=0)
    wrapped.step(illegal)
    assert wrapped.rewards["player_0"] == -1 and wrapped.rewards["player_1"] == 0
    assert all(wrapped.terminations.values())


def test_random_games_through_the_env_end_with_rewards_for_both():
    agents = {"player_0": RandomAgent(seed=1), "player_1": RandomAgent(seed=2)}
    env = junqi_v0.env()
    outcomes = set()
    for game in range(6):
        env.reset(seed=game)
        for agent in env.agent_iter():
            _obs, _reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            core_action = agents[agent].act(env.view(agent))
            env.step(env.to_env_action(agent, core_action))
        assert sum(env.unwrapped.rewards.values()) == 0
        outcomes.add(env.unwrapped.game.end_reason)
        assert env.metadata["end_reasons"][info["end_reason"]] == env.unwrapped.game.end_reason
    assert outcomes


def _deploy_all(env, orders, observer):
    seen = []
    for step in range(50):
        agent = env.agent_selection
        player = int(agent[-1])
        kind = orders[player][step // 2]
        assert env.observe(agent)["action_mask"][3600 + kind] == 1
        env.step(3600 + kind)
        seen.append(env.observe(observer)["observation"].copy())
    return seen


def test_agent_deployment_reveals_nothing_to_the_opponent():
    rand = random.Random(6)
    for _ in range(5):
        mine = random_layout(rand)
        theirs = [random_layout(rand), random_layout(rand)]
        traces = []
        for their_layout in theirs:
            env = junqi_v0.raw_env(deployment="agents")
            env.reset(seed=1)
            orders = [
                [their_layout.cells[c] for c in DEPLOY_CELLS],
                [mine.cells[c] for c in DEPLOY_CELLS],
            ]
            traces.append(_deploy_all(env, orders, "player_1"))
            assert env.game.phase == "play"
            assert env.game.pieces() == JunqiState.initial((their_layout, mine)).pieces()
        for first, second in zip(*traces, strict=True):
            assert np.array_equal(first, second)


def test_rgb_and_ansi_renders_respect_the_perspective():
    env = junqi_v0.raw_env(render_mode="ansi", render_perspective="player_1")
    env.reset(options={"layouts": LAYOUTS})
    text = env.render()
    assert "??" in text and "view of player 1" in text
    omniscient = junqi_v0.raw_env(render_mode="ansi")
    omniscient.reset(options={"layouts": LAYOUTS})
    assert "??" not in omniscient.render()
    picture = junqi_v0.raw_env(render_mode="rgb_array")
    picture.reset(seed=0)
    image = picture.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3


def test_bundled_layout_names_work_in_reset():
    env = junqi_v0.raw_env()
    env.reset(options={"layouts": {"player_0": load_layout("flag_right_mined"),
                                   "player_1": "flag_left_mined"}})  # fmt: skip
    assert env.game.piece_at("L3") == (0, "flag")


def test_unknown_reset_options_warn_instead_of_vanishing():
    env = junqi_v0.raw_env()
    with pytest.warns(UserWarning, match=r"unknown option\(s\) \['layout'\]"):
        env.reset(seed=0, options={"layout": "flag_left_mined"})
