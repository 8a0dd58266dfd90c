"""RLlib training (``agents.training.rllib_training``): bad input is refused before Ray starts, one
iteration of multi-agent PPO runs in local mode for each game, and a frozen opponent plays on an
env-runner actor. Everything that needs Ray is skipped when it is not installed."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from agents.training import rllib, rllib_training
from tests.helpers.ray_marks import TINY, VARIANTS, needs_rllib


@pytest.mark.parametrize("kwargs, message", [
    ({"iterations": 0}, "iterations must be an integer >= 1"),
    ({"num_env_runners": 1.5}, "num_env_runners must be an integer >= 0"),
    ({"eval_games": True}, "eval_games must be an integer >= 0"),
    ({"opponent": "league"}, "opponent must be 'self' or 'frozen'"),
    ({"address": "cluster"}, "Ray address must be"),
])
def test_train_rejects_bad_input_before_starting_ray(kwargs, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        rllib_training.train("tbw", out=tmp_path, **kwargs)
    assert not any(tmp_path.iterdir())


# ---------------------------------------------------------------------- RLlib on local Ray


@needs_rllib
@pytest.mark.slow
@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_train_rllib_one_iteration_in_local_mode(game, tmp_path, ray_session):
    summary = rllib_training.train(game, iterations=1, num_env_runners=0, address="local",
                                   out=tmp_path, eval_games=2, verbose=False, **TINY)
    assert summary["iterations"] == 1 and summary["env_steps"] >= TINY["train_batch_size"]
    assert summary["illegal_endings"] == 0
    assert 0.0 <= summary["final_eval_score"] <= 1.0
    with (tmp_path / "progress.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 1 and float(rows[0]["env_steps_per_second"]) > 0
    assert float(rows[0]["episodes"]) >= 1 and 0.0 <= float(rows[0]["player_0_score"]) <= 1.0
    assert np.isfinite(float(rows[0]["entropy"]))
    assert (tmp_path / "learning_curve.png").stat().st_size > 10_000
    assert json.loads((tmp_path / "summary.json").read_text())["game"] == game
    # The checkpoint's policy loads on its own and plays only legal actions.
    from ray.rllib.core.rl_module.rl_module import RLModule

    module = RLModule.from_checkpoint(
        tmp_path / "checkpoint" / "learner_group" / "learner" / "rl_module" / rllib.LEARNER)
    aec = rllib.make_pettingzoo_env(game, VARIANTS[game])
    aec.reset(seed=3)
    for _ in range(20):
        obs, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            break
        action = rllib.greedy_action(module, obs)
        assert obs["action_mask"][action] == 1
        aec.step(action)


@needs_rllib
@pytest.mark.slow
def test_frozen_opponent_on_an_env_runner_actor(ray_session):
    """One remote env runner (the module and callbacks pickled to a Ray actor), the learner v
    its frozen copy: after refresh_frozen the copy equals the learner, in the learner and in
    the env runner."""
    import torch

    config = rllib.build_config("tbw", VARIANTS["tbw"], num_env_runners=1,
                                opponent="frozen", **TINY)
    # On a loaded machine the remote runner can take minutes to start; RLlib's default 60 s
    # sample timeout would then return no samples (and no env_runners results) at all.
    config.env_runners(sample_timeout_s=900)
    algo = config.build_algo()
    try:
        result = algo.train()
        assert 0.0 <= result["env_runners"]["learner_score"] <= 1.0
        assert result["env_runners"]["illegal_endings"] == 0
        weights = algo.learner_group.get_weights()
        before = weights[rllib.FROZEN]
        after_training = weights[rllib.LEARNER]
        assert any(not torch.equal(torch.as_tensor(before[k]), torch.as_tensor(after_training[k]))
                   for k in before)
        rllib.refresh_frozen(algo)
        weights = algo.learner_group.get_weights()
        for key, value in weights[rllib.LEARNER].items():
            assert np.array_equal(np.asarray(weights[rllib.FROZEN][key]), np.asarray(value))
        runners = algo.env_runner_group.foreach_env_runner(
            lambda runner: {k: np.asarray(v) for k, v in
                            runner.module[rllib.FROZEN].get_state(inference_only=True)
                            .items()},
            local_env_runner=True)
        assert len(runners) == 2  # the local env runner and the remote one
        for frozen in runners:
            assert frozen and frozen.keys() <= weights[rllib.LEARNER].keys()
            for key, value in frozen.items():
                assert np.array_equal(value, np.asarray(weights[rllib.LEARNER][key]))
    finally:
        algo.stop()
