"""The Junqi PettingZoo env (``tbw_envs.junqi_v0``): API conformance, frames, rewards, deployment,
no leaks, player 1's half-turned actions, error messages, and the rules it plays under in every
reset path."""

import random

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from agents.random_agent import RandomAgent
from tbw_envs import junqi_v0
from tbw_envs.junqi import (
    JunqiState,
    load_layout,
    load_rules,
    random_layout,
)
from tbw_envs.junqi.layout import DEPLOY_CELLS
from tbw_envs.junqi.observation import OBSERVATION_PLANES
from tests.helpers.junqi_games import FIRST, FIVE_QUIET, SECOND, deploy_both_armies, quiet_action

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
    # The window waits out the env's 2 frames per second, which checks nothing here.
    monkeypatch.setitem(junqi_v0.raw_env.metadata, "render_fps", 1000)
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
    assert env.core_state.pieces() == expected.pieces()
    assert env.state_space.contains(env.state())
    env.reset(options={"rules": "jj"})
    assert env.rules.name == "jj" and env.core_state.rules.name == "jj"
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
    core = env.core_state.legal_actions()
    assert {env.to_core_action("player_1", a) for a in np.flatnonzero(mask)} == set(core)
    for action in np.flatnonzero(mask):
        from_post, to_post = env.decode_action(int(action), "player_1")
        assert env.core_state.owner[from_post] == 1
        assert env.encode_action(from_post, to_post, "player_1") == action
    # Half a turn: player 1 stepping back from its front row (F0-E0) is, in its own frame, the
    # same action as player 0 stepping back from the mirrored post (G4-H4).
    assert env.encode_action("F0", "E0", "player_1") == env.encode_action("G4", "H4", "player_0")


def test_illegal_actions():
    raw = junqi_v0.raw_env()
    raw.reset(seed=0)
    illegal = int(np.flatnonzero(raw.observe("player_0")["action_mask"] == 0)[0])
    legal_count = len(raw.core_state.legal_actions())
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
        outcomes.add(env.unwrapped.core_state.end_reason)
        reason = env.unwrapped.core_state.end_reason
        assert env.metadata["end_reasons"][info["end_reason"]] == reason
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
            assert env.core_state.phase == "play"
            assert env.core_state.pieces() == JunqiState.initial((their_layout, mine)).pieces()
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
    assert env.core_state.piece_at("L3") == (0, "flag")


def test_unknown_reset_options_warn_instead_of_vanishing():
    env = junqi_v0.raw_env()
    with pytest.warns(UserWarning, match=r"unknown option\(s\) \['layout'\]"):
        env.reset(seed=0, options={"layout": "flag_left_mined"})


def _env_ends_at_the_fifth_quiet_ply(env) -> bool:
    for _ in range(5):
        if any(env.terminations.values()):
            return False
        game = env.core_state
        env.step(env.to_env_action(env.agent_selection, quiet_action(game)))
    return all(env.terminations.values()) and env.core_state.end_reason == "no_collision_limit"


@pytest.mark.mutation
def test_junqi_env_plays_under_its_rules_in_every_reset_path():
    """junqi_v0 ``__init__`` 37 and 38, ``reset`` 68, 70 and 77: ``raw_env(rules=...)`` fell
    back to CCGC (at construction, or in the reset with layouts, or with agent deployment)."""
    rules = load_rules(FIVE_QUIET)
    env = junqi_v0.raw_env(rules=FIVE_QUIET)
    resets = [{}, {"seed": 3}, {"options": {"layouts": {"player_0": FIRST, "player_1": SECOND}}},
              {}]
    for kwargs in resets:
        env.reset(**kwargs)
        assert env.rules == rules and env.core_state.rules == rules, kwargs
        assert _env_ends_at_the_fifth_quiet_ply(env), kwargs
    deploying = junqi_v0.raw_env(rules=FIVE_QUIET, deployment="agents")
    for seed in (0, None):
        deploying.reset(seed=seed)
        assert deploying.core_state.phase == "deploy" and deploying.core_state.rules == rules
        deploy_both_armies(deploying.step, deploying.core_state)
        assert deploying.rules == rules and deploying.core_state.rules == rules
        assert _env_ends_at_the_fifth_quiet_ply(deploying)
    control = junqi_v0.raw_env()
    control.reset(options={"layouts": {"player_0": FIRST, "player_1": SECOND}})
    assert not _env_ends_at_the_fifth_quiet_ply(control)


