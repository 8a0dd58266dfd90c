"""The same checks over every game in ``tbw_envs.games``: the written game interface
(``tbw_envs.core.interface``), the ``Game`` description, and the env faces built from it.

A new game registered in ``tbw_envs.games`` runs through all of this without a line added here.
"""

from __future__ import annotations

import inspect
import json
import random

import numpy as np
import pytest
from pettingzoo.test import api_test

from tbw_envs.core.errors import IllegalActionError
from tbw_envs.core.game import Game
from tbw_envs.core.interface import GameState, GameView
from tbw_envs.games import GAMES, game_names, get_game

GAME_NAMES = list(GAMES)


def random_game(game: Game, seed: int, max_plies: int = 5000):
    """States along one uniformly random game of the default variant."""
    rng = random.Random(seed)
    state = game.new_state(game.default_variant, seed=seed)
    states = [state.clone()]
    while not state.is_terminal() and len(states) < max_plies:
        state.apply(rng.choice(state.legal_actions()))
        states.append(state.clone())
    return states


def test_lookup_is_the_one_list_of_games():
    assert game_names() == tuple(GAMES) and len(GAMES) >= 2
    for name, game in GAMES.items():
        assert get_game(name) is game and get_game(game) is game and game.name == name
    for bad in ("chess", "", None, 3, "TBW"):
        with pytest.raises(ValueError, match="unknown game"):
            get_game(bad)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_description_is_complete(name):
    game = get_game(name)
    for field in ("title", "variant_flag", "variant_noun", "default_variant"):
        assert isinstance(getattr(game, field), str) and getattr(game, field), field
    assert game.default_variant in game.variants()
    assert game.variant_kwargs("x") == {game.variant_flag: "x"}
    assert len(set(game.end_reasons)) == len(game.end_reasons) > 0
    assert {"random", "greedy", "ppo"} <= set(game.agents)
    plies, how = game.longest_game(game.default_variant)
    assert isinstance(plies, int) and plies > 0 and str(plies) in how.replace(",", "")
    json.dumps(game.variant_context(game.default_variant))  # JSON-ready, for digests
    with pytest.raises(ValueError):
        game.load_variant("no_such_variant_anywhere")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_state_and_view_follow_the_interface(name):
    game = get_game(name)
    state = game.new_state(game.default_variant, seed=1)
    assert isinstance(state, GameState)
    assert isinstance(state.view(state.current_player), GameView)
    # end_reason is a data member in every game (a property or an attribute), never a method
    assert not inspect.isfunction(inspect.getattr_static(type(state), "end_reason", None))
    assert state.end_reason is None and not state.is_terminal()


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_game_keeps_every_promise(name, seed):
    game = get_game(name)
    states = random_game(game, seed)
    final = states[-1]
    assert final.is_terminal(), "a random game ends within the limit"
    assert final.end_reason in game.end_reasons
    returns = final.returns()
    assert len(returns) == 2 and sum(returns) == 0 and set(returns) <= {-1.0, 0.0, 1.0}
    frame = game.frame(game.default_variant)
    for state in states[:-1:7]:
        legal = sorted(state.legal_actions())
        mask = state.legal_action_mask()
        assert len(set(legal)) == len(legal) > 0
        assert mask.dtype == np.int8 and np.flatnonzero(mask).tolist() == legal
        view = state.view(state.current_player)
        assert sorted(view.legal_actions()) == legal  # the mover's view knows its own moves
        planes, frame_mask = frame.encode(view)
        assert planes.shape == tuple(frame.shape) and frame_mask.dtype == bool
        assert frame_mask.shape == (frame.num_actions,) == mask.shape
        assert sorted(frame.to_core(view, a) for a in np.flatnonzero(frame_mask)) == legal
        before = game.state_encoding(state)
        assert before == game.state_encoding(state.clone())
        illegal = next(a for a in range(mask.size) if not mask[a])
        for bad in (illegal, -1, mask.size, 1.5, True, "3"):
            with pytest.raises(IllegalActionError):
                state.apply(bad)
            assert game.state_encoding(state) == before, "a refused action changes nothing"
        child = state.clone()
        child.apply(legal[0])
        assert game.state_encoding(state) == before, "a clone is independent"
    with pytest.raises(IllegalActionError):
        final.apply(0)
    assert final.view(0).is_terminal() and final.view(1).returns() == returns


@pytest.mark.parametrize("name", GAME_NAMES)
def test_envs_built_from_the_description(name):
    game = get_game(name)
    kwargs = game.variant_kwargs(game.default_variant)
    env = game.env(**kwargs)
    api_test(env, num_cycles=30)
    assert tuple(env.metadata["end_reasons"][1:-1]) == game.end_reasons
    assert env.metadata["name"] == f"{name}_v0"
    raw = game.raw_env(**kwargs)
    raw.reset(seed=0)
    frame = game.frame(game.default_variant)
    agent = raw.agent_selection
    assert raw.observe(agent)["observation"].shape == tuple(frame.shape)
    single = game.single_agent_env(**kwargs)
    obs, info = single.reset(seed=0)
    assert obs.shape == tuple(frame.shape) and single.action_space.n == frame.num_actions
    parallel = game.parallel_env(**kwargs)
    parallel.reset(seed=0)
    assert parallel.agents == ["player_0", "player_1"]
