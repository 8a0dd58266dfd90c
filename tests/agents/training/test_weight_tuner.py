"""The input contract of weight tuning (``agents.training.weight_tuner``): tuning configs refuse
bad values naming the field, tuners build their opponents and load their files up front, and a
checkpoint is checked field by field (and against its tuner) before a run resumes from it."""

from __future__ import annotations

import math

import pytest

from agents.training.junqi_tuning import JunqiTuningConfig, JunqiWeightTuner
from agents.training.tbw_tuning import TBWTuningConfig, TBWWeightTuner
from agents.training.weight_tuner import CheckpointError, TuningConfigError
from tests.helpers.errors import assert_names
from tests.helpers.weight_files import (
    delete_at,
    junqi_checkpoint,
    mutated,
    set_at,
    write_checkpoint,
)

pytestmark = pytest.mark.input_contract


@pytest.mark.parametrize("cls, fields, field, words", [
    (JunqiTuningConfig, {"step_size": math.nan}, "step_size", ["(0, 1]", "float nan"]),
    (JunqiTuningConfig, {"step_size": "0.1"}, "step_size", ["str '0.1'"]),
    (JunqiTuningConfig, {"win_reward": -1.0}, "win_reward", ["float -1.0"]),
    (JunqiTuningConfig, {"seed": -1}, "seed", ["int -1"]),
    (JunqiTuningConfig, {"seed": 1.5}, "seed", ["float 1.5"]),
    (JunqiTuningConfig, {"episodes": True}, "episodes", ["bool True"]),
    (JunqiTuningConfig, {"episodes": 10**7}, "episodes", ["[0, 1000000]", "10000000"]),
    (JunqiTuningConfig, {"opponents": "greedy"}, "opponents", ["list of strings",
                                                               "str 'greedy'"]),
    (JunqiTuningConfig, {"opponents": ("greedy", 3)}, "opponents", ["int 3"]),
    (JunqiTuningConfig, {"belief": "psychic"}, "belief", ["'psychic'"]),
    (JunqiTuningConfig, {"rules": ""}, "rules", ["str ''"]),
    (JunqiTuningConfig, {"epsilon_start": "0.2"}, "epsilon_start", ["str '0.2'"]),
    (TBWTuningConfig, {"perturbation": math.inf}, "perturbation", ["float inf"]),
    (TBWTuningConfig, {"trace_decay": math.nan}, "trace_decay", ["float nan"]),
    (TBWTuningConfig, {"budget": 10**13}, "budget", ["10000000000000"]),
    (TBWTuningConfig, {"opening_plies": (0, 10**6)}, "opening_plies", ["(0, 1000000)"]),
    (TBWTuningConfig, {"scenarios": "duel_5v5_8x8"}, "scenarios", ["str 'duel_5v5_8x8'"]),
    (TBWTuningConfig, {"win_reward": 1e308}, "win_reward", ["float 1e+308"]),
])  # fmt: skip
def test_tuning_configs_refuse_values_naming_the_field(cls, fields, field, words):
    with pytest.raises(TuningConfigError) as caught:
        cls(**fields)
    assert caught.value.field == field
    assert_names(str(caught.value), field, *words)


@pytest.mark.parametrize("tuner, fields, field, words", [
    (JunqiWeightTuner, {"opponents": ("greedy", "foo")}, "opponents", ["'foo'"]),
    (JunqiWeightTuner, {"eval_opponent": "exact"}, "eval_opponent",
     ["'exact'", "does not play junqi"]),
    (JunqiWeightTuner, {"rules": "nosuch"}, "rules", ["'nosuch'"]),
    (JunqiWeightTuner, {"start_weights": "nosuch"}, "start_weights", ["'nosuch'"]),
    (TBWWeightTuner, {"opponents": ("ucbmcts",)}, "opponents", ["'ucbmcts'"]),
    (TBWWeightTuner, {"scenarios": ("nosuch",)}, "scenarios", ["'nosuch'"]),
])  # fmt: skip
def test_tuners_build_their_opponents_and_load_their_files_up_front(tuner, fields, field,
                                                                    words):
    """An opponent that cannot be built fails when the tuner is made, not after the warm-up
    games."""
    config = (JunqiTuningConfig if tuner is JunqiWeightTuner else TBWTuningConfig)(**fields)
    with pytest.raises(TuningConfigError) as caught:
        tuner(config)
    assert caught.value.field == field
    assert_names(str(caught.value), field, *words)


