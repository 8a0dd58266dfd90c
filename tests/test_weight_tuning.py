"""Q-learning of evaluation weights: the linear learner and the Junqi tuner."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.junqi.evaluation import FEATURE_NAMES, JunqiEvaluation, load_eval_config
from agents.learning.junqi_tuning import STATE_FEATURES, JunqiTuningConfig, JunqiWeightTuner
from agents.learning.linear_q import LinearQ, feature_scales


# ------------------------------------------------------------------------ LinearQ
def test_linear_q_recovers_a_linear_target_whatever_the_feature_units():
    rng = np.random.default_rng(0)
    true_w = np.array([2.0, -0.5, 300.0])
    units = np.array([100.0, 1.0, 0.01])  # features of very different sizes
    samples = rng.normal(size=(2000, 3)) * units
    learner = LinearQ(np.zeros(3), feature_scales(samples), step_size=0.05)
    for phi in samples:
        learner.td_update(phi, float(true_w @ phi))
    np.testing.assert_allclose(learner.weights, true_w, rtol=1e-3)


def test_linear_q_values_are_w_dot_phi_and_an_update_moves_toward_the_target():
    learner = LinearQ([1.0, -2.0], [10.0, 0.5], step_size=0.1)
    phi = np.array([3.0, 1.0])
    assert learner.value(phi) == pytest.approx(1.0)
    np.testing.assert_allclose(learner.values(np.array([phi, 2 * phi])), [1.0, 2.0])
    error = learner.td_update(phi, 11.0)
    assert error == pytest.approx(10.0)
    assert 1.0 < learner.value(phi) < 11.0


def test_linear_q_state_round_trip_is_exact():
    learner = LinearQ([0.1, 0.2], [3.0, 7.0], step_size=0.01, names=("a", "b"))
    learner.td_update([1.0, 2.0], 5.0)
    copy = LinearQ.from_state_dict(json.loads(json.dumps(learner.state_dict())))
    assert copy.theta.tolist() == learner.theta.tolist()
    assert copy.names == ("a", "b")


@pytest.mark.parametrize("weights, scales, step, match", [
    ([1.0], [1.0, 2.0], 0.1, "1 weights but 2 scales"),
    ([1.0], [0.0], 0.1, "scales must be positive"),
    ([np.nan], [1.0], 0.1, "weights must be finite"),
    ([1.0], [1.0], 0.0, "step_size must be positive"),
])  # fmt: skip
def test_linear_q_rejects_bad_parameters(weights, scales, step, match):
    with pytest.raises(ValueError, match=match):
        LinearQ(weights, scales, step)


def test_feature_scales_measure_active_values_only():
    samples = np.array([[0.0, 3.0, 0.0], [0.0, -4.0, 0.0], [0.0, 0.0, 0.0], [2.0, 0.0, 0.0]])
    np.testing.assert_allclose(feature_scales(samples), [2.0, np.sqrt(12.5), 1.0])
    with pytest.raises(ValueError, match="non-empty"):
        feature_scales(np.zeros((0, 3)))


# ------------------------------------------------------------------------ Junqi tuner
def _tuner(episodes=2, **overrides) -> JunqiWeightTuner:
    fields = dict(episodes=episodes, eval_every=0, eval_games=0, warmup_games=1, seed=3)
    fields.update(overrides)
    return JunqiWeightTuner(JunqiTuningConfig(**fields))


def test_tuner_features_are_the_greedy_agents_features_plus_the_state_part():
    from agents.arena import junqi_game
    from agents.junqi.belief import make_belief

    tuner = _tuner()
    state = junqi_game("ccgc")(5)
    for _ in range(6):
        state.apply(state.legal_actions()[0])
    view = state.view(state.current_player)
    actions, rows = tuner.features(view, balance=40.0)
    assert rows.shape == (len(actions), len(FEATURE_NAMES) + len(STATE_FEATURES))
    expected = JunqiEvaluation("default").feature_matrix(view, make_belief("count", view), actions)
    np.testing.assert_allclose(rows[:, : len(FEATURE_NAMES)], expected)
    state_part = rows[:, len(FEATURE_NAMES) : len(FEATURE_NAMES) + 2]
    np.testing.assert_allclose(state_part, [[1.0, 0.4]] * len(actions))


def test_tuner_starts_from_the_default_weights_and_learns():
    tuner = _tuner(episodes=2)
    tuner.run()
    default = load_eval_config("default").weights
    assert tuner.episode == 2 and len(tuner.history.td_errors) == 2
    assert all(np.isfinite(tuner.history.td_errors))
    tuned = tuner.current_config().weights
    assert tuned != default  # two games of TD updates moved them
    assert tuner.current_config("mine").name == "mine"


def test_a_resumed_run_continues_exactly(tmp_path):
    straight = _tuner(episodes=4)
    straight.run()
    first = _tuner(episodes=4)
    first.run(checkpoint=tmp_path / "checkpoint.json", until=2)
    resumed = JunqiWeightTuner.from_checkpoint(tmp_path / "checkpoint.json")
    assert resumed.episode == 2
    resumed.run()
    assert resumed.learner.theta.tolist() == straight.learner.theta.tolist()
    assert resumed.history.td_errors == straight.history.td_errors


def test_evaluation_points_score_the_greedy_policy_of_the_current_weights():
    tuner = _tuner(episodes=1, eval_every=1, eval_games=2, opponents=("random",),
                   eval_opponent="random")
    tuner.run()
    assert [p["episode"] for p in tuner.history.evaluations] == [0, 1]
    # The default greedy evaluation beats random in both seats of a paired game.
    assert tuner.history.evaluations[0]["score"] == 1.0
    assert set(tuner.history.evaluations[1]["weights"]) == set(FEATURE_NAMES + STATE_FEATURES)


@pytest.mark.parametrize("fields, match", [
    ({"eval_games": 3}, "eval_games must be even"),
    ({"episodes": -1}, "episodes must be a non-negative integer"),
    ({"epsilon_start": 0.1, "epsilon_end": 0.5}, "epsilon_end <= epsilon_start"),
    ({"discount": 1.5}, "discount must lie in"),
    ({"opponents": ()}, "opponent pool is empty"),
    ({"warmup_games": 0}, "warmup_games must be at least 1"),
])  # fmt: skip
def test_tuning_config_rejects_bad_values(fields, match):
    with pytest.raises(ValueError, match=match):
        JunqiTuningConfig(**fields)


def test_tune_weights_script_writes_weights_history_and_chart(tmp_path):
    from scripts.tune_weights import main

    out = tmp_path / "run"
    assert main(["--episodes", "2", "--eval-every", "2", "--eval-games", "2", "--seed", "1",
                 "--out", str(out), "--no-config"]) == 0
    for name in ("checkpoint.json", "history.json", "learning_curve.png", "junqi_eval_tuned.yaml"):
        assert (out / name).is_file(), name
    tuned = load_eval_config(str(out / "junqi_eval_tuned.yaml"))
    assert tuned.name == "tuned" and len(tuned.weights) == len(FEATURE_NAMES)
    history = json.loads((out / "history.json").read_text())
    assert [p["episode"] for p in history["evaluations"]] == [0, 2]


def test_an_evaluation_file_saved_again_is_read_again(tmp_path):
    path = tmp_path / "junqi_eval_mine.yaml"
    base = load_eval_config("default")
    base.with_weights({"progress": 3.0}).save(path)
    assert load_eval_config(str(path)).weight_dict()["progress"] == 3.0
    base.with_weights({"progress": 7.5}).save(path)  # a re-tuned file, same path
    assert load_eval_config(str(path)).weight_dict()["progress"] == 7.5


def test_evaluation_files_go_through_the_strict_loader(tmp_path):
    path = tmp_path / "junqi_eval_bad.yaml"
    path.write_text("name: x\nname: y\n", encoding="utf-8")
    with pytest.raises(ValueError, match="duplicate key 'name'"):
        load_eval_config(str(path))
