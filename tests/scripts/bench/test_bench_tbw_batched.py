"""``scripts/bench/bench_tbw_batched.py`` prints a row per scenario, backend and batch size, each
measured in a process of its own (tiny batches and times here)."""

from __future__ import annotations

import pytest

from scripts.bench import bench_tbw_batched
from tbw_envs.core.batched import numba_available


def test_bench_prints_a_row_per_scenario_backend_and_size(capsys):
    backends = ["reference", "numba"] if numba_available() else ["reference"]
    assert bench_tbw_batched.main(["--scenario", "paper_figure3", "--num-envs", "2", "5",
                                   "--seconds", "0.01", "--backends", *backends]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()
            if line.startswith("paper_figure3")]
    assert [(row[1], row[2]) for row in rows] == [(b, n) for b in backends for n in ("2", "5")]
    for row in rows:
        assert float(row[3].replace(",", "")) > 0 and int(row[4]) >= 3  # steps/s, batch steps


def test_bench_refuses_a_batch_of_no_games(capsys):
    with pytest.raises(SystemExit):
        bench_tbw_batched.main(["--num-envs", "0"])
    assert "--num-envs: must be positive, got 0" in capsys.readouterr().err
