"""Every search stops when asked from outside (``agents.common.budget.stop_when``), whatever its
own budget: the web app relies on it to stop an agent whose game is deleted, evicted or whose
server shuts down, and to cap a move's thinking. Each search here is given a budget it would
take minutes to spend and a stop already asked; the counts show it stopped at once and still
chose a legal move (no clock is read in these assertions)."""

from __future__ import annotations

import threading

import pytest

from agents.common.budget import stop_when
from agents.registry import make_agent
from agents.tbw.oep import OEPAgent
from agents.tbw.search import TBWSearchAgent
from agents.tbw.tree import TBWTreeAgent
from tbw_envs.games import get_game


def _asked() -> threading.Event:
    event = threading.Event()
    event.set()
    return event


@pytest.mark.parametrize("spec", ["ismcts:iterations=1000000", "ucbmcts:iterations=1000000",
                                  "mcts:iterations=1000000"])
def test_a_junqi_search_asked_to_stop_runs_no_iteration(spec):
    state = get_game("junqi").new_state("ccgc", seed=3)
    agent = make_agent(spec, seed=0, game="junqi")
    with stop_when(_asked()):
        action = agent.act(state.view(state.current_player))
    assert action in state.legal_actions()
    assert agent.last_stats["iterations"] == 0
    # The same agent without the stop searches: the count above is the stop's doing.
    single = make_agent(spec.replace("1000000", "3"), seed=0, game="junqi")
    single.act(state.view(state.current_player))
    assert single.last_stats["iterations"] == 3


def test_a_junqi_search_with_a_time_budget_stops_too():
    state = get_game("junqi").new_state("ccgc", seed=4)
    agent = make_agent("ismcts:seconds=3600", seed=0, game="junqi")
    with stop_when(_asked()):
        agent.act(state.view(state.current_player))
    assert agent.last_stats["iterations"] == 0


def _tbw_state():
    return get_game("tbw").new_state("duel_5v5_8x8", seed=0)


def test_the_single_turn_search_stops_within_one_clock_check():
    state = _tbw_state()
    agent = TBWSearchAgent(algorithm="alg5", kernel="python", budget=10**9)
    with stop_when(_asked()):
        action = agent.act(state.view(state.current_player))
    assert action in state.legal_actions()
    result = agent.last_result
    assert not result.complete and result.ops1 <= 4096  # the clock is read every 4096 ops1


def test_the_tree_search_stops_after_its_root_fallback():
    state = _tbw_state()
    agent = TBWTreeAgent(seconds=None, solves=10**6)
    with stop_when(_asked()):
        action = agent.act(state.view(state.current_player))
    assert action in state.legal_actions()
    assert agent.last_result.solves == 1  # the root's fallback plan, cut at its first check


def test_evolutionary_planning_stops_before_its_first_generation():
    state = _tbw_state()
    agent = OEPAgent(seconds=None, generations=10**6, seed=0)
    with stop_when(_asked()):
        action = agent.act(state.view(state.current_player))
    assert action in state.legal_actions()
    assert agent.last_result.generations == 0 and agent.last_result.evaluations == 1
