"""The recipes in scripts/integrations/ train and respect masks; each is skipped when its library
is not installed (CI's ``--require-integrations`` fails it instead). TorchRL, Tianshou and
SuperSuit are the ``integrations`` extra, RLlib the ``rllib`` extra (its own environment); the
CleanRL-style recipe needs only torch (the ``train`` extra)."""

from __future__ import annotations

import math

import numpy as np
import pytest


def _trained(result: dict) -> None:
    """What every training recipe must show: only legal moves, and weights that moved."""
    assert result["illegal"] == 0
    assert result["weights_changed"]


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_torchrl_recipe_runs_masked_ppo_iterations(game):
    pytest.importorskip("torchrl", reason="torchrl is not installed (the integrations extra)")
    from scripts.integrations import torchrl_masked

    result = torchrl_masked.run(game, iterations=2, frames_per_batch=128, epochs=2)
    _trained(result)
    assert result["iterations"] == 2 and result["moves"] == 256
    assert all(math.isfinite(loss) for loss in result["loss"])


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_tianshou_recipe_trains_a_masked_dqn_per_seat(game):
    pytest.importorskip("tianshou", reason="tianshou is not installed (the integrations extra)")
    from scripts.integrations import tianshou_masked

    result = tianshou_masked.run(game, steps=300)
    _trained(result)
    assert result["moves"] >= 300 and result["update_steps"] > 0


@pytest.mark.parametrize("game, dict_obs", [("tbw", False), ("junqi", True)])
def test_cleanrl_style_ppo_trains_over_a_sync_vector_env(game, dict_obs):
    pytest.importorskip("torch", reason="torch is not installed (the train extra)")
    from scripts.integrations import cleanrl_ppo

    args = cleanrl_ppo.Args(game=game, iterations=2, num_envs=2, num_steps=32,
                            dict_obs=dict_obs)
    result = cleanrl_ppo.run(args)
    _trained(result)
    assert result["steps"] == 2 * 2 * 32 and math.isfinite(result["final_loss"])


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_supersuit_recipe_trains_self_play_ppo(game):
    pytest.importorskip("supersuit", reason="supersuit is not installed (the integrations extra)")
    pytest.importorskip("torch", reason="torch is not installed (the train extra)")
    from scripts.integrations import supersuit_vec

    result = supersuit_vec.run(game, copies=1, iterations=2, num_steps=32)
    _trained(result)
    assert result["steps"] == 2 * 2 * 32  # two seats per game, one game, two iterations


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_supersuit_recipe_trains_maskable_ppo_through_the_sb3_adapter(game):
    pytest.importorskip("supersuit", reason="supersuit is not installed (the integrations extra)")
    pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (the train extra)")
    from scripts.integrations import supersuit_vec

    result = supersuit_vec.run_sb3(game, copies=1, timesteps=128, n_steps=64)
    assert result == {"steps": 128, "parameters_changed": True, "rows": 2}


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_supersuit_vector_env_plays_whole_games_of_our_parallel_env(game):
    """SuperSuit's helpers on ``parallel_env()``: rows are seats, the waiting seat's mask
    allows only the last id, a game ends for both rows in one step with opposite rewards (or
    a draw), and the env resets inside that step."""
    ss = pytest.importorskip("supersuit",
                             reason="supersuit is not installed (the integrations extra)")
    from tbw_envs import junqi_v0, tbw_v0

    par = (tbw_v0.parallel_env(scenario="paper_figure3") if game == "tbw"
           else junqi_v0.parallel_env(rules={"total_ply_limit": 60}))
    envs = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(par), 2, num_cpus=0,
                                 base_class="gymnasium")
    assert envs.num_envs == 4
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    n = envs.action_space.n
    ended = 0
    for _ in range(5000):
        masks = obs["action_mask"].astype(bool)
        assert masks.any(axis=1).all()
        for game_rows in (masks[0:2], masks[2:4]):  # one seat acts, the other waits
            waiting = [row.sum() == 1 and row[n - 1] for row in game_rows]
            assert sum(waiting) >= 1
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        done = np.logical_or(terminated, truncated)
        for first in (0, 2):
            assert done[first] == done[first + 1]  # both seats end together
            if done[first]:
                ended += 1
                assert rewards[first] == -rewards[first + 1]
                assert "terminal_observation" in infos[first]
        if ended >= 2:
            break
    assert ended >= 2
    envs.close()


@pytest.mark.slow
def test_rllib_recipe_runs_one_ppo_iteration():
    pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed; it needs its own "
                        "environment (docs/integrations.md)")
    from scripts.integrations import rllib_ppo

    result = rllib_ppo.run("tbw", iterations=1)
    assert result["iterations"] == 1


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_rllib_observation_wrapper_renames_and_flattens_without_ray(game):
    import numpy as np

    from scripts.integrations.rllib_ppo import make_aec

    env = make_aec(game)
    env.reset(seed=0)
    agent = env.agent_selection
    obs = env.observe(agent)
    assert env.observation_space(agent).contains(obs)
    raw = env.unwrapped.observe(agent)
    assert np.array_equal(obs["observations"], raw["observation"].reshape(-1))
    assert np.array_equal(obs["action_mask"] == 1, raw["action_mask"] == 1)