# (the checkpoint's text, words the message must hold besides the path)
CHECKPOINT_CASES = [
    (mutated(set_at("episode", -5)), ["episode must be an integer in [0, 4]", "int -5"]),
    (mutated(set_at("episode", 2.0)), ["episode must be an integer", "float 2.0"]),
    (mutated(set_at("episode", True)), ["episode must be an integer", "bool True"]),
    (mutated(set_at("episode", 9)), ["episode must be an integer in [0, 4]", "int 9"]),
    (mutated(set_at("format", "tbw-envs-tbw-tuning/1")),
     ["format", "not a Junqi tuning checkpoint", "'tbw-envs-tbw-tuning/1'"]),
    (mutated(set_at("extra", 1)), ["unknown field(s)", "'extra'"]),
    (mutated(delete_at("history")), ["missing field(s)", "'history'"]),
    (mutated(set_at("config", "step_size", "fast")), ["config.step_size", "str 'fast'"]),
    (mutated(set_at("config", "step_size", -1)), ["config.step_size", "int -1"]),
    (mutated(set_at("config", "opponents", "greedy")), ["config.opponents", "str 'greedy'"]),
    (mutated(set_at("config", "epsilon_end", 0.9)), ["config: need 0 <= epsilon_end", "0.9"]),
    (mutated(set_at("config", "opponents", ["foo"])), ["config.opponents", "'foo'"]),
    (mutated(set_at("config", "rules", "nosuch")), ["config.rules", "'nosuch'"]),
    (mutated(set_at("config", "speed", 1)), ["config: unknown field(s)", "'speed'"]),
    (mutated(set_at("config", [])), ["config must be a JSON object", "list []"]),
    (mutated(set_at("learner", None)), ["learner is null", "2 episodes"]),
    (mutated(set_at("learner", "theta", [1.0])), ["learner.theta", "list of 9 numbers",
                                                "[1.0]"]),
    (mutated(set_at("learner", "theta", 0, "x")), ["learner.theta[0]", "str 'x'"]),
    (mutated(set_at("learner", "scales", 0, 0.0)), ["learner.scales", "positive", "0.0"]),
    (mutated(set_at("learner", "step_size", -1.0)), ["learner.step_size", "-1.0"]),
    (mutated(set_at("learner", "names", 0, "attack")), ["learner.names", "'attack'"]),
    (mutated(set_at("learner", "theta", 0, 1e300)),
     ["learner", "weights.attack_gain must lie in", "1e+300"]),
    (mutated(set_at("history", "td_errors", [1.0])), ["history.td_errors", "list of 2",
                                                    "[1.0]"]),
    (mutated(set_at("history", "td_errors", [1.0, -1.0])), ["history.td_errors[1]", "-1.0"]),
    (mutated(set_at("history", "evaluations", 0, "score", 2)),
     ["history.evaluations[0].score", "int 2"]),
    (mutated(set_at("history", "evaluations", 0, "episode", 7)),
     ["history.evaluations[0].episode", "int 7"]),
    (mutated(delete_at("history", "evaluations", 0, "weights", "progress")),
     ["history.evaluations[0].weights", "must map exactly"]),
    ([1, 2], ["top level must be a JSON object", "list [1, 2]"]),
    ('{"format": 1, "format": 2}', ["duplicate key 'format'"]),
    ('{"episode": NaN}', ["NaN is not a number"]),
    ('{"episode": ', ["not valid JSON"]),
    ("[" * 100_000, ["nested too deeply"]),
    (b"\xff\xfe{}", ["not UTF-8"]),
]  # fmt: skip


def test_a_valid_checkpoint_loads(tmp_path):
    """The base of the table below resumes: only the change in each row breaks it."""
    path = write_checkpoint(tmp_path, junqi_checkpoint())
    tuner = JunqiWeightTuner.from_checkpoint(path)
    assert tuner.episode == 2 and tuner.config.episodes == 4
    assert JunqiWeightTuner.from_checkpoint(path, episodes=9).config.episodes == 9


@pytest.mark.parametrize("content, words", CHECKPOINT_CASES)
def test_bad_checkpoints_are_refused_naming_file_and_field(tmp_path, content, words):
    path = write_checkpoint(tmp_path / "run", content)
    before = path.read_bytes()
    with pytest.raises(CheckpointError) as caught:
        JunqiWeightTuner.from_checkpoint(path)
    assert_names(str(caught.value), str(path), *words)
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["checkpoint.json"]


def test_a_checkpoint_cannot_resume_with_fewer_episodes_than_it_played(tmp_path):
    path = write_checkpoint(tmp_path, junqi_checkpoint(episode=3))
    with pytest.raises(CheckpointError) as caught:
        JunqiWeightTuner.from_checkpoint(path, episodes=2)
    assert caught.value.field == "episodes"
    assert_names(str(caught.value), str(path), "already played 3 episodes", "got 2")


def test_a_tbw_checkpoint_is_checked_against_the_tbw_tuner(tmp_path):
    data = junqi_checkpoint()
    data["format"] = TBWWeightTuner.CHECKPOINT_FORMAT
    path = write_checkpoint(tmp_path, data)
    with pytest.raises(CheckpointError) as caught:
        TBWWeightTuner.from_checkpoint(path)
    # The Junqi config's fields are not the TBW config's.
    assert_names(str(caught.value), str(path), "config: unknown field(s)", "'belief'")
