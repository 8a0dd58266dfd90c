"""The single-turn search (``agents.tbw.search``) held equal to an independent brute force over
the game core on random states with every terrain rule: the exact solver and Algorithm 5 find
the optimum, Algorithms 2 and 5 and the kernel see the same leaves, the decomposition equals the
evaluation through whole turns, and every budget gives a legal, scored plan."""

from __future__ import annotations

import random

import pytest

from agents.tbw.evaluation import DefaultEvaluation
from agents.tbw.search import Budget, PlanEnumeration, plan_turn
from agents.tbw.search import kernel as _tbw_kernel
from agents.tbw.search.model import Evaluator, TurnModel
from tbw_envs.tbw import TBWState, parse_scenario
from tests.helpers.tbw_search import close, first_moves, replay

pytestmark = pytest.mark.audit

TERRAIN = {
    "plain": {"cost": 1},
    "forest": {"cost": {"foot": 2, "horse": 3}},
    "hill": {"passable": False},
    "lake": {"passable": False, "shoot_over": True},
    "wall": {"cost": {"foot": 1, "horse": None}},  # impassable to one class only
    "swamp": {"cost": {"foot": 0.7, "horse": 0.1}},  # decimal costs
}
LEGEND = {".": "plain", "F": "forest", "H": "hill", "L": "lake", "W": "wall", "S": "swamp"}


def audit_scenario(seed: int) -> dict:
    """Small boards of every topology and terrain kind, units with movement 0 or decimal
    movement, ranged units with range [2, 3], low-Hp units (kills free tiles mid-turn), every
    win rule (leader: sometimes two enemy leaders), turn limits of 1 (the turn ends the game)."""
    rng = random.Random(seed)
    topology = rng.choice(["square4", "square8", "hex"])
    rows, cols = rng.randint(3, 6), rng.randint(3, 6)
    terrain = ["".join(rng.choices(".FHLWS", weights=[10, 2, 1, 1, 1, 2])[0]
                       for _ in range(cols)) for _ in range(rows)]
    own, enemies = rng.randint(1, 3), rng.randint(1, 4)
    free = [(r, c) for r in range(rows) for c in range(cols) if terrain[r][c] in ".FS"]
    if len(free) < own + enemies:
        return audit_scenario(seed + 100_000)
    rng.shuffle(free)
    types = {
        "sword": {"hp": rng.randint(2, 8), "atk": rng.randint(1, 5),
                  "move": rng.choice([0, 1, 2]), "range": [1, 1]},
        "bow": {"hp": rng.randint(2, 6), "atk": rng.randint(1, 4), "move": rng.choice([0, 1, 2]),
                "range": [rng.choice([1, 2]), rng.choice([2, 3])]},
        "rider": {"hp": rng.randint(2, 8), "atk": rng.randint(2, 6),
                  "move": rng.choice([2, 3, 0.3, 1.5]), "range": [1, 1], "move_class": "horse"},
    }
    units = []
    for k in range(own + enemies):
        unit = {"side": int(k >= own), "type": rng.choice(list(types)), "pos": list(free[k])}
        if rng.random() < 0.4:
            unit["hp"] = rng.randint(1, 3)
        units.append(unit)
    win = rng.choice(["annihilation", "leader", "none"])
    if win == "leader":
        units[0]["leader"] = units[own]["leader"] = True
        if enemies > 1 and rng.random() < 0.3:
            units[own + 1]["leader"] = True
    return {
        "name": f"audit_{seed}",
        "board": {"topology": topology, "terrain": terrain, "legend": LEGEND},
        "terrain": TERRAIN, "unit_types": types, "units": units, "win": win,
        "first_side": rng.choice([0, 1]), "max_turns": rng.choice([1, 2, 5]),
        "rules": {"line_of_sight": rng.random() < 0.5,
                  "turn_limit_result": rng.choice(["draw", "hp"])},
    }


def audit_state(seed: int):
    """``audit_scenario``'s initial state, in 40% of cases advanced by 1-2 unit actions of the
    side to move (mid-turn: some units have acted)."""
    rng = random.Random(seed * 7919 + 1)
    state = TBWState.initial(parse_scenario(audit_scenario(seed)))
    if rng.random() < 0.4:
        side = state.current_player
        for _ in range(rng.randint(1, 2)):
            actions = state.legal_actions()[:-1]
            if not actions:
                break
            nxt = state.clone()
            nxt.apply(rng.choice(actions))
            if nxt.is_terminal() or nxt.current_player != side:
                break
            state = nxt
    return state


