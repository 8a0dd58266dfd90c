"""``scripts/research/belief_gap.py`` writes the table, ``results.json`` and the chart of a
search played with its belief moved toward the truth, merges runs of one setting, and refuses
what it cannot run (the experiment itself is tested in tests/agents/junqi/test_belief_gap.py)."""

from __future__ import annotations

import json

import pytest

from scripts.research import belief_gap

AGENT = "ismcts:iterations=5"


def test_the_command_writes_a_table_results_and_a_chart(tmp_path, capsys):
    out = tmp_path / "gap"
    assert belief_gap.main(["--agent", AGENT, "--opponent", "random", "--pairs", "1",
                            "--truth", "0", "1", "--seed", "3", "--out", str(out),
                            "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "| share of the truth |" in printed
    data = json.loads((out / "results.json").read_text())
    assert [row["share"] for row in data["rows"]] == [0.0, 1.0]
    for row in data["rows"]:
        assert row["games"] == 2 == row["wins"] + row["draws"] + row["losses"]
        assert row["ci_95"][0] <= row["score"] <= row["ci_95"][1]
    assert data["rows"][1]["log_loss_used"] == 0.0
    assert data["command"].startswith("python scripts/research/belief_gap.py --agent")
    assert data["know"] is None
    assert (out / belief_gap.CHART_NAME).stat().st_size > 0
    known = tmp_path / "known"
    assert belief_gap.main(["--agent", AGENT, "--opponent", "random", "--pairs", "1",
                            "--truth", "1", "--know", "FL", "MA", "--seed", "3",
                            "--out", str(known), "--no-progress"]) == 0
    assert "knowing its opponent's flag, marshal alone" in capsys.readouterr().out
    assert json.loads((known / "results.json").read_text())["know"] == ["flag", "marshal"]


def test_the_command_refuses_an_out_that_is_a_file(tmp_path, capsys):
    path = tmp_path / "taken"
    path.write_text("x", encoding="utf-8")
    with pytest.raises(SystemExit):
        belief_gap.main(["--out", str(path), "--no-progress"])
    assert "is a file; give a folder" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["--agent", "greedy"], "not a Junqi search"),
    (["--agent", "ismcts:iterations=0"], "iterations"),
    (["--opponent", "nobody"], "nobody"),
    (["--truth", "1.5"], "a share is a number in [0, 1]"),
    (["--truth", "half"], "a share is a number in [0, 1]"),
    (["--pairs", "0"], "at least 1"),
    (["--seed", "-3"], "at least 0"),
    (["--know", "flag", "--truth", "0", "0.5"], "--know takes the shares 0 and 1 only"),
    (["--know", "flg"], "unknown piece name 'flg'"),
])
def test_the_command_refuses_what_it_cannot_run(args, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        belief_gap.main(args + ["--no-progress"])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_merge_joins_runs_of_one_setting_and_refuses_others(tmp_path, capsys):
    common = ["--agent", AGENT, "--opponent", "random", "--pairs", "1", "--seed", "3",
              "--no-progress"]
    for name, share in (("a", "0"), ("b", "1")):
        assert belief_gap.main(common + ["--truth", share, "--out", str(tmp_path / name)]) == 0
    assert belief_gap.main(["--merge", str(tmp_path / "b"), str(tmp_path / "a"),
                            "--out", str(tmp_path / "both")]) == 0
    merged = json.loads((tmp_path / "both" / "results.json").read_text())
    single = [json.loads((tmp_path / name / "results.json").read_text())["rows"][0]
              for name in ("a", "b")]
    assert merged["rows"] == single
    assert (merged["agent"], merged["seed"], merged["pairs"]) == (AGENT, 3, 1)
    assert belief_gap.main(common[:-1] + ["--seed", "4", "--truth", "0.5", "--no-progress",
                                          "--out", str(tmp_path / "c")]) == 0
    assert belief_gap.main(common + ["--truth", "1", "--know", "flag",
                                     "--out", str(tmp_path / "k")]) == 0
    capsys.readouterr()
    for folders, message in (([tmp_path / "a", tmp_path / "c"], "played"),
                             ([tmp_path / "a", tmp_path / "k"], "'know': ['flag']"),
                             ([tmp_path / "a", tmp_path / "a"], "played twice"),
                             ([tmp_path / "none"], "cannot read")):
        with pytest.raises(SystemExit):
            belief_gap.main(["--merge", *map(str, folders), "--out", str(tmp_path / "m")])
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit):
        belief_gap.main(["--merge", str(tmp_path / "a")])
    assert "--merge needs --out" in capsys.readouterr().err
