"""The TBW greedy baseline (``agents.tbw.greedy``): it attacks the weakest enemy in reach,
advances toward the nearest enemy, ends its turn when there is none, and beats random play with
seats swapped."""

from __future__ import annotations

from agents import RandomAgent
from agents.arena import run_match, tbw_game
from agents.tbw.greedy import GreedyAgent
from tbw_envs.tbw import END_TURN, TBWState, load_scenario


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
    state = TBWState.initial(load_scenario(spec))
    uid, _dest, target = state.decode_action(GreedyAgent(0).act(state))
    assert (uid, target) == (0, 2)


def test_greedy_advances_toward_the_nearest_enemy_when_nothing_is_in_reach():
    spec = {
        "board": {"topology": "square4", "rows": 1, "cols": 9},
        "unit_types": {"s": {"hp": 10, "atk": 3, "move": 2, "range": [1, 1]}},
        "units": [{"side": 0, "type": "s", "pos": [0, 0]}, {"side": 1, "type": "s", "pos": [0, 8]}],
    }
    state = TBWState.initial(load_scenario(spec))
    assert state.decode_action(GreedyAgent(0).act(state)) == (0, (0, 2), None)


def test_greedy_ends_the_turn_when_there_is_no_enemy():
    state = TBWState.initial(load_scenario("open_solo_4"))
    assert state.decode_action(GreedyAgent(0).act(state)) == END_TURN


def test_greedy_beats_random_with_seats_swapped():
    result = run_match(tbw_game("duel_5v5_8x8"), GreedyAgent(1), RandomAgent(2), games=10)
    assert result.score("greedy")["wins"] >= 9
    seats = {g.labels for g in result.games}
    assert seats == {("greedy", "random"), ("random", "greedy")}
