"""Bundled TBW scenarios load and play to the end; malformed scenarios are rejected with a
``ScenarioError`` whose message names the source, the field and the problem."""

from __future__ import annotations

import copy
import random
import re

import pytest
import yaml

from tbw_envs.tbw import END_TURN, ScenarioError, TBWState, available_scenarios, load_scenario
from tests.helpers import REPO_ROOT

BUNDLED = ["battle_10v10_16x16", "duel_5v5_8x8", "fire_emblem_5v5", "hex_skirmish",
           "open_solo_4", "paper_figure3"]


# =============================================================================== bundled


def test_bundled_scenarios_are_listed():
    names = available_scenarios()
    assert names == sorted(names)
    assert set(BUNDLED) <= set(names)


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_scenario_loads(name):
    sc = load_scenario(name)
    assert sc.name == name
    state = TBWState.initial(sc)
    assert not state.is_terminal()
    assert state.current_player == sc.first_side
    assert state.turn == 1
    assert all(u.alive and not u.acted and u.hp == u.max_hp for u in state.units)
    legal = state.legal_actions()
    assert legal[-1] == state.encode_action(END_TURN)
    assert len(legal) > 1


def play_random_game(state, rnd, end_turn_p):
    """Random legal play until the game ends; checks basic invariants on the way."""
    end = state.encode_action(END_TURN)
    steps = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal and legal[-1] == end
        assert legal == sorted(legal)
        assert int(state.legal_action_mask().sum()) == len(legal)
        positions = [u.pos for u in state.units if u.alive]
        assert len(positions) == len(set(positions))
        action = end if rnd.random() < end_turn_p else rnd.choice(legal)
        state.apply(action)
        steps += 1
        assert steps < 20_000
    assert state.legal_actions() == []
    assert state.returns() in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
    if state.winner is None:
        assert state.returns() == [0.0, 0.0]
    return state


@pytest.mark.parametrize("name", BUNDLED)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bundled_scenario_random_games_end(name, seed):
    sc = load_scenario(name)
    rnd = random.Random(seed)
    state = play_random_game(TBWState.initial(sc), rnd, end_turn_p=0.02)
    assert state.turn <= sc.max_turns
    if state.winner is not None:
        loser = 1 - state.winner
        lost = [u for u in state.units if u.side == loser]
        if sc.win == "annihilation":
            assert not any(u.alive for u in lost)
        elif sc.win == "leader":
            assert any(u.leader and not u.alive for u in lost)
        else:
            pytest.fail("win: none must not produce a winner before the limit")


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_scenario_end_turn_only_reaches_the_turn_limit(name):
    sc = load_scenario(name)
    state = TBWState.initial(sc)
    end = state.encode_action(END_TURN)
    for _ in range(2 * sc.max_turns - 1):
        state.apply(end)
        assert not state.is_terminal()
    state.apply(end)
    assert state.is_terminal()
    assert state.returns() == [0.0, 0.0]


def test_duel_action_space():
    # 5 units a side on 8 x 8: 5 * 64 * 6 + 1
    state = TBWState.initial(load_scenario("duel_5v5_8x8"))
    assert state.num_actions == 1921
    assert state.legal_action_mask().shape == (1921,)


def test_fire_emblem_lord_range():
    # Move 5 on an open board is 61 tiles; four allies within 5 of the lord at (11, 8)
    # (at (11, 6), (11, 10), (12, 7), (12, 9)) cannot be ended on: 57.
    state = TBWState.initial(load_scenario("fire_emblem_5v5"))
    assert len(state.movement_range(0)) == 57


def test_open_solo_has_one_side():
    state = TBWState.initial(load_scenario("open_solo_4"))
    assert {u.side for u in state.units} == {0}
    # the 13-tile diamond of move 2 around (10, 10) holds the 3 allies (10, 11), (11, 10)
    # and (11, 11), which cannot be ended on: 10 tiles.
    assert len(state.movement_range(0)) == 10
    end = state.encode_action(END_TURN)
    state.apply(end)
    assert state.current_player == 1
    assert state.legal_actions() == [end]


