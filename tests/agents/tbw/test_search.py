"""Single-turn search (``agents.tbw.search``): its public names, the turn model, Algorithm 2 ==
Algorithm 5 == the exact solver, the compiled kernel == the reference, and the decomposition ==
the evaluation."""

from __future__ import annotations

import pytest

import agents.tbw.search as search
from agents.common.budget import TIME_MARGIN, OutOfBudget
from agents.tbw.evaluation import DefaultEvaluation
from agents.tbw.search import plan_turn
from agents.tbw.search.agent import DEFAULT_AGENT_BUDGET
from agents.tbw.search.model import TurnModel
from agents.tbw.table2 import table2_state
from tbw_envs.tbw import TBWState, load_scenario, parse_scenario
from tests.helpers.tbw_search import close, first_moves, needs_numba, random_state, replay

# ------------------------------------------------------------------ cross-checks


def test_turn_model_first_moves_equal_the_cores_legal_actions():
    for seed in range(60):
        state = random_state(seed)
        model = TurnModel(state)
        ours = set()
        for i in range(model.n):
            for tile in model.region(i, 0):
                if model.occupancy[tile] in (-1, i):
                    ours.add(model.encode(i, tile, -1))
                    ours.update(model.encode(i, tile, e) for e in model.targets(i, tile))
        assert ours == set(state.legal_actions()[:-1]), seed


@pytest.mark.parametrize("topology", ["square4", "square8", "hex"])
def test_alg2_alg5_exact_agree_on_random_states(topology):
    for seed in range(40):
        state = random_state(seed, topology=topology)
        alg2 = plan_turn(state, "alg2", kernel="python")
        alg5 = plan_turn(state, "alg5", kernel="python")
        exact = plan_turn(state, "exact")
        assert close(alg2.value, alg5.value) and close(exact.value, alg5.value), seed
        if state.scenario.win == "none":  # no mid-turn wins: each plan is one leaf in both
            assert alg2.leaves == alg5.leaves
        assert alg2.ops1 >= alg5.ops1
        for result in (alg5, exact):
            final = replay(state, result.actions)
            assert close(DefaultEvaluation()(final, state.current_player), result.value), seed


def test_exact_with_kills_that_open_tiles():
    """Many enemies with low Hp next to our units: kills free tiles and paths mid-turn."""
    kills = 0
    for seed in range(60):
        state = random_state(1000 + seed, own=3, enemies=3, win="none")
        alg5 = plan_turn(state, "alg5", kernel="python")
        exact = plan_turn(state, "exact")
        assert close(exact.value, alg5.value), seed
        final = replay(state, exact.actions)
        kills += sum(1 for e in state.scenario.side_units[1] if final.hp[e] == 0)
    assert kills > 10  # the sample does exercise kills


def test_exact_without_decomposition_uses_transpositions():
    def squared_hp(state, side):  # not decomposable: no ``decompose`` method
        sc = state.scenario
        own = [state.pos[u] for u in sc.side_units[side] if state.hp[u] > 0]
        value = sum(
            state.hp[u] ** 2 * (1 if sc.units[u].side == side else -1) for u in range(len(sc.units))
        )
        return value + 0.01 * (max(own) - min(own))

    for seed in range(25):
        state = random_state(seed)
        alg5 = plan_turn(state, "alg5", evaluate=squared_hp)
        exact = plan_turn(state, "exact", evaluate=squared_hp)
        assert close(exact.value, alg5.value), seed
        assert exact.leaves <= alg5.leaves


def test_decomposition_equals_evaluation():
    ev = DefaultEvaluation()
    for seed in range(40):
        state = random_state(seed)
        for side in (0, 1):
            assert close(ev.decompose(state, side).value(state), ev(state, side))


@needs_numba
def test_kernel_equals_reference_on_random_states():
    for seed in range(80):
        state = random_state(seed)
        for algorithm in ("alg2", "alg5"):
            ref = plan_turn(state, algorithm, kernel="python")
            fast = plan_turn(state, algorithm, kernel="numba")
            assert fast.kernel == "numba"
            assert (fast.ops1, fast.leaves) == (ref.ops1, ref.leaves), seed
            assert close(fast.value, ref.value) and fast.actions == ref.actions, seed
    big = table2_state(4, 3, "compact")
    ref = plan_turn(big, "alg5", budget=5000, kernel="python")
    fast = plan_turn(big, "alg5", budget=5000, kernel="numba")
    assert (fast.ops1, fast.value, fast.actions) == (ref.ops1, ref.value, ref.actions)


def test_fire_emblem_turn_is_solved_exactly_within_the_agents_default_budget():
    state = TBWState.initial(load_scenario("fire_emblem_5v5"))
    result = plan_turn(state, "exact", budget=DEFAULT_AGENT_BUDGET)
    assert result.complete and result.ops1 < DEFAULT_AGENT_BUDGET
    replay(state, result.actions)


def test_the_package_exports_every_public_name():
    for name in search.__all__:
        assert getattr(search, name) is not None, name
    assert search.TIME_MARGIN == TIME_MARGIN and search.OutOfBudget is OutOfBudget
    assert search.plan_turn.__module__ == "agents.tbw.search.agent"


