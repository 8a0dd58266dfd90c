"""The Junqi move evaluation (``agents.junqi.evaluation``): each feature worked out by hand from the
paper's equations, the paper's piece values and the named weights of the default config; weight
files are held to their ranges and a saved file is read again through the strict loader."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from agents.junqi import (
    FEATURE_NAMES,
    JunqiEvaluation,
    load_weights,
)
from agents.tbw.evaluation import load_weights as load_tbw_weights
from tbw_envs.core.yaml_loader import ConfigError
from tbw_envs.junqi import JunqiState, parse_post
from tbw_envs.junqi.pieces import (
    CAPTAIN,
    COLONEL,
    GENERAL,
    LIEUTENANT,
    MAJOR,
    MARSHAL,
    NUM_PIECE_TYPES,
    PIECE_NAMES,
)
from tests.helpers.errors import assert_names
from tests.helpers.weight_files import JUNQI_DEFAULT, SHIPPED, junqi_text

# Bian, Li and Wang 2024, Table 2 ("Comparison table of pieces name and piece value"), typed from
# the paper: Flag 5000, Chief 100, Army 87, Division 65, Brigade 40, Regiment 31, battalion 19,
# company 8, platoon 3, sapper 44, landmine 39, Bomb 77 (Chief = marshal, Army = general,
# Division = major general, Regiment = colonel, battalion = major, company = captain, platoon =
# lieutenant, sapper = engineer).
PAPER_VALUES = {
    "flag": 5000, "marshal": 100, "general": 87, "major_general": 65, "brigadier": 40,
    "colonel": 31, "major": 19, "captain": 8, "lieutenant": 3, "engineer": 44, "mine": 39,
    "bomb": 77,
}  # fmt: skip

# Algorithm 2 (Flag_Defend), line 5: the alarm is raised "if step<=4".
PAPER_FLAG_ALARM_STEPS = 4
F = {name: i for i, name in enumerate(FEATURE_NAMES)}


def _belief(view, types_by_post: dict[str, dict[int, float]]) -> np.ndarray:
    """A belief matrix: the given distributions, uniform elsewhere on opponent pieces."""
    matrix = np.zeros((60, NUM_PIECE_TYPES))
    for post in view.opponent_posts():
        matrix[post] = 1.0 / NUM_PIECE_TYPES
    for name, dist in types_by_post.items():
        row = np.zeros(NUM_PIECE_TYPES)
        for kind, p in dist.items():
            row[kind] = p
        matrix[parse_post(name)] = row
    return matrix


def _features(state, belief_rows, src, dst):
    view = state.view(state.current_player)
    belief = _belief(view, belief_rows)
    return JunqiEvaluation().features(view, belief, state.encode_action(src, dst))


# ---------------------------------------------------------------------------------- evaluation
def test_default_config_holds_the_papers_piece_values_and_named_weights():
    config = load_weights("default")
    assert dict(zip(PIECE_NAMES, config.piece_values, strict=True)) == PAPER_VALUES
    # Eq. 6: Attack_Score = sum of Exvalue (eq. 4) - sum of Exloss (eq. 5): weights +1 and -1.
    assert (config.weight_dict()["attack_gain"], config.weight_dict()["exposure"]) == (1.0, -1.0)
    assert config.flag_alarm_steps == PAPER_FLAG_ALARM_STEPS
    assert set(config.weight_dict()) == set(FEATURE_NAMES)
    tuned = config.with_weights({"progress": 0.0})
    assert tuned.weight_dict()["progress"] == 0.0 and config.weight_dict()["progress"] != 0.0
    with pytest.raises(ValueError, match="unknown feature"):
        config.with_weights({"bogus": 1.0})
    with pytest.raises(ValueError, match="unknown Junqi evaluation weights"):
        load_weights("no_such_weights")
    with pytest.raises(ValueError, match="piece_values"):
        load_weights({"weights": config.weight_dict(), "piece_values": {"flag": 1}})


def test_attack_gain_is_the_expected_combat_value_eq4():
    # Our major (19) attacks a piece that is a lieutenant (3) or a colonel (31), half and half:
    # 0.5 * 3 (we win) + 0.5 * -19 (we lose) = -8. Nobody can strike D0 afterwards.
    state = JunqiState.from_pieces(
        {"E0": (0, "major"), "D0": (1, "colonel"), "L1": (0, "flag"), "A1": (1, "flag")}
    )
    f = _features(state, {"D0": {LIEUTENANT: 0.5, COLONEL: 0.5}}, "E0", "D0")
    assert f[F["attack_gain"]] == pytest.approx(-8.0)
    assert f[F["exposure"]] == pytest.approx(0.0)
    # A trade: equal ranks remove both, worth v_t - v_a = 0.
    f = _features(state, {"D0": {MAJOR: 1.0}}, "E0", "D0")
    assert f[F["attack_gain"]] == pytest.approx(0.0)


def test_exposure_is_the_worst_strikers_expected_loss_times_survival_eq5():
    # Our captain (8) takes a lieutenant on C2 for sure; the enemy on B2 (road neighbour) is a
    # general or a lieutenant, half and half: expected loss 0.5 * 8 = 4.
    state = JunqiState.from_pieces(
        {"D2": (0, "captain"), "C2": (1, "lieutenant"), "B2": (1, "general"),
         "L1": (0, "flag"), "A1": (1, "flag")}
    )  # fmt: skip
    f = _features(state, {"C2": {LIEUTENANT: 1.0}, "B2": {GENERAL: 0.5, LIEUTENANT: 0.5}},
                  "D2", "C2")
    assert f[F["attack_gain"]] == pytest.approx(3.0)
    assert f[F["exposure"]] == pytest.approx(4.0)
    # If the captain wins only half the time, it stands on C2 only half the time.
    f = _features(state, {"C2": {LIEUTENANT: 0.5, MARSHAL: 0.5}, "B2": {GENERAL: 0.5,
                                                                       LIEUTENANT: 0.5}},
                  "D2", "C2")
    assert f[F["exposure"]] == pytest.approx(2.0)


def test_strikers_slide_along_the_railroad_and_never_hit_a_camp():
    # F0 is on the column-0 railroad; an enemy marshal on B0 slides down to it once E0 is empty.
    state = JunqiState.from_pieces(
        {"G0": (0, "colonel"), "B0": (1, "marshal"), "L1": (0, "flag"), "A1": (1, "flag")}
    )
    f = _features(state, {"B0": {MARSHAL: 1.0}}, "G0", "F0")
    assert f[F["exposure"]] == pytest.approx(31.0)
    # A camp is safe: a piece in a camp cannot be attacked.
    state = JunqiState.from_pieces(
        {"I1": (0, "colonel"), "G1": (1, "marshal"), "L1": (0, "flag"), "A1": (1, "flag")}
    )
    f = _features(state, {"G1": {MARSHAL: 1.0}}, "I1", "H1")
    assert f[F["exposure"]] == 0.0


def test_protection_rewards_a_valuable_piece_leaving_a_threatened_post():
    state = JunqiState.from_pieces(
        {"H0": (0, "general"), "G0": (1, "marshal"), "L1": (0, "flag"), "A1": (1, "flag")}
    )
    # General (87, above the 40 threshold) on H0 is struck by the marshal on G0; H1 is a camp.
    f = _features(state, {"G0": {MARSHAL: 1.0}}, "H0", "H1")
    assert f[F["protection"]] == pytest.approx(87.0)
    assert f[F["exposure"]] == 0.0


def test_flag_defence_calls_on_the_piece_most_likely_to_beat_the_intruder():
    # An enemy piece on K1 is one step from our flag on L1. Our general on K0 and lieutenant on
    # J2... the general beats a captain-or-colonel for sure, so attacking K1 scores the urgency.
    state = JunqiState.from_pieces(
        {"L1": (0, "flag"), "K1": (1, "captain"), "K0": (0, "general"), "J0": (0, "lieutenant"),
         "A1": (1, "flag"), "A0": (1, "mine")}
    )  # fmt: skip
    belief = {"K1": {CAPTAIN: 0.5, COLONEL: 0.5}}
    urgency = (4 + 1 - 1) / 4
    assert _features(state, belief, "K0", "K1")[F["flag_defence"]] == pytest.approx(urgency)
    assert _features(state, belief, "J0", "J1")[F["flag_defence"]] == 0.0
    # Far from our flag, no alarm.
    quiet = JunqiState.from_pieces(
        {"L1": (0, "flag"), "B2": (1, "captain"), "K0": (0, "general"), "A1": (1, "flag")}
    )
    assert _features(quiet, {}, "K0", "J0")[F["flag_defence"]] == 0.0


def test_progress_counts_steps_toward_the_enemy_headquarters_or_announced_flag():
    state = JunqiState.from_pieces(
        {"J2": (0, "captain"), "L1": (0, "flag"), "A3": (1, "flag"), "A1": (1, "mine")}
    )
    assert _features(state, {}, "J2", "I2")[F["progress"]] == 1.0
    assert _features(state, {}, "J2", "K2")[F["progress"]] == -1.0


def test_no_collision_feature_follows_the_burden_of_the_31_ply_rule():
    state = JunqiState.from_pieces(
        {"J2": (0, "captain"), "I3": (1, "lieutenant"), "L1": (0, "flag"), "A1": (1, "flag"),
         "A3": (1, "mine")}
    )  # fmt: skip
    evaluation = JunqiEvaluation()
    quiet_move, attack = state.encode_action("J2", "I2"), state.encode_action("J2", "I3")

    def feature(quiet_plies, action):
        state.quiet_plies = quiet_plies
        view = state.view(0)
        return evaluation.features(view, None, action)[F["no_collision"]]

    assert feature(30, quiet_move) == 1.0  # the 31st quiet ply: the opponent must move and loses
    # 29 quiet plies: after our quiet move the opponent plays the 31st, and we lose; urgency 1.
    assert feature(29, quiet_move) == pytest.approx(-1.0)
    assert feature(29, attack) == pytest.approx(1.0)
    # 28: the burden is the opponent's; colliding would hand it back.
    assert feature(28, quiet_move) == 0.0
    assert feature(28, attack) < 0.0
    assert feature(5, quiet_move) == 0.0 and feature(5, attack) == 0.0


def test_score_is_the_weighted_sum_and_state_context_hides_opponent_types():
    rand = random.Random(5)
    state = JunqiState.random_initial(rand)
    for _ in range(40):
        state.apply(rand.choice(state.legal_actions()))
    evaluation = JunqiEvaluation()
    view = state.view(state.current_player)
    matrix = evaluation.feature_matrix(view)
    for action, row in zip(view.legal_actions(), matrix, strict=True):
        assert evaluation.score(view, None, action) == pytest.approx(
            float(np.dot(row, evaluation.weights))
        )
    # In a search tree the mover judges with its own deductions, never the true types.
    shuffled = state.clone()
    opponent = 1 - state.current_player
    posts = [p for p in range(60) if shuffled.owner[p] == opponent]
    kinds = [shuffled.kind[p] for p in posts]
    rand.shuffle(kinds)
    for post, kind in zip(posts, kinds, strict=True):
        shuffled.kind[post] = kind
    a, b = evaluation.state_context(state), evaluation.state_context(shuffled)
    assert [a.features(x) for x in state.legal_actions()] == [
        b.features(x) for x in state.legal_actions()
    ]


def test_an_evaluation_file_saved_again_is_read_again(tmp_path):
    path = tmp_path / "junqi_eval_mine.yaml"
    base = load_weights("default")
    base.with_weights({"progress": 3.0}).save(path)
    assert load_weights(str(path)).weight_dict()["progress"] == 3.0
    base.with_weights({"progress": 7.5}).save(path)  # a re-tuned file, same path
    assert load_weights(str(path)).weight_dict()["progress"] == 7.5


def test_evaluation_files_go_through_the_strict_loader(tmp_path):
    path = tmp_path / "junqi_eval_bad.yaml"
    path.write_text("name: x\nname: y\n", encoding="utf-8")
    with pytest.raises(ValueError, match="duplicate key 'name'"):
        load_weights(str(path))


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


@pytest.mark.input_contract
@pytest.mark.parametrize("text, words", JUNQI_BAD_FILES)
def test_bad_junqi_weight_files_are_refused_naming_file_field_and_value(
        tmp_path, text, words, shipped_configs_unchanged):
    path = tmp_path / "junqi_eval_bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_weights(str(path))
    assert_names(str(caught.value), str(path.resolve()), *words)
    # Agents build their evaluation through the same loader: the reported NaN and inf
    # weights failed deep inside a move choice, they now fail here.
    with pytest.raises(ConfigError):
        JunqiEvaluation(str(path))
    assert path.read_text(encoding="utf-8") == text


@pytest.mark.input_contract
def test_junqi_dicts_and_with_weights_are_held_to_the_same_ranges():
    config = load_weights("default")
    data = config.to_dict()
    data["piece_values"]["flag"] = -5.0
    with pytest.raises(ConfigError, match=r"evaluation dict: piece_values.flag must lie in"):
        load_weights(data)
    for bad, words in (({"progress": math.nan}, ["weights.progress", "finite", "nan"]),
                       ({"progress": 1e308}, ["weights.progress", "must lie in", "1e+308"]),
                       ({"progress": True}, ["weights.progress", "number", "bool True"]),
                       ([1.0] * 5 + [math.inf], ["weights.no_collision", "finite", "inf"]),
                       ("abc", ["mapping", "str 'abc'"])):
        with pytest.raises(ValueError) as caught:
            config.with_weights(bad)
        assert_names(str(caught.value), *words)
    with pytest.raises(ValueError, match=r"got int 5"):
        load_weights(5)


@pytest.mark.input_contract
def test_a_junqi_config_that_breaks_the_ranges_is_never_saved(tmp_path):
    from dataclasses import replace

    path = tmp_path / "junqi_eval_out.yaml"
    bad = replace(load_weights("default"), flag_alarm_steps=2.7)
    with pytest.raises(ConfigError, match="params.flag_alarm_steps must be an integer"):
        bad.save(path)
    assert not path.exists()


@pytest.mark.input_contract
def test_the_shipped_weight_files_hold_to_the_ranges():
    for path in SHIPPED:
        if path.name.startswith("tbw_eval_"):
            load_tbw_weights(str(path))
        else:
            load_weights(str(path))