def test_hex_skirmish_forest_costs_per_class():
    sc = load_scenario("hex_skirmish")
    assert sc.board.topology == "hex"
    state = TBWState.initial(sc)
    # the rider (move_class cavalry) at (6, 7): forest (5, 7) costs it 3, a spearman 2
    rider = next(u for u in state.units if u.type == "rider" and u.side == 0)
    assert rider.pos == (6, 7)
    reach = {sc.board.rc(t): c for t, c in state.movement_range(rider.id).items()}
    assert reach[(5, 7)] == 3
    spearman = state.units[1]
    assert (spearman.type, spearman.pos) == ("spearman", (7, 6))
    reach = {sc.board.rc(t): c for t, c in state.movement_range(spearman.id).items()}
    assert reach[(7, 7)] == 2  # forest, foot


# =============================================================================== loading


def test_load_from_path_and_dict(tmp_path):
    data = yaml.safe_load((REPO_ROOT / "configs" / "tbw" / "duel_5v5_8x8.yaml").read_text())
    path = tmp_path / "copy_of_duel.yaml"
    path.write_text(yaml.safe_dump(data))
    from_path = load_scenario(path)
    from_str = load_scenario(str(path))
    del data["name"]
    from_dict = load_scenario(data)
    assert from_path.name == "duel_5v5_8x8"
    assert from_dict.name == "scenario"
    for sc in (from_path, from_str, from_dict):
        assert sc.board.rows == 8 and sc.board.cols == 8
        assert len(sc.units) == 10
    assert load_scenario(from_path) is from_path


def test_name_defaults_to_file_stem(tmp_path):
    path = tmp_path / "tiny_one.yaml"
    path.write_text(yaml.safe_dump(base()))
    assert load_scenario(path).name == "tiny_one"


# =============================================================================== malformed


def base():
    return {
        "board": {"topology": "square4", "terrain": ["...", ".H.", "..."],
                  "legend": {".": "plain", "H": "hill"}},
        "terrain": {"plain": {"cost": 1}, "hill": {"passable": False}},
        "unit_types": {"soldier": {"hp": 10, "atk": 4, "move": 2, "range": [1, 2]}},
        "units": [{"side": 0, "type": "soldier", "pos": [0, 0]},
                  {"side": 1, "type": "soldier", "pos": [2, 2]}],
        "win": "annihilation",
        "first_side": 0,
        "max_turns": 10,
    }


def test_base_is_valid():
    sc = load_scenario(base())
    assert sc.board.rows == 3 and sc.board.cols == 3
    assert len(sc.units) == 2


def drop(*keys):
    def edit(d):
        target = d
        for k in keys[:-1]:
            target = target[k]
        del target[keys[-1]]
    return edit


def put(value, *keys):
    def edit(d):
        target = d
        for k in keys[:-1]:
            target = target[k]
        target[keys[-1]] = value
    return edit


