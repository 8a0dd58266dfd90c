"""One game (``agents.arena.play``): ``play_game`` records a finished game as a round robin does,
checks its arguments, and plays on the one path a round-robin game takes (the same seeds, start
and record)."""

from __future__ import annotations

import pytest

import agents.arena as arena
from agents import RandomAgent
from agents.arena import (
    ArenaInputError,
    ArenaTypeError,
    game_factory,
    play_game,
    replay_record,
    run_match,
    run_round_robin,
    tbw_game,
)
from agents.arena.replay import verify_records
from agents.registry import make_agent
from tbw_envs.games import game_names, get_game


def test_play_game_records_a_finished_game():
    record = play_game(tbw_game("paper_figure3"), [RandomAgent(0), RandomAgent(1)], seed=4)
    final = replay_record(record.to_record())
    assert final.is_terminal() and str(final.end_reason) == record.end_reason
    assert record.plies == sum(record.moves) == len(record.actions) > 0
    assert list(record.returns) == final.returns()
    assert record.labels == ("random", "random (2)") and record.base_seed == 4
    assert verify_records([record.to_record()]) == []


@pytest.mark.input_contract
def test_play_game_checks_its_arguments():
    with pytest.raises(ArenaInputError, match="agents must be a pair of agents"):
        arena.play_game(tbw_game("paper_figure3"), [RandomAgent(0)], seed=0)
    with pytest.raises(ArenaTypeError, match="seed must be a non-negative integer, got float"):
        arena.play_game(tbw_game("paper_figure3"), [RandomAgent(0), RandomAgent(1)], seed=0.5)
    with pytest.raises(ArenaTypeError, match="new_state must be a game setup "
                                             r"\(game_factory\(game, variant\)"):
        arena.play_game(lambda seed: None, [RandomAgent(0), RandomAgent(1)], seed=0)


@pytest.mark.parametrize("game", list(game_names()))
def test_play_game_and_a_round_robin_game_of_the_same_seeds_and_agents_are_one_record(game):
    """Game k of a match is game k of the round robin of the same two agents and base seed:
    the same start, seeds, moves, digests and record."""
    description = get_game(game)
    variant, specs, seed = description.default_variant, ["greedy", "random"], 21
    robin = run_round_robin(game, specs, 2, seed=seed, workers=1, variant=variant,
                            opening_plies=2, bootstrap=0).games
    setup = game_factory(game, variant, opening_plies=2)

    def agents(order, task_seeds):
        return [make_agent(specs[i], seed=s, game=game) for i, s in zip(order, task_seeds,
                                                                          strict=True)]

    single = play_game(setup, agents((0, 1), robin[0].agent_seeds), seed=seed)
    assert single.to_record() == robin[0].to_record()
    match = run_match(setup, *agents((0, 1), robin[0].agent_seeds), games=2, seed=seed)
    assert [g.to_record() for g in match.games] == [g.to_record() for g in robin]
