"""``scripts/bench/bench_selfplay.py`` prints a row per game, network and thread count, with its
multiple of MaskablePPO's rate measured in the same run (tiny sizes here; MaskablePPO's child
process, about 15 s, under ``slow``)."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (the train extra)")
pytest.importorskip("numba", reason="numba not installed (the fast extra)")

from scripts.bench import bench_selfplay  # noqa: E402

TINY = ["--nets", "tiny", "--updates", "1", "--envs", "8", "--rollout-steps", "4",
        "--minibatch", "16"]


def rows_of(out: str, game: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.split("|")[1:-1]] for line in out.splitlines()
            if line.startswith(f"| {game} |")]


def test_bench_prints_a_row_per_game_net_and_thread_count(capsys):
    assert bench_selfplay.main(["--games", "junqi", "tbw", "--threads", "1", "2", *TINY,
                                "--ppo-steps", "0"]) == 0
    out = capsys.readouterr().out
    for game in ("junqi", "tbw"):
        rows = rows_of(out, game)
        assert [(row[1], row[2]) for row in rows] == [("tiny", "1"), ("tiny", "2")]
        assert all(int(row[3].replace(",", "")) > 0 and row[4] == "" for row in rows)


@pytest.mark.slow
def test_bench_gives_each_rate_as_a_multiple_of_maskable_ppo(capsys):
    assert bench_selfplay.main(["--games", "junqi", "--threads", "1", *TINY,
                                "--ppo-steps", "64"]) == 0
    out = capsys.readouterr().out
    (row,) = rows_of(out, "junqi")
    assert row[4].endswith("x") and float(row[4][:-1]) > 0
    assert "MaskablePPO junqi-cnn:" in out