def brute_force(state, evaluate) -> float:
    """The best evaluation over every legal continuation of the turn, through the game core
    itself (its legal actions, END_TURN included), memoised on the state."""
    side = state.current_player
    memo: dict = {}

    def best(s) -> float:
        if s.is_terminal() or s.current_player != side:
            return evaluate(s, side)
        key = (tuple(s.pos), tuple(s.hp), tuple(s.acted))
        if key not in memo:
            values = []
            for action in s.legal_actions():
                nxt = s.clone()
                nxt.apply(action)
                values.append(best(nxt))
            memo[key] = max(values)
        return memo[key]

    return best(state)


def squared_hp(state, side):
    """Not decomposable (no ``decompose``): squares Hp, reads the winner and the spread."""
    sc = state.scenario
    value = sum(state.hp[u] ** 2 * (1 if sc.units[u].side == side else -1)
                for u in range(len(sc.units)))
    own = [state.pos[u] for u in sc.side_units[side] if state.hp[u] > 0]
    value += 0.01 * (max(own) - min(own) if own else 0)
    return value + 100 * ((state.winner == side) - (state.winner == 1 - side))


def squared_hp_one_argument(state):
    return squared_hp(state, state.last_side)


def evaluations(seed: int, state):
    """(name, evaluation passed to plan_turn, two-argument reference)."""
    rng = random.Random(seed)
    bonus = DefaultEvaluation(
        tile_bonus=tuple(rng.random() * 3 for _ in range(state.scenario.board.size))
    )
    return [
        ("default", None, DefaultEvaluation()),
        ("tile_bonus", bonus, bonus),
        ("not_decomposable", squared_hp, squared_hp),
        ("one_argument", squared_hp_one_argument, squared_hp),
    ]


def check_exact_against_brute_force(seed: int) -> None:
    state = audit_state(seed)
    for name, evaluate, reference in evaluations(seed, state):
        truth = brute_force(state, reference)
        alg5 = plan_turn(state, "alg5", evaluate=evaluate, kernel="python")
        exact = plan_turn(state, "exact", evaluate=evaluate)
        assert close(exact.value, truth), (seed, name, exact.value, truth)
        assert close(alg5.value, truth), (seed, name, alg5.value, truth)
        for result in (alg5, exact):
            end = replay(state, result.actions)
            assert close(reference(end, state.current_player), result.value), (seed, name)


def test_exact_and_alg5_equal_the_cores_brute_force():
    for seed in range(25):
        check_exact_against_brute_force(seed)


@pytest.mark.slow
def test_exact_and_alg5_equal_the_cores_brute_force_sweep():
    for seed in range(25, 525):
        check_exact_against_brute_force(seed)


class _RecordingEnumeration(PlanEnumeration):
    """Algorithms 2 and 5 that also record every leaf plan."""

    def _leaf(self) -> None:
        super()._leaf()
        self.seen.append(tuple(self.plan))


def leaf_plans(state, algorithm: str) -> _RecordingEnumeration:
    model = TurnModel(state)
    ev = DefaultEvaluation()
    search = _RecordingEnumeration(model, Evaluator(model, ev, ev.decompose(state, model.side)),
                                   Budget())
    search.seen = []
    if model.n:
        search.run_alg2() if algorithm == "alg2" else search.run_alg5()
    return search


def check_algorithms_2_and_5(seed: int) -> None:
    state = audit_state(seed)
    model = TurnModel(state)
    assert first_moves(model) == set(state.legal_actions()[:-1]), seed
    alg2, alg5 = leaf_plans(state, "alg2"), leaf_plans(state, "alg5")
    assert set(alg2.seen) == set(alg5.seen), seed  # the same plans (Theorem 1)
    assert len(set(alg5.seen)) == len(alg5.seen), seed  # each once
    if not any(model.is_win(mask) for mask in range(1, 1 << model.n_attackable)):
        # No plan ends early, so Algorithm 2 meets each plan once too.
        assert alg2.leaves == alg5.leaves, seed
    for algorithm in ("alg2", "alg5"):
        for budget in (None, 7, 50, 300):
            ref = plan_turn(state, algorithm, kernel="python", budget=budget)
            if budget is not None:
                assert ref.ops1 <= budget and (ref.complete or ref.ops1 == budget), seed
            if not _tbw_kernel.HAVE_NUMBA or not model.n:
                continue
            fast = plan_turn(state, algorithm, kernel="numba", budget=budget)
            assert (fast.ops1, fast.leaves, fast.complete) == (ref.ops1, ref.leaves,
                                                               ref.complete), seed
            assert fast.value == ref.value and fast.actions == ref.actions, (seed, budget)


