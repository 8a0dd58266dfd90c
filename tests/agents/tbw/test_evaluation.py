"""TBW evaluation weights (``agents.tbw.evaluation``): named features, weight files (bad ones are
refused, naming the file, the field and the value), one-argument evaluations, and the search with
non-default weights."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from agents.junqi.evaluation import load_weights as load_junqi_weights
from agents.tbw.evaluation import (
    MAX_WEIGHT,
    DefaultEvaluation,
    as_two_argument_evaluation,
    features,
    load_weights,
    save_weights,
    weights_path,
)
from agents.tbw.search import plan_turn
from tbw_envs.core.contract import short_repr
from tbw_envs.core.yaml_loader import ConfigError
from tbw_envs.tbw import TBWState, load_scenario
from tests.helpers.errors import assert_names
from tests.helpers.tbw_search import (
    close,
    needs_numba,
    random_state,
    random_walk_states,
    replay,
)
from tests.helpers.weight_files import TBW_OK, tbw_text


def random_weights(rng: random.Random) -> DefaultEvaluation:
    """Weights of either sign for every learned feature, a positive victory weight."""
    return DefaultEvaluation.from_weights({
        "material": rng.uniform(-2, 3), "kills": rng.uniform(-10, 10),
        "victory": rng.uniform(1, 1e6), "leader_threat": rng.uniform(-5, 5),
        "exposure": rng.uniform(-5, 5), "distance": rng.uniform(-2, 2),
    })  # fmt: skip


def linear_value(evaluation: DefaultEvaluation, state, side: int) -> float:
    return float(evaluation.weights @ features(state, side))


def assert_linear(evaluation: DefaultEvaluation, state, side: int) -> None:
    """``evaluation(state, side) == weights . features`` to 1e-9 of the terms' size (the two
    sum the same products in a different order)."""
    terms = evaluation.weights * features(state, side)
    got = evaluation(state, side)
    assert abs(got - terms.sum()) <= 1e-9 * max(1.0, np.abs(terms).sum()), (got, terms)


# ------------------------------------------------------------------ features and weights
def test_the_default_evaluation_is_its_weights_dot_its_features_on_random_states():
    seen_terminal = 0
    for seed in range(60):
        for state in random_walk_states(seed):
            seen_terminal += state.is_terminal()
            for side in (0, 1):
                # Bit for bit: every default term is an integer or 0.1 x an integer sum.
                assert close(DefaultEvaluation()(state, side),
                             linear_value(DefaultEvaluation(), state, side))
                assert_linear(DefaultEvaluation(), state, side)
    assert seen_terminal > 5  # the victory feature is exercised


def test_any_weights_evaluate_as_weights_dot_features():
    rng = random.Random(7)
    for seed in range(60):
        evaluation = random_weights(rng)
        for state in random_walk_states(seed, plies=8):
            for side in (0, 1):
                assert_linear(evaluation, state, side)


def test_features_by_hand_on_a_two_unit_board():
    state = random_state(0, own=1, enemies=1, win="annihilation")
    sc = state.scenario
    ours, theirs = sc.side_units[0][0], sc.side_units[1][0]
    us_t, them_t = sc.units[ours].type, sc.units[theirs].type
    d = sc.board.distance_table[state.pos[ours]][state.pos[theirs]]
    threat = them_t.atk if d <= them_t.move + them_t.range_max else 0
    expected = [us_t.hp * us_t.atk - them_t.hp * them_t.atk, 0, 0, 0, threat, d]
    assert features(state, 0).tolist() == expected


def test_weights_map_to_the_evaluation_fields_with_their_signs():
    evaluation = DefaultEvaluation()
    assert evaluation.weight_dict() == {
        "material": 1.0, "kills": 5.0, "victory": 1e6, "leader_threat": -2.0,
        "exposure": -2.0, "distance": -0.1,
    }  # fmt: skip
    assert DefaultEvaluation.from_weights(evaluation.weight_dict()) == evaluation
    assert DefaultEvaluation.from_weights(evaluation.weights) == evaluation


def test_the_default_file_holds_exactly_the_built_in_defaults():
    assert load_weights("default") == DefaultEvaluation()
    assert load_weights(None) == DefaultEvaluation()
    assert load_weights(str(weights_path("default"))) == DefaultEvaluation()


def test_saved_weights_read_back_exactly_and_a_rewritten_file_is_read_again(tmp_path):
    path = tmp_path / "tbw_eval_mine.yaml"
    evaluation = random_weights(random.Random(3))
    save_weights(evaluation, path, "mine", comment="a test")
    assert load_weights(str(path)) == evaluation
    assert path.read_text().startswith("# a test\n")
    other = evaluation.with_weights(evaluation.weight_dict() | {"kills": 1.25})
    save_weights(other, path, "mine")
    assert load_weights(str(path)).kill_bonus == 1.25


@pytest.mark.parametrize("text, match", [
    ("weights: {material: 1, kills: 5, victory: 1.0e6, leader_threat: -2, exposure: -2,"
     " distance: -0.1, morale: 1}", r"unknown feature\(s\) \['morale'\]"),
    ("weights: {material: 1, kills: 5, victory: 1.0e6, leader_threat: -2, exposure: -2}",
     r"missing weight\(s\) for \['distance'\]"),
    ("weights: {material: .nan, kills: 5, victory: 1.0e6, leader_threat: -2, exposure: -2,"
     " distance: -0.1}", "weight 'material' must be finite"),
    ("weights: {material: .inf, kills: 5, victory: 1.0e6, leader_threat: -2, exposure: -2,"
     " distance: -0.1}", "weight 'material' must be finite"),
    ("weights: {material: yes, kills: 5, victory: 1.0e6, leader_threat: -2, exposure: -2,"
     " distance: -0.1}", "weight 'material' must be a number"),
    ("weights: {material: 1, kills: 5, victory: 0, leader_threat: -2, exposure: -2,"
     " distance: -0.1}", "victory weight must be positive"),
    ("weights: [1, 5]", "'weights' must map each of"),
    ("name: x\nweight: {}", r"unknown field\(s\) \['weight'\]"),
    ("name: x\nname: y\nweights: {}", "duplicate key 'name'"),
])  # fmt: skip
def test_weight_files_with_problems_are_refused_naming_the_problem(tmp_path, text, match):
    path = tmp_path / "tbw_eval_bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=match):
        load_weights(str(path))


def test_unknown_weight_names_and_missing_files_are_refused():
    with pytest.raises(ValueError, match=r"unknown TBW evaluation weights 'bogus'; available: "):
        load_weights("bogus")
    with pytest.raises(ValueError, match="does not exist"):
        load_weights("no/such/file.yaml")
    with pytest.raises(ValueError, match="expected 6 weights"):
        DefaultEvaluation.from_weights([1.0, 2.0])


# ------------------------------------------------------------------ the search with other weights
def test_the_decomposition_equals_the_evaluation_through_whole_turns_for_any_weights():
    """The exact solver's premise, for non-default weights: the decomposition built at the
    root values every state of the turn as the evaluation does (and as weights . features)."""
    rng = random.Random(11)
    ended = 0
    for seed in range(80):
        root = random_state(seed)
        side = root.current_player
        evaluation = random_weights(rng)
        at_root = evaluation.decompose(root, side)
        for _ in range(2):
            state = root.clone()
            while True:
                assert close(at_root.value(state), evaluation(state, side)), seed
                assert_linear(evaluation, state, side)
                if state.is_terminal() or state.current_player != side:
                    ended += state.is_terminal()
                    break
                actions = state.legal_actions()
                state.apply(rng.choice(actions[:-1] if len(actions) > 1 else actions))
    assert ended > 5


def test_exact_with_non_default_weights_equals_algorithm_5s_optimum():
    rng = random.Random(5)
    differ = 0
    tuned = load_weights("tuned")  # the committed file, as exact:weights=tuned loads it
    assert tuned.win_value == DefaultEvaluation().win_value  # tuning never moves victory
    for seed in range(40):
        state = random_state(seed)
        evaluation = tuned if seed % 4 == 0 else random_weights(rng)
        alg5 = plan_turn(state, "alg5", evaluate=evaluation, kernel="python")
        exact = plan_turn(state, "exact", evaluate=evaluation)
        assert close(exact.value, alg5.value), seed
        for result in (alg5, exact):
            assert close(evaluation(replay(state, result.actions), state.current_player),
                         result.value), seed
        differ += exact.actions != plan_turn(state, "exact").actions
    assert differ > 5  # the weights do change the plans, so the check means something


@needs_numba
def test_the_compiled_kernel_equals_the_reference_with_non_default_weights():
    rng = random.Random(9)
    for seed in range(30):
        state = random_state(seed)
        if not state.ready_units():
            continue
        evaluation = random_weights(rng)
        for algorithm in ("alg2", "alg5"):
            ref = plan_turn(state, algorithm, evaluate=evaluation, kernel="python")
            fast = plan_turn(state, algorithm, evaluate=evaluation, kernel="numba")
            assert (fast.value, fast.actions, fast.ops1) == (ref.value, ref.actions, ref.ops1)


def test_weights_default_plays_exactly_as_the_plain_agent():
    from agents.registry import make_agent

    for seed in range(20):
        state = random_state(seed)
        if state.is_terminal():
            continue
        plain = make_agent("exact", game="tbw")
        named = make_agent("exact:weights=default", game="tbw")
        assert plain.act(state.view(state.current_player)) == named.act(
            state.view(state.current_player))


def test_search_agents_load_weights_by_name_or_path(tmp_path):
    from agents.registry import agent_entry, make_agent

    evaluation = random_weights(random.Random(1))
    path = tmp_path / "mine.yaml"
    save_weights(evaluation, path, "mine")
    for name in ("exact", "alg5", "alg2", "search"):
        agent = make_agent(f"{name}:weights={path}", game="tbw")
        assert agent.evaluate == evaluation
    assert make_agent("exact:weights=default", game="tbw").evaluate == DefaultEvaluation()
    with pytest.raises(ValueError, match="unknown TBW evaluation weights 'strongest'"):
        make_agent("exact:weights=strongest", game="tbw")
    with pytest.raises(ValueError, match="weights= or evaluate=, not both"):
        agent_entry("exact").build(weights="default", evaluate=DefaultEvaluation())


def test_a_one_argument_evaluation_scores_for_the_side_that_moved():
    state = TBWState.initial(load_scenario("duel_5v5_8x8"))
    two = DefaultEvaluation()
    assert as_two_argument_evaluation(two) is two

    def one(s):
        return 7.0

    assert as_two_argument_evaluation(one)(state, 1) == 7.0
    assert as_two_argument_evaluation(max) is max  # no signature: taken as (state, side)
    with pytest.raises(TypeError, match="evaluate must be callable"):
        as_two_argument_evaluation(3)


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


@pytest.mark.input_contract
@pytest.mark.parametrize("text, words", TBW_BAD_FILES)
def test_bad_tbw_weight_files_are_refused_naming_file_field_and_value(
        tmp_path, text, words, shipped_configs_unchanged):
    path = tmp_path / "tbw_eval_bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_weights(str(path))
    assert_names(str(caught.value), str(path.resolve()), *words)
    assert path.read_text(encoding="utf-8") == text


@pytest.mark.input_contract
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


@pytest.mark.input_contract
def test_tbw_weight_specs_of_the_wrong_type_or_name_are_refused():
    with pytest.raises(ValueError, match=r"got int 5"):
        load_weights(5)
    with pytest.raises(ValueError, match=r"TBW evaluation weights file 'a/b' does not exist"):
        load_weights("a/b")  # a folder in it: a path, not a name
    for name in ("x\0y", "x" * 5000):  # names the OS cannot look up: an error, no OSError
        with pytest.raises(ValueError, match="unknown TBW evaluation weights"):
            load_weights(name)
        with pytest.raises(ValueError, match="unknown Junqi evaluation weights"):
            load_junqi_weights(name)
    with pytest.raises(ValueError, match="weight 'material' must lie in"):
        load_weights({**TBW_OK, "material": 1e308})


@pytest.mark.input_contract
def test_tbw_weights_at_the_bounds_evaluate_to_finite_values():
    """The reported bug: weights of 1e308 made the evaluation NaN. At the largest weights
    allowed, every term stays finite."""
    extreme = DefaultEvaluation.from_weights({f: MAX_WEIGHT for f in TBW_OK})
    negative = DefaultEvaluation.from_weights({**{f: -MAX_WEIGHT for f in TBW_OK},
                                               "victory": MAX_WEIGHT})
    for seed in range(6):
        state = random_state(seed)
        for evaluation in (extreme, negative):
            for side in (0, 1):
                assert math.isfinite(evaluation(state, side))


@pytest.mark.input_contract
def test_save_weights_refuses_weights_load_weights_would_refuse(tmp_path):
    from agents.tbw.evaluation import save_weights

    path = tmp_path / "tbw_eval_out.yaml"
    with pytest.raises(ValueError, match="weight 'material' must lie in"):
        save_weights(DefaultEvaluation(material_weight=1e308), path, "out")
    assert not path.exists()