def _deploy_trace(opponent_layout, own_layout, observer="player_0"):
    env = junqi_v0.raw_env(deployment="agents")
    env.reset(seed=5)
    layouts = {"player_0": own_layout, "player_1": opponent_layout}
    if observer == "player_1":
        layouts = {"player_0": opponent_layout, "player_1": own_layout}
    counts = {"player_0": 0, "player_1": 0}
    trace = []
    while env.core_state.phase == "deploy":
        agent = env.agent_selection
        kind = layouts[agent].cells[DEPLOY_CELLS[counts[agent]]]
        counts[agent] += 1
        env.step(3600 + kind)
        obs = env.observe(observer)
        trace.append((
            env.agent_selection, obs["observation"].copy(), obs["action_mask"].copy(),
            dict(env.infos[observer]), env.rewards[observer], env.terminations[observer],
            env.view(observer),
        ))  # fmt: skip
    return trace


@pytest.mark.audit
@pytest.mark.parametrize("observer", ["player_0", "player_1"])
def test_audit_agent_deployment_leaks_nothing(observer):
    rand = random.Random(11)
    own = random_layout(rand)
    first = _deploy_trace(random_layout(rand), own, observer)
    second = _deploy_trace(random_layout(rand), own, observer)
    assert len(first) == len(second) == 50
    for one, two in zip(first, second, strict=True):
        assert one[0] == two[0]
        assert np.array_equal(one[1], two[1]) and np.array_equal(one[2], two[2])
        assert one[3:6] == two[3:6]
        # Views compare equal except the possible masks after play begins, which are public.
        assert one[6] == two[6]


# ---------------------------------------------------------------- env API
@pytest.mark.audit
def test_audit_player_1_actions_are_the_half_turned_absolute_moves():
    env = junqi_v0.raw_env()
    env.reset(seed=2)
    for a in range(60):
        for b in range(60):
            action = env.encode_action(a, b, "player_1")
            assert action == (59 - a) * 60 + (59 - b)
            assert env.decode_action(action, "player_1") == (a, b)
            assert env.decode_action(env.encode_action(a, b, "player_0"), "player_0") == (a, b)
    env.step(env.core_state.legal_actions()[0])
    mask = env.observe("player_1")["action_mask"]
    expected = np.zeros(3612, dtype=np.int8)
    for action in env.core_state.legal_actions():
        f, t = divmod(action, 60)
        expected[(59 - f) * 60 + (59 - t)] = 1
    assert np.array_equal(mask, expected)


@pytest.mark.audit
def test_audit_error_messages():
    env = junqi_v0.raw_env()
    env.reset(seed=0)
    legal = env.core_state.legal_actions()
    bad = next(a for a in range(3600) if a not in legal)
    with pytest.raises(ValueError, match=rf"illegal action {bad} .*{len(legal)} legal actions"):
        env.step(bad)
    with pytest.raises(ValueError, match="available: ccgc, house, jj, qq"):
        load_rules("nope")
    with pytest.raises(ValueError, match="player 1.*unknown layout 'no_such_layout'"):
        env.reset(options={"layouts": {"player_0": "flag_left_mined",
                                       "player_1": "no_such_layout"}})  # fmt: skip


@pytest.mark.audit
def test_audit_failed_reset_keeps_the_previous_rules():
    env = junqi_v0.raw_env(rules="ccgc")
    env.reset(seed=0)
    with pytest.raises(ValueError):
        env.reset(options={"rules": "jj", "layouts": {"player_0": "x", "player_1": "y"}})
    assert env.rules.name == "ccgc" and env.core_state.rules.name == "ccgc"
