"""The ladder command (``agents.cli.ladder``): the files and JSON it writes, and its argument
checks."""

from __future__ import annotations

import json

import pytest
import yaml

from agents.cli import ladder as ladder_cli

LADDER = {"game": "junqi", "variant": "ccgc", "games_per_opponent": 2, "opening_plies": 0,
          "seed": 0, "pool": [{"spec": "random", "elo": 1400}, {"spec": "greedy", "elo": 1600}],
          "source": "python scripts/arena.py --game junqi --agents random greedy --games 2"}


@pytest.fixture
def ladder_file(tmp_path):
    path = tmp_path / "ladder.yaml"
    path.write_text(yaml.safe_dump(LADDER), encoding="utf-8")
    return path


def test_ladder_cli_writes_the_games_the_chart_and_the_json(tmp_path, ladder_file, capsys):
    out, rating = tmp_path / "out", tmp_path / "rating.json"
    assert ladder_cli.main(["--game", "junqi", "--agent", "greedy", "--ladder", str(ladder_file),
                            "--workers", "1", "--out", str(out), "--json", str(rating)]) == 0
    data = json.loads(rating.read_text())
    assert set(data) == {"game", "agent", "elo", "elo_low", "elo_high", "games", "scores"}
    assert data["agent"] == "greedy" and data["games"] == 4
    assert data["elo_low"] <= data["elo"] <= data["elo_high"]
    assert set(data["scores"]) == {"random", "greedy"}
    assert sorted(p.name for p in out.iterdir()) == ["games.jsonl", "games.manifest.json",
                                                     "ladder.png"]
    assert "rating:" in capsys.readouterr().out


@pytest.mark.input_contract
@pytest.mark.parametrize("extra, message", [
    (["--agent", "no_such_agent"], "agent #1"),
    (["--agent", "random", "--games", "0"], "--games"),
    (["--agent", "random", "--game", "tbw"], "a ladder of 'junqi'"),
    (["--agent", "random", "--overwrite"], "--overwrite needs"),
])
def test_ladder_cli_rejects_bad_input_before_any_game(tmp_path, ladder_file, capsys, extra,
                                                      message):
    argv = ["--game", "junqi", "--ladder", str(ladder_file), "--out", str(tmp_path / "out"),
            *extra]
    if "--overwrite" in extra:
        argv = ["--game", "junqi", "--ladder", str(ladder_file), *extra]
    with pytest.raises(SystemExit) as caught:
        ladder_cli.main(argv)
    assert caught.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_ladder_cli_refuses_an_existing_json_without_overwrite(tmp_path, ladder_file, capsys):
    existing = tmp_path / "rating.json"
    existing.write_text("{}")
    with pytest.raises(SystemExit):
        ladder_cli.main(["--game", "junqi", "--agent", "random", "--ladder", str(ladder_file),
                         "--json", str(existing)])
    assert "--overwrite" in capsys.readouterr().err and existing.read_text() == "{}"
