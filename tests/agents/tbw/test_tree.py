"""Search across turns (agents.tbw.tree): the shaped evaluation keeps the exact solver exact,
children are the promised plans, alpha-beta equals plain minimax over the same children, the
budgets hold, and the agent plays by the protocol."""

from __future__ import annotations

import math

import pytest

from agents.registry import make_agent
from agents.tbw.evaluation import DefaultEvaluation, decomposition_of
from agents.tbw.search import TBWSearchAgent, plan_turn
from agents.tbw.tree import (
    DEFAULT_SOLVE_NODES,
    FORBIDDEN,
    WIN,
    ShapedEvaluation,
    TBWTreeAgent,
    TurnTreeSearch,
    parse_recipes,
    state_key,
)
from tbw_envs.tbw import TBWState, load_scenario, parse_scenario
from tests.helpers.stepping_clock import stepping_clock
from tests.helpers.tbw_search import close, random_state, replay

EVAL = DefaultEvaluation()


def _midgame(scenario: str, plies: int, seed: int = 0):
    """A position after ``plies`` plies of the single-turn agent against itself."""
    state = TBWState.initial(load_scenario(scenario))
    agent = TBWSearchAgent("exact")
    for _ in range(plies):
        if state.is_terminal():
            break
        state.apply(agent.act(state.view(state.current_player)))
    return state


def _states(count: int):
    out = []
    for seed in range(count):
        state = random_state(seed)
        if not state.is_terminal() and state.ready_units():
            out.append(state)
    return out


# ------------------------------------------------------------------ shaped evaluation


@pytest.mark.parametrize("seed", range(12))
def test_shaped_decomposition_equals_shaped_evaluation(seed):
    state = random_state(seed)
    side = state.current_player
    plain = EVAL(state, side)
    for shaped in (
        ShapedEvaluation(EVAL, forbidden={tuple(state.hp)}),
        ShapedEvaluation(EVAL, advance=2.5),
        ShapedEvaluation(EVAL, advance=-1.0),
        ShapedEvaluation(EVAL, noise=3.0, noise_seed=seed),
        ShapedEvaluation(EVAL, forbidden={tuple(state.hp)}, advance=1.0, noise=1.0),
    ):
        value = shaped(state, side)
        assert close(value, plain + shaped.shaping(state, side))
        assert math.isclose(shaped.decompose(state, side).value(state), value, rel_tol=1e-12,
                            abs_tol=1e-6)
    assert ShapedEvaluation(EVAL, forbidden={tuple(state.hp)})(state, side) == pytest.approx(
        plain - FORBIDDEN)


@pytest.mark.parametrize("seed", range(10))
def test_exact_solver_is_exact_for_shaped_evaluations(seed):
    """The shaping only touches base(hp) and the unit tables, so the exact solver's optimum
    equals Algorithm 5's enumeration under the same shaped evaluation."""
    state = random_state(seed)
    if state.is_terminal() or not state.ready_units():
        pytest.skip("nothing to plan")
    best = plan_turn(state, "exact")
    for shaped in (
        ShapedEvaluation(EVAL, forbidden={tuple(replay(state, best.actions).hp)}),
        ShapedEvaluation(EVAL, advance=3.0),
        ShapedEvaluation(EVAL, noise=2.0, noise_seed=seed),
    ):
        exact = plan_turn(state, "exact", evaluate=shaped)
        enumerated = plan_turn(state, "alg5", evaluate=shaped, kernel="python")
        assert exact.complete and enumerated.complete
        assert math.isclose(exact.value, enumerated.value, rel_tol=1e-12, abs_tol=1e-6)
        end = replay(state, exact.actions)
        assert math.isclose(shaped(end, state.current_player), exact.value, rel_tol=1e-12,
                            abs_tol=1e-6)


def test_shaping_needs_a_decomposable_evaluation_to_decompose():
    def plain(state, side):
        return 0.0

    shaped = ShapedEvaluation(plain, advance=1.0)
    assert not shaped.decomposable
    state = random_state(0)
    assert decomposition_of(shaped, state, state.current_player) is None
    with pytest.raises(TypeError, match="no decomposition"):
        shaped.decompose(state, state.current_player)


# ------------------------------------------------------------------ children


