"""``scripts/research/tbw_time_keeping.py`` plays every pair, prints a row per agent and refuses
bad arguments (small budgets; its figures are in docs/; the counting itself is tested in
tests/agents/tbw/test_time_keeping.py)."""

from __future__ import annotations

import pytest

from scripts.research import tbw_time_keeping


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
