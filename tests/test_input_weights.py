"""The input contract for evaluation weight files, weight tuning and its checkpoints
(agents.tbw.evaluation, agents.junqi.evaluation, agents.weight_tuner, agents.linear_q,
scripts/tune_weights.py).

Every case is a row of a table: the bad input, the error type, and the words the message must
hold (the file, flag or field, and the value as ``short_repr`` quotes it). Each also checks that
nothing was written: no run folder, no output file, the shipped configs byte for byte, and any
file the case points at unchanged.
"""

from __future__ import annotations

import copy
import json
import math
import random
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest

from agents.junqi.evaluation import (
    FEATURE_NAMES as JUNQI_FEATURES,
)
from agents.junqi.evaluation import (
    JunqiEvaluation,
    load_eval_config,
)
from agents.learning.junqi_tuning import STATE_FEATURES as JUNQI_STATE
from agents.learning.junqi_tuning import JunqiTuningConfig, JunqiWeightTuner
from agents.learning.linear_q import LinearQ
from agents.learning.tbw_tuning import LEARNED_FEATURES, TBWTuningConfig, TBWWeightTuner
from agents.learning.weight_tuner import CheckpointError, TuningConfigError
from agents.tbw.evaluation import MAX_WEIGHT, DefaultEvaluation, load_evaluation
from tbw_envs.core.configs_path import configs_dir
from tbw_envs.core.contract import short_repr
from tbw_envs.core.yaml_loader import ConfigError

SHIPPED = sorted((configs_dir() / "agents").glob("*_eval_*.yaml"))
SHIPPED_FILES = sorted(p for p in (configs_dir() / "agents").rglob("*") if p.is_file())
TBW_OK = {"material": 1, "kills": 5, "victory": 1.0e6, "leader_threat": -2, "exposure": -2,
          "distance": -0.1}  # fmt: skip


@pytest.fixture
def shipped_configs_unchanged():
    """Every shipped configs/agents file keeps its bytes, and no file is added there."""
    before = {p: p.read_bytes() for p in SHIPPED}
    yield
    assert sorted(p for p in (configs_dir() / "agents").rglob("*") if p.is_file()) == (
        SHIPPED_FILES)
    for path, data in before.items():
        assert path.read_bytes() == data, f"{path} changed"


def assert_names(message: str, *parts: str) -> None:
    for part in parts:
        assert part in message, f"{part!r} not in {message!r}"


# ----------------------------------------------------------------------- TBW weight files
def tbw_text(**changes) -> str:
    weights = {**TBW_OK, **changes}
    body = ", ".join(f"{k}: {v}" for k, v in weights.items() if v is not None)
    return f"name: mine\nweights: {{{body}}}\n"


HUGE_INT = "1" + "0" * 400

# (file text, words the message must hold besides the path)
TBW_BAD_FILES = [
    (tbw_text(material="1.0e+308"), ["weight 'material'", "must lie in", "1e+308"]),
    (tbw_text(victory="1.0e+308"), ["weight 'victory'", "must lie in", "1e+308"]),
    (tbw_text(kills="-1.0e+7"), ["weight 'kills'", "must lie in", "-10000000.0"]),
    (tbw_text(material=HUGE_INT), ["weight 'material'", "must lie in",
                                   short_repr(int(HUGE_INT))]),
    (tbw_text(material=".nan"), ["weight 'material'", "must be finite", "nan"]),
    (tbw_text(distance=".inf"), ["weight 'distance'", "must be finite", "inf"]),
    (tbw_text(exposure="-.inf"), ["weight 'exposure'", "must be finite", "-inf"]),
    (tbw_text(material="yes"), ["weight 'material'", "must be a number", "bool True"]),
    (tbw_text(material="'1'"), ["weight 'material'", "must be a number", "str '1'"]),
    (tbw_text(material="[1]"), ["weight 'material'", "must be a number", "list [1]"]),
    (tbw_text(victory="1.0e6"), ["weight 'victory'", "must be a number", "str '1.0e6'",
                                 "write the number as 1000000.0"]),
    (tbw_text(morale=1), ["unknown feature(s)", "'morale'"]),
    (tbw_text(distance=None), ["missing weight(s)", "'distance'"]),
    (tbw_text(victory=0), ["victory weight must be positive", "got 0.0"]),
    (tbw_text(victory=-5), ["victory weight must be positive", "got -5.0"]),
    ("weights: [1, 5]\n", ["'weights' must map", "[1, 5]"]),
    ("- 1\n- 2\n", ["top level must be a mapping", "list [1, 2]"]),
    ("name: 5\nweights: {}\n", ["name", "expected a string", "int 5"]),
    ("name: x\nweight: {}\n", ["unknown field(s)", "'weight'"]),
    ("name: x\nname: y\nweights: {}\n", ["duplicate key 'name'"]),
    ("a: &x 1\nweights: *x\n", ["aliases"]),
]  # fmt: skip