def test_first_child_is_the_single_turn_agents_plan():
    for state in _states(10) + [_midgame("duel_5v5_8x8", 30), _midgame("hex_skirmish", 25)]:
        search = TurnTreeSearch(state, seconds=None)
        first = search.plans(state, 1)[0]
        assert list(first.actions) == plan_turn(state, "exact").actions
        assert first.recipe == "best" and first.side == state.current_player
        assert state_key(first.end) == state_key(replay(state, first.actions))


@pytest.mark.parametrize("seed", range(10))
def test_other_children_are_the_best_plans_with_new_hp_outcomes(seed):
    state = random_state(seed)
    if state.is_terminal() or not state.ready_units():
        pytest.skip("nothing to plan")
    side = state.current_player
    search = TurnTreeSearch(state, seconds=None, recipes=["best", "other", "other", "other"])
    plans = search.plans(state, 4)
    outcomes = [tuple(p.end.hp) for p in plans]
    assert len(set(outcomes)) == len(outcomes)  # each child a new Hp outcome
    for k, plan in enumerate(plans):
        assert plan.value == pytest.approx(EVAL(plan.end, side), abs=1e-6)
        if k:
            # The best plan whose Hp outcome none of the earlier children took (enumerated).
            forbid = ShapedEvaluation(EVAL, forbidden=set(outcomes[:k]))
            enumerated = plan_turn(state, "alg5", evaluate=forbid, kernel="python")
            assert plan.value == pytest.approx(enumerated.value, abs=1e-6)
            assert plan.value <= plans[k - 1].value + 1e-9


def test_posture_children_advance_and_retreat():
    state = _midgame("fire_emblem_5v5", 0)  # armies 6 rows apart, nobody in reach yet
    side = state.current_player
    search = TurnTreeSearch(state, seconds=None,
                            recipes=["best", "advance:10", "retreat:10"])
    best, advance, retreat = search.plans(state, 3)
    assert (advance.recipe, retreat.recipe) == ("advance:10", "retreat:10")

    def spread(plan):
        sc = plan.end.scenario
        enemies = [plan.end.pos[e] for e in plan.end.living_units(1 - side)]
        return sum(min(sc.board.distance(plan.end.pos[u], p) for p in enemies)
                   for u in plan.end.living_units(side))

    assert spread(advance) < spread(best) < spread(retreat)
    for plan in (advance, retreat):  # values are the plain evaluation's, not the shaped one's
        assert plan.value == pytest.approx(EVAL(plan.end, side), abs=1e-6)
        assert plan.value <= best.value + 1e-9


def test_duplicate_end_states_are_dropped_and_recipes_can_run_out():
    # One unit a side out of reach of each other: a single Hp outcome, so 'other' finds none.
    state = TBWState.initial(parse_scenario({
        "name": "far", "board": {"topology": "square4", "rows": 1, "cols": 9},
        "terrain": {"plain": {"cost": 1}},
        "unit_types": {"s": {"hp": 5, "atk": 2, "move": 1, "range": [1, 1]}},
        "units": [{"side": 0, "type": "s", "pos": [0, 0]}, {"side": 1, "type": "s",
                                                             "pos": [0, 8]}],
        "max_turns": 5,
    }))
    search = TurnTreeSearch(state, seconds=None, recipes=["best", "other", "other",
                                                           "retreat:50"])
    plans = search.plans(state, 4)
    # best (step forward), no second Hp outcome; retreat:50 stays put (a new end state).
    assert [p.recipe for p in plans] == ["best", "retreat:50"]
    assert len({state_key(p.end) for p in plans}) == 2
    # The second 'other' was skipped without a solve: best, other (exhausted), retreat.
    assert search.solves == 3


# ------------------------------------------------------------------ the search


def _minimax(search, state, turns):
    """Plain minimax (no pruning) over the search's own children."""
    if state.is_terminal():
        return search._terminal(state)
    if turns <= 1:
        return search._plan_value(search.plans(state, 1)[0])
    mine = state.current_player == search.me
    plans = search.plans(state, search.inner_width if mine else search.replies)
    values = [_minimax(search, p.end, turns - 1) for p in plans]
    return max(values) if mine else min(values)


