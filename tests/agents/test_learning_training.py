"""The training library without torch: opponents (agents.learning.pools), the training env and
the evaluation games (agents.learning.training), RLlib's argument checks without Ray
(agents.learning.rllib)."""

from __future__ import annotations

import pytest

from agents.learning.pools import MixedOpponent, build_opponent
from agents.learning.rllib import check_training_arguments, make_pettingzoo_env
from agents.learning.training import eval_prior_settings, make_training_env, new_game_factory
from tbw_envs.games import GAMES, get_game


@pytest.mark.parametrize("game", list(GAMES))
def test_several_opponents_draw_one_per_episode_reproducibly(game):
    def draws(seed):
        opponent = build_opponent(["random", "greedy"], [1.0, 3.0], game, seed, pool=None)
        assert isinstance(opponent, MixedOpponent) and opponent.name == "random+greedy"
        picks = []
        for episode in range(30):
            opponent.reset(episode)
            picks.append(opponent._current.name)
        return picks

    assert draws(4) == draws(4)
    assert set(draws(4)) == {"random", "greedy"}
    single = build_opponent(["greedy"], None, game, 0, pool=None)
    assert not isinstance(single, MixedOpponent)


@pytest.mark.parametrize("game", list(GAMES))
def test_the_training_env_names_the_learner_in_its_infos(game):
    description = get_game(game)
    env = make_training_env(game, description.default_variant, "random", "alternate")
    _, info = env.reset(seed=0)
    done = False
    while not done:
        legal = [a for a, ok in enumerate(info["action_mask"]) if ok]
        _, _, terminated, truncated, info = env.step(legal[0])
        done = terminated or truncated
    assert info["learner"] in ("player_0", "player_1")
    assert isinstance(info["end_reason"], str)
    env.close()


def test_the_eval_prior_adds_the_scores_to_the_observation():
    env = make_training_env("junqi", "ccgc", "random", 0,
                            eval_prior=eval_prior_settings(2.0, 15.0))
    observation, _ = env.reset(seed=0)
    assert isinstance(observation, dict) and len(observation) >= 2
    env.close()


@pytest.mark.parametrize("game", list(GAMES))
def test_evaluation_games_start_as_the_game_does_and_openings_follow_the_seed(game):
    description = get_game(game)
    variant = description.default_variant
    plain = new_game_factory(game, variant)
    assert (description.state_encoding(plain(7))
            == description.state_encoding(description.new_state(variant, 7)))
    opened = new_game_factory(game, variant, opening_plies=4)
    assert description.state_encoding(opened(7)) == description.state_encoding(opened(7))
    assert description.state_encoding(opened(7)) != description.state_encoding(plain(7))


def test_rllib_arguments_are_checked_without_ray():
    counts = {"iterations": (1, 1)}
    check_training_arguments("tbw", "duel_5v5_8x8", "local", "self", 0, "random", counts)
    with pytest.raises(ValueError, match="iterations must be an integer >= 1"):
        check_training_arguments("tbw", "duel_5v5_8x8", "local", "self", 0, "random",
                                 {"iterations": (0, 1)})
    with pytest.raises(ValueError, match="opponent must be 'self' or 'frozen'"):
        check_training_arguments("junqi", "ccgc", "local", "league", 0, "random", counts)
    with pytest.raises(ValueError, match="nobody"):
        check_training_arguments("junqi", "ccgc", "local", "self", 2, "nobody", counts)


@pytest.mark.parametrize("game", list(GAMES))
def test_the_rllib_env_is_the_games_aec_env(game):
    description = get_game(game)
    env = make_pettingzoo_env(game, description.default_variant)
    env.reset(seed=0)
    observation, *_ = env.last()
    assert set(observation) == {"observation", "action_mask"}
    env.close()
