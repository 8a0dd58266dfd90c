"""``scripts/bench/bench_oep.py`` runs and prints a row per scenario (small budgets; its figures
are in docs/)."""

from __future__ import annotations

from scripts.bench import bench_oep


def test_bench_oep_prints_a_row_per_scenario(capsys):
    assert bench_oep.main(["--scenarios", "duel_5v5_8x8", "hex_skirmish", "--states", "1",
                           "--seconds", "0.05"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == ["duel_5v5_8x8", "hex_skirmish"]
    assert all(row.rstrip().endswith("/1 |") for row in rows)  # reached the exact value: k/1
