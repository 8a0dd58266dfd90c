"""``scripts/research/eval_beliefs.py``: the trackers scored on random play and on recorded arena
games, written as JSON; the views it scores are those of the games it reads (the scoring itself
is tested in tests/agents/junqi/test_belief_scoring.py)."""

from __future__ import annotations

import json
import math

import pytest

from agents.cli import arena as arena_cli
from agents.junqi.belief import BELIEFS
from agents.junqi.belief.opponent_model import MODEL_FEATURES
from agents.junqi.belief.scoring import reading_seats
from scripts.research import eval_beliefs


def _check_block(block: dict) -> None:
    assert set(block["trackers"]) == set(BELIEFS)
    for summary in block["trackers"].values():
        assert math.isfinite(summary["log_loss"]) and summary["log_loss"] > 0.0
    reduction = block["model_vs_count"]
    low, high = reduction["ci95"]
    assert low <= reduction["reduction"] <= high
    count, model = block["trackers"]["count"]["log_loss"], block["trackers"]["model"]["log_loss"]
    assert reduction["reduction"] == pytest.approx(1.0 - model / count)


def test_random_play_mode_scores_every_tracker(tmp_path):
    results = eval_beliefs.main(["--games", "3", "--plies", "10", "--timing-views", "1",
                                 "--timing-samples", "2", "--out", str(tmp_path),
                                 "--no-progress"])
    block = results["by_ply"]["10"]
    assert block["games"] == 3 and block["views"] == 6
    _check_block(block)
    written = json.loads((tmp_path / "eval_ccgc_g3_s0.json").read_text())
    assert written["by_ply"]["10"]["trackers"] == json.loads(json.dumps(block["trackers"]))
    assert written["command"].startswith("python scripts/research/eval_beliefs.py --games 3")


def test_recorded_games_are_replayed_and_scored_on_their_true_types(tmp_path):
    run = tmp_path / "games"
    assert arena_cli.main(["--game", "junqi", "--agents", "greedy", "random", "--games", "2",
                           "--workers", "1", "--seed", "3", "--out", str(run),
                           "--no-render"]) == 0
    records = [json.loads(line) for line in (run / "games.jsonl").read_text().splitlines()]
    long_enough = sum(1 for record in records if len(record["actions"]) > 6)
    results = eval_beliefs.main(["--games-from", str(run), "--plies", "6", "--timing-views",
                                 "1", "--timing-samples", "2", "--out", str(tmp_path / "out"),
                                 "--no-progress"])
    assert results["games"] == len(records) == 2
    block = results["by_ply"]["6"]
    assert block["games"] == long_enough and block["views"] == 2 * long_enough
    _check_block(block)
    assert (tmp_path / "out" / "eval_games_games.json").is_file()
    # --fit-model fits the model tracker's weights on the same games (both players' moves).
    fit = eval_beliefs.main(["--fit-model", "--games-from", str(run), "--out",
                             str(tmp_path / "out"), "--no-progress"])
    assert fit["features"] == list(MODEL_FEATURES) and fit["games"] == 2
    moves = sum(len(record["actions"]) for record in records)
    assert 0 < fit["choices"] <= moves and fit["mean_nll"] < fit["mean_nll_uniform"]
    written = json.loads((tmp_path / "out" / "fit_model_games.json").read_text())
    assert written["weights"] == fit["weights"]


def test_bad_arguments_are_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        eval_beliefs.main(["--games-from", str(tmp_path / "missing"), "--no-progress"])
    assert "missing" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        eval_beliefs.main(["--model-temperatures", "0", "--no-progress"])
    with pytest.raises(SystemExit):
        eval_beliefs.main(["--fit-model", "--no-progress"])
    assert "--fit-model needs --games-from" in capsys.readouterr().err


def test_pieces_of_scores_only_the_views_reading_that_agents_pieces(tmp_path, capsys):
    run = tmp_path / "games"
    assert arena_cli.main(["--game", "junqi", "--agents", "greedy", "random", "--games", "2",
                           "--workers", "1", "--seed", "4", "--out", str(run),
                           "--no-render"]) == 0
    capsys.readouterr()
    common = ["--games-from", str(run), "--plies", "6", "--timing-views", "1",
              "--timing-samples", "2", "--out", str(tmp_path / "out"), "--no-progress"]
    both = eval_beliefs.main(common)["by_ply"]["6"]
    parts = {label: eval_beliefs.main(common + ["--pieces-of", label])["by_ply"]["6"]
             for label in ("greedy", "random")}
    # Each game has one view facing greedy and one facing random: the two halves make the whole.
    assert [parts[label]["views"] for label in parts] == [both["games"], both["games"]]
    for name in BELIEFS:
        pieces = {label: parts[label]["trackers"][name]["pieces"] for label in parts}
        assert sum(pieces.values()) == both["trackers"][name]["pieces"]
        pooled = sum(parts[label]["trackers"][name]["log_loss"] * pieces[label]
                     for label in parts) / sum(pieces.values())
        assert pooled == pytest.approx(both["trackers"][name]["log_loss"])
    assert (tmp_path / "out" / "eval_games_games_pieces_of_greedy.json").is_file()
    # The views facing greedy are the other seat's: a tracker reads greedy's pieces there.
    records = [json.loads(line) for line in (run / "games.jsonl").read_text().splitlines()]
    assert reading_seats(records, "greedy") == [
        (1 - record["agents"].index("greedy"),) for record in records]


def test_pieces_of_refuses_an_agent_that_played_no_game_and_needs_recorded_games(tmp_path,
                                                                                  capsys):
    run = tmp_path / "games"
    assert arena_cli.main(["--game", "junqi", "--agents", "greedy", "random", "--games", "2",
                           "--workers", "1", "--seed", "4", "--out", str(run),
                           "--no-render"]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit):
        eval_beliefs.main(["--games-from", str(run), "--pieces-of", "ppo:pretrained",
                           "--no-progress", "--out", str(tmp_path / "out")])
    assert "was played by an agent labelled 'ppo:pretrained'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        eval_beliefs.main(["--pieces-of", "greedy", "--no-progress"])
    assert "--pieces-of needs --games-from" in capsys.readouterr().err