@pytest.mark.parametrize("text, words", TBW_BAD_FILES)
def test_bad_tbw_weight_files_are_refused_naming_file_field_and_value(
        tmp_path, text, words, shipped_configs_unchanged):
    path = tmp_path / "tbw_eval_bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_evaluation(str(path))
    assert_names(str(caught.value), str(path.resolve()), *words)
    assert path.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("weights, words", [
    ({**TBW_OK, "material": 1e308}, ["weight 'material'", "must lie in", "1e+308"]),
    ({**TBW_OK, "kills": np.float64("nan")}, ["weight 'kills'", "must be finite", "nan"]),
    ({**TBW_OK, "kills": np.bool_(True)}, ["weight 'kills'", "must be a number", "bool"]),
    ([1.0, 5.0, 1e6, -2.0, -2.0, "0.1"], ["weight 'distance'", "must be a number", "'0.1'"]),
    ([1.0, 5.0, 1e6, -2.0, -2.0, 1e300], ["weight 'distance'", "must lie in", "1e+300"]),
    (np.ones((2, 3)), ["one-dimensional", "(2, 3)"]),
    ("material", ["must be a mapping", "str 'material'"]),
])  # fmt: skip
def test_bad_tbw_weights_in_python_are_refused(weights, words):
    with pytest.raises(ValueError) as caught:
        DefaultEvaluation.from_weights(weights, source="mine")
    assert_names(str(caught.value), "mine", *words)


def test_tbw_weight_specs_of_the_wrong_type_or_name_are_refused():
    with pytest.raises(ValueError, match=r"got int 5"):
        load_evaluation(5)
    with pytest.raises(ValueError, match=r"unknown TBW evaluation weights 'a/b'"):
        load_evaluation("a/b")
    for name in ("x\0y", "x" * 5000):  # names the OS cannot look up: an error, no OSError
        with pytest.raises(ValueError, match="unknown TBW evaluation weights"):
            load_evaluation(name)
        with pytest.raises(ValueError, match="unknown Junqi evaluation weights"):
            load_eval_config(name)
    with pytest.raises(ValueError, match="weight 'material' must lie in"):
        load_evaluation({**TBW_OK, "material": 1e308})


def test_tbw_weights_at_the_bounds_evaluate_to_finite_values():
    """The reported bug: weights of 1e308 made the evaluation NaN. At the largest weights
    allowed, every term stays finite."""
    from test_tbw_search_helpers import random_state

    extreme = DefaultEvaluation.from_weights({f: MAX_WEIGHT for f in TBW_OK})
    negative = DefaultEvaluation.from_weights({**{f: -MAX_WEIGHT for f in TBW_OK},
                                               "victory": MAX_WEIGHT})
    for seed in range(6):
        state = random_state(seed)
        for evaluation in (extreme, negative):
            for side in (0, 1):
                assert math.isfinite(evaluation(state, side))


def test_save_weights_refuses_weights_load_evaluation_would_refuse(tmp_path):
    from agents.tbw.evaluation import save_weights

    path = tmp_path / "tbw_eval_out.yaml"
    with pytest.raises(ValueError, match="weight 'material' must lie in"):
        save_weights(DefaultEvaluation(material_weight=1e308), path, "out")
    assert not path.exists()


# ----------------------------------------------------------------------- Junqi weight files
JUNQI_DEFAULT = (configs_dir() / "agents" / "junqi_eval_default.yaml").read_text("utf-8")


def junqi_text(old: str, new: str) -> str:
    assert JUNQI_DEFAULT.count(old) == 1, old
    return JUNQI_DEFAULT.replace(old, new)


