"""``scripts/research/fit_state_value.py``: the state value fitted on recorded arena games,
written as plain YAML that ``load_state_value`` reads back, with how it was made."""

from __future__ import annotations

import hashlib

import pytest
import yaml

from agents.cli import arena as arena_cli
from agents.junqi.state_value import STATE_FEATURES, load_state_value
from scripts.research import fit_state_value


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    run = tmp_path_factory.mktemp("games")
    assert arena_cli.main(["--game", "junqi", "--agents", "greedy", "random", "--games", "4",
                           "--workers", "1", "--seed", "5", "--out", str(run),
                           "--no-render", "--overwrite"]) == 0
    return run


def test_the_fit_is_written_as_data_and_reads_back(games, tmp_path):
    out = tmp_path / "value.yaml"
    report = fit_state_value.main(["--games", str(games), "--test", str(games), "--every", "2",
                                   "--out", str(out)])
    assert report["fit"]["samples"] > 0
    assert report["test"]["samples"] == report["fit"]["samples"]
    assert report["test"]["log_loss"] == pytest.approx(report["fit"]["log_loss"])
    value = load_state_value(out)
    assert value.as_dict() == pytest.approx(report["weights"])
    assert value.scale == pytest.approx(report["scale"])
    made_by = yaml.safe_load(out.read_text())["made_by"]
    digest = hashlib.sha256((games / "games.jsonl").read_bytes()).hexdigest()
    assert made_by["games_sha256"] == {str(games / "games.jsonl"): digest}
    assert made_by["command"].startswith("python scripts/research/fit_state_value.py --games")
    assert "--every 2" in made_by["command"] and list(report["weights"]) == list(STATE_FEATURES)
    # Deterministic: the same games give the same weights.
    again = fit_state_value.main(["--games", str(games), "--every", "2"])
    assert again["weights"] == report["weights"]


def test_a_bad_every_is_refused(games, capsys):
    with pytest.raises(SystemExit):
        fit_state_value.main(["--games", str(games), "--every", "0"])
    assert "--every must be at least 1, got 0" in capsys.readouterr().err
