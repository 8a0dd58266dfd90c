"""The training library without torch (``agents.training.training``): the training env names the
learner in its infos, the evaluation prior adds its scores to the observation, and evaluation
games start as the game does with openings that follow the seed."""

from __future__ import annotations

import pytest

from agents.training.training import eval_prior_settings, make_training_env, new_game_factory
from tbw_envs.games import game_names, get_game


@pytest.mark.parametrize("game", list(game_names()))
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


@pytest.mark.parametrize("game", list(game_names()))
def test_evaluation_games_start_as_the_game_does_and_openings_follow_the_seed(game):
    description = get_game(game)
    variant = description.default_variant
    plain = new_game_factory(game, variant)
    started = description.start(variant, 7, (None, None), ("", "")).state  # as the arena does
    assert description.state_encoding(plain(7)) == description.state_encoding(started)
    opened = new_game_factory(game, variant, opening_plies=4)
    assert description.state_encoding(opened(7)) == description.state_encoding(opened(7))
    assert description.state_encoding(opened(7)) != description.state_encoding(plain(7))