JUNQI_BAD_FILES = [
    (junqi_text("  flag: 5000", "  flag: -5"), ["piece_values.flag", "must lie in", "-5"]),
    (junqi_text("  marshal: 100", "  marshal: .nan"),
     ["piece_values.marshal", "must be finite", "nan"]),
    (junqi_text("  bomb: 77", "  bomb: 1.0e+7"),
     ["piece_values.bomb", "must lie in", "10000000.0"]),
    (junqi_text("  attack_gain: 1.0 ", "  attack_gain: .nan "),
     ["weights.attack_gain", "must be finite", "nan"]),
    (junqi_text("  exposure: -1.0 ", "  exposure: -.inf "),
     ["weights.exposure", "must be finite", "-inf"]),
    (junqi_text("  progress: 2.0 ", "  progress: 1.0e+308 "),
     ["weights.progress", "must lie in", "1e+308"]),
    (junqi_text("  progress: 2.0 ", "  progress: yes "),
     ["weights.progress", "must be a number", "bool True"]),
    (junqi_text("  progress: 2.0 ", "  progress: '2' "),
     ["weights.progress", "must be a number", "str '2'"]),
    (junqi_text("  flag_alarm_steps: 4 ", "  flag_alarm_steps: 2.7 "),
     ["params.flag_alarm_steps", "must be an integer", "float 2.7"]),
    (junqi_text("  flag_alarm_steps: 4 ", "  flag_alarm_steps: 4.0 "),
     ["params.flag_alarm_steps", "must be an integer", "float 4.0"]),
    (junqi_text("  flag_alarm_steps: 4 ", "  flag_alarm_steps: -1 "),
     ["params.flag_alarm_steps", "in [0, 60]", "int -1"]),
    (junqi_text("  flag_alarm_steps: 4 ", "  flag_alarm_steps: 61 "),
     ["params.flag_alarm_steps", "in [0, 60]", "int 61"]),
    (junqi_text("  no_collision_window: 10 ", "  no_collision_window: 0 "),
     ["params.no_collision_window", "in [1, 1000000]", "int 0"]),
    (junqi_text("  protect_min_value: 40 ", "  protect_min_value: .nan "),
     ["params.protect_min_value", "must be finite", "nan"]),
    (junqi_text("  protect_min_value: 40 ", "  protect_min_value: -1 "),
     ["params.protect_min_value", "must lie in", "-1"]),
    (junqi_text("  protect_min_value: 40 ", "  flag_steps: 4\n  protect_min_value: 40 "),
     ["unknown params", "'flag_steps'"]),
    (junqi_text("  progress: 2.0 ", "  speed: 2.0 "), ["weights", "unknown", "'speed'"]),
    (junqi_text("  no_collision: 300.0 ", "  # gone "), ["weights", "missing",
                                                          "'no_collision'"]),
    (junqi_text("  captain: 8", "  captian: 8"), ["piece_values", "unknown", "'captian'"]),
    (junqi_text("name: default", "name: 5"), ["name", "expected a string", "int 5"]),
    (junqi_text("name: default", "name: default\nextra: 1"), ["unknown field(s)", "'extra'"]),
    (junqi_text("name: default", "name: default\nname: again"), ["duplicate key 'name'"]),
    ("name: x\npiece_values: {}\nweights: {}\nparams: 0\n", ["piece_values", "missing"]),
    (JUNQI_DEFAULT.split("\nparams:")[0] + "\nparams: 0\n", ["'params' must be a mapping",
                                                             "int 0"]),
    (JUNQI_DEFAULT.split("\nparams:")[0] + "\nparams:\n", ["'params' must be a mapping",
                                                           "NoneType None"]),
    ("[1, 2]\n", ["top level must be a mapping", "list [1, 2]"]),
]  # fmt: skip


@pytest.mark.parametrize("text, words", JUNQI_BAD_FILES)
def test_bad_junqi_weight_files_are_refused_naming_file_field_and_value(
        tmp_path, text, words, shipped_configs_unchanged):
    path = tmp_path / "junqi_eval_bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_eval_config(str(path))
    assert_names(str(caught.value), str(path.resolve()), *words)
    # Agents build their evaluation through the same loader: the reported NaN and inf
    # weights failed deep inside a move choice, they now fail here.
    with pytest.raises(ConfigError):
        JunqiEvaluation(str(path))
    assert path.read_text(encoding="utf-8") == text


