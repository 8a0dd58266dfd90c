"""Junqi rule sets (``tbw_envs.junqi.variant``): loaded by name, path or dict, every option
documented in ccgc.yaml, each bad value named with its source and field, limits and types,
edited files read again and the move-table cache bounded."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tbw_envs.core.configs_path import configs_dir
from tbw_envs.junqi import (
    JunqiRules,
    JunqiState,
    available_rule_sets,
    load_rules,
)
from tbw_envs.junqi.variant import RulesError
from tests.helpers.fuzz import FUZZ, values


def test_rule_sets_load_by_name_path_and_dict():
    assert {"ccgc", "jj", "qq"} <= set(available_rule_sets())
    ccgc = load_rules("ccgc")
    assert ccgc == JunqiRules(name="ccgc", description=ccgc.description)
    assert load_rules(configs_dir() / "junqi" / "jj.yaml") == load_rules("jj")
    assert load_rules(str(configs_dir() / "junqi" / "qq.yaml")).total_ply_limit == 400
    custom = load_rules({"ply_cap": 50})
    assert custom.ply_cap == 50 and custom.no_collision_limit == 31 and custom.name == "custom"
    assert load_rules(ccgc) is ccgc and load_rules(None) == ccgc
    for name in available_rule_sets():
        assert load_rules(name).name == name


def test_every_option_of_the_dataclass_is_documented_in_ccgc_yaml():
    import yaml

    data = yaml.safe_load((configs_dir() / "junqi" / "ccgc.yaml").read_text())
    fields = set(JunqiRules.__dataclass_fields__)
    assert set(data) == fields
    assert JunqiRules(**data) == load_rules("ccgc")


@pytest.mark.parametrize(
    "data, message",
    [
        ({"ply_limit": 3}, "unknown field 'ply_limit'"),
        ({"ply_cap": 0}, "field 'ply_cap': must be a positive integer"),
        ({"ply_cap": "many"}, "field 'ply_cap'"),
        ({"no_collision_limit": -5}, "positive integer or null"),
        ({"mine_vs_attacker": "explodes"}, "must be one of mine_stays, both_removed"),
        ({"headquarters_lock": "yes"}, "must be true or false"),
        ({"no_collision_result": "lose"}, "side_to_move_loses, draw"),
    ],
)
def test_rule_validation_names_source_field_and_problem(data, message):
    with pytest.raises(ValueError, match=message):
        load_rules(data)


def test_rule_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ply_cap: 0\n")
    with pytest.raises(ValueError, match=r"bad\.yaml: field 'ply_cap'"):
        load_rules(bad)
    listing = tmp_path / "list.yaml"
    listing.write_text("- 1\n- 2\n")
    with pytest.raises(ValueError, match=r"list\.yaml: top level must be a mapping"):
        load_rules(listing)
    with pytest.raises(ValueError, match="does not exist"):
        load_rules(tmp_path / "missing.yaml")
    with pytest.raises(ValueError, match="rules must be"):
        load_rules(3.5)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_an_edited_rules_file_is_read_again(tmp_path):
    path = write(tmp_path, "house.yaml", "ply_cap: 100\n")
    assert load_rules(path).ply_cap == 100
    assert load_rules(str(path)) is load_rules(path)  # cached while the file is unchanged
    path.write_text("ply_cap: 250\n", encoding="utf-8")  # the same size
    # Filesystems with coarse timestamps may not move mtime within a test; make sure it moves.
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert load_rules(path).ply_cap == 250
    path.unlink()
    write(tmp_path, "house.yaml", "ply_cap: 300\n")  # replaced: a new inode
    assert load_rules(str(path)).ply_cap == 300


def test_rule_set_table_cache_is_bounded():
    from tbw_envs.junqi.state import move_tables

    limit = move_tables.cache_info().maxsize
    assert limit is not None
    for i in range(limit + 20):
        JunqiState(JunqiRules(name=f"variant {i}", description=f"built on the fly {i}"))
    assert move_tables.cache_info().currsize <= limit


@pytest.mark.parametrize(
    "text, message",
    [
        ("description: " + "x" * 5000 + "\n", "field 'description': at most 4000 characters"),
        ("name: " + "n" * 200 + "\n", "field 'name': at most 100 characters"),
        ("ply_cap: 10000000\n", "field 'ply_cap': must be a positive integer (at most 1000000)"),
        ("mine_vs_attacker: [mine_stays]\n", "field 'mine_vs_attacker': must be one of"),
        ("ply_cap: true\n", "field 'ply_cap': must be a positive integer"),
        ("7: draw\n", "unknown field 7"),
    ],
)
def test_rules_limits_and_types(tmp_path, text, message):
    with pytest.raises(RulesError) as info:
        load_rules(write(tmp_path, "limits.yaml", text))
    assert "limits.yaml" in str(info.value) and message in str(info.value)


def test_rules_accept_numpy_integers_as_plain_ints():
    import numpy as np

    rules = load_rules({"ply_cap": np.int64(80)})
    assert rules.ply_cap == 80 and type(rules.ply_cap) is int
    assert JunqiRules(ply_cap=np.int32(90)).ply_cap == 90


RULE_FIELDS = list(JunqiRules.__dataclass_fields__)


@FUZZ
@given(st.dictionaries(st.sampled_from(RULE_FIELDS) | st.text(max_size=5), values, max_size=4))
def test_rule_dicts_load_or_raise_rules_error(data):
    try:
        rules = load_rules(data)
    except RulesError:
        return
    state = JunqiState.random_initial(0, rules)
    rand = random.Random(0)
    for _ in range(20):
        if state.is_terminal():
            break
        state.apply(rand.choice(state.legal_actions()))


@pytest.mark.audit
def test_audit_rule_objects_are_validated_when_built_directly():
    with pytest.raises(ValueError, match="no_collision_limit"):
        JunqiRules(no_collision_limit=0)
    with pytest.raises(ValueError, match="mine_vs_attacker"):
        JunqiRules(mine_vs_attacker="explode")
