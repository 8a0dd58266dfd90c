"""The TBW PettingZoo env (``tbw_envs.tbw_v0``) against PettingZoo's own checkers and our
conventions (README, "Environment"): frames rotated for player_1, masks, illegal actions,
rewards, resets from a state, and the observation planes."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import tbw_envs  # noqa: F401 - registers the envs
from tbw_envs import tbw_v0
from tbw_envs.core.contract import GameOverError
from tbw_envs.tbw import END_TURN, TBWState, load_scenario
from tbw_envs.tbw.env.single import make_tbw_single
from tbw_envs.tbw.observation import ObservationEncoder
from tbw_envs.tbw.render import board_origin
from tests.helpers.quick_games import SKIRMISH

SCENARIOS = ["duel_5v5_8x8", "hex_skirmish", "paper_figure3", "open_solo_4"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_pettingzoo_api_test(scenario):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(tbw_v0.env(scenario=scenario), num_cycles=300)


@pytest.mark.parametrize("scenario", ["duel_5v5_8x8", "hex_skirmish"])
def test_pettingzoo_seed_test(scenario):
    seed_test(functools.partial(tbw_v0.env, scenario=scenario), num_cycles=300)


def test_pettingzoo_render_test(capsys, monkeypatch):
    pytest.importorskip("pygame", reason="pygame is not installed (the render extra)")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    # The window waits out the env's 4 frames per second, which checks nothing here.
    monkeypatch.setitem(tbw_v0.raw_env.metadata, "render_fps", 1000)
    render_test(functools.partial(tbw_v0.env, scenario="duel_5v5_8x8"))
    assert capsys.readouterr().out == ""  # human mode draws in a window, it does not print


def test_rgb_array_shows_units_and_terrain():
    env = tbw_v0.env(scenario="duel_5v5_8x8", render_mode="rgb_array")
    env.reset()
    frame = env.render()
    top, left = board_origin(env.unwrapped.scenario)  # past the margin of row and column numbers
    assert frame.dtype == np.uint8 and frame.shape == (top + 8 * 32, left + 8 * 32, 3)
    img = frame[top:, left:]
    # A side-0 unit stands on (7, 1): the tile centre is red-dominant; (0, 0) is plain terrain.
    centre = img[7 * 32 + 12, 1 * 32 + 20]
    assert centre[0] > 150 and centre[2] < 100
    assert tuple(img[16, 16]) != tuple(centre)


def test_observation_and_action_frames_are_rotated_for_player_1():
    """The same formation seen from either seat gives the same planes and the same mask, so one
    policy can play both seats: mirror the duel map's armies onto a symmetric board."""
    spec = {
        "board": {"topology": "square4", "rows": 5, "cols": 4},
        "unit_types": {"s": {"hp": 5, "atk": 2, "move": 1, "range": [1, 1]}},
        "units": [
            {"side": 0, "type": "s", "pos": [4, 0]}, {"side": 0, "type": "s", "pos": [3, 2]},
            {"side": 1, "type": "s", "pos": [0, 3]}, {"side": 1, "type": "s", "pos": [1, 1]},
        ],
        "max_turns": 5,
    }
    env = tbw_v0.raw_env(scenario=spec)
    env.reset()
    obs0 = env.observe("player_0")
    env.step(env.encode_action(END_TURN))
    obs1 = env.observe("player_1")
    np.testing.assert_array_equal(obs0["action_mask"], obs1["action_mask"])
    # Same round, nobody has acted: every plane matches, terrain and turn progress included.
    np.testing.assert_array_equal(obs0["observation"], obs1["observation"])
    # An action id means the mirrored move in each frame.
    action = int(np.flatnonzero(obs1["action_mask"])[0])
    uid, dest, target = env.decode_action(action, "player_1")
    state = TBWState.initial(load_scenario(spec))
    uid0, dest0, _ = state.decode_action(action)
    assert dest == (4 - dest0[0], 3 - dest0[1])
    assert env.scenario.units[uid].slot == env.scenario.units[uid0].slot
    assert target is None


