"""Rating against search budget, from one round robin over budgets (``results.json``).

A round robin such as ``--agents ismcts:iterations=25 ismcts:iterations=100
ismcts:iterations=400 greedy:weights=tuned`` rates one search family at several budgets on one
Elo scale. This module reads such a run back and turns it into curves:

- Each rated agent's spec (``agents.common.spec_syntax``) is split into a *family* (the agent's
  name and every parameter but the budget: ``ismcts``, ``ucbmcts:weights=tuned``) and a
  *budget*: the value of the first of ``BUDGET_KEYS`` the spec sets (``iterations`` for the
  MCTS agents, ``solves`` for TBW's ``tree``, ``generations`` for ``oep``).
- A family with at least two budgets is a curve: its points (budget, Elo, interval), the Elo
  gained per 4x budget (least-squares slope of Elo against log4 of the budget), the gain of
  each 4x step whose both ends were played, and the head-to-head of its largest budget against
  its smallest (W-D-L, score, Wilson 95% interval) from the run's pairings.
- Every other agent (no budget key, or the only budget of its family) is a *reference*: a
  horizontal dashed line with its interval band.

``budget_figure`` draws one panel per run (x: budget on a log2 axis, ticks at the budgets; y:
Elo with the runs' 95% intervals; legend entries wrapped between tokens to ``LEGEND_WIDTH``
characters a line, as the arena's chart wraps its labels); ``budget_table`` is the same as markdown;
``summary_json`` as JSON-ready data. ``scripts/budget_curve.py`` is the command line.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.arena.plot import wrap_label
from agents.arena.results import Rating
from agents.arena.stats import ELO_ANCHOR, WinDrawLoss
from agents.common.spec_syntax import split_spec
from tbw_envs.games import game_names, get_game

if TYPE_CHECKING:
    from matplotlib.figure import Figure

BUDGET_KEYS = ("iterations", "solves", "generations")  # the first one a spec sets is its budget
RESULTS_NAME = "results.json"
STEP = 4.0  # the budget ratio the summary reports gains for
FAMILY_GID = "budget-family"  # the gid of a family's line in the figure
REFERENCE_GID = "budget-reference"  # the gid of a reference's dashed line
# When families share a budget, family i of n is drawn shifted by DODGE * (i - (n - 1) / 2)
# on the log2 axis, so that their error bars do not hide one another.
DODGE = 0.06
LEGEND_WIDTH = 34  # characters per line of a legend entry (a long spec wraps between tokens)
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


@dataclass(frozen=True)
class BudgetPoint:
    """One rated agent of a family: its budget and its rating."""

    budget: float
    agent: str  # the agent's label in the run
    elo: float
    low: float  # NaN when the run has no interval (a single seed)
    high: float
    games: int
    score: float


@dataclass(frozen=True)
class HeadToHead(WinDrawLoss):
    """The family's largest budget against its smallest, in their own pairing (the larger
    budget's wins, draws and losses)."""

    larger: str
    smaller: str


@dataclass
class Family:
    """A search family's points, ordered by budget (at least two distinct budgets)."""

    name: str  # the spec without its budget: "ismcts", "ucbmcts:weights=tuned"
    key: str  # the budget's parameter: "iterations", "solves" or "generations"
    points: list[BudgetPoint]
    head_to_head: HeadToHead | None = None  # None when the two never played

    @property
    def budgets(self) -> list[float]:
        return [p.budget for p in self.points]

    @property
    def label(self) -> str:
        """The family and its budget key, as the chart's legend names it."""
        return f"{self.name} ({self.key})"

    def elo_per_step(self) -> float:
        """Least-squares slope of Elo against log4 of the budget: Elo gained per 4x budget."""
        x = np.log([p.budget for p in self.points]) / math.log(STEP)
        y = np.array([p.elo for p in self.points])
        x = x - x.mean()
        return float((x * (y - y.mean())).sum() / (x * x).sum())

    def steps(self) -> list[tuple[float, float, float]]:
        """``(budget, 4 x budget, Elo gain)`` of every 4x step whose both ends were rated."""
        found = []
        for low in self.points:
            for high in self.points:
                if math.isclose(high.budget, STEP * low.budget, rel_tol=1e-9):
                    found.append((low.budget, high.budget, high.elo - low.elo))
        return found


