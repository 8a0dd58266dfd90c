"""``scripts/research/material_trace.py`` prints the three tables of the trace of Junqi records
by the named agent's result, and refuses records, agents and plies it cannot trace, with a
message (the counts are checked in tests/agents/junqi/test_material_trace.py)."""

from __future__ import annotations

import json

import pytest

from agents.arena.records import load_records
from agents.junqi.material_trace import PROBES
from scripts.research import material_trace


def test_the_command_prints_a_table_by_result(opening_runs, capsys):
    records = load_records(opening_runs["junqi"])
    assert material_trace.main([str(opening_runs["junqi"]), "--agent", "greedy",
                                "--plies", "6,2"]) == 0
    out = capsys.readouterr().out
    assert "| agent's result | games | plies (mean) | ply 2 | ply 6 | end |" in out
    assert f"attacks over the {len(records)} games" in out
    assert "| side | hit | games | won | drawn | lost | ply (mean) |" in out
    for side in ("greedy", "its opponent"):
        probe_rows = [line for line in out.splitlines() if line.startswith(f"| {side} | ")
                      and line.split("|")[2].strip() in PROBES]
        assert len(probe_rows) == 3
        assert sum(int(row.split("|")[3]) for row in probe_rows) == len(records)
    rows = [line for line in out.splitlines() if line.startswith(("| won", "| lost", "| drawn"))]
    assert sum(int(row.split("|")[2]) for row in rows) == len(records)


@pytest.mark.parametrize("case, message", [
    ("unknown agent", "agent 'exact' did not play this game"),
    ("tbw record", "only Junqi records can be traced"),
    ("bad plies", "--plies: expected plies as whole numbers"),
    ("negative ply", "--plies: expected plies as whole numbers"),
    ("missing file", "cannot read"),
    ("not json", "not JSON"),
    ("no records", "hold no records"),
    ("illegal action", "is not legal"),
])
def test_bad_input_gets_a_message_not_a_traceback(opening_runs, tmp_path, capsys, case,
                                                  message):
    junqi = str(opening_runs["junqi"])
    argv = {
        "unknown agent": [junqi, "--agent", "exact"],
        "tbw record": [str(opening_runs["tbw"]), "--agent", "greedy"],
        "bad plies": [junqi, "--agent", "greedy", "--plies", "20,x"],
        "negative ply": [junqi, "--agent", "greedy", "--plies", "-3"],
        "missing file": [str(tmp_path / "none.jsonl"), "--agent", "greedy"],
    }.get(case)
    if argv is None:
        path = tmp_path / "records.jsonl"
        if case == "not json":
            path.write_text("{not json\n", encoding="utf-8")
        elif case == "no records":
            path.write_text("\n", encoding="utf-8")
        else:
            record = load_records(junqi)[0]
            record["actions"][-1] = 10**6
            path.write_text(json.dumps(record) + "\n", encoding="utf-8")
        argv = [str(path), "--agent", "greedy"]
    with pytest.raises(SystemExit) as exit_info:
        material_trace.main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
