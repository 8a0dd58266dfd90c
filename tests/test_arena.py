"""The round-robin arena: statistics, seeds, paired games, agent layouts, records and the CLIs."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

from agents.arena import (
    ELO_PER_NAT,
    bradley_terry,
    elo_ratings,
    layout_seed,
    random_opening,
    replay_record,
    run_round_robin,
    wilson_interval,
)
from agents.random_agent import RandomAgent
from scripts import arena as arena_cli
from scripts import replay as replay_cli
from tbw_envs.junqi import format_layout, load_layout, random_layout
from tbw_envs.tbw import load_scenario

# ---------------------------------------------------------------------- statistics


@pytest.mark.parametrize(("successes", "trials", "low", "high"), [
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", method 3.
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
])
def test_wilson_interval_matches_published_values(successes, trials, low, high):
    got = wilson_interval(successes, trials)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_is_symmetric_and_handles_no_games():
    low, high = wilson_interval(7.5, 20)  # draws count as half points
    mirror_low, mirror_high = wilson_interval(12.5, 20)
    assert (low, high) == pytest.approx((1 - mirror_high, 1 - mirror_low))
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_bradley_terry_recovers_strengths_the_scores_imply():
    # Strengths 4 : 2 : 1 predict scores 2/3, 2/3 and 4/5; 30 games per pair hit them exactly,
    # so the maximum-likelihood gaps are ln 2 each, 400 * log10(2) = 120.4 Elo.
    points = [[0, 20, 24], [10, 0, 20], [6, 10, 0]]
    games = [[0, 30, 30], [30, 0, 30], [30, 30, 0]]
    elo = elo_ratings(bradley_terry(points, games, prior_games=1e-6))
    assert elo == pytest.approx([1500 + 400 * math.log10(2), 1500, 1500 - 400 * math.log10(2)],
                                abs=0.01)
    # The default prior only shrinks the gaps a little, keeping the order.
    shrunk = elo_ratings(bradley_terry(points, games))
    assert shrunk[0] > shrunk[1] > shrunk[2]
    assert abs(shrunk[0] - shrunk[1]) == pytest.approx(120.4, abs=2.0)


def test_bradley_terry_symmetric_results_give_equal_ratings():
    points = [[0, 5, 3], [5, 0, 3], [3, 3, 0]]
    games = [[0, 10, 6], [10, 0, 6], [6, 6, 0]]
    assert elo_ratings(bradley_terry(points, games)) == pytest.approx([1500] * 3)
    assert bradley_terry(np.zeros((2, 2)), np.zeros((2, 2))) == pytest.approx([0, 0])


def test_bradley_terry_keeps_a_perfect_record_finite():
    theta = bradley_terry([[0, 20, 20], [0, 0, 20], [0, 0, 0]],
                          [[0, 20, 20], [20, 0, 20], [20, 20, 0]])
    assert np.all(np.isfinite(theta))
    assert theta[0] > theta[1] > theta[2]
    assert ELO_PER_NAT * (theta[0] - theta[2]) < 3000


def test_bradley_terry_rejects_inconsistent_scores():
    with pytest.raises(ValueError, match="must equal games"):
        bradley_terry([[0, 3], [3, 0]], [[0, 4], [4, 0]])


# ---------------------------------------------------------------------- seeds and pairing


def test_results_do_not_depend_on_the_worker_count():
    specs = ["random", "random", "random"]
    one = run_round_robin("junqi", specs, games_per_pairing=4, seed=7, workers=1)
    two = run_round_robin("junqi", specs, games_per_pairing=4, seed=7, workers=2)
    assert len(one.games) == 3 * 4
    assert [g.outcome() for g in one.games] == [g.outcome() for g in two.games]
    assert [r.elo for r in one.ratings()] == [r.elo for r in two.ratings()]


def test_paired_games_share_the_start_with_seats_swapped():
    result = run_round_robin("junqi", ["random", "random"], games_per_pairing=3, seed=3,
                             workers=1)
    assert result.games_per_pairing == 4 and len(result.games) == 4  # rounded up to even
    seeds = set()
    for first, second in zip(result.games[::2], result.games[1::2], strict=True):
        assert first.seed == second.seed and (first.pair, first.swapped) == (second.pair, False)
        assert second.swapped
        assert first.layouts == second.layouts  # seat 0's and seat 1's layouts, both games
        assert first.labels == second.labels[::-1]
        assert first.layout_sources == second.layout_sources == ("random", "random")
        for seat in (0, 1):
            expected = random_layout(random.Random(layout_seed(first.seed, seat)))
            assert first.layouts[seat] == format_layout(expected)
        seeds.add(first.seed)
    assert len(seeds) == 2  # each pair has its own start


def test_tbw_pairs_are_the_seat_swap_of_the_scenario():
    result = run_round_robin("tbw", ["greedy", "random"], games_per_pairing=2, workers=1)
    first, second = result.games
    assert first.labels == ("greedy", "random") and second.labels == ("random", "greedy")
    assert first.layouts is None and first.end_reason == "annihilation"
    stats = result.pairing_stats()[0]
    assert stats.record(0) == (2, 0, 0) and stats.record(1) == (0, 0, 2)
    assert stats.record(0, 0) == (1, 0, 0) and stats.record(1, 1) == (0, 0, 1)


def test_deterministic_pairings_are_flagged_as_repeated_games():
    result = run_round_robin("tbw", ["exact"], games_per_pairing=4, workers=1)
    assert result.labels == ["exact", "exact (2)"]
    assert result.repeated_pairings() == ["exact v exact (2)"]
    assert "overstate the evidence" in result.tables()


def test_random_openings_vary_the_start_per_pair_and_keep_it_within_a_pair():
    plies = 6
    result = run_round_robin("tbw", ["exact", "greedy"], games_per_pairing=6, workers=1,
                             opening_plies=plies)
    assert result.repeated_pairings() == []
    assert f"{plies} random opening plies" in result.tables()
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
    state = load_scenario("duel_5v5_8x8").initial_state()
    played = random_opening(state, 100_000, seed=1)
    assert state.is_terminal() and len(played) < 100_000


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3"])
def test_opening_plies_must_be_a_non_negative_integer(bad):
    with pytest.raises(ValueError, match="opening_plies must be a non-negative integer"):
        run_round_robin("tbw", ["random"], games_per_pairing=2, workers=1, opening_plies=bad)


# ---------------------------------------------------------------------- agent-chosen layouts

FIXED_LAYOUT = "flag_left_mined"


class FixedLayoutAgent(RandomAgent):
    """Random play from a layout of its own choosing."""

    name = "fixed-layout"

    def layout(self, rng, rules):
        assert isinstance(rng, random.Random) and rules.name == "ccgc"
        return load_layout(FIXED_LAYOUT)


class RngLayoutAgent(RandomAgent):
    """Draws its layout from the rng it is handed."""

    name = "rng-layout"

    def layout(self, rng, rules):
        return format_layout(random_layout(rng))  # text is accepted too


def test_an_agent_with_a_layout_method_deploys_its_own_layout():
    result = run_round_robin("junqi", [FixedLayoutAgent, RngLayoutAgent, "random"],
                             games_per_pairing=2, seed=5, workers=1)
    fixed = format_layout(load_layout(FIXED_LAYOUT))
    checked = 0
    for g in result.games:
        for seat in (0, 1):
            default = format_layout(random_layout(random.Random(layout_seed(g.seed, seat))))
            if g.labels[seat] == "fixed-layout":
                assert (g.layout_sources[seat], g.layouts[seat]) == ("agent", fixed)
            elif g.labels[seat] == "rng-layout":
                # rng = random.Random(layout_seed(seed, seat)): the seat's default stream.
                assert (g.layout_sources[seat], g.layouts[seat]) == ("agent", default)
            else:
                assert (g.layout_sources[seat], g.layouts[seat]) == ("random", default)
            checked += 1
    assert checked == 12


# ---------------------------------------------------------------------- records and replay


@pytest.fixture(scope="module")
def written_runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("arena")
    runs = {
        "tbw": run_round_robin("tbw", ["greedy", "random"], games_per_pairing=2, workers=1),
        "junqi": run_round_robin("junqi", ["random", "random"], games_per_pairing=2, workers=1),
    }
    return {game: result.write(out / game, command="test") for game, result in runs.items()}


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_every_record_replays_and_verifies(written_runs, game):
    records = replay_cli.load_records(written_runs[game]["games.jsonl"])
    assert len(records) == 2 and {r["game"] for r in records} == {game}
    assert replay_cli.verify_records(records) == []
    final = replay_cli.replay(records[0])
    assert final.is_terminal() and list(final.returns()) == records[0]["result"]["returns"]
    if game == "junqi":
        assert all(len(r["start"]["layouts"]) == 2 for r in records)


@pytest.mark.parametrize(("tamper", "message"), [
    (lambda r: r["result"].update(end_reason="flag_captured_twice"), "end_reason differs"),
    (lambda r: r["result"].update(returns=[r["result"]["returns"][1], 7]), "returns differs"),
    (lambda r: r["actions"].pop(), "not over"),
    (lambda r: r["actions"].append(r["actions"][-1]), "the game ended after"),
    (lambda r: r["actions"].__setitem__(0, 3599), "ply 1: action 3599"),
])
def test_a_tampered_record_fails_with_a_clear_message(written_runs, tamper, message):
    record = replay_cli.load_records(written_runs["junqi"]["games.jsonl"])[0]
    tamper(record)
    with pytest.raises(replay_cli.ReplayMismatch, match=message):
        replay_cli.replay(record)


def test_replay_cli_verifies_a_file_and_exits_1_on_a_mismatch(written_runs, tmp_path, capsys):
    path = written_runs["tbw"]["games.jsonl"]
    assert replay_cli.main([str(path), "--verify"]) == 0
    assert "verified 2 records" in capsys.readouterr().out
    records = replay_cli.load_records(path)
    records[1]["result"]["plies"] += 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert replay_cli.main([str(bad), "--verify"]) == 1
    captured = capsys.readouterr()
    assert "1 mismatch" in captured.out and "record 1" in captured.err
    assert "plies differs" in captured.err


def test_replay_cli_renders_text_and_writes_a_gif(written_runs, tmp_path, capsys):
    path = written_runs["tbw"]["games.jsonl"]
    assert replay_cli.main([str(path), "--game-index", "-1", "--text", "--every", "10"]) == 0
    out = capsys.readouterr().out
    assert "--- ply 10" in out and "final position" in out and "game over" in out
    gif = tmp_path / "game.gif"
    assert replay_cli.main([str(path), "--game-index", "0", "--gif", str(gif), "--every",
                            "8"]) == 0
    assert gif.read_bytes()[:6] in (b"GIF87a", b"GIF89a")


# ---------------------------------------------------------------------- arena CLI


def test_arena_cli_writes_every_file(tmp_path, capsys):
    out = tmp_path / "junqi-run"
    assert arena_cli.main(["--game", "junqi", "--agents", "random", "random", "--games", "2",
                           "--workers", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    for heading in ("Pairings", "Ratings", "How games ended", "Thinking time", "final board"):
        assert heading in printed
    for name in ("results.json", "games.csv", "pairings.csv", "ratings.csv", "games.jsonl"):
        assert (out / name).stat().st_size > 0
    assert (out / "arena.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    results = json.loads((out / "results.json").read_text())
    assert results["command"].endswith("--out " + str(out))
    assert results["games"] == 2 and results["rules"] == "ccgc"
    assert [a["agent"] for a in results["ratings"]["agents"]] == ["random", "random (2)"]
    assert len((out / "games.csv").read_text().splitlines()) == 3
    assert len((out / "pairings.csv").read_text().splitlines()) == 3


def test_arena_cli_picks_the_games_to_run():
    parser = arena_cli.build_parser()

    def games(*argv):
        return arena_cli.games_to_run(parser.parse_args(list(argv)))

    assert games() == ["tbw", "junqi"]
    assert games("--agents", "greedy", "random") == ["tbw"]
    assert games("--rules", "jj") == ["junqi"]
    assert games("--game", "junqi", "--agents", "random") == ["junqi"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--game", "tbw", "--agents", "minimax"], "unknown agent 'minimax'"),
    (["--game", "junqi", "--agents", "exact", "random"], "does not play junqi"),
    (["--games", "0"], "--games: must be at least 1"),
    (["--workers", "0"], "--workers: must be at least 1"),
    (["--opening-plies", "-2"], "--opening-plies: must be at least 0"),
    (["--games", "two"], "--games: expected a whole number"),
    (["--game", "tbw", "--scenario", "no_such_map"], "no_such_map"),
])
def test_arena_cli_rejects_bad_input_with_argparse_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        arena_cli.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