# An agent rated in the run that is not on a curve (no budget, or its family's only): the run's
# own rating record.
Reference = Rating


@dataclass
class BudgetRun:
    """One round robin read for its budget curves."""

    path: Path  # the results.json
    game: str
    variant_flag: str  # "scenario" (TBW) or "rules" (Junqi); "" for an unknown game
    variant: str
    games_per_pairing: int | None
    families: list[Family]
    references: list[Reference] = field(default_factory=list)
    repeated_pairings: list[str] = field(default_factory=list)

    def title(self) -> str:
        what = f"{self.game}: {self.variant_flag} {self.variant}".rstrip()
        if self.games_per_pairing:
            what += f", {self.games_per_pairing} games per pairing"
        return what


# ---------------------------------------------------------------------- reading a run


def run_error(path: str | Path, problem: str) -> ValueError:
    return ValueError(f"{path}: {problem}")


def results_path(path: str | Path) -> Path:
    """The ``results.json`` of a run folder (or the file itself); ValueError if there is none."""
    path = Path(path)
    if path.is_dir():
        path = path / RESULTS_NAME
    if not path.is_file():
        raise run_error(path, f"no {RESULTS_NAME} here (give a run folder of scripts/arena.py "
                              f"or its {RESULTS_NAME})")
    return path


def split_budget(spec: str) -> tuple[str, str | None, str | None]:
    """``(family, budget key, budget text)`` of an agent spec; key and text are None for a spec
    without a budget key (its family is then the whole spec)."""
    name, texts = split_spec(spec)
    key = next((k for k in BUDGET_KEYS if k in texts), None)
    if key is None:
        return spec.strip(), None, None
    rest = [item_text(k, v) for k, v in texts.items() if k != key]
    family = name + (":" + ",".join(rest) if rest else "")
    return family, key, texts[key]


def item_text(key: str, value: str | None) -> str:
    """``key=value`` in the spec syntax, the value quoted when it must be; a flag alone."""
    if value is None:
        return key
    if any(c in value for c in ",\"'") or value != value.strip():
        return f"{key}=\"{value.replace(chr(34), chr(34) * 2)}\""
    return f"{key}={value}"


def budget_value(text: str | None) -> float | None:
    """A budget's text as a positive number, or None if it is not one."""
    try:
        value = float(text) if text is not None else math.nan
    except ValueError:
        return None
    if not (math.isfinite(value) and value > 0):
        return None
    return int(value) if value == int(value) else value


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)