# ------------------------------------------------------------------ decimal movement costs


def decimal_swamp_state():
    """Movement 0.3 over swamp tiles of cost 0.1: 0.1 + 0.1 + 0.1 > 0.3 in floating point, but
    the core (MOVE_EPSILON) lets the unit reach the third tile, and kill the enemy from it."""
    return TBWState.initial(parse_scenario({
        "name": "decimal_swamp",
        "board": {"topology": "square4", "terrain": ["SSSSS"], "legend": {"S": "swamp"}},
        "terrain": {"swamp": {"cost": 0.1}},
        "unit_types": {"wader": {"hp": 3, "atk": 1, "move": 0.3}},
        "units": [{"side": 0, "type": "wader", "pos": [0, 0]},
                  {"side": 1, "type": "wader", "pos": [0, 4], "hp": 1}],
    }))


@pytest.mark.audit
def test_model_regions_use_the_cores_decimal_cost_tolerance():
    state = decimal_swamp_state()
    model = TurnModel(state)
    assert set(model.region(0, 0)) == set(state.movement_range(0))
    assert first_moves(model) == set(state.legal_actions()[:-1])


@pytest.mark.audit
def test_search_finds_the_attack_at_the_edge_of_a_decimal_budget():
    state = decimal_swamp_state()
    attack = state.encode_action(0, (0, 3), 1)
    ev = DefaultEvaluation()
    expected = ev(replay(state, [attack]), 0)
    for algorithm in ("alg2", "alg5", "exact"):
        result = plan_turn(state, algorithm, kernel="python")
        assert result.actions == [attack], algorithm
        assert close(result.value, expected), algorithm


# ------------------------------------------------------------------ kernel == reference on ties


def tied_plans_state():
    """Two plans of equal value (kill one sword each way round): the compiled kernel summed the
    leaf value in another order than the reference, so the two rounded differently (42.4 vs
    42.400000000000006) and broke the tie differently."""
    state = TBWState.initial(parse_scenario({
        "name": "tied_plans",
        "board": {"topology": "square4", "terrain": [".WW.L.", "LH...S", "F.SS.F"],
                  "legend": {".": "plain", "F": "forest", "H": "hill", "L": "lake", "W": "wall",
                             "S": "swamp"}},
        "terrain": {"plain": {"cost": 1}, "forest": {"cost": {"foot": 2, "horse": 3}},
                    "hill": {"passable": False}, "lake": {"passable": False, "shoot_over": True},
                    "wall": {"cost": {"foot": 1, "horse": None}},
                    "swamp": {"cost": {"foot": 0.7, "horse": 0.1}}},
        "unit_types": {
            "sword": {"hp": 2, "atk": 5, "move": 1, "range": [1, 1]},
            "bow": {"hp": 2, "atk": 4, "move": 2, "range": [1, 2]},
            "rider": {"hp": 6, "atk": 3, "move": 1.5, "range": [1, 1], "move_class": "horse"},
        },
        "units": [{"side": 0, "type": "rider", "pos": [2, 1]},
                  {"side": 0, "type": "bow", "pos": [0, 5], "hp": 1},
                  {"side": 0, "type": "rider", "pos": [2, 4], "hp": 1},
                  {"side": 1, "type": "sword", "pos": [1, 3]},
                  {"side": 1, "type": "bow", "pos": [1, 5]},
                  {"side": 1, "type": "sword", "pos": [2, 3]}],
        "rules": {"turn_limit_result": "hp"},
    }))
    state.apply(state.encode_action(1, (0, 5), None))  # mid-turn: the bow has acted
    return state


@pytest.mark.audit
@needs_numba
def test_kernel_breaks_ties_exactly_as_the_reference():
    state = tied_plans_state()
    for algorithm in ("alg2", "alg5"):
        ref = plan_turn(state, algorithm, kernel="python")
        fast = plan_turn(state, algorithm, kernel="numba")
        assert fast.kernel == "numba"
        assert (fast.ops1, fast.leaves) == (ref.ops1, ref.leaves)
        assert fast.value == ref.value and fast.actions == ref.actions, algorithm
        assert close(ref.value, DefaultEvaluation()(replay(state, ref.actions), 0))


# ------------------------------------------------------------------ nothing to move


@pytest.mark.audit
def test_one_argument_evaluation_of_a_side_with_no_units():
    """A side with no units still has a turn (END_TURN). Its value was the root state scored
    with ``state.last_side`` None (the first turn) or the opponent: the wrong side."""
    state = TBWState.initial(parse_scenario({
        "name": "solo",
        "board": {"topology": "square4", "rows": 3, "cols": 3},
        "unit_types": {"a": {"hp": 3, "atk": 2, "move": 1}},
        "units": [{"side": 0, "type": "a", "pos": [0, 0]}],
        "first_side": 1,
    }))
    seen = []

    def one_arg(s):
        seen.append(s.last_side)
        return DefaultEvaluation()(s, s.last_side)

    for algorithm in ("alg5", "exact"):
        seen.clear()
        result = plan_turn(state, algorithm, evaluate=one_arg)
        assert result.actions == [] and seen == [1]
        assert result.value == DefaultEvaluation()(state, 1) == -6.0