def test_junqi_dicts_and_with_weights_are_held_to_the_same_ranges():
    config = load_eval_config("default")
    data = config.to_dict()
    data["piece_values"]["flag"] = -5.0
    with pytest.raises(ConfigError, match=r"evaluation dict: piece_values.flag must lie in"):
        load_eval_config(data)
    for bad, words in (({"progress": math.nan}, ["weights.progress", "finite", "nan"]),
                       ({"progress": 1e308}, ["weights.progress", "must lie in", "1e+308"]),
                       ({"progress": True}, ["weights.progress", "number", "bool True"]),
                       ([1.0] * 5 + [math.inf], ["weights.no_collision", "finite", "inf"]),
                       ("abc", ["mapping", "str 'abc'"])):
        with pytest.raises(ValueError) as caught:
            config.with_weights(bad)
        assert_names(str(caught.value), *words)
    with pytest.raises(ValueError, match=r"got int 5"):
        load_eval_config(5)


def test_a_junqi_config_that_breaks_the_ranges_is_never_saved(tmp_path):
    from dataclasses import replace

    path = tmp_path / "junqi_eval_out.yaml"
    bad = replace(load_eval_config("default"), flag_alarm_steps=2.7)
    with pytest.raises(ConfigError, match="params.flag_alarm_steps must be an integer"):
        bad.save(path)
    assert not path.exists()


def test_the_shipped_weight_files_hold_to_the_ranges():
    for path in SHIPPED:
        if path.name.startswith("tbw_eval_"):
            load_evaluation(str(path))
        else:
            load_eval_config(str(path))


# ----------------------------------------------------------------------- tuning configs
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


# ----------------------------------------------------------------------- checkpoints
def junqi_checkpoint(episode: int = 2, episodes: int = 4) -> dict:
    """A valid Junqi checkpoint, built by hand (no game is played)."""
    config = JunqiTuningConfig(episodes=episodes, eval_every=0, eval_games=0, warmup_games=1,
                               seed=3)
    names = JUNQI_FEATURES + JUNQI_STATE
    start = list(load_eval_config("default").weights) + [0.0] * len(JUNQI_STATE)
    learner = LinearQ(start, [1.0 + i for i in range(len(names))], 0.0002, names)
    return {
        "format": JunqiWeightTuner.CHECKPOINT_FORMAT, "config": asdict(config),
        "episode": episode, "learner": learner.state_dict(),
        "history": {"evaluations": [{"episode": 0, "score": 0.5,
                                     "weights": dict(zip(names, start, strict=True))}],
                    "td_errors": [1.5] * episode},
    }  # fmt: skip


def mutated(change) -> dict:
    data = junqi_checkpoint()
    change(data)
    return data


def _set(*path_and_value):
    *path, value = path_and_value

    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _delete(*path):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return change


# (the checkpoint's text, words the message must hold besides the path)
CHECKPOINT_CASES = [
    (mutated(_set("episode", -5)), ["episode must be an integer in [0, 4]", "int -5"]),
    (mutated(_set("episode", 2.0)), ["episode must be an integer", "float 2.0"]),
    (mutated(_set("episode", True)), ["episode must be an integer", "bool True"]),
    (mutated(_set("episode", 9)), ["episode must be an integer in [0, 4]", "int 9"]),
    (mutated(_set("format", "tbw-envs-tbw-tuning/1")),
     ["format", "not a Junqi tuning checkpoint", "'tbw-envs-tbw-tuning/1'"]),
    (mutated(_set("extra", 1)), ["unknown field(s)", "'extra'"]),
    (mutated(_delete("history")), ["missing field(s)", "'history'"]),
    (mutated(_set("config", "step_size", "fast")), ["config.step_size", "str 'fast'"]),
    (mutated(_set("config", "step_size", -1)), ["config.step_size", "int -1"]),
    (mutated(_set("config", "opponents", "greedy")), ["config.opponents", "str 'greedy'"]),
    (mutated(_set("config", "epsilon_end", 0.9)), ["config: need 0 <= epsilon_end", "0.9"]),
    (mutated(_set("config", "opponents", ["foo"])), ["config.opponents", "'foo'"]),
    (mutated(_set("config", "rules", "nosuch")), ["config.rules", "'nosuch'"]),
    (mutated(_set("config", "speed", 1)), ["config: unknown field(s)", "'speed'"]),
    (mutated(_set("config", [])), ["config must be a JSON object", "list []"]),
    (mutated(_set("learner", None)), ["learner is null", "2 episodes"]),
    (mutated(_set("learner", "theta", [1.0])), ["learner.theta", "list of 9 numbers",
                                                "[1.0]"]),
    (mutated(_set("learner", "theta", 0, "x")), ["learner.theta[0]", "str 'x'"]),
    (mutated(_set("learner", "scales", 0, 0.0)), ["learner.scales", "positive", "0.0"]),
    (mutated(_set("learner", "step_size", -1.0)), ["learner.step_size", "-1.0"]),
    (mutated(_set("learner", "names", 0, "attack")), ["learner.names", "'attack'"]),
    (mutated(_set("learner", "theta", 0, 1e300)),
     ["learner", "weights.attack_gain must lie in", "1e+300"]),
    (mutated(_set("history", "td_errors", [1.0])), ["history.td_errors", "list of 2",
                                                    "[1.0]"]),
    (mutated(_set("history", "td_errors", [1.0, -1.0])), ["history.td_errors[1]", "-1.0"]),
    (mutated(_set("history", "evaluations", 0, "score", 2)),
     ["history.evaluations[0].score", "int 2"]),
    (mutated(_set("history", "evaluations", 0, "episode", 7)),
     ["history.evaluations[0].episode", "int 7"]),
    (mutated(_delete("history", "evaluations", 0, "weights", "progress")),
     ["history.evaluations[0].weights", "must map exactly"]),
    ([1, 2], ["top level must be a JSON object", "list [1, 2]"]),
    ('{"format": 1, "format": 2}', ["duplicate key 'format'"]),
    ('{"episode": NaN}', ["NaN is not a number"]),
    ('{"episode": ', ["not valid JSON"]),
    ("[" * 100_000, ["nested too deeply"]),
    (b"\xff\xfe{}", ["not UTF-8"]),
]  # fmt: skip


