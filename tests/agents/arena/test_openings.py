"""Random openings (``agents.arena.openings``): they vary the start per pair and keep it within a
pair, stop when the game ends, are replayed from the record, and are capped at a quarter of the
longest game, so the agents always get to move."""

from __future__ import annotations

import pytest

import agents.arena as arena
from agents.arena import (
    max_opening_plies,
    random_opening,
    replay_record,
    result_tables,
    run_round_robin,
)
from tbw_envs.tbw import TBWState, load_scenario


def test_random_openings_vary_the_start_per_pair_and_keep_it_within_a_pair():
    plies = 6
    result = run_round_robin("tbw", ["exact", "greedy"], games_per_pairing=6, workers=1,
                             opening_plies=plies)
    assert result.repeated_pairings() == []
    assert f"{plies} random opening plies" in result_tables(result)
    openings = []
    for first, second in zip(result.games[::2], result.games[1::2], strict=True):
        assert first.opening_plies == second.opening_plies == plies
        assert first.actions[:plies] == second.actions[:plies]
        assert sum(first.moves) + plies == first.plies == len(first.actions)
        openings.append(tuple(first.actions[:plies]))
    assert len(set(openings)) == 3
    for game in result.games:  # the opening is part of the record, so the game replays
        record = game.to_record()
        assert record["start"]["opening_plies"] == plies
        assert replay_record(record).returns() == list(game.returns)


def test_a_random_opening_stops_when_the_game_ends():
    state = TBWState.initial(load_scenario("duel_5v5_8x8"))
    played = random_opening(state, 100_000, seed=1)
    assert state.is_terminal() and len(played) < 100_000


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3"])
def test_opening_plies_must_be_a_non_negative_integer(bad):
    with pytest.raises(ValueError, match="opening_plies must be a non-negative integer"):
        run_round_robin("tbw", ["random"], games_per_pairing=2, workers=1, opening_plies=bad)


# ---------------------------------------------------------------------- the opening cap


@pytest.mark.input_contract
def test_the_opening_cap_is_a_quarter_of_the_longest_game():
    assert max_opening_plies("tbw", "duel_5v5_8x8") == 40 * 10 // 4 == 100
    assert max_opening_plies("junqi", "ccgc") == 2000 // 4 == 500


@pytest.mark.input_contract
@pytest.mark.parametrize(("game", "specs"), [("tbw", ["greedy", "random"]),
                                             ("junqi", ["random", "random"])])
def test_an_opening_at_the_cap_never_ends_the_game_before_the_agents_move(game, specs):
    cap = max_opening_plies(game, arena.default_variant(game))
    result = run_round_robin(game, specs, games_per_pairing=4, workers=1, opening_plies=cap,
                             bootstrap=0)
    for g in result.games:
        assert g.opening_requested == cap
        assert g.opening_plies <= cap and g.plies > g.opening_plies
        assert sum(g.moves) == g.plies - g.opening_plies >= 1


@pytest.mark.input_contract
def test_stop_before_end_plays_the_same_opening_only_cut_short():
    plain = TBWState.initial(load_scenario("duel_5v5_8x8"))
    full = random_opening(plain, 100_000, seed=1)
    assert plain.is_terminal()
    stopped_state = TBWState.initial(load_scenario("duel_5v5_8x8"))
    stopped = random_opening(stopped_state, 100_000, seed=1, stop_before_end=True)
    assert not stopped_state.is_terminal()
    assert stopped == full[:-1]  # the last action ended the game
