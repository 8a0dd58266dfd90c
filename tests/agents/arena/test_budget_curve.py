"""Rating against budget (``agents.arena.budget_curve``, ``scripts/budget_curve.py``): specs split
into families and budgets, the slopes and steps against hand-computed cases, the head-to-head
against ``wilson_interval``, the figure read back from its artists, the markdown table, the
command line, every error, and one real round robin charted end to end."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from agents.arena.budget_curve import (
    DODGE,
    FAMILY_GID,
    LEGEND_WIDTH,
    REFERENCE_GID,
    budget_figure,
    budget_table,
    budget_value,
    dodge,
    load_budget_run,
    plot_budget_curves,
    split_budget,
    summary_json,
)
from agents.arena.stats import wilson_interval
from agents.cli import arena as arena_cli
from agents.cli import budget_curve as budget_cli

PNG = b"\x89PNG\r\n\x1a\n"


def write_run(folder: Path, agents, pairings=(), game="junqi", variant="ccgc",
              games_per_pairing=10, drop=()) -> Path:
    """A results.json shaped like the arena's. ``agents``: ``(label, spec, elo, low, high)``
    (spec None: the label); ``pairings``: ``(first, second, (wins, draws, losses) of first)``."""
    folder.mkdir(parents=True, exist_ok=True)
    flag = {"junqi": "rules", "tbw": "scenario"}[game]

    def record(agent, wdl):
        wins, draws, losses = wdl
        games = wins + draws + losses
        score = (wins + 0.5 * draws) / games
        return {"agent": agent, "as_player_0": {"wins": 0, "draws": 0, "losses": 0},
                "as_player_1": {"wins": wins, "draws": draws, "losses": losses},
                "total": {"wins": wins, "draws": draws, "losses": losses}, "score": score,
                "ci_95": list(wilson_interval(wins + 0.5 * draws, games))}

    labels = [a[0] for a in agents]
    data = {
        "command": "python scripts/arena.py ...", "game": game, flag: variant, "seed": 0,
        "games_per_pairing": games_per_pairing, "opening_plies": 0, "games": 0, "workers": 1,
        "wall_seconds": 1.0,
        "agents": [{"label": label, "spec": spec or label}
                   for label, spec, *_ in agents],
        "pairings": [{"agents": [a, b], "games": sum(wdl),
                      "records": [record(a, wdl), record(b, wdl[::-1])]}
                     for a, b, wdl in pairings],
        "score_matrix": {"agents": labels, "score": [], "games": []},
        "ratings": {"model": "Bradley-Terry", "scale": "Elo", "interval": "bootstrap",
                    "agents": [{"agent": label, "elo": elo, "low": low, "high": high,
                                "games": 20, "score": 0.5}
                               for label, _, elo, low, high in agents]},
        "repeated_pairings": [], "end_reasons": {}, "timing": [], "files": {},
    }
    for key in drop:
        del data[key]
    path = folder / "results.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return folder


JUNQI_AGENTS = [
    ("ismcts:iterations=25", None, 1400.0, 1350.0, 1450.0),
    ("ismcts:iterations=100", None, 1500.0, 1460.0, 1540.0),
    ("ismcts:iterations=400", None, 1650.0, 1600.0, 1700.0),
    ("ucbmcts:weights=tuned,iterations=50", None, 1450.0, 1400.0, 1500.0),
    ("ucbmcts:iterations=200,weights=tuned", None, 1520.0, 1480.0, 1560.0),
    ("greedy:weights=tuned", None, 1480.0, 1440.0, 1520.0),
]
JUNQI_PAIRINGS = [
    # the larger budget second in the pairing: its record is the mirror
    ("ismcts:iterations=25", "ismcts:iterations=400", (1, 2, 7)),
    ("ismcts:iterations=25", "ismcts:iterations=100", (3, 0, 7)),
    ("ucbmcts:weights=tuned,iterations=50", "greedy:weights=tuned", (5, 0, 5)),
]


@pytest.fixture
def junqi_run(tmp_path):
    return write_run(tmp_path / "junqi", JUNQI_AGENTS, JUNQI_PAIRINGS)


# ---------------------------------------------------------------------- specs and families


@pytest.mark.parametrize(("spec", "expected"), [
    ("ismcts:iterations=25", ("ismcts", "iterations", "25")),
    ("ucbmcts:iterations=50,weights=tuned", ("ucbmcts:weights=tuned", "iterations", "50")),
    ("ucbmcts: weights = tuned , iterations = 50", ("ucbmcts:weights=tuned", "iterations",
                                                    "50")),
    ("tree:solves=8", ("tree", "solves", "8")),
    ("oep:generations=2,weights=tuned", ("oep:weights=tuned", "generations", "2")),
    # the first budget key in BUDGET_KEYS' order, whatever the spec's order
    ("x:generations=3,iterations=5", ("x:generations=3", "iterations", "5")),
    ("x:solves=3,generations=5", ("x:generations=5", "solves", "3")),
    ("ppo:path='a,b.zip',iterations=4", ('ppo:path="a,b.zip"', "iterations", "4")),
    ("ppo:pretrained,iterations=4", ("ppo:pretrained", "iterations", "4")),
    ("greedy:weights=tuned", ("greedy:weights=tuned", None, None)),
    ("random", ("random", None, None)),
])
def test_split_budget(spec, expected):
    assert split_budget(spec) == expected


def test_budget_values():
    assert budget_value("25") == 25 and isinstance(budget_value("25"), int)
    assert budget_value("2.5") == 2.5
    for text in ("0", "-4", "lots", "nan", "inf", None):
        assert budget_value(text) is None


def test_families_and_references(junqi_run):
    run = load_budget_run(junqi_run)
    assert run.game == "junqi" and run.variant_flag == "rules" and run.variant == "ccgc"
    assert run.title() == "junqi: rules ccgc, 10 games per pairing"
    assert run.path == junqi_run / "results.json"
    assert [(f.name, f.key, f.budgets) for f in run.families] == [
        ("ismcts", "iterations", [25, 100, 400]),
        # the parameters' order does not split a family
        ("ucbmcts:weights=tuned", "iterations", [50, 200]),
    ]
    assert [f.label for f in run.families] == ["ismcts (iterations)",
                                               "ucbmcts:weights=tuned (iterations)"]
    assert [p.agent for p in run.families[1].points] == [
        "ucbmcts:weights=tuned,iterations=50", "ucbmcts:iterations=200,weights=tuned"]
    assert [(r.agent, r.elo, r.low, r.high) for r in run.references] == [
        ("greedy:weights=tuned", 1480.0, 1440.0, 1520.0)]
    # the same run given as its results.json
    assert load_budget_run(junqi_run / "results.json").families[0].budgets == [25, 100, 400]


def test_points_are_sorted_and_a_lone_budget_is_a_reference(tmp_path):
    folder = write_run(tmp_path / "tbw", [
        ("tree:solves=32", None, 1700.0, 1650.0, 1750.0),
        ("tree:solves=2", None, 1500.0, 1450.0, 1550.0),
        ("tree:solves=8", None, 1600.0, 1550.0, 1650.0),
        ("oep:generations=8", None, 1550.0, 1500.0, 1600.0),
        ("greedy", None, 1000.0, None, None),
    ], game="tbw", variant="duel_5v5_8x8")
    run = load_budget_run(folder)
    assert run.title() == "tbw: scenario duel_5v5_8x8, 10 games per pairing"
    assert [(f.name, f.key) for f in run.families] == [("tree", "solves")]
    assert [(p.budget, p.elo) for p in run.families[0].points] == [(2, 1500.0), (8, 1600.0),
                                                                 (32, 1700.0)]
    assert [r.agent for r in run.references] == ["greedy", "oep:generations=8"]
    assert math.isnan(run.references[0].low) and math.isnan(run.references[0].high)
    assert run.families[0].head_to_head is None  # 32 and 2 never played here


def test_labels_are_read_through_their_specs(tmp_path):
    """A duplicate label ("random (2)") or a user's label is parsed by its spec."""
    folder = write_run(tmp_path / "run", [
        ("fast", "mcts:iterations=2", 1450.0, 1400.0, 1500.0),
        ("slow", "mcts:iterations=8", 1550.0, 1500.0, 1600.0),
        ("random", None, 1500.0, 1450.0, 1550.0),
        ("random (2)", "random", 1500.0, 1450.0, 1550.0),
    ])
    run = load_budget_run(folder)
    assert [(p.agent, p.budget) for p in run.families[0].points] == [("fast", 2), ("slow", 8)]
    assert [r.agent for r in run.references] == ["random", "random (2)"]


