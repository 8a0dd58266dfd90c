"""``scripts/bench/bench_render.py`` prints a row per frame it measures (few frames here; its
figures are in docs/benchmarks.md)."""

from __future__ import annotations

import pytest

from scripts.bench import bench_render


def test_bench_render_prints_a_row_per_frame(capsys):
    assert bench_render.main(["--scenarios", "duel_5v5_8x8", "--number", "1",
                              "--repeat", "1"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines()
            if line.startswith("| ") and not line.startswith("| frame")]
    assert [row.split(" | ")[0] for row in rows] == [
        "| TBW `duel_5v5_8x8`", "| Junqi full board", "| Junqi player's view"]
    for row in rows:
        float(row.split(" | ")[1].rstrip(" |"))  # a figure, in ms


def test_bench_render_refuses_zero_frames(capsys):
    with pytest.raises(SystemExit):
        bench_render.main(["--number", "0"])
    assert "--number: must be at least 1, got 0" in capsys.readouterr().err