def _section(data: dict, key: str, kind: type, path: Path, what: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        raise run_error(path, f"no {what} ({key!r} is missing or not a "
                              f"{'list' if kind is list else 'mapping'}); is this the "
                              f"results.json of scripts/arena.py?")
    return value


def load_budget_run(path: str | Path) -> BudgetRun:
    """Read a run folder (or its ``results.json``) into families and references. ValueError,
    naming the file, when the file is missing or not JSON, lacks ratings or pairings, or no
    family has two budgets."""
    path = results_path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise run_error(path, f"cannot read it as JSON: {exc}") from None
    if not isinstance(data, dict):
        raise run_error(path, "not a JSON object")
    ratings = _section(data, "ratings", dict, path, "ratings")
    rated = _section(ratings, "agents", list, path, "ratings")
    pairings = _section(data, "pairings", list, path, "pairings")
    specs = {a.get("label"): a.get("spec") for a in data.get("agents") or []
             if isinstance(a, dict)}
    game = str(data.get("game", "?"))
    flag = get_game(game).variant_flag if game in game_names() else ""
    groups: dict[tuple, tuple[str, str, list[BudgetPoint]]] = {}
    references = []
    for entry in rated:
        try:
            label = entry["agent"]
            rating = dict(elo=float(entry["elo"]), low=_number(entry.get("low")),
                          high=_number(entry.get("high")), games=int(entry.get("games", 0)),
                          score=_number(entry.get("score")))
        except (TypeError, KeyError, ValueError):
            raise run_error(path, f"a rating without an agent and a number for its elo: "
                                  f"{entry!r}") from None
        spec = specs.get(label) or label
        try:
            family, key, text = split_budget(spec)
        except ValueError as exc:
            raise run_error(path, str(exc)) from None
        if key is None:
            references.append(Reference(agent=label, **rating))
            continue
        budget = budget_value(text)
        if budget is None:
            raise run_error(path, f"agent {label!r}: its budget {key}={text} is not a positive "
                                  f"number")
        name, items = split_spec(spec)
        items.pop(key)
        group = groups.setdefault((name, frozenset(items.items()), key), (family, key, []))
        twin = next((p for p in group[2] if p.budget == budget), None)
        if twin is not None:
            raise run_error(path, f"family {family!r} has {key}={budget} twice ({twin.agent!r} "
                                  f"and {label!r}): one agent per budget")
        group[2].append(BudgetPoint(budget=budget, agent=label, **rating))
    families = []
    for family, key, points in groups.values():
        if len(points) < 2:  # a single budget is no curve: it is drawn as a reference
            references.append(Reference(points[0].agent, points[0].elo, points[0].low,
                                        points[0].high, points[0].games, points[0].score))
            continue
        points.sort(key=lambda p: p.budget)
        families.append(Family(name=family, key=key, points=points,
                               head_to_head=head_to_head(pairings, points[-1].agent,
                                                         points[0].agent)))
    if not families:
        found = ", ".join(str(e.get("agent")) for e in rated if isinstance(e, dict))
        raise run_error(path, f"no search family was rated at two budgets or more ("
                              f"{' / '.join(BUDGET_KEYS)}); rated: {found or 'nobody'}")
    return BudgetRun(path=path, game=game, variant_flag=flag, variant=str(data.get(flag, "")),
                     games_per_pairing=data.get("games_per_pairing"), families=families,
                     references=references,
                     repeated_pairings=[str(p) for p in data.get("repeated_pairings") or []])


def head_to_head(pairings: Sequence[Any], larger: str, smaller: str) -> HeadToHead | None:
    """``larger``'s record against ``smaller`` summed over their pairings, None if none."""
    wins = draws = losses = 0
    met = False
    for pairing in pairings:
        if not isinstance(pairing, dict) or sorted(pairing.get("agents") or []) != sorted(
                [larger, smaller]):
            continue
        for record in pairing.get("records") or []:
            if record.get("agent") == larger:
                total = record["total"]
                wins += int(total["wins"])
                draws += int(total["draws"])
                losses += int(total["losses"])
                met = True
    return HeadToHead(wins, draws, losses, larger, smaller) if met else None


def load_budget_runs(paths: Sequence[str | Path]) -> list[BudgetRun]:
    return [load_budget_run(p) for p in paths]


# ---------------------------------------------------------------------- text and JSON


def budget_text(budget: float) -> str:
    return f"{budget:g}" if isinstance(budget, float) else str(budget)


def _elo(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.0f}"


def _interval(low: float, high: float, digits: int = 0) -> str:
    if math.isnan(low) or math.isnan(high):
        return "n/a"
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def _signed(value: float) -> str:
    return f"{value:+.0f}"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], align: str) -> str:
    """A markdown table; ``align`` has an ``l`` or ``r`` per column."""
    if len(align) != len(headers):
        raise ValueError(f"align {align!r} must have one letter per column ({len(headers)})")
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def family_summary(family: Family) -> dict[str, Any]:
    """A family's numbers as JSON-ready data (NaN as None)."""
    h2h = family.head_to_head
    return {
        "family": family.name,
        "budget_key": family.key,
        "points": [{"budget": p.budget, "agent": p.agent, "elo": p.elo,
                    "low": None if math.isnan(p.low) else p.low,
                    "high": None if math.isnan(p.high) else p.high,
                    "games": p.games, "score": None if math.isnan(p.score) else p.score}
                   for p in family.points],
        "elo_per_4x": family.elo_per_step(),
        "steps_4x": [{"from": a, "to": b, "elo_gain": gain} for a, b, gain in family.steps()],
        "largest_vs_smallest": None if h2h is None else {
            "larger": h2h.larger, "smaller": h2h.smaller, "wins": h2h.wins,
            "draws": h2h.draws, "losses": h2h.losses, "games": h2h.games,
            "score": h2h.score, "ci_95": list(h2h.interval)},
    }