# ---------------------------------------------------------------------- the numbers


def test_elo_per_4x_and_steps_by_hand(junqi_run):
    ismcts, ucbmcts = load_budget_run(junqi_run).families
    # log4 budgets 25, 100, 400 -> centred -1, 0, 1; Elo 1400, 1500, 1650 (mean 1516.67):
    # slope = (116.67 + 133.33) / 2 = 125
    assert ismcts.elo_per_step() == pytest.approx(125.0)
    assert ismcts.steps() == [(25, 100, pytest.approx(100.0)), (100, 400, pytest.approx(150.0))]
    # two budgets 50 and 200: one 4x step, the slope is its gain
    assert ucbmcts.elo_per_step() == pytest.approx(70.0)
    assert ucbmcts.steps() == [(50, 200, pytest.approx(70.0))]


def test_only_steps_with_both_ends_count(tmp_path):
    folder = write_run(tmp_path / "run", [
        ("mcts:iterations=25", None, 1400.0, 1350.0, 1450.0),
        ("mcts:iterations=50", None, 1440.0, 1390.0, 1490.0),
        ("mcts:iterations=100", None, 1500.0, 1450.0, 1550.0),
        ("mcts:iterations=800", None, 1700.0, 1650.0, 1750.0),
    ])
    family = load_budget_run(folder).families[0]
    assert [(a, b) for a, b, _ in family.steps()] == [(25, 100)]
    # log4 budgets 0, 0.5, 1, 2.5 (from 25): least squares by hand
    x = [0.0, 0.5, 1.0, 2.5]
    y = [1400.0, 1440.0, 1500.0, 1700.0]
    mx, my = sum(x) / 4, sum(y) / 4
    slope = (sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
             / sum((a - mx) ** 2 for a in x))
    assert family.elo_per_step() == pytest.approx(slope)
    # centred: x -1, -0.5, 0, 1.5; Elo -110, -70, -10, +190 -> 430 / 3.5
    assert family.elo_per_step() == pytest.approx(430 / 3.5)


