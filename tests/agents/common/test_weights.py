"""The one loader of evaluation weights (``agents.common.weights``): both games' ``load_weights``
refuse the same bad input with the same message, an unknown name gets the known ones and a
"did you mean", a spec with a folder in it is a path, the bundled files load as their text says,
and a game the loader has never heard of uses it with its own prefix and folder."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
import yaml

from agents.common.weights import (
    MAX_WEIGHTS_NAME_CHARS,
    WeightsError,
    WeightsFiles,
    check_number,
    is_config_path,
)
from agents.junqi.evaluation import load_weights as load_junqi_weights
from agents.junqi.evaluation import weights_path as junqi_weights_path
from agents.tbw.evaluation import DefaultEvaluation, save_weights
from agents.tbw.evaluation import load_weights as load_tbw_weights
from agents.tbw.evaluation import weights_path as tbw_weights_path
from tbw_envs.core.configs_path import configs_dir
from tbw_envs.core.yaml_loader import MAX_FILE_BYTES, ConfigError
from tests.helpers.weight_files import JUNQI_DEFAULT, SHIPPED

GAMES = {"TBW": load_tbw_weights, "Junqi": load_junqi_weights}


def message(load, spec) -> str:
    with pytest.raises(WeightsError) as caught:
        load(spec)
    return str(caught.value)


def same_in_both_games(spec) -> str:
    """The message both games give for ``spec``, which must be the same but for the game."""
    tbw, junqi = (message(load, spec) for load in GAMES.values())
    assert tbw.replace("TBW", "<game>") == junqi.replace("Junqi", "<game>")
    return tbw


# ------------------------------------------------------------------------- names and paths
@pytest.mark.input_contract
@pytest.mark.parametrize("spec, words", [
    ("bogus", ["unknown TBW evaluation weights 'bogus'; available: ['default', 'tuned'], or a "
               "path to a .yaml file"]),
    ("tund", ["unknown TBW evaluation weights 'tund'; did you mean 'tuned'? available: "]),
    ("defualt", ["'defualt'; did you mean 'default'?"]),
    ("", ["TBW evaluation weights: an empty name ''", "available: ['default', 'tuned']"]),
    ("  ", ["an empty name '  '"]),
    ("no/such/file.yaml", ["TBW evaluation weights file 'no/such/file.yaml' does not exist"]),
    ("no/such/folder", ["TBW evaluation weights file 'no/such/folder' does not exist"]),
    ("missing.yml", ["file 'missing.yml' does not exist"]),
    ("x\0y", ["unknown TBW evaluation weights 'x\\x00y'"]),  # the OS cannot look it up
    ("x" * 5000, ["unknown TBW evaluation weights 'xxx"]),
    ("x" * 5000 + ".yaml", ["TBW evaluation weights file 'xxx", "does not exist"]),
])  # fmt: skip
def test_both_games_refuse_a_bad_name_or_path_alike(spec, words):
    text = same_in_both_games(spec)
    for word in words:
        assert word in text, f"{word!r} not in {text!r}"
    assert len(text) < 400


@pytest.mark.input_contract
def test_a_spec_of_the_wrong_type_names_what_each_game_takes():
    assert message(load_tbw_weights, 5) == (
        "TBW evaluation weights must be a name (default, tuned), a YAML path, a mapping or a "
        "DefaultEvaluation, got int 5")
    assert message(load_junqi_weights, [1]) == (
        "Junqi evaluation weights must be a name (default, tuned), a YAML path, a dict or an "
        "EvalConfig, got list [1]")


def test_a_spec_with_a_folder_in_it_is_a_path_with_or_without_a_suffix(tmp_path):
    evaluation = DefaultEvaluation(kill_bonus=2.5)
    path = tmp_path / "mine"
    save_weights(evaluation, path, "mine")
    assert load_tbw_weights(str(path)) == evaluation
    assert load_tbw_weights(path) == evaluation  # a Path too
    junqi = load_junqi_weights("default").with_weights({"progress": 4.0})
    junqi.save(tmp_path / "junqi_mine")
    assert load_junqi_weights(str(tmp_path / "junqi_mine")).weight_dict()["progress"] == 4.0
    assert is_config_path("a/b") and is_config_path("b.yaml") and is_config_path("b.yml")
    assert is_config_path(f"a{os.sep}b")
    assert not is_config_path("tuned") and not is_config_path("tuned.json")


# ------------------------------------------------------------------------- file contents
LONG_NAME = "n" * (MAX_WEIGHTS_NAME_CHARS + 1)


@pytest.mark.input_contract
@pytest.mark.parametrize("text, words", [
    ("- 1\n- 2\n", ["the top level must be a mapping, got list [1, 2]"]),
    ("7\n", ["the top level must be a mapping, got int 7"]),
    ("name: x\nname: y\n", ["line 2: duplicate key 'name'"]),
    ("a: &x 1\nb: *x\n", ["YAML aliases (*x) are not allowed"]),
    (f"name: {LONG_NAME}\n", [f"name: at most {MAX_WEIGHTS_NAME_CHARS} characters, got 101"]),
    ("name: [1]\n", ["name: expected a string, got list [1]"]),
    ("name: 'unclosed\n", ["not valid YAML"]),
])  # fmt: skip
def test_both_games_refuse_a_bad_file_alike(tmp_path, text, words, shipped_configs_unchanged):
    """The parts of a file every game's weights share: the YAML, the top level, the name."""
    texts = []
    for game, load in GAMES.items():
        path = tmp_path / f"{game}.yaml"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(WeightsError) as caught:
            load(str(path))
        texts.append(str(caught.value).replace(str(path.resolve()), "<file>"))
    assert texts[0] == texts[1]
    assert texts[0].startswith("<file>: "), texts[0]
    for word in words:
        assert word in texts[0], f"{word!r} not in {texts[0]!r}"