def summary_json(runs: Sequence[BudgetRun]) -> dict[str, Any]:
    """Every run's families and references as JSON-ready data."""
    return {"runs": [
        {"results": str(run.path), "game": run.game, run.variant_flag or "variant": run.variant,
         "games_per_pairing": run.games_per_pairing,
         "families": [family_summary(f) for f in run.families],
         "references": [{"agent": r.agent, "elo": r.elo,
                         "low": None if math.isnan(r.low) else r.low,
                         "high": None if math.isnan(r.high) else r.high, "games": r.games}
                        for r in run.references]}
        for run in runs]}


def budget_table(runs: Sequence[BudgetRun]) -> str:
    """Markdown: per run, the points, the references and the per-family summary."""
    sections = []
    for run in runs:
        points = [[f.name, f.key, p.agent, budget_text(p.budget), _elo(p.elo),
                   _interval(p.low, p.high), p.games, f"{p.score:.3f}"]
                  for f in run.families for p in f.points]
        points += [["(reference)", "", r.agent, "", _elo(r.elo), _interval(r.low, r.high),
                    r.games, f"{r.score:.3f}"] for r in run.references]
        summary = []
        for f in run.families:
            steps = "; ".join(f"{budget_text(a)}->{budget_text(b)}: {_signed(g)}"
                              for a, b, g in f.steps()) or "none"
            h2h = f.head_to_head
            if h2h is None:
                versus = [f"{budget_text(f.budgets[-1])} v {budget_text(f.budgets[0])}",
                          "not played", "", ""]
            else:
                versus = [f"{budget_text(f.budgets[-1])} v {budget_text(f.budgets[0])}",
                          f"{h2h.wins}-{h2h.draws}-{h2h.losses}", f"{h2h.score:.3f}",
                          _interval(*h2h.interval, digits=3)]
            summary.append([f.name, f.key, " ".join(budget_text(b) for b in f.budgets),
                            _signed(f.elo_per_step()), steps, *versus])
        notes = []
        if run.games_per_pairing is not None and run.games_per_pairing < 10:
            notes.append("note: fewer than 5 paired seeds per pairing: the bootstrap intervals "
                         "are crude")
        if run.repeated_pairings:
            notes.append(f"note: every game of {', '.join(run.repeated_pairings)} repeats one "
                         f"of two games: the intervals overstate the evidence")
        sections.append("\n\n".join([
            f"## {run.title()}\n\n`{run.path}`" + "".join("\n\n" + n for n in notes),
            f"Ratings (Bradley-Terry Elo, mean of the agents = {ELO_ANCHOR:.0f}; the run's 95% "
            f"interval)\n\n"
            + markdown_table(["family", "key", "agent", "budget", "Elo", "95% interval",
                              "games", "score"], points, align="lllrrrrr"),
            "Per family: Elo per 4x budget (least-squares slope against log4 budget), the gain "
            "of each 4x step, and the largest budget against the smallest (W-D-L of the "
            "larger, score, Wilson 95% interval)\n\n"
            + markdown_table(["family", "key", "budgets", "Elo per 4x", "4x steps",
                              "largest v smallest", "W-D-L", "score", "95% interval"],
                             summary, align="lllrlrrrr"),
        ]))
    return "\n\n".join(sections)


