"""``agents.cli.train_rllib`` checks its arguments before Ray is imported or anything runs: every
bad value is named, exits 2, and writes nothing (these run without ray installed); without ray it
names the install command."""

from __future__ import annotations

import pytest

from agents.arena import run_round_robin
from agents.cli import train_rllib
from tests.helpers.ray_marks import HAS_RAY


@pytest.mark.parametrize("argv, message", [
    (["--address", "cluster"], "Ray address must be"),
    (["--iterations", "0"], "--iterations: must be at least 1"),
    (["--num-env-runners", "-1"], "--num-env-runners: must be at least 0"),
    (["--game", "tbw", "--rules", "jj"], "--rules applies to Junqi only; TBW takes --scenario"),
    (["--game", "junqi", "--scenario", "hex_skirmish"],
     "--scenario applies to TBW only; Junqi takes --rules"),
    (["--scenario", "no_such_scenario"], "no_such_scenario"),
    (["--eval-opponent", "no_such_agent"], "no_such_agent"),
])
def test_train_rllib_rejects_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        train_rllib.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.skipif(HAS_RAY, reason="checks the error shown when ray is missing")
def test_missing_ray_gives_an_install_hint(capsys):
    with pytest.raises(SystemExit):
        train_rllib.main(["--iterations", "1"])
    assert "pip install" in capsys.readouterr().err
    with pytest.raises(ImportError, match="rllib"):
        run_round_robin("tbw", ["random"], games_per_pairing=2, ray_address="local")


BAD = [
    (["--lr", "nan"], "--lr"), (["--lr", "-1"], "--lr"), (["--lr", "0"], "--lr"),
    (["--gamma", "5"], "--gamma"), (["--entropy-coeff", "inf"], "--entropy-coeff"),
    (["--num-env-runners", "100000"], "--num-env-runners"),
    (["--num-envs-per-env-runner", "0"], "--num-envs-per-env-runner"),
    (["--threads", "100000"], "--threads"), (["--seed", "-3"], "--seed"),
    (["--iterations", "2.5"], "--iterations"), (["--hidden", "0"], "--hidden"),
    (["--out", ""], "--out"), (["--scenario", " "], "--scenario"),
    (["--minibatch-size", "500", "--train-batch-size", "100"], "--minibatch-size"),
    (["--game", "junqi", "--scenario", "duel_5v5_8x8"], "--scenario"),
    (["--rules", "no_such_rules"], "no_such_rules"),
    (["--eval-opponent", "nobody"], "nobody"),
]


@pytest.mark.input_contract
@pytest.mark.parametrize("argv, words", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_arguments_are_named_before_anything_runs(argv, words, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        train_rllib.main(argv)
    assert exit_info.value.code == 2
    assert words in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.input_contract
def test_an_existing_out_folder_with_files_is_kept(tmp_path, capsys):
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(SystemExit):
        train_rllib.main(["--out", str(tmp_path)])
    assert "not an empty folder" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]
