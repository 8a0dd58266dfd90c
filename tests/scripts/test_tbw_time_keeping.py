"""``scripts/tbw_time_keeping.py`` runs and counts every turn, reads each planner's result to tell
whether its search was cut short, and refuses bad arguments (small budgets; its figures are in
docs/)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from scripts import tbw_time_keeping


def test_cut_short_reads_each_planner_result():
    cut = tbw_time_keeping.cut_short
    assert cut(SimpleNamespace(root_complete=False, complete=True)) is True  # tree first
    assert cut(SimpleNamespace(root_complete=True)) is False
    assert cut(SimpleNamespace(complete=False)) is True  # single-turn search
    assert cut(SimpleNamespace(stopped="time")) is True  # OEP
    assert cut(SimpleNamespace(stopped="converged")) is False
    assert cut(None) is None and cut(SimpleNamespace()) is None  # greedy, random


def test_time_keeping_counts_every_turn(capsys):
    assert tbw_time_keeping.main([
        "--scenario", "duel_5v5_8x8", "--agents", "oep:generations=2,population=6", "greedy",
        "--games", "2", "--opening-plies", "2", "--budget", "30"]) == 0
    out = capsys.readouterr().out
    rows = {line.split("`")[1]: line.split("|") for line in out.splitlines()
            if line.startswith("| `")}
    assert set(rows) == {"oep:generations=2,population=6", "greedy"}
    oep = rows["oep:generations=2,population=6"]
    # columns: agent, turns, mean, longest, over budget, cut short, depth >= 2
    assert int(oep[2]) > 0 and int(oep[5]) == 0  # no turn over 30 s
    assert int(oep[6]) == 0  # a generations budget never stops on the clock
    assert int(rows["greedy"][6]) == 0  # greedy has no search to cut
    assert abs(int(oep[2]) - int(rows["greedy"][2])) <= 2  # turns alternate (2 games)


def test_time_keeping_refuses_bad_arguments():
    with pytest.raises(SystemExit):
        tbw_time_keeping.main(["--games", "0"])
    with pytest.raises(ValueError, match="unknown agent"):
        tbw_time_keeping.main(["--agents", "greedy", "nonsense", "--games", "1"])