@pytest.mark.input_contract
def test_both_games_refuse_a_file_over_the_size_limit_and_one_not_in_utf8(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * MAX_FILE_BYTES + "\n", encoding="utf-8")
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("name: caf\xe9\n".encode("latin-1"))
    for path, words in ((big, [f"larger than the {MAX_FILE_BYTES}-byte limit"]),
                        (latin, ["not UTF-8 text (byte 0xe9"])):
        texts = {message(load, str(path)) for load in GAMES.values()}
        assert len(texts) == 1, texts
        [text] = texts
        assert text.startswith(str(path.resolve())), text
        assert all(word in text for word in words), text


def test_every_error_of_the_loader_is_a_config_error_and_a_value_error():
    assert issubclass(WeightsError, ConfigError) and issubclass(WeightsError, ValueError)


# ------------------------------------------------------------------------- the bundled files
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_a_bundled_file_loads_the_same_by_name_and_by_path_as_its_text_says(path):
    game, name = path.stem.split("_eval_")
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    if game == "tbw":
        assert tbw_weights_path(name) == path
        by_name, by_path = load_tbw_weights(name), load_tbw_weights(str(path))
        assert by_name == by_path
        assert by_name.weight_dict() == {k: float(v) for k, v in raw["weights"].items()}
        assert by_name.tile_bonus is None
    else:
        assert junqi_weights_path(name) == path
        by_name, by_path = load_junqi_weights(name), load_junqi_weights(str(path))
        assert by_name == by_path
        assert by_name.name == raw.get("name", name)
        assert by_name.to_dict()["piece_values"] == raw["piece_values"]
        assert by_name.weight_dict() == raw["weights"]
        assert by_name.to_dict()["params"] == raw["params"]
    assert sorted(p.name for p in SHIPPED) == sorted(
        p.name for p in (configs_dir() / "agents").glob("*_eval_*.yaml"))


