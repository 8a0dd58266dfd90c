"""The Junqi one-ply agent (``agents.junqi.greedy``): it takes a sure win and an unguarded flag,
and with UCB&MCTS it beats random play."""

from __future__ import annotations

from agents.junqi import (
    GreedyAgent,
    UCBMCTSAgent,
)
from tbw_envs.junqi import JunqiState


def test_greedy_takes_a_sure_win_and_an_unguarded_flag():
    # The enemy flag is announced on A1; our engineer on B1 can take it.
    state = JunqiState.from_pieces(
        {"B1": (0, "engineer"), "A1": (1, "flag"), "L1": (0, "flag"), "C0": (1, "colonel")},
        revealed_flags=(1,),
    )
    assert GreedyAgent(seed=0).act(state.view(0)) == state.encode_action("B1", "A1")


def test_greedy_and_ucbmcts_beat_random():
    from agents.arena import junqi_game, run_match
    from agents.random_agent import RandomAgent

    result = run_match(junqi_game("ccgc"), GreedyAgent(seed=0), RandomAgent(1), games=6)
    assert result.score("greedy")["wins"] >= 5
    result = run_match(junqi_game("ccgc"), UCBMCTSAgent(iterations=40, seed=0), RandomAgent(1),
                       games=4)
    assert result.score("ucbmcts")["wins"] >= 3
