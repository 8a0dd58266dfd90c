"""The one YAML loader (``tbw_envs.core.yaml_loader``) and the two schemas that use it: each hostile
or broken file is refused with an error that names the file and the problem. The rule sets' own
limits and caches are in tests/tbw_envs/junqi/test_variant.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tbw_envs.core.configs_path import configs_dir
from tbw_envs.core.yaml_loader import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    ConfigError,
    is_file,
    load_yaml,
    parse_yaml,
)
from tbw_envs.junqi import load_layout, load_rules
from tbw_envs.junqi.variant import RulesError
from tbw_envs.tbw import ScenarioError, load_scenario
from tests.helpers.fuzz import FUZZ

# The classic "billion laughs": nine levels of ten aliases each, 10**9 strings once expanded.
BILLION_LAUGHS = "lol0: &lol0 lol\n" + "".join(
    f"lol{i}: &lol{i} [{', '.join([f'*lol{i - 1}'] * 10)}]\n" for i in range(1, 10)
)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------------ the loader itself


@pytest.fixture(params=["libyaml", "pure"])
def parser(request, monkeypatch):
    """Run a test on both parsers the loader may use (libyaml's when PyYAML has it)."""
    from tbw_envs.core import yaml_loader

    if request.param == "pure":
        monkeypatch.setattr(yaml_loader, "_StrictLoader", yaml_loader._PureStrictLoader)
    elif not hasattr(yaml_loader, "_FastStrictLoader"):
        pytest.skip("PyYAML without libyaml")
    return request.param


def test_every_bundled_yaml_file_passes_the_strict_loader():
    files = sorted(configs_dir().rglob("*.yaml"))
    assert len(files) >= 10  # scenarios, rule sets and the agents' weights
    for path in files:
        assert isinstance(load_yaml(path), dict), path


def test_aliases_are_refused_with_file_and_line(tmp_path, parser):
    # Refused at the first alias (line 2, *lol0), while composing: nothing was built from the
    # file yet, let alone expanded.
    path = write(tmp_path, "laughs.yaml", BILLION_LAUGHS)
    with pytest.raises(ConfigError, match=r"laughs\.yaml: line 2: YAML aliases \(\*lol0\)"):
        load_yaml(path)


def test_an_anchor_without_alias_is_harmless_and_loads():
    assert parse_yaml("a: &x 1\nb: 2\n") == {"a": 1, "b": 2}


@pytest.mark.parametrize("style", ["flow", "block"])
def test_deep_nesting_is_refused_instead_of_a_recursion_error(style, parser):
    depth = 500
    if style == "flow":
        text = "a: " + "[" * depth + "]" * depth + "\n"
    else:
        text = "".join("  " * i + f"k{i}:\n" for i in range(depth)) + "  " * depth + "x\n"
    with pytest.raises(ConfigError, match=rf"deep\.yaml: line \d+: nested deeper than {MAX_DEPTH}"):
        parse_yaml(text, "deep.yaml")


def test_nesting_up_to_the_limit_loads_and_one_more_level_does_not(parser):
    depth = MAX_DEPTH - 1  # the top-level mapping is one level
    data = parse_yaml("a: " + "[" * depth + "]" * depth + "\n")
    for _ in range(depth):
        data = data["a"] if isinstance(data, dict) else data[0]
    assert data == []
    with pytest.raises(ConfigError, match="nested deeper"):
        parse_yaml("a: " + "[" * (depth + 1) + "]" * (depth + 1) + "\n")


@pytest.mark.parametrize(
    "text, key, line, first",
    [
        ("a: 1\nb: 2\na: 3\n", "'a'", 3, 1),
        ("board:\n  rows: 4\n  cols: 4\n  rows: 5\n", "'rows'", 4, 2),
        # YAML reads 1 and true as keys that Python's dict would merge silently.
        ("1: x\ntrue: y\n", "True", 2, 1),
    ],
)
def test_duplicate_keys_are_refused_naming_the_key_and_lines(text, key, line, first, parser):
    with pytest.raises(ConfigError) as info:
        parse_yaml(text, "dup.yaml")
    message = str(info.value)
    assert message.startswith(f"dup.yaml: line {line}: duplicate key {key}")
    assert f"first given on line {first}" in message


def test_non_utf8_file_names_the_file_and_byte(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: caf\u00e9\n".encode("latin-1"))
    expected = r"latin1\.yaml: not UTF-8 text \(byte 0xe9 at offset 9\)"
    with pytest.raises(ConfigError, match=expected):
        load_yaml(path)


def test_utf8_text_loads_whatever_the_locale(tmp_path):
    path = tmp_path / "utf8.yaml"
    path.write_bytes("description: \u8ecd\u68cb caf\u00e9\n".encode())
    assert load_yaml(path) == {"description": "\u8ecd\u68cb caf\u00e9"}


def test_oversized_file_is_refused_without_reading_it_all(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_bytes(b"a: " + b"x" * (MAX_FILE_BYTES + 10) + b"\n")
    with pytest.raises(ConfigError, match=rf"big\.yaml: file is larger than the {MAX_FILE_BYTES}"):
        load_yaml(path)


@pytest.mark.parametrize(
    "text, problem",
    [
        ("a: 1" + "0" * 5000 + "\n", "bad YAML value: ValueError: Exceeds the limit"),
        ("a: !!timestamp 2020-13-45\n", "bad YAML value: ValueError: month must be in"),
        ("a: !!python/object/apply:os.system [echo]\n", "not valid YAML: could not determine"),
        ("a: \x07\n", "not valid YAML: unacceptable character"),
        ("a: [1, 2\n", "not valid YAML"),
        ("? [a]\n: 1\n", "not valid YAML: while constructing a mapping"),
    ],
)
def test_malformed_yaml_gives_one_error_type_naming_the_source(text, problem, parser):
    with pytest.raises(ConfigError) as info:
        parse_yaml(text, "odd.yaml")
    assert str(info.value).startswith("odd.yaml: ")
    assert problem in str(info.value)


def test_loader_errors_take_the_callers_error_type(tmp_path):
    path = write(tmp_path, "dup.yaml", "a: 1\na: 2\n")
    with pytest.raises(ScenarioError):
        load_yaml(path, error=ScenarioError)
    assert issubclass(ScenarioError, ConfigError) and issubclass(RulesError, ConfigError)
    assert issubclass(ConfigError, ValueError)


def test_is_file_answers_false_for_names_the_os_cannot_look_up(tmp_path):
    assert not is_file("x" * 5000)
    assert not is_file("nul\0byte.yaml")
    assert is_file(write(tmp_path, "ok.yaml", "a: 1\n"))


def test_unreadable_path_names_the_file(tmp_path):
    with pytest.raises(ConfigError, match=r"missing\.yaml: cannot read the file"):
        load_yaml(tmp_path / "missing.yaml")


# ------------------------------------------------------------------------ through the schemas


def test_scenario_and_rules_files_go_through_the_loader(tmp_path):
    scenario = write(tmp_path, "dup_scenario.yaml", "name: a\nname: b\n")
    with pytest.raises(ScenarioError, match=r"^dup_scenario\.yaml: line 2: duplicate key 'name'"):
        load_scenario(scenario)
    rules = write(tmp_path, "alias_rules.yaml", "a: &x draw\nno_collision_result: *x\n")
    with pytest.raises(RulesError, match=r"alias_rules\.yaml: line 2: YAML aliases"):
        load_rules(rules)
    layout = tmp_path / "layout.txt"
    layout.write_bytes(b"\xff\xfe")
    with pytest.raises(ValueError, match=r"layout\.txt: not UTF-8 text"):
        load_layout(layout)


def test_a_long_or_nul_name_is_an_unknown_config_not_an_os_error():
    with pytest.raises(ScenarioError, match="unknown scenario"):
        load_scenario("x" * 5000)
    with pytest.raises(RulesError, match="unknown Junqi rule set"):
        load_rules("x" * 5000)
    with pytest.raises(RulesError, match="does not exist"):
        load_rules("nul\0/ccgc.yaml")


YAML_ALPHABET = st.sampled_from(list("ab01 -:,[]{}&*!?|>'\"#.\n\t%@`~\\") + ["\u00e9", "\x07"])


@FUZZ
@given(st.text(YAML_ALPHABET, max_size=120) | st.binary(max_size=60).map(
    lambda b: b.decode("latin-1")))
def test_any_text_parses_or_raises_config_error(text):
    try:
        parse_yaml(text, "fuzz.yaml")
    except ConfigError as exc:
        assert str(exc).startswith("fuzz.yaml: ")