@pytest.mark.parametrize("depth", [2, 3, 4])
@pytest.mark.parametrize("where", ["random", "duel", "hex"])
def test_alpha_beta_equals_minimax_over_the_same_children(depth, where):
    if where == "random":
        states = _states(6)
    elif where == "duel":
        states = [_midgame("duel_5v5_8x8", 21)]
    else:
        states = [_midgame("hex_skirmish", 17)]
    for state in states:
        search = TurnTreeSearch(state, seconds=None, depth=depth, width=4, inner_width=2,
                                replies=2)
        result = search.run()
        assert result.depth == depth or result.root_children == 1
        if result.root_children == 1:
            continue
        roots = search.plans(state, 4)
        values = {p.actions: _minimax(search, p.end, depth - 1) for p in roots}
        assert result.value == pytest.approx(max(values.values()), abs=1e-9)
        assert values[tuple(result.actions)] == pytest.approx(result.value, abs=1e-9)


def test_depth_one_plays_the_single_turn_plan():
    for state in _states(8):
        result = TurnTreeSearch(state, seconds=None, depth=1).run()
        assert result.actions == plan_turn(state, "exact").actions
        assert result.depth == 1 and result.choice == "best"


def test_an_immediate_win_is_taken_and_scored_as_a_win():
    # Our swordsman next to the enemy leader (win: leader): killing it ends the game.
    state = TBWState.initial(parse_scenario({
        "name": "win", "board": {"topology": "square4", "rows": 3, "cols": 5},
        "terrain": {"plain": {"cost": 1}},
        "unit_types": {"s": {"hp": 5, "atk": 5, "move": 1, "range": [1, 1]}},
        "units": [{"side": 0, "type": "s", "pos": [1, 1], "leader": True},
                  {"side": 1, "type": "s", "pos": [1, 2], "leader": True},
                  {"side": 1, "type": "s", "pos": [0, 4]}],
        "win": "leader", "max_turns": 5,
    }))
    result = TurnTreeSearch(state, seconds=None, depth=3).run()
    end = replay(state, result.actions)
    assert end.is_terminal() and end.winner == 0
    assert result.value == WIN


def _realised(state, actions):
    """Play ``actions``, then the single-turn agent's reply, then our single-turn plan: our
    evaluation at the end (the game's result if it ended)."""
    me = state.current_player
    state = replay(state, actions)
    if not state.is_terminal():
        reply = TBWSearchAgent("exact")
        while not state.is_terminal() and state.current_player != me:
            state.apply(reply.act(state.view(state.current_player)))
    if state.is_terminal():
        return 0.0 if state.winner is None else (WIN if state.winner == me else -WIN)
    return plan_turn(state, "exact").value


@pytest.mark.parametrize("scenario, plies", [("duel_5v5_8x8", 14), ("hex_skirmish", 8)])
def test_depth_three_sees_the_reply_a_single_turn_agent_plays(scenario, plies):
    """With ``replies=1`` the opponent is modelled as the single-turn agent, so against that
    agent the search's value is what really happens, and its plan does at least as well as
    the single-turn plan three turns on; in some positions strictly better."""
    state = _midgame(scenario, plies)
    seen_better = 0
    for _ in range(6):  # six of our turns along a game of the single-turn agents
        if state.is_terminal():
            break
        deep = TurnTreeSearch(state, seconds=None, depth=3, replies=1).run()
        shallow = plan_turn(state, "exact").actions
        assert _realised(state, deep.actions) == pytest.approx(deep.value, abs=1e-6)
        assert _realised(state, deep.actions) >= _realised(state, shallow) - 1e-6
        seen_better += _realised(state, deep.actions) > _realised(state, shallow) + 1e-6
        agent = TBWSearchAgent("exact")
        for _ in range(2):  # our turn and theirs, by the single-turn agent
            side = state.current_player
            while not state.is_terminal() and state.current_player == side:
                state.apply(agent.act(state.view(side)))
    assert seen_better >= 1


# ------------------------------------------------------------------ budgets


def test_a_solve_budget_is_deterministic_and_respected():
    state = _midgame("duel_5v5_8x8", 20)
    results = [TurnTreeSearch(state, seconds=None, solves=25, depth=5).run() for _ in range(2)]
    assert results[0].actions == results[1].actions
    assert results[0].values == results[1].values
    assert results[0].solves == 25
    assert results[0].depth < 5 or results[0].partial_depth == 0
    # A budget of 25 solves stops inside an iteration; the plans that iteration finished are
    # counted, and the choice is one of the root's children.
    stopped = results[0]
    assert stopped.partial_depth > stopped.depth
    assert 0 <= stopped.partial_children <= stopped.root_children
    assert len(stopped.values) == (stopped.partial_children or stopped.root_children)