def test_a_junqi_file_without_a_name_takes_its_own(tmp_path):
    path = tmp_path / "junqi_eval_mine.yaml"
    path.write_text(JUNQI_DEFAULT.replace("name: default\n", ""), encoding="utf-8")
    assert load_junqi_weights(str(path)).name == "mine"


# ------------------------------------------------------------------------- a game of its own
def test_a_game_it_has_never_heard_of_loads_its_weights_from_its_own_folder(tmp_path):
    def parse(data: dict, source: str) -> dict:
        if set(data) != {"name", "speed"}:
            raise WeightsError(f"{source}: expected name and speed, got {sorted(data)}")
        return {"name": data["name"],
                "speed": check_number(data["speed"], "speed", source, 0.0, 10.0)}

    files = WeightsFiles("Third evaluation weights", "third_eval_", parse, folder=tmp_path)
    (tmp_path / "third_eval_fast.yaml").write_text("name: fast\nspeed: 9\n", encoding="utf-8")
    (tmp_path / "third_eval_slow.yaml").write_text("name: slow\nspeed: 1\n", encoding="utf-8")
    (tmp_path / "tbw_eval_other.yaml").write_text("name: x\n", encoding="utf-8")  # not its own
    assert files.names() == ["fast", "slow"]
    assert files.path("fast") == tmp_path / "third_eval_fast.yaml"
    assert files.load("fast") == {"name": "fast", "speed": 9.0}
    assert files.load(str(tmp_path / "third_eval_slow.yaml")) == {"name": "slow", "speed": 1.0}
    assert message(files.load, "fats") == (
        "unknown Third evaluation weights 'fats'; did you mean 'fast'? available: ['fast', "
        "'slow'], or a path to a .yaml file")
    assert "unknown Third evaluation weights 'other'" in message(files.load, "other")
    # A re-tuned file is read again, not served from the cache.
    (tmp_path / "third_eval_fast.yaml").write_text("name: fast\nspeed: 8.5\n", encoding="utf-8")
    assert files.load("fast")["speed"] == 8.5
    (tmp_path / "third_eval_fast.yaml").write_text("name: fast\nspeed: 11\n", encoding="utf-8")
    assert message(files.load, "fast") == (
        f"{(tmp_path / 'third_eval_fast.yaml').resolve()}: speed must lie in [0, 10], got 11")


# ------------------------------------------------------------------------- one weight
@pytest.mark.input_contract
@pytest.mark.parametrize("value, words", [
    (True, ["w must be a number, got bool True"]),
    (np.bool_(False), ["w must be a number, got bool "]),
    ("1.0e6", ["w must be a number, got str '1.0e6'", "write the number as 1000000.0"]),
    (None, ["w must be a number, got NoneType None"]),
    (math.nan, ["w must be finite, got nan"]),
    (-math.inf, ["w must be finite, got -inf"]),
    (10**400, ["w must lie in [-1e+06, 1e+06], got <int of about"]),
    (1e300, ["w must lie in [-1e+06, 1e+06], got 1e+300"]),
    (np.float64(-2e6), ["w must lie in [-1e+06, 1e+06]"]),
])  # fmt: skip
def test_a_weight_must_be_a_finite_real_number_in_its_bounds(value, words):
    with pytest.raises(WeightsError) as caught:
        check_number(value, "w", "src", -1e6, 1e6)
    text = str(caught.value)
    assert text.startswith("src: ")
    for word in words:
        assert word in text, f"{word!r} not in {text!r}"


def test_a_weight_in_its_bounds_is_a_float():
    for value in (3, np.int64(-4), 0.5, np.float32(0.25), 1e6, -1e6):
        number = check_number(value, "w", "src", -1e6, 1e6)
        assert type(number) is float and number == float(value)
    with pytest.raises(ValueError, match="must lie in"):
        check_number(2, "w", "src", 0.0, 1.0, ValueError)
