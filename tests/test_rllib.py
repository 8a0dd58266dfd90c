"""RLlib/Ray: scripts/train_rllib.py (multi-agent PPO, masking module, self-play, checkpoints)
and the arena's Ray path. Everything that needs Ray is skipped when it is not installed: RLlib
pins its own gymnasium, so it lives in its own environment (docs/integrations.md, "RLlib")."""

from __future__ import annotations

import csv
import importlib.util
import json
import sys

import numpy as np
import pytest

from agents.arena import check_ray_address, run_round_robin
from agents.learning import rllib, rllib_training
from scripts import train_rllib

HAS_RAY = importlib.util.find_spec("ray") is not None
NO_RAY = "ray is not installed; it needs its own environment (docs/integrations.md, 'RLlib')"
needs_ray = pytest.mark.skipif(not HAS_RAY, reason=NO_RAY)
needs_rllib = pytest.mark.skipif(
    not HAS_RAY or importlib.util.find_spec("ray.rllib") is None,
    reason="ray[rllib] is not installed; it needs its own environment (docs/integrations.md)")
VARIANTS = {"tbw": "duel_5v5_8x8", "junqi": "ccgc"}
# Small enough for one iteration in seconds, big enough for whole games (TBW and Junqi games of
# random-ish play last about 150-250 env steps), so the end-of-game metrics exist.
TINY = dict(train_batch_size=600, minibatch_size=200, num_epochs=1, hidden=(64,),
            num_envs_per_env_runner=1)


@pytest.fixture(scope="module")
def ray_session():
    """One local Ray for the module: run_round_robin and rllib_training.train reuse a running Ray
    (connect_ray) and leave it up."""
    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False)
    yield ray
    if started:
        ray.shutdown()


# ---------------------------------------------------------------------- without Ray


@pytest.mark.parametrize("address", ["local", "auto", "ray://head:10001", "10.0.0.5:6379"])
def test_ray_addresses_accepted(address):
    assert check_ray_address(address) == address


@pytest.mark.parametrize("address", ["", "ray://", "head", ":6379", "head:port", None, 6379,
                                     "Local"])
def test_bad_ray_addresses_are_named(address):
    with pytest.raises(ValueError, match="Ray address must be"):
        check_ray_address(address)


def test_round_robin_checks_the_ray_address_before_anything_runs():
    with pytest.raises(ValueError, match="Ray address must be"):
        run_round_robin("tbw", ["random"], games_per_pairing=2, ray_address="cluster")


@pytest.mark.parametrize("argv, message", [
    (["--address", "cluster"], "Ray address must be"),
    (["--iterations", "0"], "--iterations: must be at least 1"),
    (["--num-env-runners", "-1"], "--num-env-runners: must be at least 0"),
    (["--game", "tbw", "--rules", "jj"], "--rules is for --game junqi"),
    (["--game", "junqi", "--scenario", "hex_skirmish"], "--scenario is for --game tbw"),
    (["--scenario", "no_such_scenario"], "no_such_scenario"),
    (["--eval-opponent", "no_such_agent"], "no_such_agent"),
])
def test_train_rllib_rejects_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        train_rllib.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


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


def test_learner_seat_alternates_between_episodes_and_is_stable():
    ids = [f"{i:032x}" for i in range(200)]
    seats = [rllib.seat_of_learner(i) for i in ids]
    assert seats == [rllib.seat_of_learner(i) for i in ids]
    assert 60 < sum(seats) < 140


@pytest.mark.skipif(HAS_RAY, reason="checks the error shown when ray is missing")
def test_missing_ray_gives_an_install_hint(capsys):
    with pytest.raises(SystemExit):
        train_rllib.main(["--iterations", "1"])
    assert "pip install" in capsys.readouterr().err
    with pytest.raises(ImportError, match="rllib"):
        run_round_robin("tbw", ["random"], games_per_pairing=2, ray_address="local")


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


# ---------------------------------------------------------------------- the arena on Ray


@needs_ray
@pytest.mark.parametrize("game, specs", [("tbw", ["random", "greedy"]),
                                         ("junqi", ["random", "random"])])
def test_round_robin_on_ray_equals_the_local_run(game, specs, ray_session):
    local = run_round_robin(game, specs, games_per_pairing=4, seed=11, workers=1)
    on_ray = run_round_robin(game, specs, games_per_pairing=4, seed=11, ray_address="local",
                             workers=2)
    assert [g.outcome() for g in on_ray.games] == [g.outcome() for g in local.games]
    assert len(on_ray.games) == 4 and on_ray.workers == 2
    assert ray_session.is_initialized()  # a running Ray is reused, never shut down


@needs_ray
def test_round_robin_on_ray_names_the_failing_game(ray_session):
    # The factory lives in this test module, which Ray's workers cannot import: ship it.
    ray_session.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    with pytest.raises(Exception, match=r"tbw game \d+ .*failed"):
        run_round_robin("tbw", [_exploding_agent, "random"], games_per_pairing=2,
                        ray_address="local")


class _Exploding:
    name = "exploding"

    def reset(self, seed):
        pass

    def act(self, view):
        raise RuntimeError("boom")


def _exploding_agent(seed):
    return _Exploding()
