"""The files of a round robin's run folder."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

from agents.arena.checks import check_out_dir
from agents.arena.plot import plot_round_robin
from agents.arena.records import write_records
from agents.arena.results import RoundRobinResult
from agents.arena.results_json import result_json


def write_result(result: RoundRobinResult, out_dir: str | Path, command: str | None = None,
                 chart: bool = True, overwrite: bool = True) -> dict[str, Path]:
    """``results.json``, ``games.csv``, ``pairings.csv``, ``ratings.csv``, ``games.jsonl``
    with its manifest ``games.manifest.json`` and (with ``chart``, which needs matplotlib)
    ``arena.png`` in ``out_dir``; returns the paths. The folder is checked first
    (``check_out_dir``): with ``overwrite=False`` a folder that holds anything but the run's
    journal is refused. The journal (``result.journal``) is removed once the files are written:
    a resumed run's games are all in ``result.games`` by then, so the manifest, written from
    the same records as ``games.jsonl``, describes the whole file."""
    out = check_out_dir(out_dir, overwrite or holds_only(out_dir, result.journal))
    out.mkdir(parents=True, exist_ok=True)
    paths = {name: out / name for name in ("results.json", "games.csv", "pairings.csv",
                                           "ratings.csv", "games.jsonl")}
    manifest = write_records(result.games, paths["games.jsonl"])
    paths[manifest.name] = manifest
    write_games_csv(result, paths["games.csv"])
    write_pairings_csv(result, paths["pairings.csv"])
    write_ratings_csv(result, paths["ratings.csv"])
    if chart:
        paths["arena.png"] = out / "arena.png"
        plot_round_robin(result, paths["arena.png"])
    data = result_json(result, command)
    data["files"] = {name: path.name for name, path in paths.items()}
    paths["results.json"].write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    if result.journal is not None:  # games.jsonl holds every game now
        result.journal.unlink(missing_ok=True)
    return paths


def holds_only(folder: str | Path, journal: Path | None) -> bool:
    """Whether ``folder`` holds nothing but the run's own journal (the round robin started it
    there, in a folder that was checked empty)."""
    folder = Path(folder)
    if journal is None or not folder.is_dir():
        return False
    return all(entry.resolve() == journal.resolve() for entry in folder.iterdir())


def write_ratings_csv(result: RoundRobinResult, path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["rank", "agent", "elo", "ci_low", "ci_high", "games", "score"])
        for rank, r in enumerate(sorted(result.ratings(), key=lambda r: -r.elo), 1):
            bounds = ["", ""] if math.isnan(r.low) else [f"{r.low:.1f}", f"{r.high:.1f}"]
            writer.writerow([rank, r.agent, f"{r.elo:.1f}", *bounds, r.games,
                             f"{r.score:.4f}"])


def write_games_csv(result: RoundRobinResult, path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow([
            "game_id", "pairing", "pair", "seed", "player_0", "player_1", "layout_0",
            "layout_1", "winner", "return_0", "return_1", "end_reason", "plies",
            "ms_per_move_0", "ms_per_move_1", "ms_max_0", "ms_max_1", "forfeit_agent",
            "forfeit_reason",
        ])
        for g in result.games:
            sources = g.layout_sources or ("", "")
            winner = "draw" if g.winner_seat is None else g.labels[g.winner_seat]
            writer.writerow([
                g.game_id, g.pairing, g.pair, g.seed, g.labels[0], g.labels[1], sources[0],
                sources[1], winner, g.returns[0], g.returns[1], g.end_reason, g.plies,
                *(f"{1000 * g.move_seconds[s] / max(g.moves[s], 1):.3f}" for s in (0, 1)),
                *(f"{1000 * g.max_move_seconds[s]:.3f}" for s in (0, 1)),
                *(("", "") if g.forfeit is None else (
                    g.labels[g.forfeit["seat"]],
                    f"{forfeit_when(g.forfeit['ply'])}: {g.forfeit['reason']}")),
            ])


def forfeit_when(ply: int) -> str:
    """When a forfeit's fault came, for games.csv: ``ply 7``, or ``before play`` (ply 0)."""
    return "before play" if ply == 0 else f"ply {ply}"


def write_pairings_csv(result: RoundRobinResult, path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow([
            "pairing", "agent", "opponent", "games", "wins", "draws", "losses",
            "wins_as_p0", "draws_as_p0", "losses_as_p0", "wins_as_p1", "draws_as_p1",
            "losses_as_p1", "score", "ci_low", "ci_high",
        ])
        for s in result.pairing_stats():
            for side in (0, 1):
                low, high = s.interval(side)
                writer.writerow([
                    s.pairing, s.agents[side], s.agents[1 - side], s.games, *s.record(side),
                    *s.record(side, 0), *s.record(side, 1), f"{s.score(side):.4f}",
                    f"{low:.4f}", f"{high:.4f}",
                ])