MALFORMED = {
    "missing board": (drop("board"), r"<dict>: board: missing"),
    "missing units": (drop("units"), r"<dict>: units: missing"),
    "missing unit_types": (drop("unit_types"), r"<dict>: unit_types: missing"),
    "unknown topology": (put("octagon", "board", "topology"),
                         r"board\.topology: 'octagon' is not one of"),
    "ragged rows": (put(["...", "..", "..."], "board", "terrain"),
                    r"board\.terrain\[1\]: has 2 columns, row 0 has 3"),
    "char not in legend": (put(["...", ".X.", "..."], "board", "terrain"),
                           r"board\.terrain\[1\]\[1\]: character 'X' is not in board\.legend"),
    "legend names undefined terrain": (put("swamp", "board", "legend", "S"),
                                       r"board\.legend\.S: terrain 'swamp' is not defined"),
    "legend key not one character": (put("plain", "board", "legend", ".."),
                                     r"board\.legend\.\.\.: legend keys must be single"),
    "empty terrain rows": (put(["", ""], "board", "terrain"), r"board\.terrain: rows are empty"),
    "terrain not a list": (put("...", "board", "terrain"),
                           r"board\.terrain: expected a non-empty list of strings"),
    "unknown unit type": (put("wizard", "units", 1, "type"),
                          r"units\[1\]\.type: unknown unit type 'wizard'"),
    "unit off the board": (put([3, 0], "units", 0, "pos"),
                           r"units\[0\]\.pos: \(3, 0\) is outside the 3 x 3 board"),
    "unit at negative pos": (put([0, -1], "units", 0, "pos"),
                             r"units\[0\]\.pos: \(0, -1\) is outside"),
    "pos not a pair": (put([1], "units", 0, "pos"), r"units\[0\]\.pos: expected \[row, col\]"),
    "two units on a tile": (put([0, 0], "units", 1, "pos"),
                            r"units\[1\]\.pos: \(0, 0\) is already taken by units\[0\]"),
    "unit on impassable terrain": (put([1, 1], "units", 0, "pos"),
                                   r"units\[0\]\.pos: \(1, 1\) is 'hill'.*cannot stand on"),
    "bad unit side": (put(2, "units", 0, "side"), r"units\[0\]\.side: must be 0 or 1, got 2"),
    "range min > max": (put([3, 2], "unit_types", "soldier", "range"),
                        r"unit_types\.soldier\.range: min 3 is greater than max 2"),
    "range zero": (put([0, 1], "unit_types", "soldier", "range"),
                   r"unit_types\.soldier\.range\[0\]: must be >= 1, got 0"),
    "range scalar zero": (put(0, "unit_types", "soldier", "range"),
                          r"unit_types\.soldier\.range\[0\]: must be >= 1"),
    "range wrong shape": (put([1, 2, 3], "unit_types", "soldier", "range"),
                          r"unit_types\.soldier\.range: expected \[min, max\]"),
    "negative type hp": (put(-5, "unit_types", "soldier", "hp"),
                         r"unit_types\.soldier\.hp: must be >= 1, got -5"),
    "zero type hp": (put(0, "unit_types", "soldier", "hp"),
                     r"unit_types\.soldier\.hp: must be >= 1"),
    "negative unit hp": (put(-3, "units", 1, "hp"), r"units\[1\]\.hp: must be >= 1, got -3"),
    "negative atk": (put(-1, "unit_types", "soldier", "atk"),
                     r"unit_types\.soldier\.atk: must be >= 0"),
    "negative move": (put(-1, "unit_types", "soldier", "move"),
                      r"unit_types\.soldier\.move: must be >= 0"),
    "hp not a number": (put("ten", "unit_types", "soldier", "hp"),
                        r"unit_types\.soldier\.hp: expected a number, got 'ten'"),
    "hp not an integer": (put(2.5, "unit_types", "soldier", "hp"),
                          r"unit_types\.soldier\.hp: expected an integer"),
    "missing atk": (drop("unit_types", "soldier", "atk"), r"unit_types\.soldier\.atk: missing"),
    "zero terrain cost": (put({"cost": 0}, "terrain", "plain"),
                          r"terrain\.plain\.cost: must be positive"),
    "negative terrain cost": (put({"cost": -1}, "terrain", "plain"),
                              r"terrain\.plain\.cost: must be >= 0"),
    "bad win rule": (put("king", "win"), r"<dict>: win: 'king' is not one of"),
    "leader rule without a leader": (put("leader", "win"),
                                     r"units: win is 'leader' but side 0 has no leader"),
    "bad first_side": (put(2, "first_side"), r"first_side: must be 0 or 1, got 2"),
    "bool first_side": (put(True, "first_side"), r"first_side: must be 0 or 1, got True"),
    "zero max_turns": (put(0, "max_turns"), r"max_turns: must be >= 1, got 0"),
    "unknown top-level key": (put(5, "max_turn"),
                              r"<dict>: scenario: unknown key\(s\) \['max_turn'\]"),
    "unknown board key": (put("x", "board", "topolgy"),
                          r"board: unknown key\(s\) \['topolgy'\]"),
    "unknown unit type key": (put(3, "unit_types", "soldier", "atack"),
                              r"unit_types\.soldier: unknown key\(s\) \['atack'\]"),
    "unknown unit key": (put([0, 1], "units", 0, "postion"),
                         r"units\[0\]: unknown key\(s\) \['postion'\]"),
    "unknown terrain key": (put({"cost": 1, "pasable": True}, "terrain", "plain"),
                            r"terrain\.plain: unknown key\(s\) \['pasable'\]"),
    "unknown rules key": (put({"line_of_site": True}, "rules"),
                          r"rules: unknown key\(s\) \['line_of_site'\]"),
    "bad line_of_sight": (put({"line_of_sight": "yes"}, "rules"),
                          r"rules\.line_of_sight: expected true or false, got 'yes'"),
    "bad turn_limit_result": (put({"turn_limit_result": "coin"}, "rules"),
                              r"rules\.turn_limit_result: 'coin' is not one of"),
    "units not a list": (put({"a": 1}, "units"), r"units: expected a list, got dict"),
    "board not a mapping": (put(["..."], "board"), r"board: expected a mapping, got list"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_scenario(case):
    edit, match = MALFORMED[case]
    data = base()
    edit(data)
    with pytest.raises(ScenarioError, match=match):
        load_scenario(data)


def test_leader_rule_needs_a_leader_on_each_side():
    data = base()
    data["win"] = "leader"
    data["units"][0]["leader"] = True
    with pytest.raises(ScenarioError, match=r"side 1 has no leader"):
        load_scenario(data)
    data["units"][1]["leader"] = True
    assert load_scenario(data).win == "leader"


def test_cavalry_cannot_start_on_terrain_closed_to_its_class():
    data = base()
    data["terrain"]["bog"] = {"cost": {"foot": 1, "cavalry": None}}
    data["board"]["legend"]["B"] = "bog"
    data["board"]["terrain"] = ["B..", ".H.", "..."]
    load_scenario(copy.deepcopy(data))  # a foot soldier may stand on the bog
    data["unit_types"]["soldier"]["move_class"] = "cavalry"
    with pytest.raises(ScenarioError, match=r"units\[0\]\.pos: \(0, 0\) is 'bog'"):
        load_scenario(data)


def test_scenario_error_is_a_value_error():
    assert issubclass(ScenarioError, ValueError)
    with pytest.raises(ValueError):
        load_scenario({"board": {}})


def test_empty_dict():
    with pytest.raises(ScenarioError, match=r"^<dict>: board: missing"):
        load_scenario({})


@pytest.mark.parametrize("spec, type_name", [(42, "int"), (3.5, "float"), (None, "NoneType"),
                                             (["duel_5v5_8x8"], "list")])
def test_wrong_type(spec, type_name):
    with pytest.raises(ScenarioError, match=rf"must be a name, a path or a dict, got {type_name}"):
        load_scenario(spec)


def test_unknown_scenario_name_lists_bundled():
    with pytest.raises(ScenarioError, match=r"unknown scenario 'no_such_battle'") as info:
        load_scenario("no_such_battle")
    for name in BUNDLED:
        assert name in str(info.value)


def test_invalid_yaml_file_names_the_file(tmp_path):
    path = tmp_path / "broken_map.yaml"
    path.write_text("board: [unclosed\n  units: {\n")
    with pytest.raises(ScenarioError, match=r"^broken_map\.yaml: not valid YAML"):
        load_scenario(path)


def test_yaml_file_that_is_not_a_mapping(tmp_path):
    path = tmp_path / "a_list.yaml"
    path.write_text("- 1\n- 2\n")
    with pytest.raises(ScenarioError, match=r"^a_list\.yaml: scenario: expected a mapping"):
        load_scenario(path)


@pytest.mark.parametrize("case", ["unknown topology", "two units on a tile", "bad win rule",
                                  "unknown top-level key", "ragged rows"])
def test_errors_from_a_file_name_the_file(tmp_path, case):
    edit, match = MALFORMED[case]
    data = base()
    edit(data)
    path = tmp_path / "my_scenario.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ScenarioError, match=r"^my_scenario\.yaml: ") as info:
        load_scenario(path)
    assert re.search(match.replace("<dict>", "my_scenario.yaml"), str(info.value))


def test_errors_from_a_dict_name_dict():
    data = base()
    data["board"]["topology"] = "cube"
    with pytest.raises(ScenarioError, match=r"^<dict>: board\.topology: "):
        load_scenario(data)


def test_per_class_cost_mapping_must_cover_every_move_class_in_play():
    spec = {
        "board": {"topology": "square4", "terrain": [".m"], "legend": {".": "plain", "m": "marsh"}},
        "terrain": {"plain": {"cost": 1}, "marsh": {"cost": {"foot": 2}}},
        "unit_types": {"rider": {"hp": 5, "atk": 1, "move": 3, "move_class": "cavalry"}},
        "units": [{"side": 0, "type": "rider", "pos": [0, 0]}],
    }
    with pytest.raises(ScenarioError, match=r"terrain\.marsh\.cost: no cost for move class "
                                            r"'cavalry'"):
        load_scenario(spec)
    spec["terrain"]["marsh"]["cost"]["cavalry"] = None  # explicit: impassable to cavalry
    state = TBWState.initial(load_scenario(spec))
    assert set(state.movement_range(0)) == {0}