def write_checkpoint(folder: Path, content) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "checkpoint.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content),
                        encoding="utf-8")
    return path


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


def test_linear_q_refuses_bad_state_dicts_naming_the_field():
    good = LinearQ([1.0, 2.0], [1.0, 1.0], 0.1, ("a", "b")).state_dict()
    for change, words in (
        (_set("theta", [1.0, math.nan]), ["learner.theta[1]", "nan"]),
        (_set("scales", [1.0, -2.0]), ["learner.scales", "-2.0"]),
        (_set("step_size", "big"), ["learner.step_size", "'big'"]),
        (_set("names", ["a", 3]), ["learner.names", "3"]),
        (_set("theta", [1e308, 1.0]), []),  # fine on its own: the scales make it overflow
    ):
        data = copy.deepcopy(good)
        change(data)
        if not words:
            data["scales"] = [1e-310, 1.0]
            words = ["learner", "overflows"]
        with pytest.raises(ValueError) as caught:
            LinearQ.from_state_dict(data)
        assert_names(str(caught.value), *words)


# ----------------------------------------------------------------------- the script
@pytest.fixture
def script(tmp_path, monkeypatch, shipped_configs_unchanged, capsys):
    """``run(argv) -> (exit code, stderr)`` of scripts/tune_weights.py in-process, in an empty
    working folder; afterwards nothing but what the case made itself may be there."""
    from scripts.tune_weights import main

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)

    def run(argv):
        capsys.readouterr()
        with pytest.raises(SystemExit) as caught:
            main(argv)
        return caught.value.code, capsys.readouterr().err

    run.work = work
    return run


def _tbw_file(folder: Path, **changes) -> str:
    path = folder / "tbw_eval_bad.yaml"
    path.write_text(tbw_text(**changes), encoding="utf-8")
    return str(path)


def _junqi_file(folder: Path) -> str:
    path = folder / "junqi_eval_bad.yaml"
    path.write_text(junqi_text("  flag_alarm_steps: 4 ", "  flag_alarm_steps: 2.7 "))
    return str(path)


def _file(folder: Path) -> str:
    path = folder / "taken"
    path.write_text("keep me", encoding="utf-8")
    return str(path)


def _earlier_run(folder: Path) -> str:
    run = folder / "earlier"
    run.mkdir()
    (run / "checkpoint.json").write_text("{}", encoding="utf-8")
    (run / "junqi_eval_tuned.yaml").write_text("keep me", encoding="utf-8")
    return str(run)


def _checkpoint_dir(folder: Path, change=None) -> str:
    data = junqi_checkpoint()
    if change is not None:
        change(data)
    write_checkpoint(folder / "stopped", data)
    return str(folder / "stopped")


def _empty_dir(folder: Path) -> str:
    (folder / "empty").mkdir()
    return str(folder / "empty")