def test_largest_against_smallest_with_wilson(junqi_run):
    ismcts, ucbmcts = load_budget_run(junqi_run).families
    h2h = ismcts.head_to_head
    # 25 v 400 was (1, 2, 7) for 25: 400 won 7, drew 2, lost 1
    assert (h2h.larger, h2h.smaller) == ("ismcts:iterations=400", "ismcts:iterations=25")
    assert (h2h.wins, h2h.draws, h2h.losses, h2h.games) == (7, 2, 1, 10)
    assert h2h.score == pytest.approx(0.8)
    assert h2h.interval == pytest.approx(wilson_interval(8.0, 10))
    assert ucbmcts.head_to_head is None


def test_summary_json(junqi_run):
    data = summary_json([load_budget_run(junqi_run)])
    json.dumps(data, allow_nan=False)  # no NaN: strict JSON
    run = data["runs"][0]
    assert run["game"] == "junqi" and run["rules"] == "ccgc"
    ismcts = run["families"][0]
    assert ismcts["family"] == "ismcts" and ismcts["budget_key"] == "iterations"
    assert [p["budget"] for p in ismcts["points"]] == [25, 100, 400]
    assert ismcts["elo_per_4x"] == pytest.approx(125.0)
    assert [s["from"] for s in ismcts["steps_4x"]] == [25, 100]
    versus = ismcts["largest_vs_smallest"]
    assert (versus["wins"], versus["draws"], versus["losses"]) == (7, 2, 1)
    assert versus["ci_95"] == pytest.approx(list(wilson_interval(8.0, 10)))
    assert run["families"][1]["largest_vs_smallest"] is None
    assert [r["agent"] for r in run["references"]] == ["greedy:weights=tuned"]


# ---------------------------------------------------------------------- the table


