"""Small arena runs written to disk, for the tests of records and of scripts/replay.py (the
fixtures of tests/conftest.py wrap them, so each is played once per test session)."""

from __future__ import annotations

from pathlib import Path

from agents.arena import run_round_robin, write_result

# The random opening of the runs with an opening: records start after this many plies.
OPENING = 4


def write_runs(out: Path) -> dict[str, dict[str, Path]]:
    """A small round robin of each game written to disk (the paths of its files, by game)."""
    runs = {
        "tbw": run_round_robin("tbw", ["greedy", "random"], games_per_pairing=2, workers=1),
        "junqi": run_round_robin("junqi", ["random", "random"], games_per_pairing=2, workers=1),
    }
    return {game: write_result(result, out / game, command="test") for game, result in runs.items()}


def write_runs_with_opening(out: Path) -> dict[str, Path]:
    """A small written run per game, with a random opening (paths to games.jsonl)."""
    paths = {}
    for game, specs in (("tbw", ["greedy", "random"]), ("junqi", ["random", "greedy"])):
        result = run_round_robin(game, specs, games_per_pairing=2, workers=1, seed=11,
                                 opening_plies=OPENING, bootstrap=0)
        paths[game] = write_result(result, out / game, chart=False)["games.jsonl"]
    return paths
