"""The agent protocol, the scripted baselines, the registry and the arena."""

from __future__ import annotations

import pytest

from agents import Agent, RandomAgent
from agents.arena import play_game, run_match, tbw_game
from agents.registry import make_agent, parse_agent_spec
from agents.tbw.greedy import GreedyAgent
from tbw_envs.tbw import END_TURN, load_scenario


def test_agents_follow_the_protocol():
    for agent in (RandomAgent(0), GreedyAgent(0), make_agent("greedy")):
        assert isinstance(agent, Agent)


def test_random_agent_is_seeded_and_legal():
    state = load_scenario("duel_5v5_8x8").initial_state()
    a, b = RandomAgent(3), RandomAgent(3)
    picks = [a.act(state) for _ in range(20)]
    assert picks == [b.act(state) for _ in range(20)]
    assert set(picks) <= set(state.legal_actions())


def test_greedy_attacks_the_weakest_enemy_in_reach():
    spec = {
        "board": {"topology": "square4", "rows": 3, "cols": 5},
        "unit_types": {"s": {"hp": 10, "atk": 3, "move": 1, "range": [1, 1]}},
        "units": [
            {"side": 0, "type": "s", "pos": [1, 2]},
            {"side": 1, "type": "s", "pos": [0, 2], "hp": 9},
            {"side": 1, "type": "s", "pos": [1, 3], "hp": 4},
            {"side": 1, "type": "s", "pos": [2, 2], "hp": 7},
        ],
    }
    state = load_scenario(spec).initial_state()
    uid, _dest, target = state.decode_action(GreedyAgent(0).act(state))
    assert (uid, target) == (0, 2)


def test_greedy_advances_toward_the_nearest_enemy_when_nothing_is_in_reach():
    spec = {
        "board": {"topology": "square4", "rows": 1, "cols": 9},
        "unit_types": {"s": {"hp": 10, "atk": 3, "move": 2, "range": [1, 1]}},
        "units": [{"side": 0, "type": "s", "pos": [0, 0]}, {"side": 1, "type": "s", "pos": [0, 8]}],
    }
    state = load_scenario(spec).initial_state()
    assert state.decode_action(GreedyAgent(0).act(state)) == (0, (0, 2), None)


def test_greedy_ends_the_turn_when_there_is_no_enemy():
    state = load_scenario("open_solo_4").initial_state()
    assert state.decode_action(GreedyAgent(0).act(state)) == END_TURN


def test_greedy_beats_random_with_seats_swapped():
    result = run_match(tbw_game("duel_5v5_8x8"), GreedyAgent(1), RandomAgent(2), games=10)
    assert result.score("greedy")["wins"] >= 9
    seats = {g.seats for g in result.games}
    assert seats == {("greedy", "random"), ("random", "greedy")}


def test_play_game_records_a_finished_game():
    record = play_game(tbw_game("paper_figure3"), [RandomAgent(0), RandomAgent(1)], seed=4)
    assert record.final_state.is_terminal()
    assert record.plies == sum(record.moves_per_agent.values()) > 0
    assert list(record.returns) == record.final_state.returns()


def test_match_table_lists_both_agents():
    result = run_match(tbw_game("paper_figure3"), GreedyAgent(0), RandomAgent(0), games=2)
    table = result.table()
    assert "greedy" in table and "random" in table and "95% CI" in table


def test_registry_parses_specs_and_rejects_unknown_names():
    assert parse_agent_spec("search:algorithm=exact,budget=2000") == (
        "search", {"algorithm": "exact", "budget": 2000}
    )
    with pytest.raises(ValueError, match="unknown agent 'minimax'.*known agents"):
        make_agent("minimax")
    with pytest.raises(ValueError, match="expected key=value"):
        make_agent("greedy:fast")
    with pytest.raises(ValueError, match="greedy:depth=3"):
        make_agent("greedy:depth=3")


def test_registry_aliases_and_game_checks():
    agent = make_agent("exact")
    assert agent.algorithm == "exact" and agent.name == "exact"
    assert make_agent("alg5:budget=1000").budget == 1000
    with pytest.raises(ValueError, match="does not play junqi.*'random'"):
        make_agent("exact", game="junqi")
    with pytest.raises(ValueError, match="does not play tbw.*'exact'"):
        make_agent("ucbmcts", game="tbw")
    # One name, one agent per game: Junqi's greedy is the evaluation's one-ply choice.
    assert type(make_agent("greedy", game="junqi")).__name__ == "GreedyEvalAgent"
    assert type(make_agent("greedy", game="tbw")).__name__ == "GreedyAgent"


def test_junqi_match_runs_through_the_same_arena():
    from agents.arena import junqi_game

    result = run_match(junqi_game("ccgc"), RandomAgent(0), RandomAgent(1), games=2)
    assert all(g.final_state.is_terminal() for g in result.games)
    assert {g.seats for g in result.games} == {("random", "random (2)"), ("random (2)", "random")}
