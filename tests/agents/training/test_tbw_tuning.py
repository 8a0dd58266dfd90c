"""The Q-learning tuner of TBW evaluation weights (``agents.training.tbw_tuning``): its rows, a
short run that learns and is reproducible, stopping and resuming, evaluation points, the
lambda-returns, and exploring weights that stay within the evaluation's range."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from agents.tbw.evaluation import (
    FEATURE_NAMES,
    MAX_WEIGHT,
    DefaultEvaluation,
    features,
)
from agents.tbw.search import TBWSearchAgent
from agents.training.tbw_tuning import (
    LEARNED_FEATURES,
    STATE_FEATURES,
    TBWTuningConfig,
    TBWWeightTuner,
)
from tests.helpers.tbw_search import (
    random_state,
    random_walk_states,
)
from tests.helpers.weight_files import TBW_OK


def tiny_config(scenarios, **overrides) -> TBWTuningConfig:
    fields = dict(episodes=6, eval_every=0, eval_games=0, warmup_games=1, seed=3,
                  scenarios=scenarios, opening_plies=(0, 3), opponents=("random", "self"),
                  epsilon_start=0.5, epsilon_end=0.2, budget=20_000)
    fields.update(overrides)
    return TBWTuningConfig(**fields)


def test_tuner_rows_are_the_learned_features_then_the_state_part(tiny_scenarios):
    tuner = TBWWeightTuner(tiny_config(tiny_scenarios))
    state = random_walk_states(4, plies=3)[-1]
    row = tuner.row(state, 0)
    learned = [FEATURE_NAMES.index(f) for f in LEARNED_FEATURES]
    assert row.shape == (len(LEARNED_FEATURES) + len(STATE_FEATURES),)
    np.testing.assert_array_equal(row[: len(LEARNED_FEATURES)], features(state, 0)[learned])
    assert row[-2] == 1.0 and row[-1] == state.turn / state.scenario.max_turns
    assert "victory" not in LEARNED_FEATURES  # the terminal signal keeps its weight


def test_a_short_run_learns_and_is_reproducible(tiny_scenarios):
    first = TBWWeightTuner(tiny_config(tiny_scenarios))
    first.run()
    second = TBWWeightTuner(tiny_config(tiny_scenarios))
    second.run()
    assert first.learner.theta.tolist() == second.learner.theta.tolist()
    assert first.history.td_errors == second.history.td_errors
    tuned = first.weight_dict()
    assert tuned != DefaultEvaluation().weight_dict()  # TD updates moved the weights
    assert tuned["victory"] == 1e6  # ... but never the victory weight
    other_seed = TBWWeightTuner(tiny_config(tiny_scenarios, seed=4))
    other_seed.run()
    assert other_seed.learner.theta.tolist() != first.learner.theta.tolist()


def test_a_stopped_and_resumed_run_ends_with_the_same_weights(tiny_scenarios, tmp_path):
    straight = TBWWeightTuner(tiny_config(tiny_scenarios, exploration="random"))
    straight.run()
    checkpoint = tmp_path / "checkpoint.json"
    stopped = TBWWeightTuner(tiny_config(tiny_scenarios, exploration="random"))
    stopped.run(checkpoint=checkpoint, until=3)
    resumed = TBWWeightTuner.from_checkpoint(checkpoint)
    assert resumed.episode == 3
    resumed.run()
    assert resumed.learner.theta.tolist() == straight.learner.theta.tolist()
    assert resumed.history.td_errors == straight.history.td_errors


def test_evaluation_points_score_the_current_weights_against_the_fixed_opponent(
        tiny_scenarios):
    tuner = TBWWeightTuner(tiny_config(tiny_scenarios, episodes=1, eval_every=1, eval_games=4,
                                       eval_opponent="exact"))
    tuner.run()
    first, last = tuner.history.evaluations
    assert [first["episode"], last["episode"]] == [0, 1]
    # Before any update the weights are the opponent's: paired games of one deterministic
    # search against itself from the same start split evenly.
    assert first["score"] == 0.5
    assert set(first["scenarios"]) == set(tiny_scenarios)
    assert set(last["weights"]) == set(LEARNED_FEATURES + STATE_FEATURES)


def test_the_tuned_evaluation_plays_in_a_search_agent(tiny_scenarios):
    tuner = TBWWeightTuner(tiny_config(tiny_scenarios, episodes=2))
    tuner.run()
    state = random_state(4, own=3, enemies=3, win="annihilation")
    agent = TBWSearchAgent("exact", evaluate=tuner.current_evaluation())
    assert agent.act(state.view(state.current_player)) in state.legal_actions()


@pytest.mark.parametrize("fields, match", [
    ({"eval_games": 3}, "eval_games must be even"),
    ({"episodes": -1}, "episodes must be a non-negative integer"),
    ({"epsilon_start": 0.1, "epsilon_end": 0.5}, "epsilon_end <= epsilon_start"),
    ({"discount": 1.5}, "discount must lie in"),
    ({"opponents": ()}, "opponent pool is empty"),
    ({"scenarios": ()}, "no scenarios"),
    ({"warmup_games": 0}, "warmup_games must be at least 1"),
    ({"opening_plies": (5, 2)}, "opening_plies must be two integers"),
    ({"exploration": "boltzmann"}, "exploration must be one of"),
    ({"algorithm": "minimax"}, "algorithm must be one of"),
    ({"win_reward": 0.0}, "win_reward must be a positive number"),
    ({"step_size": math.nan}, "step_size must be a positive number"),
    ({"budget": 1.5}, "budget must be a non-negative integer"),
])  # fmt: skip
def test_tuning_config_rejects_bad_values(fields, match):
    with pytest.raises(ValueError, match=match):
        TBWTuningConfig(**fields)


def test_the_tuner_refuses_unknown_start_weights_and_scenarios():
    with pytest.raises(ValueError, match="unknown TBW evaluation weights 'bogus'"):
        TBWWeightTuner(TBWTuningConfig(start_weights="bogus"))
    with pytest.raises(ValueError, match="no_such_scenario"):
        TBWWeightTuner(TBWTuningConfig(scenarios=("no_such_scenario",)))


def test_with_lambda_one_and_no_discount_every_afterstate_learns_toward_the_result(
        tiny_scenarios, monkeypatch):
    """Monte Carlo as the limit of the lambda-returns: without exploration the return is never
    cut, so each target is the game's result times the win reward."""
    tuner = TBWWeightTuner(tiny_config(tiny_scenarios, trace_decay=1.0, discount=1.0,
                                       epsilon_start=0.0, epsilon_end=0.0,
                                       opponents=("random",)))
    tuner.warm_up()
    targets = []
    original = tuner.learner.td_update
    monkeypatch.setattr(tuner.learner, "td_update",
                        lambda row, target: targets.append(target) or original(row, target))
    results = set()
    for episode in range(4):
        del targets[:]
        tuner.play_episode(episode)
        assert len(set(targets)) == 1 and targets[0] in (-100.0, 0.0, 100.0), targets
        results.add(targets[0])
    assert 100.0 in results  # the search beats random on these boards


@pytest.mark.input_contract
def test_the_exploring_weights_stay_within_the_evaluations_range():
    """A perturbed weight is held to +-MAX_WEIGHT, so exploring never builds an evaluation
    the loader would refuse."""
    tuner = TBWWeightTuner.__new__(TBWWeightTuner)
    tuner.config = TBWTuningConfig(perturbation=5.0)
    tuner.base = DefaultEvaluation.from_weights({**TBW_OK, "material": MAX_WEIGHT})
    tuner.learner = None
    seen = []
    tuner._plan = lambda state, evaluation: seen.append(evaluation) or []
    rng = random.Random(0)
    for _ in range(50):
        tuner._exploring_plan(None, rng)
    assert max(abs(e.material_weight) for e in seen) == MAX_WEIGHT
    assert all(set(LEARNED_FEATURES) <= set(e.weight_dict()) for e in seen)