def test_markdown_table(junqi_run):
    table = budget_table([load_budget_run(junqi_run)])
    lines = table.splitlines()
    assert lines[0] == "## junqi: rules ccgc, 10 games per pairing"
    assert "| ismcts | iterations | ismcts:iterations=400 | 400 | 1650 | [1600, 1700] | 20 | " \
           "0.500 |" in lines
    assert "| (reference) |  | greedy:weights=tuned |  | 1480 | [1440, 1520] | 20 | 0.500 |" \
           in lines
    low, high = wilson_interval(8.0, 10)
    assert (f"| ismcts | iterations | 25 100 400 | +125 | 25->100: +100; 100->400: +150 | "
            f"400 v 25 | 7-2-1 | 0.800 | [{low:.3f}, {high:.3f}] |") in lines
    assert ("| ucbmcts:weights=tuned | iterations | 50 200 | +70 | 50->200: +70 | 200 v 50 | "
            "not played |  |  |") in lines
    # every table row has as many cells as its header
    for block in table.split("\n\n"):
        rows = [line for line in block.splitlines() if line.startswith("|")]
        assert len({line.count(" | ") for line in rows if "---" not in line}) <= 1


def test_the_table_warns_about_few_seeds_and_unknown_intervals(tmp_path):
    folder = write_run(tmp_path / "run", [
        ("mcts:iterations=2", None, 1450.0, None, None),
        ("mcts:iterations=8", None, 1550.0, None, None),
    ], games_per_pairing=2)
    table = budget_table([load_budget_run(folder)])
    assert "fewer than 5 paired seeds" in table
    assert "| mcts | iterations | mcts:iterations=2 | 2 | 1450 | n/a | 20 | 0.500 |" in table


# ---------------------------------------------------------------------- the figure


def family_lines(ax):
    return [line for line in ax.get_lines() if line.get_gid() == FAMILY_GID]


def reference_lines(ax):
    return [line for line in ax.get_lines() if line.get_gid() == REFERENCE_GID]