# ---------------------------------------------------------------------- the chart


def budget_figure(runs: Sequence[BudgetRun]) -> Figure:
    """One panel per run: each family's Elo against its budget (log2 axis, a tick at every
    budget) with the 95% intervals as error bars, each reference a dashed line over its
    interval band. The legend sits right of each panel, so it never hides a point."""
    import matplotlib

    matplotlib.use("Agg")  # files only: never open a window, never need a display
    import matplotlib.pyplot as plt

    if not runs:
        raise ValueError("no run to chart")
    columns = 1 if len(runs) == 1 else 2
    rows = math.ceil(len(runs) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(9.5 * columns, 4.6 * rows),
                             layout="constrained", squeeze=False)
    for ax, run in zip(axes.flat, runs, strict=False):
        _draw_run(ax, run)
    for ax in list(axes.flat)[len(runs):]:
        ax.set_visible(False)
    return fig


def dodge(run: BudgetRun, index: int) -> float:
    """The shift (log2 units) of family ``index``'s points: 0 unless families share a budget."""
    seen: set[float] = set()
    shared = False
    for family in run.families:
        shared = shared or bool(seen & set(family.budgets))
        seen.update(family.budgets)
    return DODGE * (index - (len(run.families) - 1) / 2) if shared else 0.0


def legend_label(text: str) -> str:
    """A legend entry wrapped to ``LEGEND_WIDTH`` characters a line, only between tokens."""
    return "\n".join(wrap_label(text, LEGEND_WIDTH))


def _draw_run(ax, run: BudgetRun) -> None:
    from matplotlib.ticker import NullLocator

    budgets: set[float] = set()
    for index, family in enumerate(run.families):
        color = f"C{index % 10}"
        x = np.array(family.budgets, dtype=float) * 2.0 ** dodge(run, index)
        y = np.array([p.elo for p in family.points])
        low = np.array([p.low if math.isfinite(p.low) else p.elo for p in family.points])
        high = np.array([p.high if math.isfinite(p.high) else p.elo for p in family.points])
        ax.errorbar(x, y, yerr=np.maximum([y - low, high - y], 0.0), fmt="none", ecolor=color,
                    elinewidth=1.2, capsize=4, alpha=0.8)
        ax.plot(x, y, marker=_MARKERS[index % len(_MARKERS)], color=color, linewidth=1.8,
                label=legend_label(family.label), gid=FAMILY_GID)
        budgets.update(family.budgets)
    for index, reference in enumerate(run.references):
        color = f"C{(len(run.families) + index) % 10}"
        if math.isfinite(reference.low) and math.isfinite(reference.high):
            ax.axhspan(reference.low, reference.high, color=color, alpha=0.12, linewidth=0)
        ax.axhline(reference.elo, color=color, linestyle="--", linewidth=1.3,
                   label=legend_label(f"{reference.agent} (reference)"), gid=REFERENCE_GID)
    ax.set_xscale("log", base=2)
    ticks = sorted(budgets)
    ax.set_xticks(ticks, [budget_text(b) for b in ticks])  # a tick at every budget, no others
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlim(min(ticks) / 2 ** 0.35, max(ticks) * 2 ** 0.35)
    keys = list(dict.fromkeys(f.key for f in run.families))
    ax.set_xlabel(f"budget ({' / '.join(keys)}), log2 scale")
    ax.set_ylabel(f"Elo (mean of the agents = {ELO_ANCHOR:.0f}),\n95% interval of the run")
    ax.set_title(run.title(), fontsize=10)
    ax.grid(True, axis="y", color="#dddddd", linewidth=0.8)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False)


def plot_budget_curves(runs: Sequence[BudgetRun], path: str | Path) -> Path:
    """``budget_figure`` saved as a PNG; returns the path."""
    fig = budget_figure(runs)
    import matplotlib.pyplot as plt

    try:
        fig.savefig(path, dpi=110)
    finally:
        plt.close(fig)
    return Path(path)