def test_algorithms_2_5_and_the_kernel_on_random_states():
    for seed in range(150):
        check_algorithms_2_and_5(seed)


@pytest.mark.slow
def test_algorithms_2_5_and_the_kernel_sweep():
    for seed in range(150, 5150):
        check_algorithms_2_and_5(seed)


def default_evaluation_by_hand(state, side, w: DefaultEvaluation) -> float:
    """``DefaultEvaluation`` written out from its docstring, independently of the tables."""
    sc = state.scenario
    dist = sc.board.distance_table
    total = 0.0
    lost = [False, False]
    for s in (0, 1):
        sign = 1 if s == side else -1
        for u in sc.side_units[s]:
            atk = sc.units[u].type.atk
            total += sign * (state.hp[u] * atk if state.hp[u] > 0 else -w.kill_bonus * atk)
        ids = sc.side_units[s]
        if sc.win != "none" and ids:
            lost[s] = all(state.hp[u] <= 0 for u in ids) or (
                sc.win == "leader" and any(sc.units[u].leader and state.hp[u] <= 0 for u in ids))
    if lost[0] != lost[1]:
        total += w.win_value if lost[1 - side] else -w.win_value
    enemies = [u for u in sc.side_units[1 - side] if state.hp[u] > 0]
    for u in sc.side_units[side]:
        if state.hp[u] <= 0:
            continue
        p = state.pos[u]
        if enemies:
            threat = sum(sc.units[e].type.atk for e in enemies
                         if dist[p][state.pos[e]]
                         <= sc.units[e].type.move + sc.units[e].type.range_max)
            total -= (w.exposure_weight + (w.leader_weight if sc.units[u].leader else 0)) * threat
            total -= w.position_weight * min(dist[p][state.pos[e]] for e in enemies)
        if w.tile_bonus is not None:
            total += w.tile_bonus[p]
    return total


def check_decomposition(seed: int) -> int:
    """Random walks through the turn of the side to move: the decomposition built at the root
    equals the evaluation (and the hand-written one) on every state reached, including states
    where the game ended mid-turn. Returns how many walks ended the game."""
    root = audit_state(seed)
    rng = random.Random(seed)
    bonus = tuple(rng.random() for _ in range(root.scenario.board.size))
    side = root.current_player
    ended = 0
    for w in (DefaultEvaluation(), DefaultEvaluation(tile_bonus=bonus, position_weight=0.3)):
        at_root = w.decompose(root, side)
        for _ in range(3):
            s = root.clone()
            while True:
                assert close(at_root.value(s), w(s, side)), seed
                for who in (0, 1):
                    assert close(w(s, who), default_evaluation_by_hand(s, who, w)), seed
                if s.is_terminal() or s.current_player != side:
                    ended += s.is_terminal()
                    break
                actions = s.legal_actions()
                s.apply(rng.choice(actions[:-1] if len(actions) > 1 else actions))
    return ended


def test_decomposition_equals_the_evaluation_through_whole_turns():
    assert sum(check_decomposition(seed) for seed in range(100)) > 10


@pytest.mark.slow
def test_decomposition_sweep():
    assert sum(check_decomposition(seed) for seed in range(100, 2100)) > 200


def check_budgets(seed: int) -> None:
    state = audit_state(seed)
    side = state.current_player
    for name, evaluate, reference in evaluations(seed, state):
        for algorithm in ("alg2", "alg5", "exact"):
            for budget in (1, 20, 1e-6):
                result = plan_turn(state, algorithm, evaluate=evaluate, budget=budget)
                if isinstance(budget, int):
                    assert result.ops1 <= budget, (seed, name, algorithm)
                end = replay(state, result.actions)
                assert end.is_terminal() or end.current_player != side or not result.actions
                assert close(reference(end, side), result.value), (seed, name, algorithm)


def test_budgets_give_legal_scored_plans_on_random_states():
    for seed in range(15):
        check_budgets(seed)


@pytest.mark.slow
def test_budgets_sweep():
    for seed in range(15, 615):
        check_budgets(seed)
