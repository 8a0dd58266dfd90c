"""``scripts/research/train_value_net.py``: the value network trained on recorded arena games,
written as an ``.npz`` that ``load_value_net`` reads back with how it was made; seeded and
resumable (the samples and the network: tests/agents/junqi/test_value_net_training.py)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from agents.cli import arena as arena_cli
from agents.junqi.value_net import SHIPPED_NAME, load_value_net

pytest.importorskip("torch", reason="torch is not installed (the train extra)")
from scripts.research import train_value_net  # noqa: E402


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    run = tmp_path_factory.mktemp("games")
    assert arena_cli.main(["--game", "junqi", "--agents", "greedy", "greedy:weights=tuned",
                           "--games", "8",
                           "--workers", "1", "--seed", "5", "--out", str(run),
                           "--no-render", "--overwrite"]) == 0
    return run


def train(games, folder, *extra):
    return train_value_net.main(["--games", str(games), "--dir", str(folder), "--hidden", "4",
                                 "--validation", "0.3", "--seed", "1", "--lr", "0.02", *extra])


def test_training_writes_the_network_with_its_provenance_and_curves(games, tmp_path):
    report = train(games, tmp_path / "a", "--epochs", "2", "--lookahead", "4")
    net = load_value_net(tmp_path / "a" / SHIPPED_NAME)
    assert net.hidden == 4 and net.scale > 0
    digest = hashlib.sha256((games / "games.jsonl").read_bytes()).hexdigest()
    assert net.metadata["games_sha256"] == {str(games / "games.jsonl"): digest}
    assert net.metadata["command"].startswith("python scripts/research/train_value_net.py ")
    assert "--lookahead 4" in net.metadata["command"] and net.metadata["seed"] == 1
    assert report["best_epoch"] in (1, 2) and report["samples"]["validation"] > 0
    assert (tmp_path / "a" / "learning_curve.png").stat().st_size > 0
    assert len((tmp_path / "a" / "history.csv").read_text().splitlines()) == 3


def test_a_resumed_run_ends_where_an_unbroken_one_does(games, tmp_path):
    train(games, tmp_path / "whole", "--epochs", "3")
    train(games, tmp_path / "split", "--epochs", "1")
    with pytest.raises(SystemExit):  # a second start without --resume is refused
        train(games, tmp_path / "split", "--epochs", "3")
    train(games, tmp_path / "split", "--epochs", "3", "--resume")
    assert (tmp_path / "whole" / "history.csv").read_text() == \
        (tmp_path / "split" / "history.csv").read_text()
    whole = load_value_net(tmp_path / "whole" / SHIPPED_NAME)
    split = load_value_net(tmp_path / "split" / SHIPPED_NAME)
    for name, array in whole.arrays().items():
        np.testing.assert_array_equal(getattr(split, name), array)


@pytest.mark.parametrize("args, message", [
    (["--lookahead", "3"], "--lookahead must be a non-negative multiple of --every, got 3"),
    (["--hidden", "0"], "--hidden must be at least 1, got 0"),
    (["--validation", "1"], "--validation must be in (0, 1), got 1.0"),
])
def test_bad_options_are_refused(games, tmp_path, capsys, args, message):
    with pytest.raises(SystemExit):
        train(games, tmp_path / "bad", *args)
    assert message in capsys.readouterr().err
