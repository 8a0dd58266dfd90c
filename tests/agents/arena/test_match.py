"""Matches between two agents (``agents.arena.match``): the table lists both agents, Junqi runs
through the same arena, the two games of a pair start alike with seats swapped, and bad
arguments are refused before any game."""

from __future__ import annotations

import pytest

import agents.arena.match as arena_match
from agents import RandomAgent
from agents.arena import (
    MAX_GAMES,
    ArenaInputError,
    ArenaTypeError,
    junqi_game,
    run_match,
    tbw_game,
)
from agents.arena.replay import verify_records
from agents.tbw.greedy import GreedyAgent


def test_match_table_lists_both_agents():
    result = run_match(tbw_game("paper_figure3"), GreedyAgent(0), RandomAgent(0), games=2)
    table = result.table()
    assert "greedy" in table and "random" in table and "95% CI" in table


def test_junqi_match_runs_through_the_same_arena():
    result = run_match(junqi_game("ccgc"), RandomAgent(0), RandomAgent(1), games=3)
    assert verify_records([g.to_record() for g in result.games]) == []  # finished, replayed
    assert [g.labels for g in result.games] == [("random", "random (2)"),
                                               ("random (2)", "random"),
                                               ("random", "random (2)")]
    first, second, third = result.games
    # A pair's two games start from the same layouts, seats swapped; the next pair's differ.
    assert first.seed == second.seed != third.seed
    assert first.start["layouts"] == second.start["layouts"] != third.start["layouts"]
    assert first.agent_seeds != second.agent_seeds


# ---------------------------------------------------------------------- run_match and play_game

MATCH_CASES = [
    ({"games": True}, ArenaTypeError, "games must be a positive integer, got bool True"),
    ({"games": 0}, ArenaInputError, "games must be a positive integer, got 0"),
    ({"games": 1.5}, ArenaTypeError, "games must be a positive integer, got float 1.5"),
    ({"games": MAX_GAMES + 1}, ArenaInputError, "games must be at most 100,000"),
    ({"seed": "abc"}, ArenaTypeError, "seed must be a non-negative integer, got str 'abc'"),
    ({"seed": -3}, ArenaInputError, "seed must be a non-negative integer, got -3"),
    ({"progress": 1}, ArenaTypeError, "progress must be True or False"),
    ({"new_state": "duel_5v5_8x8"}, ArenaTypeError, "new_state must be a game setup"),
    ({"new_state": lambda seed: None}, ArenaTypeError, "new_state must be a game setup"),
    ({"agent_b": "random"}, ArenaTypeError, "agent_b must be an agent with act() and reset()"),
    ({"agent_b": "same"}, ArenaInputError, "agent_a and agent_b are the same object"),
]


@pytest.mark.input_contract
@pytest.mark.parametrize(("overrides", "error", "message"), MATCH_CASES)
def test_run_match_rejects_bad_arguments_before_any_game(overrides, error, message,
                                                         monkeypatch):
    agent_a = RandomAgent(0)
    agent_b = RandomAgent(1)
    names = (agent_a.name, agent_b.name)
    calls = []
    monkeypatch.setattr(arena_match, "play_in_process", lambda *args: calls.append(args))
    kwargs = {"new_state": tbw_game("paper_figure3"), "agent_a": agent_a, "agent_b": agent_b,
              "games": 2, "seed": 0} | overrides
    if kwargs["agent_b"] == "same":
        kwargs["agent_b"] = agent_a
    with pytest.raises(error, match=None) as info:
        run_match(**kwargs)
    assert message in str(info.value)
    assert calls == [] and (agent_a.name, agent_b.name) == names  # nothing played or renamed
