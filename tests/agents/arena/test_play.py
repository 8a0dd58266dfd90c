"""One game (``agents.arena.play``): ``play_game`` records a finished game and checks its
arguments."""

from __future__ import annotations

import pytest

import agents.arena as arena
from agents import RandomAgent
from agents.arena import (
    ArenaInputError,
    ArenaTypeError,
    play_game,
    tbw_game,
)


def test_play_game_records_a_finished_game():
    record = play_game(tbw_game("paper_figure3"), [RandomAgent(0), RandomAgent(1)], seed=4)
    assert record.final_state.is_terminal()
    assert record.plies == sum(record.moves_per_agent.values()) > 0
    assert list(record.returns) == record.final_state.returns()


@pytest.mark.input_contract
def test_play_game_checks_its_arguments():
    with pytest.raises(ArenaInputError, match="agents must be a pair of agents"):
        arena.play_game(tbw_game("paper_figure3"), [RandomAgent(0)], seed=0)
    with pytest.raises(ArenaTypeError, match="seed must be a non-negative integer, got float"):
        arena.play_game(tbw_game("paper_figure3"), [RandomAgent(0), RandomAgent(1)], seed=0.5)
