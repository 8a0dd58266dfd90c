"""``agents.cli.reproduce_table2`` sets the paper's Table 2 figures beside the measured ones."""

from __future__ import annotations

from agents.tbw import table2
from tests.helpers.tbw_table2 import (
    TABLE_2_D_OPS1,
    TABLE_2_D_OPS1_ESTIMATE,
    TABLE_2_OPS1,
    two_figures,
)


def test_reproduce_table2_sets_the_papers_figures_beside_ours(monkeypatch, capsys):
    """scripts/reproduce_table2.py's "paper" columns are Table 2 as printed (the module's tables
    are what the script shows). The search is faked with the paper's own figures, so every case
    must come out as a match; the real counts are checked above."""
    import json
    from types import SimpleNamespace

    from agents.cli import reproduce_table2 as script

    assert table2.PAPER_OPS1 == TABLE_2_OPS1
    assert table2.PAPER_D_OPS1 == TABLE_2_D_OPS1
    assert table2.PAPER_D_OPS1_ESTIMATE == TABLE_2_D_OPS1_ESTIMATE

    def fake_plan(case, algorithm, kernel):
        ops1 = TABLE_2_OPS1[case][("alg2", "alg5").index(algorithm)]
        return SimpleNamespace(ops1=ops1, leaves=0, kernel="fake", seconds=0.0)

    monkeypatch.setattr(script, "table2_state", lambda n, m, kind: (n, m, kind))
    monkeypatch.setattr(script, "plan_turn", fake_plan)
    assert script.main(["--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ops1_figures_matched"] == report["ops1_figures"] == 24
    seen = set()
    for row in report["rows"]:
        case = (row["units"], row["movement"], row["placement"])
        seen.add(case)
        assert row["match"]
        assert (row["paper_alg2_ops1"], row["paper_alg5_ops1"]) == TABLE_2_OPS1[case]
        assert row["paper_d_ops1_percent"] == TABLE_2_D_OPS1[case]
        assert two_figures(row["d_ops1_percent"]) == TABLE_2_D_OPS1[case]
        assert row["paper_estimate_percent"] == TABLE_2_D_OPS1_ESTIMATE[row["movement"]]
        assert two_figures(row["estimate_eq11_percent"]) == row["paper_estimate_percent"]
    assert seen == set(TABLE_2_OPS1)
    # The compact placements the script names are the ones found for Figure 10.
    assert report["compact_placements"] == {"3": [[0, 0], [0, 1], [1, 0]],
                                            "4": [[0, 0], [0, 1], [1, 0], [1, 1]]}
