"""The RLlib integration (``agents.training.rllib``): the learner's seat alternates between
episodes, the masking module gives masked actions no probability, and RLlib's env check passes
on the PettingZoo adapter. Everything that needs Ray is skipped when it is not installed: RLlib
pins its own gymnasium, so it lives in its own environment (docs/integrations.md, "RLlib")."""

from __future__ import annotations

import numpy as np
import pytest

from agents.training import rllib
from agents.training.rllib import check_training_arguments, make_pettingzoo_env
from tbw_envs.games import game_names, get_game
from tests.helpers.ray_marks import VARIANTS, needs_rllib


def test_learner_seat_alternates_between_episodes_and_is_stable():
    ids = [f"{i:032x}" for i in range(200)]
    seats = [rllib.seat_of_learner(i) for i in ids]
    assert seats == [rllib.seat_of_learner(i) for i in ids]
    assert 60 < sum(seats) < 140


# ---------------------------------------------------------------------- RLlib, no cluster


def _module_for(game: str):
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    aec = rllib.make_pettingzoo_env(game, VARIANTS[game])
    aec.reset(seed=0)
    agent = aec.agent_selection
    spec = RLModuleSpec(module_class=rllib.masked_ppo_module_class(),
                        observation_space=aec.observation_space(agent),
                        action_space=aec.action_space(agent),
                        model_config={"fcnet_hiddens": [32]})
    return spec.build(), aec, agent


@needs_rllib
@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_masking_module_gives_masked_actions_no_probability(game):
    import torch
    from ray.rllib.core.columns import Columns

    module, aec, agent = _module_for(game)
    obs = aec.observe(agent)
    mask = obs["action_mask"].astype(bool)
    batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in obs.items()}}
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(batch)[Columns.ACTION_DIST_INPUTS][0]
        probs = torch.softmax(logits, dim=-1).detach().numpy()
        assert np.all(probs[~mask] == 0.0) and probs[mask].sum() == pytest.approx(1.0, abs=1e-5)
    samples = torch.distributions.Categorical(logits=logits).sample((500,)).numpy()
    assert mask[samples].all()
    assert mask[rllib.greedy_action(module, obs)]
    values = module.compute_values(batch)
    assert values.shape == (1,) and torch.isfinite(values).all()
    # The AEC convention's all-zero mask (terminal observations) stays finite: uniform.
    zero = {Columns.OBS: {"observation": batch[Columns.OBS]["observation"],
                          "action_mask": torch.zeros_like(batch[Columns.OBS]["action_mask"])}}
    logits = module.forward_inference(zero)[Columns.ACTION_DIST_INPUTS][0]
    assert torch.isfinite(torch.log_softmax(logits, dim=-1)).all()


@needs_rllib
def test_masking_module_rejects_other_observations():
    import gymnasium as gym

    with pytest.raises(ValueError, match="needs the Dict observation space"):
        rllib.masked_ppo_module_class()(observation_space=gym.spaces.Box(0, 1, (4,)),
                                        action_space=gym.spaces.Discrete(2))


@needs_rllib
@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_rllib_env_check_passes_on_the_pettingzoo_adapter(game):
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = rllib.make_env({"game": game, "variant": VARIANTS[game]})
    check_multiagent_environments(env)
    obs, _ = env.reset(seed=1)
    assert list(obs) == ["player_0"]  # only the agent to move observes (turn-based)


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


@pytest.mark.parametrize("game", list(game_names()))
def test_the_rllib_env_is_the_games_aec_env(game):
    description = get_game(game)
    env = make_pettingzoo_env(game, description.default_variant)
    env.reset(seed=0)
    observation, *_ = env.last()
    assert set(observation) == {"observation", "action_mask"}
    env.close()