def test_without_flip_actions_are_absolute():
    env = tbw_v0.raw_env(scenario="duel_5v5_8x8", flip_perspective=False)
    env.reset()
    env.step(env.encode_action(END_TURN))
    state_view = env.view("player_1")
    mask = env.action_mask("player_1")
    assert set(np.flatnonzero(mask).tolist()) == set(state_view.legal_actions())


def test_mask_is_exactly_the_legal_set_for_each_agent():
    env = tbw_v0.raw_env(scenario="duel_5v5_8x8")
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(120):
        if env.terminations["player_0"]:
            break
        agent = env.agent_selection
        other = "player_1" if agent == "player_0" else "player_0"
        mask = env.observe(agent)["action_mask"]
        assert env.observe(other)["action_mask"].sum() == 0
        core_legal = env.view(agent).legal_actions()
        assert sorted(env.to_core_action(agent, a) for a in np.flatnonzero(mask)) == core_legal
        env.step(int(rng.choice(np.flatnonzero(mask))))


def test_illegal_action_in_raw_env_names_the_action_and_keeps_state():
    env = tbw_v0.raw_env(scenario="duel_5v5_8x8")
    env.reset()
    before = env.state().copy()
    illegal = int(np.flatnonzero(env.action_mask() == 0)[0])
    with pytest.raises(ValueError, match=rf"illegal action {illegal}.*legal actions"):
        env.step(illegal)
    with pytest.raises(ValueError, match="out of range"):
        env.step(10**9)
    with pytest.raises(ValueError, match="must be an int"):
        env.step("north")
    np.testing.assert_array_equal(env.state(), before)