def test_the_first_solve_is_made_whatever_the_budget():
    state = _midgame("duel_5v5_8x8", 10)
    result = TurnTreeSearch(state, seconds=None, solves=1, depth=5).run()
    assert result.solves == 1 and result.depth == 1
    assert result.actions == plan_turn(state, "exact").actions


def test_a_cut_root_solve_plays_its_fallback_and_searches_no_deeper():
    state = _midgame("fire_emblem_5v5", 0)
    result = TurnTreeSearch(state, seconds=None, solve_nodes=10, depth=3).run()
    assert not result.root_complete and result.depth == 1 and result.solves == 1
    replay(state, result.actions)  # a legal whole turn (the greedy plan)


def test_solve_caps_follow_the_budget():
    state = _midgame("duel_5v5_8x8", 10)
    assert TurnTreeSearch(state, seconds=1.0).solve_nodes is None  # the clock bounds solves
    assert TurnTreeSearch(state, seconds=None, solves=5).solve_nodes == DEFAULT_SOLVE_NODES
    assert TurnTreeSearch(state, seconds=1.0, solve_nodes=500).solve_nodes == 500
    assert TurnTreeSearch(state, seconds=None, solve_nodes=None).solve_nodes is None


def test_a_time_budget_is_kept(monkeypatch):
    # On a clock that moves 1 ms per reading the budget allows a fixed amount of work on any
    # machine: the budget, not the depth, ends the search, and within it.
    stepping_clock(monkeypatch, step=1e-3)
    state = _midgame("fire_emblem_5v5", 2)
    result = TurnTreeSearch(state, seconds=0.3, depth=7, width=12).run()
    assert result.depth < 7 and result.solves > 1
    assert result.seconds <= 0.3  # on the clock's readings: the reserve was kept
    replay(state, result.actions)


def test_tolerance_prefers_the_most_advanced_plan_among_near_equals():
    state = _midgame("duel_5v5_8x8", 21)
    plain = TurnTreeSearch(state, seconds=None, depth=3).run()
    tolerant = TurnTreeSearch(state, seconds=None, depth=3, tolerance=1e9).run()
    # With an unbounded tolerance every child is "near": the most advanced one is chosen.
    search = TurnTreeSearch(state, seconds=None, depth=3)
    from agents.tbw.tree import _spread

    spreads = {p.actions: _spread(p.end, state.current_player) for p in search.plans(state, 8)}
    assert spreads[tuple(tolerant.actions)] == min(spreads.values())
    assert tolerant.value <= plain.value + 1e-9


# ------------------------------------------------------------------ the agent


def _play(agents, scenario: str, max_plies: int = 2000):
    state = TBWState.initial(load_scenario(scenario))
    for agent, seed in zip(agents, (1, 2), strict=True):
        agent.reset(seed)
    plies = 0
    while not state.is_terminal() and plies < max_plies:
        player = state.current_player
        state.apply(agents[player].act(state.view(player)))  # the core rejects illegal moves
        plies += 1
    return state


@pytest.mark.parametrize("scenario", ["duel_5v5_8x8", "hex_skirmish"])
def test_the_agent_plays_whole_games(scenario):
    tree = TBWTreeAgent(seconds=None, solves=12, depth=3, width=4)
    exact = TBWSearchAgent("exact")
    state = TBWState.initial(load_scenario(scenario))
    tree.reset(1)
    turns = 0
    while not state.is_terminal():
        player = state.current_player
        agent = tree if player == 0 else exact
        turns += player == 0 and not any(state.acted[u] for u in state.scenario.side_units[0])
        state.apply(agent.act(state.view(player)))  # the core rejects an illegal action
    assert len(tree.history) == turns  # one search per turn of its own
    assert all(1 <= r.solves <= 12 for r in tree.history)
    assert any(r.depth == 3 for r in tree.history)


def test_the_agent_plans_once_per_turn_and_replans_on_a_different_view():
    state = _midgame("duel_5v5_8x8", 20)
    agent = TBWTreeAgent(seconds=None, solves=10)
    agent.reset(0)
    side = state.current_player
    first = agent.act(state.view(side))
    assert len(agent.history) == 1
    state.apply(first)
    if state.current_player == side and not state.is_terminal():
        agent.act(state.view(side))
        assert len(agent.history) == 1  # the plan's next action, no new search
    other = _midgame("duel_5v5_8x8", 40)
    agent.act(other.view(other.current_player))  # a view the plan did not expect
    assert len(agent.history) == 2


