"""``agents.tbw.time_keeping``: each planner's result read for a search cut short, every turn of
a game counted for the agent that played it (against a plain replay of the same game), and the
table's figures by hand."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from agents.arena import random_opening
from agents.registry import make_agent
from agents.tbw.time_keeping import TurnTimes, cut_short, play_timed, time_keeping_table
from tbw_envs.tbw import TBWState, load_scenario


def test_cut_short_reads_each_planner_result():
    assert cut_short(SimpleNamespace(root_complete=False, complete=True)) is True  # tree first
    assert cut_short(SimpleNamespace(root_complete=True)) is False
    assert cut_short(SimpleNamespace(complete=False)) is True  # single-turn search
    assert cut_short(SimpleNamespace(stopped="time")) is True  # OEP
    assert cut_short(SimpleNamespace(stopped="converged")) is False
    assert cut_short(None) is None and cut_short(SimpleNamespace()) is None  # greedy, random


def start_and_agents(specs, seed=1):
    state = TBWState.initial(load_scenario("duel_5v5_8x8"))
    random_opening(state, 2, seed)
    agents = [make_agent(spec, seed=seed + k, game="tbw") for k, spec in enumerate(specs)]
    for k, agent in enumerate(agents):
        agent.reset(seed + k)
    return state, agents


def reference_turns(specs):
    """Per agent: its turns and how many of them its search left incomplete, from a plain loop
    over the same game that reads the plan of each turn's first action."""
    state, agents = start_and_agents(specs)
    found = {spec: [0, 0] for spec in specs}
    while not state.is_terminal():
        side = state.current_player
        first = True
        while not state.is_terminal() and state.current_player == side:
            action = agents[side].act(state.clone())
            if first:
                result = getattr(agents[side], "last_result", None)  # greedy has none
                found[specs[side]][0] += 1
                found[specs[side]][1] += result is not None and not result.complete
                first = False
            state.apply(action)
    return found, state.winner


@pytest.mark.parametrize("specs", [("exact:budget=5", "greedy"), ("exact", "greedy")])
def test_every_turn_is_counted_for_the_agent_that_played_it(specs):
    state, agents = start_and_agents(specs)
    stats: dict[str, TurnTimes] = {}
    winner = play_timed(state, agents, specs, stats)
    expected, expected_winner = reference_turns(specs)
    assert winner == expected_winner and state.is_terminal()
    for spec in specs:
        assert [len(stats[spec].turns), stats[spec].cut] == expected[spec]
        assert all(seconds >= 0 for seconds in stats[spec].turns)
        assert stats[spec].deep == 0  # no tree search here
    cut = stats[specs[0]].cut
    assert cut > 0 if specs[0] == "exact:budget=5" else cut == 0  # 5 ops1 finish few turns


def test_a_tree_turn_that_looks_at_the_reply_is_deep():
    specs = ("tree:solves=30", "greedy")
    state, agents = start_and_agents(specs)
    stats: dict[str, TurnTimes] = {}
    play_timed(state, agents, specs, stats)
    assert 0 < stats[specs[0]].deep <= len(stats[specs[0]].turns)


def test_the_table_by_hand():
    stats = {"tree:seconds=1": TurnTimes(turns=[0.5, 1.0, 1.5, 2.0], cut=1, deep=2),
             "greedy": TurnTimes(turns=[0.004], cut=0, deep=0)}
    # A turn of exactly the budget is not over it.
    lines = time_keeping_table(stats, ["tree:seconds=1", "greedy", "oep"], budget=1.0)
    assert lines[0].startswith("| agent | turns | mean turn | longest turn | turns over 1 s |")
    assert lines[2:] == ["| `tree:seconds=1` | 4 | 1250 ms | 2000 ms | 2 | 1 | 2 |",
                         "| `greedy` | 1 | 4 ms | 4 ms | 0 | 0 | - |"]  # oep played none