def test_illegal_action_in_wrapped_env_ends_game_with_penalty():
    env = tbw_v0.env(scenario="duel_5v5_8x8")
    env.reset()
    illegal = int(np.flatnonzero(env.observe("player_0")["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(illegal)
    assert env.terminations["player_0"] and env.rewards["player_0"] == -1


def test_bad_constructor_and_reset_arguments():
    with pytest.raises(ValueError, match="unknown scenario 'nope'"):
        tbw_v0.raw_env(scenario="nope")
    with pytest.raises(ValueError, match="render_mode"):
        tbw_v0.raw_env(render_mode="pygame")
    env = tbw_v0.raw_env()
    with pytest.raises(TypeError, match="seed must be an int"):
        env.reset(seed="7")
    with pytest.raises(TypeError, match="seed must be an int"):
        env.reset(seed=1.5)
    with pytest.raises(ValueError, match="unknown agent 'player_2'"):
        env.observe("player_2")
    with pytest.raises(ValueError, match="make a new env"):
        env.reset(options={"scenario": "battle_10v10_16x16"})


def test_reset_can_switch_to_a_scenario_of_the_same_shape():
    env = tbw_v0.raw_env(scenario="duel_5v5_8x8")
    swapped = load_scenario("duel_5v5_8x8")
    spec = {
        "name": "duel_variant",
        "board": {"topology": "square4", "terrain": ["........"] * 8, "legend": {".": "plain"}},
        "terrain": {"plain": {"cost": 1}, "mountain": {"passable": False},
                    "water": {"passable": False, "shoot_over": True}},
        "unit_types": {"s": {"hp": 5, "atk": 2, "move": 2, "range": [1, 1]},
                       "a": {"hp": 5, "atk": 2, "move": 2, "range": [2, 2]},
                       "k": {"hp": 5, "atk": 2, "move": 2, "range": [1, 1]}},
        "units": [{"side": u.side, "type": "s", "pos": [u.row, u.col]} for u in swapped.units],
    }
    env.reset(options={"scenario": spec})
    assert env.scenario.name == "duel_variant"
    assert env.observe("player_0")["action_mask"].sum() > 0


def test_rewards_go_to_both_players_at_the_end():
    env = tbw_v0.raw_env(scenario="paper_figure3")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    totals = {"player_0": 0.0, "player_1": 0.0}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert sorted(totals.values()) in ([-1.0, 1.0], [0.0, 0.0])


def test_state_is_omniscient_and_independent_of_seat():
    env = tbw_v0.raw_env(scenario="duel_5v5_8x8")
    env.reset()
    assert env.state_space.contains(env.state())
    assert env.state().shape[0] == env.observation_space("player_0")["observation"].shape[0] + 1


@pytest.mark.parametrize("topology, rows, cols, symmetric", [
    ("square4", 5, 4, True), ("square8", 3, 7, True), ("hex", 8, 10, True), ("hex", 4, 3, True),
    ("hex", 7, 10, False), ("hex", 3, 3, False),
])
def test_player_1_rotation_is_an_exact_board_symmetry_or_the_env_warns(
    topology, rows, cols, symmetric
):
    from tbw_envs.tbw import Board

    board = Board(topology, rows, cols)
    assert board.rotation_is_symmetry() == symmetric
    last = board.size - 1
    if symmetric:  # distances too, not only adjacency
        assert all(
            board.distance(a, b) == board.distance(last - a, last - b)
            for a in range(board.size) for b in range(board.size)
        )
    spec = {
        "board": {"topology": topology, "rows": rows, "cols": cols},
        "unit_types": {"s": {"hp": 5, "atk": 2, "move": 1}},
        "units": [{"side": 0, "type": "s", "pos": [rows - 1, 0]},
                  {"side": 1, "type": "s", "pos": [0, cols - 1]}],
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tbw_v0.raw_env(scenario=spec)
        tbw_v0.raw_env(scenario=spec, flip_perspective=False)
    messages = [str(w.message) for w in caught if "180-degree" in str(w.message)]
    assert len(messages) == (0 if symmetric else 1)


@pytest.mark.parametrize("name", ["duel_5v5_8x8", "paper_figure3", "hex_skirmish",
                                  "fire_emblem_5v5"])
def test_two_sided_bundled_maps_look_the_same_from_both_seats(name):
    """Symmetric scenarios: player_1's first observation equals player_0's (fair seats)."""
    spec = load_scenario(name)
    env = tbw_v0.raw_env(scenario=spec)
    env.reset()
    first = env.observe("player_0")
    env.step(env.encode_action(END_TURN))
    second = env.observe("player_1")
    np.testing.assert_array_equal(first["observation"], second["observation"])
    np.testing.assert_array_equal(first["action_mask"], second["action_mask"])


def test_observation_planes_hold_the_unit_features_where_the_units_stand():
    spec = {
        "board": {"topology": "square4", "rows": 4, "cols": 4},
        "terrain": {"plain": {"cost": 1}},
        "unit_types": {"s": {"hp": 10, "atk": 4, "move": 2, "range": [1, 1]},
                       "a": {"hp": 6, "atk": 2, "move": 1, "range": [2, 3]}},
        "units": [{"side": 0, "type": "s", "pos": [3, 0], "leader": True},
                  {"side": 0, "type": "a", "pos": [3, 3]},
                  {"side": 1, "type": "s", "pos": [1, 0]}],
        "max_turns": 4,
    }
    env = tbw_v0.raw_env(scenario=spec)
    env.reset()
    names = env.observation_channels
    env.step(env.encode_action(0, (2, 0), 2))  # the swordsman steps up and hits the enemy
    planes = env.observe("player_0")["observation"]

    def plane(name):
        return planes[names.index(name)]

    assert plane("own:present")[2, 0] == 1 and plane("own:present")[3, 0] == 0
    assert plane("own:leader")[2, 0] == 1 and plane("own:leader")[3, 3] == 0
    assert plane("own:acted")[2, 0] == 1 and plane("own:acted")[3, 3] == 0
    assert plane("own:range_max")[3, 3] == 1.0
    assert plane("own:range_max")[2, 0] == pytest.approx(1 / 3)
    assert plane("own_slot:1")[3, 3] == 1 and plane("own_slot:1").sum() == 1
    assert plane("enemy:hp_fraction")[1, 0] == pytest.approx(0.6)
    assert plane("enemy:hp")[1, 0] == pytest.approx(0.6)  # 6 of the largest Hp, 10
    assert plane("enemy_slot:0")[1, 0] == 1
    assert plane("terrain:plain").sum() == 16 and plane("move_cost:foot").max() == 1
    assert plane("turn_progress")[0, 0] == pytest.approx(1 / 4)
    # player_1 sees the same units from the other side of the rotated board.
    theirs = env.observe("player_1")["observation"]
    assert theirs[names.index("own:present")][2, 3] == 1  # (1, 0) turned 180 degrees
    assert theirs[names.index("enemy:present")][1, 3] == 1  # (2, 0) turned 180 degrees


@pytest.mark.mutation
def test_reset_from_a_mid_game_state_continues_from_it():
    env = tbw_v0.raw_env(scenario=SKIRMISH)
    env.reset()
    state = TBWState.initial(env.scenario)
    action = next(a for a in state.legal_actions() if a != env.scenario.end_turn_action)
    state.apply(action)
    env.step(env.to_env_action("player_0", action))
    other = tbw_v0.raw_env(scenario=SKIRMISH)
    other.reset(options={"state": state})
    assert np.array_equal(other.state(), env.state())


@pytest.mark.mutation
def test_reset_refuses_a_state_and_a_scenario_together():
    env = tbw_v0.raw_env(scenario=SKIRMISH)
    with pytest.raises(ValueError, match="not both"):
        env.reset(options={"state": TBWState.initial(env.scenario), "scenario": SKIRMISH})


@pytest.mark.mutation
def test_infos_carry_the_turn_and_a_move_after_the_end_is_refused():
    env = tbw_v0.raw_env(scenario=SKIRMISH)
    env.reset()
    assert env.infos["player_0"]["turn"] == 1
    rng = np.random.default_rng(0)
    while not env.terminations[env.agent_selection]:
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    assert env.infos["player_0"]["turn"] >= 1
    with pytest.raises(GameOverError):
        env.step(env.scenario.end_turn_action)


@pytest.mark.mutation
def test_action_mask_and_observation_spaces_are_int8_and_zero_one():
    env = tbw_v0.raw_env(scenario=SKIRMISH)
    space = env.observation_space("player_0")
    assert space["action_mask"].dtype == np.int8
    assert space["action_mask"].high.max() == 1 and space["observation"].high.max() == 1.0
    assert env.state_space.high.max() == 1.0


# ---------------------------------------------------------------- TBW perspective and actions

@pytest.mark.mutation
def test_flip_perspective_false_leaves_player_1_unrotated():
    """tbw_v0 ``_set_scenario`` 13 (the encoder always rotated player_1's planes); wrappers
    ``make_tbw_single`` 8 and 19 (the flip_perspective default and pass-through)."""
    for flip in (False, True):
        env = tbw_v0.raw_env(scenario="duel_5v5_8x8", flip_perspective=flip)
        env.reset()
        state = env.view("player_1")
        planes = env.observe("player_1")["observation"]
        expected = ObservationEncoder(env.scenario, flip=flip).encode(state, 1)
        other = ObservationEncoder(env.scenario, flip=not flip).encode(state, 1)
        assert np.array_equal(planes, expected) and not np.array_equal(planes, other)
    for kwargs, flip in (({}, True), ({"flip_perspective": False}, False)):
        single = make_tbw_single(scenario="duel_5v5_8x8", learner_seat=1, **kwargs)
        obs = single.reset(seed=0)[0]
        assert single.aec.flip_perspective is flip
        encoder = ObservationEncoder(single.aec.scenario, flip=flip)
        assert np.array_equal(obs, encoder.encode(single.aec.view("player_1"), 1))


@pytest.mark.mutation
def test_tbw_encode_action_refuses_a_target_past_the_last_unit_and_unknown_strings():
    """tbw.state ``encode_action`` 65 (target == len(units) gave an IndexError); tbw_v0
    ``encode_action`` 6 and 7 (any string was taken for END_TURN)."""
    env = tbw_v0.raw_env(scenario="duel_5v5_8x8")
    env.reset()
    state = TBWState.initial(env.scenario)
    uid = state.ready_units()[0]
    row, col = state.units[uid].pos
    with pytest.raises(ValueError, match="unknown target unit id"):
        state.encode_action(uid, (row, col), len(env.scenario.units))
    for bogus in ("bogus", "end_turn ", ""):
        with pytest.raises(ValueError, match="unknown unit id"):
            env.encode_action(bogus)
    assert env.encode_action(END_TURN) == env.scenario.end_turn_action