def test_the_agent_is_reproducible_with_a_solve_budget():
    def game():
        return _play([TBWTreeAgent(seconds=None, solves=8, width=4,
                                   recipes="best+other+noise:5+advance:3"),
                      TBWSearchAgent("exact")], "duel_5v5_8x8", max_plies=120)

    a, b = game(), game()
    assert state_key(a) == state_key(b)


def test_reusing_last_turns_children_changes_no_move_and_saves_solves():
    """Children made last turn are reused (the opponent's predicted reply leads to a searched
    node); without a binding budget the moves are the same as searching afresh."""
    def game(reuse):
        tree = TBWTreeAgent(seconds=None, solves=100_000, depth=3, width=4, replies=1,
                            reuse=reuse)
        state = _play([tree, TBWSearchAgent("exact")], "duel_5v5_8x8", max_plies=60)
        return state, sum(r.solves for r in tree.history)

    (fresh, fresh_solves), (reused, reused_solves) = game(False), game(True)
    assert state_key(fresh) == state_key(reused)
    assert reused_solves < fresh_solves


def test_the_agent_refuses_a_finished_game():
    state = _play([TBWSearchAgent("exact"), TBWSearchAgent("exact")], "paper_figure3")
    with pytest.raises(ValueError, match="game is over"):
        TBWTreeAgent().act(state)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"seconds": 0}, ValueError, "seconds"),
    ({"seconds": -1.0}, ValueError, "seconds"),
    ({"seconds": float("nan")}, ValueError, "seconds"),
    ({"seconds": "1"}, TypeError, "seconds"),
    ({"seconds": True}, TypeError, "seconds"),
    ({"seconds": None, "solves": None}, ValueError, "budget"),
    ({"solves": 0}, ValueError, "solves"),
    ({"solves": 2.5}, TypeError, "solves"),
    ({"depth": 0}, ValueError, "depth"),
    ({"width": 0}, ValueError, "width"),
    ({"inner_width": True}, TypeError, "inner_width"),
    ({"replies": 0}, ValueError, "replies"),
    ({"solve_nodes": 0}, ValueError, "solve_nodes"),
    ({"solve_nodes": "many"}, ValueError, "solve_nodes"),
    ({"tolerance": -1}, ValueError, "tolerance"),
    ({"reuse": 2}, ValueError, "reuse"),
    ({"evaluate": 3}, TypeError, "evaluate"),
    ({"recipes": "other+best"}, ValueError, "start with 'best'"),
    ({"recipes": ""}, ValueError, "non-empty"),
    ({"recipes": "best+sideways:2"}, ValueError, "unknown recipe"),
    ({"recipes": "best+advance:-1"}, ValueError, "positive"),
    ({"recipes": "best+advance:x"}, ValueError, "advance:<positive number>"),
    ({"reply_recipes": "best+other:2"}, ValueError, "takes no argument"),
])
def test_bad_options_are_refused_with_a_clear_error(kwargs, error, match):
    with pytest.raises(error, match=match):
        TBWTreeAgent(**kwargs)


def test_recipes_parse_from_lists_and_strings():
    assert parse_recipes(["best", "advance:2"]) == parse_recipes("best+advance:2")
    assert parse_recipes("best+other+retreat:1.5+noise:3") == (
        ("best", 0.0), ("other", 0.0), ("retreat", 1.5), ("noise", 3.0))


def test_the_registry_builds_it_for_tbw_only():
    agent = make_agent("tree:seconds=0.5,depth=5,replies=1,recipes=best+other+advance:3",
                       seed=3, game="tbw")
    assert isinstance(agent, TBWTreeAgent)
    assert (agent.seconds, agent.depth, agent.replies) == (0.5, 5, 1)
    assert agent.recipes == (("best", 0.0), ("other", 0.0), ("advance", 3.0))
    assert isinstance(make_agent("tree:solves=20"), TBWTreeAgent)
    with pytest.raises(ValueError, match="does not play junqi"):
        make_agent("tree", game="junqi")
    with pytest.raises(ValueError, match="depth"):
        make_agent("tree:depth=0")