# (argv, with {name} filled from the helpers above, and the words stderr must hold)
CLI_CASES = [
    (["--episodes", "0"], ["--episodes", "at least 1", "got 0"]),
    (["--episodes", "-5"], ["--episodes", "got -5"]),
    (["--episodes", "2.5"], ["--episodes", "invalid int value", "'2.5'"]),
    (["--opponents", "foo"], ["--opponents", "'foo'", "unknown agent"]),
    (["--opponents", "greedy", "exact"], ["--opponents", "'exact'", "does not play junqi"]),
    (["--game", "tbw", "--opponents", "exact", "foo"], ["--opponents", "'foo'"]),
    (["--eval-opponent", "nosuch"], ["--eval-opponent", "'nosuch'"]),
    (["--config-name", "a/b"], ["--config-name", "simple name", "'a/b'"]),
    (["--config-name", "../x"], ["--config-name", "'../x'"]),
    (["--config-name", "x.yaml"], ["--config-name", "'x.yaml'"]),
    (["--config-name", "x" * 65], ["--config-name", "64 characters"]),
    (["--config-name", "tuned"], ["--config-name", "junqi_eval_tuned.yaml exists",
                                  "--overwrite"]),
    (["--game", "tbw", "--config-name", "tuned"], ["--config-name",
                                                   "tbw_eval_tuned.yaml exists"]),
    (["--config-name", "default", "--overwrite"], ["--config-name", "'default'",
                                                   "never replaced"]),
    (["--config-name", "x", "--no-config"], ["--no-config", "--config-name"]),
    (["--step-size", "nan"], ["--step-size", "float nan"]),
    (["--step-size", "0"], ["--step-size", "(0, 1]", "float 0.0"]),
    (["--step-size", "2"], ["--step-size", "float 2.0"]),
    (["--discount", "1.5"], ["--discount", "float 1.5"]),
    (["--epsilon", "0.1", "0.5"], ["--epsilon", "0.1 and 0.5"]),
    (["--epsilon", "nan", "0"], ["--epsilon", "float nan"]),
    (["--seed", "-1"], ["--seed", "int -1"]),
    (["--eval-games", "3"], ["--eval-games", "even", "3"]),
    (["--eval-every", "-1"], ["--eval-every", "int -1"]),
    (["--start-weights", "nosuch"], ["--start-weights", "'nosuch'"]),
    (["--start-weights", "{junqi_file}"], ["--start-weights", "{junqi_file}",
                                           "params.flag_alarm_steps", "float 2.7"]),
    (["--rules", "nosuch"], ["--rules", "'nosuch'"]),
    (["--game", "tbw", "--scenarios", "nosuch"], ["--scenarios", "'nosuch'"]),
    (["--game", "tbw", "--opening-plies", "5", "2"], ["--opening-plies", "(5, 2)"]),
    (["--game", "tbw", "--win-reward", "1e308"], ["--win-reward", "float 1e+308"]),
    (["--game", "tbw", "--perturbation", "inf"], ["--perturbation", "float inf"]),
    (["--game", "tbw", "--trace-decay", "nan"], ["--trace-decay", "float nan"]),
    (["--game", "tbw", "--budget", "-1"], ["--budget", "int -1"]),
    (["--game", "tbw", "--eval-opening-plies", "10001"], ["--eval-opening-plies",
                                                         "int 10001"]),
    (["--game", "tbw", "--algorithm", "minimax"], ["--algorithm", "'minimax'"]),
    (["--game", "tbw", "--exploration", "boltzmann"], ["--exploration", "'boltzmann'"]),
    (["--game", "tbw", "--start-weights", "{tbw_file}"],
     ["--start-weights", "{tbw_file}", "weight 'material'", "1e+308"]),
    (["--game", "tbw", "--rules", "jj"], ["--rules applies to --game junqi only"]),
    (["--out", "{file}"], ["--out", "{file}", "not a directory"]),
    (["--out", "{file}/run"], ["--out", "{file}", "not a directory"]),
    (["--out", "a" * 300 + "/run"], ["--out", "cannot be used", "File name too long"]),
    (["--out", "{earlier_run}"], ["--out", "{earlier_run}", "checkpoint.json",
                                  "junqi_eval_tuned.yaml", "--resume", "--overwrite"]),
    (["--resume", "{work}/nowhere"], ["--resume", "nowhere", "not a directory"]),
    (["--resume", "{empty_dir}"], ["--resume", "{empty_dir}", "no checkpoint.json"]),
    (["--resume", "{checkpoint_dir}", "--seed", "3"], ["--seed", "not allowed with --resume"]),
    (["--resume", "{checkpoint_dir}", "--out", "x"], ["--out", "not allowed with --resume"]),
    (["--resume", "{checkpoint_dir}", "--episodes", "1"],
     ["--episodes", "{checkpoint_dir}/checkpoint.json", "already played 2", "got 1"]),
    (["--resume", "{bad_episode_dir}"],
     ["--resume", "{bad_episode_dir}/checkpoint.json", "episode must be", "int -5"]),
    (["--resume", "{bad_learner_dir}"],
     ["--resume", "{bad_learner_dir}/checkpoint.json", "learner.step_size", "'x'"]),
    (["--game", "tbw", "--resume", "{checkpoint_dir}"],
     ["--resume", "{checkpoint_dir}/checkpoint.json", "not a TBW tuning checkpoint"]),
]  # fmt: skip


