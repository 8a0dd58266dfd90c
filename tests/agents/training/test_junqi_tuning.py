"""The Q-learning tuner of Junqi evaluation weights (``agents.training.junqi_tuning``): its
features are the greedy agent's plus the state part, it starts from the default weights and
learns, a resumed run continues exactly, and evaluation points score the current weights."""

from __future__ import annotations

import numpy as np
import pytest

from agents.junqi.evaluation import FEATURE_NAMES, JunqiEvaluation, load_weights
from agents.training.junqi_tuning import STATE_FEATURES, JunqiTuningConfig, JunqiWeightTuner


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
    default = load_weights("default").weights
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
