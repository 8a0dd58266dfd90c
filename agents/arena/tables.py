"""The round robin's results as plain text tables."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from agents.arena.records import FORFEIT_KINDS
from agents.arena.results import RoundRobinResult
from agents.arena.stats import ELO_ANCHOR
from tbw_envs.games import get_game


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]],
                 right_from: int = 1) -> str:
    """A plain text table: the first ``right_from`` columns left-aligned, the rest right."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        return "  ".join(
            cell.ljust(width) if i < right_from else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(cells[0]), rule] + [line(row) for row in cells[1:]])


def result_title(result: RoundRobinResult) -> str:
    what = f"{get_game(result.game).variant_flag} {result.variant}"
    limits = sorted({g.move_time_limit for g in result.games if g.move_time_limit is not None})
    return (f"{result.game}: {what}, {len(result.labels)} agents, {len(result.pairings)} "
            f"pairing(s) x {result.games_per_pairing} paired games = {len(result.games)} games, "
            f"seed {result.seed}"
            + (f", {result.opening_plies} random opening plies" if result.opening_plies else "")
            + "".join(f", move time limit {limit:g} s" for limit in limits))


def result_tables(result: RoundRobinResult) -> str:
    """Every table of the round robin, after its title."""
    sections = [result_title(result), pairings_table(result), score_matrix_table(result),
                ratings_table(result), endings_table(result), forfeits_table(result),
                timing_table(result), wall_time_line(result)]
    return "\n\n".join(section for section in sections if section)


def forfeits_table(result: RoundRobinResult) -> str:
    """Games each agent forfeited (``records.FORFEIT_KINDS``), by the kinds that occurred; empty
    when none was."""
    counts: dict[str, dict[str, int]] = {label: {} for label in result.labels}
    for g in result.games:
        if g.forfeit is not None:
            kinds = counts[g.labels[g.forfeit["seat"]]]
            kinds[g.forfeit["kind"]] = kinds.get(g.forfeit["kind"], 0) + 1
    kinds = [kind for kind in FORFEIT_KINDS if any(kind in c for c in counts.values())]
    rows = [[label, sum(c.values()), *(c.get(kind, 0) for kind in kinds)]
            for label, c in counts.items() if c]
    if not rows:
        return ""
    return ("Forfeits: games lost by an agent at fault (--on-agent-error forfeit; the reasons "
            "are in games.csv)\n"
            + format_table(["agent", "forfeits", *(kind.replace("_", " ") for kind in kinds)],
                           rows))


def wall_time_line(result: RoundRobinResult) -> str:
    line = f"wall time {result.wall_seconds:.1f} s with {result.workers} worker(s)"
    if result.resumed_games:
        line += (f" for {len(result.games) - result.resumed_games} games; "
                 f"{result.resumed_games} were read back from the interrupted run's journal")
    return line


def _wdl(values: tuple[int, int, int]) -> str:
    return "-".join(str(v) for v in values)


def pairings_table(result: RoundRobinResult) -> str:
    """Each pairing's wins, draws and losses by seat, with Wilson intervals."""
    rows = []
    for stats in result.pairing_stats():
        for side in (0, 1):
            low, high = stats.interval(side)
            rows.append([
                f"{stats.agents[0]} v {stats.agents[1]}" if side == 0 else "",
                stats.agents[side], _wdl(stats.record(side, 0)), _wdl(stats.record(side, 1)),
                _wdl(stats.record(side)), f"{stats.score(side):.3f}",
                f"[{low:.3f}, {high:.3f}]",
            ])
    text = ("Pairings (W-D-L; score counts a draw as half; Wilson 95% interval)\n"
            + format_table(["pairing", "agent", "as player 0", "as player 1",
                            "total", "score", "95% CI"], rows, right_from=2))
    repeated = result.repeated_pairings()
    if repeated:
        text += (
            f"\nnote: every game of {', '.join(repeated)} repeats one of two games (one per "
            f"seating): the agents and the start are deterministic, so the intervals "
            f"overstate the evidence (--opening-plies N varies the start)"
        )
    return text


def score_matrix_table(result: RoundRobinResult) -> str:
    points, played = result.score_matrix()
    # Columns by number: long specs cut short would be ambiguous (two "ucbmcts:second").
    short = [f"#{j + 1}" for j in range(len(result.labels))]
    matrix_rows = []
    for i, label in enumerate(result.labels):
        matrix_rows.append([f"#{i + 1} {label}"] + [
            "-" if played[i, j] == 0 else f"{points[i, j] / played[i, j]:.2f}"
            for j in range(len(result.labels))
        ])
    return ("Score of the row agent against the column agent\n"
            + format_table(["agent"] + short, matrix_rows))


def ratings_table(result: RoundRobinResult) -> str:
    ranked = sorted(result.ratings(), key=lambda r: -r.elo)
    rating_rows = [
        [rank, r.agent, f"{r.elo:.0f}",
         "n/a" if math.isnan(r.low) else f"[{r.low:.0f}, {r.high:.0f}]", r.games,
         f"{r.score:.3f}"]
        for rank, r in enumerate(ranked, 1)
    ]
    caution = ""
    if min(result.seeds_per_pairing(), default=0) < 5:
        caution = ("\n(fewer than 5 seeds in some pairing: the bootstrap interval is crude, "
                   "n/a with a single seed)")
    return (
        f"Ratings: Bradley-Terry on the Elo scale, mean of the agents anchored at "
        f"{ELO_ANCHOR:.0f}; 95% interval from {result.bootstrap} bootstrap resamples of paired "
        f"games, widened to the profile likelihood's where the bootstrap is blind (a perfect "
        f"record){caution}\n" + format_table(["rank", "agent", "Elo", "95% CI", "games",
                                            "score"], rating_rows, right_from=2)
    )


def endings_table(result: RoundRobinResult) -> str:
    """How games ended, in the game's order of end reasons, and plies per game."""
    summary = result.end_summary()
    order = [r for r in get_game(result.game).end_reasons if r in summary["all"]["end_reasons"]]
    order += sorted(set(summary["all"]["end_reasons"]) - set(order))
    end_rows = []
    for entry, name in [(p, f"{p['agents'][0]} v {p['agents'][1]}")
                        for p in summary["pairings"]] + [(summary["all"], "all")]:
        end_rows.append(
            [name] + [entry["end_reasons"].get(reason, 0) for reason in order]
            + [f"{entry['plies_mean']:.1f}", entry["plies_min"], entry["plies_max"]]
        )
    return "How games ended (counts) and plies per game\n" + format_table(
        ["pairing", *order, "plies mean", "min", "max"], end_rows)


def timing_table(result: RoundRobinResult) -> str:
    time_rows = [[t["agent"], t["moves"], f"{t['ms_per_move_mean']:.2f}",
                  f"{t['ms_per_move_max']:.2f}"] for t in result.timing()]
    return "Thinking time\n" + format_table(
        ["agent", "moves", "ms/move mean", "ms/move max"], time_rows)
