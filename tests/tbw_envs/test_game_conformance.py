"""The same checks over every registered game and the minigame (``tests.helpers.minigame``, a
game the project has never heard of): the written game interface (``tbw_envs.core.interface``),
the ``Game`` description, the env faces built from it and their registry ids. A game is held
only to what it declares: the agents it lists must be buildable, but no agent is demanded of
every game, and the frame is checked where the game declares one.

A new game registered in ``tbw_envs.games`` runs through all of this without a line added here;
``test_a_renamed_tbw_plays_everywhere`` registers TBW's description under another name and flag
and plays it through the envs, the agent registry and the arena.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import json
import random

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test

from agents.arena import run_round_robin
from agents.registry import agent_entry, agent_params, make_agent
from agents.tbw import GreedyAgent, TBWSearchAgent
from tbw_envs.core.errors import IllegalActionError
from tbw_envs.core.interface import GameState, GameView
from tbw_envs.description import Game
from tbw_envs.games import (
    BUNDLED,
    description_problems,
    game_names,
    get_game,
    register,
    registered_games,
    unregister,
)
from tbw_envs.tbw.env.game import TBWGame
from tests.helpers.minigame import MINIGAME

GAME_NAMES = [*game_names(), MINIGAME.name]


@pytest.fixture(params=GAME_NAMES)
def game(request) -> Game:
    """Each registered game's description, and the minigame's, registered for the test."""
    if request.param == MINIGAME.name:
        return request.getfixturevalue("registered_minigame")
    return get_game(request.param)


def random_game(game: Game, seed: int, max_plies: int = 5000):
    """States along one uniformly random game of the default variant."""
    rng = random.Random(seed)
    state = game.new_state(game.default_variant, seed=seed)
    states = [state.clone()]
    while not state.is_terminal() and len(states) < max_plies:
        state.apply(rng.choice(state.legal_actions()))
        states.append(state.clone())
    return states


def test_lookup_is_the_one_list_of_games(registered_minigame):
    names = game_names()
    assert names[:len(BUNDLED)] == tuple(g.name for g in BUNDLED), "the bundled come first"
    assert names[-1] == registered_minigame.name
    assert tuple(g.name for g in registered_games()) == names
    for name, described in zip(names, registered_games(), strict=True):
        assert get_game(name) is described and get_game(described) is described
    for bad in ("chess", "", None, 3, "TBW"):
        with pytest.raises(ValueError, match="unknown game"):
            get_game(bad)


def test_description_is_complete(game):
    for field in ("title", "variant_flag", "variant_noun", "default_variant"):
        assert isinstance(getattr(game, field), str) and getattr(game, field), field
    assert description_problems(game) == []
    assert game.default_variant in game.variants()
    assert game.variant_kwargs("x") == {game.variant_flag: "x"}
    assert len(set(game.end_reasons)) == len(game.end_reasons) > 0
    assert game.agents and len(set(game.agents)) == len(game.agents)
    for name in game.agents:  # each agent it lists has an entry and declared parameters
        assert isinstance(agent_params(name, game.name), dict), name
        agent_entry(name, game.name)
    plies, how = game.longest_game(game.default_variant)
    assert isinstance(plies, int) and plies > 0 and str(plies) in how.replace(",", "")
    json.dumps(game.variant_context(game.default_variant))  # JSON-ready, for digests
    with pytest.raises(ValueError):
        game.load_variant("no_such_variant_anywhere")


def test_the_agents_a_game_lists_build_and_play(game):
    """Every agent the game lists that needs no file builds for it and plays a legal move."""
    state = game.new_state(game.default_variant, seed=3)
    for name in game.agents:
        if any(p.required for p in agent_params(name, game.name).values()):
            continue
        if agent_entry(name, game.name).takes_game:  # a learned policy: needs its file
            continue
        agent = make_agent(name, seed=0, game=game.name, variant=game.default_variant)
        view = state.view(state.current_player)
        assert agent.act(view) in state.legal_actions(), name


def test_state_and_view_follow_the_interface(game):
    state = game.new_state(game.default_variant, seed=1)
    assert isinstance(state, GameState)
    view = state.view(state.current_player)
    assert isinstance(view, GameView) and game.is_view(view)
    # end_reason is a data member in every game (a property or an attribute), never a method
    assert not inspect.isfunction(inspect.getattr_static(type(state), "end_reason", None))
    assert state.end_reason is None and not state.is_terminal()
    assert isinstance(game.render_text(state), str) and game.render_text(state)
    action = state.legal_actions()[0]
    assert isinstance(game.describe_action(state, action), str)
    for other in registered_games():  # a view is its own game's only (or a game derived from it)
        if other.is_view(view):
            assert isinstance(other, type(game)) or isinstance(game, type(other)), other


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_game_keeps_every_promise(game, seed):
    states = random_game(game, seed)
    final = states[-1]
    assert final.is_terminal(), "a random game ends within the limit"
    assert final.end_reason in game.end_reasons
    returns = final.returns()
    assert len(returns) == 2 and sum(returns) == 0 and set(returns) <= {-1.0, 0.0, 1.0}
    frame = game.frame(game.default_variant) if game.has_frame else None
    for state in states[:-1:7]:
        legal = sorted(state.legal_actions())
        mask = state.legal_action_mask()
        assert len(set(legal)) == len(legal) > 0
        assert mask.dtype == np.int8 and np.flatnonzero(mask).tolist() == legal
        view = state.view(state.current_player)
        assert sorted(view.legal_actions()) == legal  # the mover's view knows its own moves
        if frame is not None:
            planes, frame_mask = frame.encode(view)
            assert planes.shape == tuple(frame.shape) and frame_mask.dtype == bool
            assert frame_mask.shape == (frame.num_actions,) == mask.shape
            assert sorted(frame.to_core(view, a) for a in np.flatnonzero(frame_mask)) == legal
        before = game.state_encoding(state)
        assert before == game.state_encoding(state.clone())
        illegal = [a for a in range(mask.size) if not mask[a]][:1]  # none where all are legal
        for bad in (*illegal, -1, mask.size, 1.5, True, "3"):
            with pytest.raises(IllegalActionError):
                state.apply(bad)
            assert game.state_encoding(state) == before, "a refused action changes nothing"
        with pytest.raises(ValueError):
            game.describe_action(state, mask.size)
        child = state.clone()
        child.apply(legal[0])
        assert game.state_encoding(state) == before, "a clone is independent"
    with pytest.raises(IllegalActionError):
        final.apply(0)
    assert final.view(0).is_terminal() and final.view(1).returns() == returns


def test_a_game_without_a_frame_says_so(registered_minigame):
    assert not registered_minigame.has_frame
    with pytest.raises(NotImplementedError, match="nim declares no frame"):
        registered_minigame.frame(registered_minigame.default_variant)
    assert "declares no frame" in registered_minigame.frame_size_error((1, 1, 8), 3)
    assert all(game.has_frame for game in BUNDLED)


def test_envs_built_from_the_description(game):
    kwargs = game.variant_kwargs(game.default_variant)
    env = game.env(**kwargs)
    api_test(env, num_cycles=30)
    assert tuple(env.metadata["end_reasons"][1:-1]) == game.end_reasons
    raw = game.raw_env(**kwargs)
    raw.reset(seed=0)
    planes = raw.observe(raw.agent_selection)["observation"]
    single = game.single_agent_env(**kwargs, learner_seat=1)
    obs, info = single.reset(seed=0)
    assert obs.shape == planes.shape and single.learner == "player_1"
    assert single.action_space.n == raw.action_space(raw.agent_selection).n
    if game.has_frame:
        frame = game.frame(game.default_variant)
        assert planes.shape == tuple(frame.shape) and single.action_space.n == frame.num_actions
    parallel = game.parallel_env(**kwargs)
    parallel.reset(seed=0)
    assert parallel.agents == ["player_0", "player_1"]
    # The registries build the same envs by the description's ids.
    made = pettingzoo.make("aec", game.aec_env_id, **kwargs)
    made.reset(seed=0)
    assert made.observe(made.agent_selection)["observation"].shape == planes.shape
    gym_env = gymnasium.make(game.single_env_id, **kwargs)
    assert gym_env.reset(seed=0)[0].shape == planes.shape


def test_the_bundled_games_keep_their_env_ids():
    ids = {game.name: (game.aec_env_id, game.single_env_id) for game in BUNDLED}
    assert sorted(ids.values()) == [("tbw_envs/junqi-v0", "tbw_envs/JunqiSingle-v0"),
                                    ("tbw_envs/tbw-v0", "tbw_envs/TBWSingle-v0")]


# ---------------------------------------------------------------------- a game renamed


class Third(TBWGame):
    """TBW under another name and variant flag: a game the layers above have never seen."""

    name = "third"
    variant_flag = "board"


# The names this file registers its own games under. An installed plugin may hold one (an
# outside check installs TBW renamed "third" and runs these tests): it is set aside for the
# test and registered again after, so the test neither fails on the taken name nor drops it.
TEST_GAME_NAMES = ("third", "fourth")


@pytest.fixture
def test_names_free():
    aside = [unregister(name) for name in TEST_GAME_NAMES if name in game_names()]
    yield
    for game in aside:
        register(game, replace=True)


@pytest.fixture
def third(test_names_free):
    game = register(Third())
    yield game
    unregister(game.name)


def test_a_renamed_tbw_plays_everywhere(third):
    # Envs: the description's flag selects the scenario, in every face and both registries.
    assert (third.aec_env_id, third.single_env_id) == ("tbw_envs/third-v0",
                                                       "tbw_envs/ThirdSingle-v0")
    env = get_game("third").env(board="duel_5v5_8x8")
    api_test(env, num_cycles=10)
    assert env.unwrapped.scenario.name == "duel_5v5_8x8"
    assert third.raw_env(board="hex_skirmish").scenario.name == "hex_skirmish"
    single = third.single_agent_env(board="paper_figure3", opponent="random")
    single.reset(seed=0)
    assert single.core_state.scenario.name == "paper_figure3"
    third.parallel_env(board="duel_5v5_8x8").reset(seed=0)
    made = pettingzoo.make("aec", "tbw_envs/third-v0", board="hex_skirmish")
    assert made.unwrapped.scenario.name == "hex_skirmish"
    gym_env = gymnasium.make("tbw_envs/ThirdSingle-v0", board="paper_figure3")
    gym_env.reset(seed=1)
    assert gym_env.unwrapped.core_state.scenario.name == "paper_figure3"
    with pytest.raises(ValueError, match="board= or scenario=, not both"):
        third.env(board="duel_5v5_8x8", scenario="hex_skirmish")
    # TBW itself is untouched.
    assert gymnasium.make("tbw_envs/TBWSingle-v0").unwrapped.core_state.scenario.name == (
        "duel_5v5_8x8")
    # Registry: TBW's catalog, through the description.
    assert type(make_agent("greedy", game="third")) is GreedyAgent
    exact = make_agent("exact", seed=0, game="third", variant="duel_5v5_8x8")
    assert type(exact) is TBWSearchAgent and exact.algorithm == "exact"
    with pytest.raises(ValueError, match="does not play third"):
        make_agent("ucbmcts", game="third")
    with pytest.raises(ValueError, match=r"known agents for third: \['alg2'"):
        make_agent("nosuch", game="third")
    # Arena: a round robin in this process, its records under the game's own name and flag.
    result = run_round_robin("third", ["greedy", "random"], games_per_pairing=2, workers=1,
                             variant="paper_figure3", bootstrap=0)
    records = [game.to_record() for game in result.games]
    assert len(records) == 2
    assert {record["game"] for record in records} == {"third"}
    assert {record["board"] for record in records} == {"paper_figure3"}


# ---------------------------------------------------------------------- registering


@pytest.mark.input_contract
@pytest.mark.parametrize("change, words", [
    ({"name": "Third"}, ["name", "'Third'", "lowercase identifier"]),
    ({"name": "3rd"}, ["name", "'3rd'"]),
    ({"name": "class"}, ["name", "'class'"]),
    ({"variant_flag": "board-size"}, ["variant_flag", "'board-size'", "identifier"]),
    ({"variant_flag": "seed"}, ["variant_flag", "'seed'", "--seed"]),
    ({"variant_flag": "agents"}, ["variant_flag", "'agents'", "option of the command lines"]),
    ({"agents": ()}, ["agents", "()", "non-empty"]),
    ({"agents": ["random"]}, ["agents", "tuple"]),
    ({"default_variant": "no_such_scenario"}, ["default_variant", "'no_such_scenario'",
                                               "does not load"]),
    ({"title": ""}, ["title", "''"]),
])
def test_register_refuses_a_bad_description(change, words):
    bad = type("Bad", (Third,), {"name": "bad", **change})()
    with pytest.raises(ValueError, match="cannot register game") as info:
        register(bad)
    for word in words:
        assert word in str(info.value), (word, str(info.value))
    assert "bad" not in game_names() and bad.name not in game_names()


@pytest.mark.input_contract
def test_register_refuses_what_is_not_a_description_and_a_game_without_a_frame_for_ppo():
    for bad in (None, "tbw", TBWGame):
        with pytest.raises(ValueError, match="instance of tbw_envs.games.Game"):
            register(bad)
    from tests.helpers.minigame import NimGame

    learned = type("Learned", (NimGame,), {"name": "learned", "agents": ("random", "ppo")})()
    with pytest.raises(ValueError, match="'ppo', but the game declares no frame"):
        register(learned)


def test_a_name_is_registered_once_unless_replaced(third):
    with pytest.raises(ValueError, match="'third' is already registered.*replace=True"):
        register(Third())
    again = Third()
    assert register(again, replace=True) is again and get_game("third") is again
    assert game_names().index("third") == len(game_names()) - 1
    clash = type("Clash", (Third,), {"name": "clash", "aec_env_id": "tbw_envs/tbw-v0"})()
    with pytest.raises(ValueError, match="aec_env_id 'tbw_envs/tbw-v0' is game 'tbw'"):
        register(clash)
    with pytest.raises(ValueError, match="no game named 'clash' is registered"):
        unregister("clash")


def test_unregister_forgets_the_game_and_its_env_ids(third):
    unregister("third")
    assert "third" not in game_names()
    assert "tbw_envs/third-v0" not in pettingzoo.aec_registry
    assert "tbw_envs/ThirdSingle-v0" not in gymnasium.registry
    with pytest.raises(ValueError, match="unknown game 'third'"):
        get_game("third")
    register(third)  # for the fixture's unregister


# ---------------------------------------------------------------------- entry points


class FakeEntryPoint:
    """What ``importlib.metadata.entry_points`` yields: a name, a value and ``load()``."""

    def __init__(self, name: str, loaded=None, error: Exception | None = None):
        self.name, self.value = name, f"plugin_{name}:GAME"
        self.loaded, self.error = loaded, error

    def load(self):
        if self.error is not None:
            raise self.error
        return self.loaded


@pytest.fixture
def plugins(monkeypatch, test_names_free):
    """Entry points of group ``tbw_envs.games`` as the test sets them, loaded afresh."""
    import tbw_envs.games as games

    installed: list[FakeEntryPoint] = []
    calls = []

    def entry_points(*, group):
        calls.append(group)
        return list(installed) if group == games.ENTRY_POINT_GROUP else []

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    monkeypatch.setattr(games, "_entry_points_loaded", False)
    monkeypatch.setattr(games, "_failed_entry_points", {})
    yield installed, calls
    for entry in installed:
        name = getattr(entry.loaded, "name", None) if entry.error is None else None
        if isinstance(name, str) and name in game_names() and name != "tbw":
            unregister(name)


def test_entry_points_register_their_games_once_and_lazily(plugins):
    installed, calls = plugins
    installed += [FakeEntryPoint("third", Third()),  # an instance
                  FakeEntryPoint("fourth", type("Fourth", (Third,), {"name": "fourth"}))]
    assert calls == []  # nothing loads before a lookup needs it
    assert get_game("tbw").name == "tbw" and calls == []  # a registered name needs none
    assert game_names()[-2:] == ("third", "fourth") and calls == ["tbw_envs.games"]
    assert type(get_game("fourth")).__name__ == "Fourth"
    game_names()
    with pytest.raises(ValueError, match="unknown game 'nosuch_game'"):
        get_game("nosuch_game")
    assert calls == ["tbw_envs.games"]  # loaded once, even for a name no plugin has


def test_an_unknown_name_loads_the_entry_points(plugins):
    installed, calls = plugins
    installed.append(FakeEntryPoint("third", Third))  # a class
    assert get_game("third").name == "third" and calls == ["tbw_envs.games"]


def test_a_broken_plugin_is_named_and_breaks_nothing(plugins):
    installed, _ = plugins
    installed += [FakeEntryPoint("broken", error=ImportError("no module named plugin_broken")),
                  FakeEntryPoint("clashing", Third(), None),
                  FakeEntryPoint("not_a_game", loaded=lambda: "a string")]
    installed[1].loaded = type("Clashing", (Third,), {"name": "tbw"})()  # a taken name
    with pytest.warns(RuntimeWarning) as caught:
        names = game_names()
    messages = [str(w.message) for w in caught]
    assert len(messages) == 3
    assert any("'broken'" in m and "ImportError" in m and "plugin_broken" in m for m in messages)
    assert any("'clashing'" in m and "'tbw' is already registered" in m for m in messages)
    assert any("'not_a_game'" in m and "instance of tbw_envs.games.Game" in m for m in messages)
    assert names[:len(BUNDLED)] == tuple(g.name for g in BUNDLED)
    assert type(get_game("tbw")) is TBWGame  # the bundled game, not the clashing one
    with pytest.raises(ValueError, match="game 'broken' did not load: entry point 'broken'"):
        get_game("broken")