def test_the_figure_has_one_line_per_family_on_a_log2_axis(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    folder = write_run(tmp_path / "run", [
        ("ismcts:iterations=25", None, 1400.0, 1350.0, 1450.0),
        ("ismcts:iterations=100", None, 1500.0, 1460.0, 1540.0),
        ("ismcts:iterations=400", None, 1650.0, 1600.0, 1700.0),
        ("mcts:iterations=50", None, 1300.0, 1250.0, 1350.0),
        ("mcts:iterations=200", None, 1450.0, 1400.0, 1500.0),
        ("greedy:weights=tuned", None, 1480.0, 1440.0, 1520.0),
    ])
    run = load_budget_run(folder)
    fig = budget_figure([run])
    try:
        (ax,) = fig.axes
        assert ax.get_title() == run.title()
        assert ax.get_xscale() == "log" and ax.xaxis.get_transform().base == 2
        ticks = [25, 50, 100, 200, 400]
        assert list(ax.get_xticks()) == ticks
        assert [t.get_text() for t in ax.get_xticklabels()] == [str(t) for t in ticks]
        assert len(ax.xaxis.get_minorticklocs()) == 0
        assert "iterations" in ax.get_xlabel()
        lines = family_lines(ax)
        assert [line.get_label() for line in lines] == ["ismcts (iterations)",
                                                        "mcts (iterations)"]
        # no budget shared between the families: no dodge, the points sit on their budgets
        assert list(lines[0].get_xdata()) == [25, 100, 400]
        assert list(lines[0].get_ydata()) == [1400.0, 1500.0, 1650.0]
        assert list(lines[1].get_xdata()) == [50, 200]
        assert list(lines[1].get_ydata()) == [1300.0, 1450.0]
        (reference,) = reference_lines(ax)
        assert reference.get_label() == "greedy:weights=tuned (reference)"
        assert reference.get_linestyle() == "--" and set(reference.get_ydata()) == {1480.0}
        # the error bars span the intervals
        spans = sorted(tuple(segment[:, 1]) for collection in ax.collections
                       for segment in collection.get_segments())
        assert (1350.0, 1450.0) in spans and (1600.0, 1700.0) in spans
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert legend == ["ismcts (iterations)", "mcts (iterations)",
                          "greedy:weights=tuned (reference)"]
    finally:
        plt.close(fig)


def test_families_that_share_budgets_are_dodged_apart(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    folder = write_run(tmp_path / "tbw", [
        ("tree:solves=2", None, 1500.0, 1450.0, 1550.0),
        ("tree:solves=8", None, 1600.0, 1550.0, 1650.0),
        ("oep:generations=2", None, 1450.0, 1400.0, 1500.0),
        ("oep:generations=8", None, 1520.0, 1480.0, 1560.0),
    ], game="tbw", variant="duel_5v5_8x8")
    run = load_budget_run(folder)
    assert [dodge(run, i) for i in (0, 1)] == [-DODGE / 2, DODGE / 2]
    fig = budget_figure([run, run])
    try:
        first, second = fig.axes
        assert first.get_title() == second.get_title() == run.title()
        tree, oep = family_lines(first)
        assert tree.get_label() == "tree (solves)" and oep.get_label() == "oep (generations)"
        assert list(tree.get_xdata()) == pytest.approx([2 * 2 ** (-DODGE / 2),
                                                        8 * 2 ** (-DODGE / 2)])
        assert list(oep.get_xdata()) == pytest.approx([2 * 2 ** (DODGE / 2),
                                                       8 * 2 ** (DODGE / 2)])
        assert [t.get_text() for t in first.get_xticklabels()] == ["2", "8"]
        assert first.get_xlabel().startswith("budget (solves / generations)")
    finally:
        plt.close(fig)


def test_long_legend_entries_wrap_between_tokens(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    long = "ucbmcts:weights=tuned,exploration=1.4,rollout=greedy"
    folder = write_run(tmp_path / "run", [
        (f"{long},iterations=50", None, 1400.0, 1350.0, 1450.0),
        (f"{long},iterations=200", None, 1600.0, 1550.0, 1650.0),
    ])
    fig = budget_figure([load_budget_run(folder)])
    try:
        (entry,) = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        lines = entry.split("\n")
        assert lines == ["ucbmcts:weights=tuned,", "exploration=1.4,rollout=greedy",
                         "(iterations)"]
        assert all(len(line) <= LEGEND_WIDTH for line in lines)
    finally:
        plt.close(fig)


def test_plot_budget_curves_writes_a_png(junqi_run, tmp_path):
    pytest.importorskip("matplotlib")
    path = plot_budget_curves([load_budget_run(junqi_run)], tmp_path / "curve.png")
    assert path.read_bytes()[:8] == PNG


# ---------------------------------------------------------------------- errors


def test_a_path_without_results_json(tmp_path):
    with pytest.raises(ValueError, match=r"results\.json: no results\.json here") as info:
        load_budget_run(tmp_path)
    assert str(tmp_path) in str(info.value)
    with pytest.raises(ValueError, match="no results.json here"):
        load_budget_run(tmp_path / "missing" / "results.json")


@pytest.mark.parametrize(("drop", "message"), [
    ("ratings", "no ratings"),
    ("pairings", "no pairings"),
])
def test_a_results_json_without_ratings_or_pairings(tmp_path, drop, message):
    folder = write_run(tmp_path / "run", JUNQI_AGENTS, drop=(drop,))
    with pytest.raises(ValueError, match=message) as info:
        load_budget_run(folder)
    assert str(folder / "results.json") in str(info.value)


def test_ratings_without_agents_and_bad_json(tmp_path):
    folder = write_run(tmp_path / "run", JUNQI_AGENTS)
    data = json.loads((folder / "results.json").read_text())
    data["ratings"] = {"model": "Bradley-Terry"}
    (folder / "results.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="no ratings"):
        load_budget_run(folder)
    (folder / "results.json").write_text("{not json")
    with pytest.raises(ValueError, match="cannot read it as JSON"):
        load_budget_run(folder)
    (folder / "results.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="not a JSON object"):
        load_budget_run(folder)


def test_a_run_with_no_family_at_two_budgets(tmp_path):
    folder = write_run(tmp_path / "run", [
        ("mcts:iterations=8", None, 1550.0, 1500.0, 1600.0),
        ("ismcts:iterations=8", None, 1500.0, 1450.0, 1550.0),
        ("greedy", None, 1450.0, 1400.0, 1500.0),
    ])
    with pytest.raises(ValueError, match="no search family was rated at two budgets") as info:
        load_budget_run(folder)
    assert str(folder / "results.json") in str(info.value)
    assert "mcts:iterations=8, ismcts:iterations=8, greedy" in str(info.value)


@pytest.mark.parametrize(("agents", "message"), [
    ([("mcts:iterations=0", None, 1500.0, 1450.0, 1550.0)],
     "'mcts:iterations=0': its budget iterations=0 is not a positive number"),
    ([("mcts:iterations=lots", None, 1500.0, 1450.0, 1550.0)], "is not a positive number"),
    ([("a", "mcts:iterations=8", 1500.0, 1450.0, 1550.0),
      ("b", "mcts:iterations=8", 1500.0, 1450.0, 1550.0)],
     "family 'mcts' has iterations=8 twice \\('a' and 'b'\\)"),
    ([("mcts:iterations=8,iterations=9", None, 1500.0, 1450.0, 1550.0)], "given twice"),
    ([("mcts:iterations=8", None, "high", 1450.0, 1550.0)], "a number for its elo"),
])
def test_bad_agents_are_named(tmp_path, agents, message):
    folder = write_run(tmp_path / "run", agents)
    with pytest.raises(ValueError, match=message) as info:
        load_budget_run(folder)
    assert str(folder / "results.json") in str(info.value)


# ---------------------------------------------------------------------- the command line


def test_cli_prints_the_table_and_writes_the_chart_and_json(junqi_run, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    summary = tmp_path / "summary.json"
    assert budget_cli.main([str(junqi_run), "--json", str(summary)]) == 0
    printed = capsys.readouterr().out
    assert "## junqi: rules ccgc" in printed and "| ismcts | iterations | 25 100 400 |" in printed
    assert (junqi_run / "budget_curve.png").read_bytes()[:8] == PNG
    assert json.loads(summary.read_text())["runs"][0]["families"][0]["family"] == "ismcts"


def test_cli_charts_several_runs_into_one_png(junqi_run, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    tbw = write_run(tmp_path / "tbw", [
        ("tree:solves=2", None, 1500.0, 1450.0, 1550.0),
        ("tree:solves=8", None, 1600.0, 1550.0, 1650.0),
    ], game="tbw", variant="duel_5v5_8x8")
    out = tmp_path / "both.png"
    assert budget_cli.main([str(junqi_run), str(tbw / "results.json"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "## junqi: rules ccgc" in printed and "## tbw: scenario duel_5v5_8x8" in printed
    assert out.read_bytes()[:8] == PNG
    assert not (junqi_run / "budget_curve.png").exists()


@pytest.mark.parametrize(("case", "message"), [
    ("missing run", "no results.json here"),
    ("no family", "no search family was rated at two budgets"),
    ("out is a folder", "--out: "),
    ("out folder missing", "--out: the folder"),
    ("json folder missing", "--json: the folder"),
])
def test_cli_refuses_bad_input_and_writes_nothing(junqi_run, tmp_path, capsys, case, message):
    lone = write_run(tmp_path / "lone", [("mcts:iterations=8", None, 1500.0, 1450.0, 1550.0)])
    argv = {
        "missing run": [str(tmp_path / "nowhere")],
        "no family": [str(junqi_run), str(lone)],
        "out is a folder": [str(junqi_run), "--out", str(tmp_path)],
        "out folder missing": [str(junqi_run), "--out", str(tmp_path / "no" / "c.png")],
        "json folder missing": [str(junqi_run), "--json", str(tmp_path / "no" / "s.json")],
    }[case]
    with pytest.raises(SystemExit) as info:
        budget_cli.main(argv)
    assert info.value.code == 2
    assert message in capsys.readouterr().err
    assert not (junqi_run / "budget_curve.png").exists()


# ---------------------------------------------------------------------- end to end


def test_a_real_round_robin_charted_end_to_end(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "arena"
    # Junqi drawn at 150 plies: the same results as full games here (mcts:iterations=4 wins
    # both games against iterations=1), in under half the time of the MCTS rollouts.
    rules = tmp_path / "short.yaml"
    rules.write_text("total_ply_limit: 150\n", encoding="utf-8")
    assert arena_cli.main(["--game", "junqi", "--rules", str(rules), "--agents",
                           "mcts:iterations=1", "mcts:iterations=4", "random", "--games", "2",
                           "--workers", "1", "--out", str(out), "--no-render"]) == 0
    capsys.readouterr()
    run = load_budget_run(out)
    (family,) = run.families
    assert (family.name, family.key, family.budgets) == ("mcts", "iterations", [1, 4])
    assert [r.agent for r in run.references] == ["random"]
    assert family.head_to_head.games == 2
    assert budget_cli.main([str(out), "--json", str(tmp_path / "s.json")]) == 0
    assert "| mcts | iterations | 1 4 |" in capsys.readouterr().out
    assert (out / "budget_curve.png").read_bytes()[:8] == PNG
