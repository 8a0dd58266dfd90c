"""The single-turn search agent (``agents.tbw.search.agent``): it replans when the view is not the
state it planned for, plays whole games, beats random and greedy play, takes one-argument
evaluations, and keeps its budget on a hard turn."""

from __future__ import annotations

import pytest

from agents.random_agent import RandomAgent
from agents.tbw.evaluation import DefaultEvaluation
from agents.tbw.greedy import GreedyAgent
from agents.tbw.search import TBWSearchAgent, plan_turn
from tbw_envs.tbw import TBWState, load_scenario
from tests.helpers.tbw_search import close, random_state


def play(scenario, agents, seed):
    state = TBWState.initial(load_scenario(scenario))
    for i, agent in enumerate(agents):
        agent.reset(seed * 2 + i)
    while not state.is_terminal():
        player = state.current_player
        action = agents[player].act(state.view(player))
        assert state.is_legal(action)
        state.apply(action)
    return state


def wins_against(opponent_factory, scenario, games, algorithm="exact"):
    wins = 0
    for game in range(games):
        me = game % 2
        agents = [None, None]
        agents[me] = TBWSearchAgent(algorithm)
        agents[1 - me] = opponent_factory(game)
        wins += play(scenario, agents, game).winner == me
    return wins


def test_agent_replans_when_the_view_is_not_the_planned_state():
    state = TBWState.initial(load_scenario("duel_5v5_8x8"))
    agent = TBWSearchAgent("exact")
    first = agent.act(state.view(0))
    planned = agent.last_result
    other = state.clone()
    other.apply(other.legal_actions()[-2])  # a different first action than the plan's
    agent.act(other.view(0))
    assert agent.last_result is not planned and first == planned.actions[0]


@pytest.mark.parametrize("scenario", ["duel_5v5_8x8", "hex_skirmish", "paper_figure3"])
def test_agent_plays_whole_games(scenario):
    state = play(scenario, [TBWSearchAgent("alg5"), TBWSearchAgent("exact")], seed=0)
    assert state.is_terminal()


def test_search_agent_beats_random_with_seats_swapped():
    assert wins_against(lambda g: RandomAgent(seed=g), "duel_5v5_8x8", 6) >= 5


@pytest.mark.slow
def test_search_agent_beats_random_many_games():
    assert wins_against(lambda g: RandomAgent(seed=g), "duel_5v5_8x8", 40) >= 38


@pytest.mark.slow
def test_search_agent_beats_greedy_most_games():
    assert wins_against(lambda g: GreedyAgent(seed=g), "duel_5v5_8x8", 40) >= 28


def test_one_argument_evaluation_scores_for_the_side_that_moved():
    """``evaluate(state)`` (the issue's signature) works: it reads ``state.last_side``."""
    two_arg = DefaultEvaluation()
    calls = []

    def one_arg(state):
        calls.append(state.last_side)
        return float(two_arg(state, state.last_side))

    for seed in range(6):
        state = random_state(seed)
        side = state.current_player
        calls.clear()
        result = plan_turn(state, "alg5", evaluate=one_arg, kernel="python")
        reference = plan_turn(state, "alg5", evaluate=lambda s, who: float(two_arg(s, who)),
                              kernel="python")
        assert close(result.value, reference.value)
        assert calls and set(calls) <= {side}


def test_agent_budget_bounds_a_hard_big_map_turn():
    """Greedy play on the 10 v 10 map reaches turns the exact solver cannot finish quickly; the
    agent's node budget bounds them and still yields a legal plan (the best found so far)."""
    from agents.tbw.search import DEFAULT_AGENT_BUDGET

    assert TBWSearchAgent().budget == DEFAULT_AGENT_BUDGET
    assert TBWSearchAgent(budget=None).budget is None
    with pytest.raises(TypeError, match="budget"):
        TBWSearchAgent(budget="fast")
    state = TBWState.initial(load_scenario("battle_10v10_16x16"))
    greedy = GreedyAgent(0)
    while not (state.turn == 2 and state.current_player == 1):
        state.apply(greedy.act(state.view(state.current_player)))
    agent = TBWSearchAgent("exact", budget=20_000)
    action = agent.act(state.view(1))
    assert action in state.legal_actions()
    assert agent.last_result.ops1 <= 20_000 and not agent.last_result.complete


@pytest.mark.parametrize("spec", ["exact", "alg2", "tree:solves=6", "oep:generations=2"])
def test_a_turn_planner_says_the_rest_of_its_plan(spec):
    from agents.registry import make_agent
    from tbw_envs.games import get_game

    state = get_game("tbw").new_state("duel_5v5_8x8")
    agent = make_agent(spec, seed=3, game="tbw")
    agent.reset(3)
    assert agent.thinking() is None
    first = None
    while state.current_player == 0 and not state.is_terminal():
        action = agent.act(state.view(0))
        plan = agent.thinking()["plan"]
        assert plan[0] == action
        if first is None:
            first = plan
        else:  # each report is the first one, less what has been played
            assert plan == first[len(first) - len(plan):]
        state.apply(action)
    assert len(plan) == 1 and isinstance(agent.thinking()["value"], float)