def _fill(text: str, places: dict) -> str:
    for key, value in places.items():
        text = text.replace("{" + key + "}", value)
    return text


@pytest.mark.parametrize("argv, words", CLI_CASES)
def test_bad_arguments_stop_the_script_before_anything_runs_or_is_written(script, argv,
                                                                         words):
    work = script.work
    helpers = {
        "file": lambda: _file(work), "earlier_run": lambda: _earlier_run(work),
        "junqi_file": lambda: _junqi_file(work), "tbw_file": lambda: _tbw_file(
            work, material="1.0e+308"),
        "empty_dir": lambda: _empty_dir(work), "checkpoint_dir": lambda: _checkpoint_dir(work),
        "bad_episode_dir": lambda: _checkpoint_dir(work, _set("episode", -5)),
        "bad_learner_dir": lambda: _checkpoint_dir(work, _set("learner", "step_size", "x")),
        "work": lambda: str(work),
    }  # fmt: skip
    places = {k: make() for k, make in helpers.items() if "{" + k + "}" in " ".join(argv)}
    before = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    code, err = script([_fill(a, places) for a in argv])
    assert code == 2, err
    assert_names(err, *(_fill(w, places) for w in words))
    after = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    assert after == before  # nothing written, nothing lost
    assert not (work / "runs").exists()


def test_the_script_writes_the_tuned_weights_to_the_run_folder_only(script, tmp_path,
                                                                    monkeypatch):
    from scripts.tune_weights import main

    out = script.work / "run"
    assert main(["--episodes", "1", "--eval-games", "0", "--seed", "1", "--out",
                 str(out)]) == 0
    tuned = load_eval_config(str(out / "junqi_eval_tuned.yaml"))
    assert tuned.name == "tuned"
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint.json", "history.json",
                                                     "junqi_eval_tuned.yaml"]
    # The same folder again: refused, the earlier run kept.
    before = {p: p.read_bytes() for p in out.iterdir()}
    code, err = script(["--episodes", "1", "--out", str(out)])
    assert code == 2 and "already holds a run's files" in err
    assert {p: p.read_bytes() for p in out.iterdir()} == before
    # --config-name installs a copy in configs/agents (here a stand-in folder), and refuses
    # to replace it without --overwrite.
    installed = tmp_path / "agents"
    installed.mkdir()
    monkeypatch.setattr("scripts.tune_weights.JunqiTuning.config_path",
                        lambda game, name: installed / f"{game.name}_eval_{name}.yaml")
    assert main(["--resume", str(out), "--config-name", "mine"]) == 0
    assert load_eval_config(str(installed / "junqi_eval_mine.yaml")).weights == tuned.weights
    code, err = script(["--resume", str(out), "--config-name", "mine"])
    assert code == 2 and "junqi_eval_mine.yaml exists" in err
    assert main(["--resume", str(out), "--config-name", "mine", "--overwrite"]) == 0


def test_every_option_of_the_script_is_checked_or_documented():
    """A new option must get a row in CLI_CASES (or be one that cannot be wrong)."""
    from scripts.tune_weights import build_parser

    covered = {word for argv, _ in CLI_CASES for word in argv if word.startswith("--")}
    free = {"--help", "--overwrite", "--no-config", "--game"}  # flags and argparse choices
    options = {o for action in build_parser()._actions for o in action.option_strings
               if o.startswith("--")}
    assert options - covered - free == set()


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
