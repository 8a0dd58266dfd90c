"""A round robin's journal: every game appended as it finishes, so a run that was interrupted
(Ctrl-C, a closed terminal, a machine that went down) continues where it stopped instead of
starting again (``run_round_robin(journal=..., resume=True)``, ``scripts/arena.py --resume``).

The first line names the run: everything the games depend on (game, scenario or rule set,
entrants, games per pairing, seed, opening plies, recorded thinking, and the move time limit
when there is one). Each further line is one finished game: its ``games.jsonl`` record plus
what the record leaves out (timing). On resume every game is replayed through the game core
(``agents.arena.replay``) and checked against the schedule, so a journal that was edited, or
that belongs to another run, is refused with the line and the problem named. The one exception
is a last line cut short, the mark of a process killed while writing: it is dropped and that
game is played again.

Results do not depend on the interruption: every seed depends on the game alone, so a resumed
run of fixed budgets (iterations, solves, generations) plays exactly the games an uninterrupted
one would."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.arena.checks import ArenaInputError
from agents.arena.players import entrant_spec
from agents.arena.records import (
    ArenaGame,
    MalformedRecord,
    ReplayMismatch,
    game_from_record,
    load_records,
)
from agents.arena.replay import replay
from agents.arena.scheduling import GameTask
from tbw_envs.core.contract import short_repr

JOURNAL_NAME = "journal.jsonl"  # in the run folder (one of checks.OUTPUT_FILES)
JOURNAL_FORMAT = "tbw-envs-arena-journal/1"
# What a game's record leaves out, kept so a resumed run's tables (time a move) are whole.
TIMING_FIELDS = ("move_seconds", "max_move_seconds", "moves")


def run_key(game: str, variant: str, specs: Sequence[str], games_per_pairing: int, seed: int,
            opening_plies: int, record_thinking: bool,
            move_time_limit: float | None = None) -> dict[str, Any]:
    """What identifies a round robin's games: a resumed run must match it exactly. The move
    time limit is named only when there is one, so a run without one has the key it always
    had."""
    key = {"game": game, "variant": variant, "specs": list(specs),
           "games_per_pairing": games_per_pairing, "seed": seed,
           "opening_plies": opening_plies, "record_thinking": record_thinking}
    if move_time_limit is not None:
        key["move_time_limit"] = move_time_limit
    return key


def journal_line(game: ArenaGame) -> dict[str, Any]:
    """One finished game as a journal line: its record, its layouts and its timing."""
    return {"record": game.to_record(),
            "layouts": None if game.layouts is None else list(game.layouts),
            "layout_sources": None if game.layout_sources is None else list(game.layout_sources),
            "timing": {name: list(getattr(game, name)) for name in TIMING_FIELDS}}


def game_from_line(line: dict[str, Any], where: str) -> ArenaGame:
    """The ``ArenaGame`` of a journal line, after its record has been replayed."""
    try:
        record = line["record"]
        replay(record)
        return game_from_record(
            record, _pair(line, "layouts", str, where), _pair(line, "layout_sources", str, where),
            {name: _pair(line["timing"], name, (int, float), where, f"timing.{name}")
             for name in TIMING_FIELDS})
    except ReplayMismatch as exc:
        raise MalformedRecord(f"{where}: {exc}") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise MalformedRecord(f"{where}: not a journal line of a finished game "
                              f"({type(exc).__name__}: {short_repr(str(exc))})") from None


def _pair(data: dict[str, Any], name: str, kinds: type | tuple[type, ...], where: str,
          label: str | None = None) -> tuple[Any, Any] | None:
    """``data[name]``: two values of ``kinds`` (not bools); the layouts' pairs may be null.
    The error calls it ``label`` (default ``name``)."""
    value = data.get(name)
    nullable = kinds is str  # the layouts: null for a game without them (TBW)
    if value is None and nullable:
        return None
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, kinds) and not isinstance(v, bool) for v in value)):
        what = "two strings or null" if nullable else "two numbers"
        raise MalformedRecord(f"{where}: {label or name} must be {what}")
    return (value[0], value[1])


def check_against_task(game: ArenaGame, task: GameTask, where: str) -> None:
    """A journal game must be the game the schedule has at its id: same seats, seeds and
    opening request (the key matched, so anything else is an edited journal)."""
    # (what the message calls it, the game's value, the task's value)
    fields = [("game", game.game, task.game.name)]
    fields += [(name, getattr(game, name), getattr(task, name))
               for name in ("variant", "pairing", "pair", "swapped", "seed", "labels",
                            "agent_seeds", "base_seed")]
    fields += [("specs", game.specs, tuple(entrant_spec(entry) for entry in task.entries)),
               ("opening request", game.opening_requested, task.opening_plies),
               ("recorded thinking", game.thinking is not None, task.record_thinking),
               ("move time limit", game.move_time_limit, task.move_time_limit)]
    for name, found, want in fields:
        if found != want:
            raise MalformedRecord(f"{where}: game {game.game_id} has {name} {short_repr(found)}, "
                                  f"the schedule {short_repr(want)}: the journal was edited")


def records_of(lines: list[Any]) -> list[Any]:
    """The game records among a ``.jsonl`` file's lines: a journal's (its header aside), so a
    run still going can be watched, or the lines themselves for a ``games.jsonl``."""
    first = lines[0] if lines else None
    if isinstance(first, dict) and first.get("format") == JOURNAL_FORMAT:
        return [line.get("record") if isinstance(line, dict) else line for line in lines[1:]]
    return lines


class Journal:
    """An open journal: ``append`` writes a finished game and flushes it to disk."""

    def __init__(self, path: Path):
        self.path = path
        self._handle = path.open("a", encoding="utf-8")

    def append(self, game: ArenaGame) -> None:
        self._write(journal_line(game))

    def _write(self, data: dict[str, Any]) -> None:
        self._handle.write(json.dumps(data, separators=(",", ":")) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()

    def remove(self) -> None:
        """Close and delete the journal (its games are in ``games.jsonl`` now)."""
        self.close()
        self.path.unlink(missing_ok=True)


def start_journal(path: str | Path, key: dict[str, Any], command: str | None = None) -> Journal:
    """A new journal at ``path`` (its folder is created), its first line naming the run. An
    existing journal is refused: resume it, or remove it to start again."""
    path = Path(path)
    if path.exists():
        raise ArenaInputError(f"journal: {short_repr(str(path))} already exists (an interrupted "
                              f"run?); resume it (resume=True, scripts/arena.py --resume "
                              f"{short_repr(str(path.parent))}) or remove it to start again")
    path.parent.mkdir(parents=True, exist_ok=True)
    journal = Journal(path)
    journal._write({"format": JOURNAL_FORMAT, "run": key, "command": command})
    return journal


def read_journal_header(path: str | Path) -> dict[str, Any]:
    """The first line of a journal: ``{"format", "run" (run_key), "command"}``. Raises
    ``ArenaInputError`` naming the problem for a missing file or a header that is not one."""
    path = Path(path)
    if not path.is_file():
        raise ArenaInputError(f"journal: no journal at {short_repr(str(path))} (a run folder "
                              f"holds {JOURNAL_NAME} from its first game until its results are "
                              f"written)")
    with path.open("rb") as handle:
        first = handle.readline(1 << 20)
    try:
        header = json.loads(first.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        header = None
    if (not isinstance(header, dict) or header.get("format") != JOURNAL_FORMAT
            or not isinstance(header.get("run"), dict)):
        raise ArenaInputError(f"journal: {short_repr(str(path))} does not start with a "
                              f"{JOURNAL_FORMAT} header")
    return header


def resume_journal(path: str | Path, key: dict[str, Any], tasks: Sequence[GameTask],
                   ) -> tuple[Journal, dict[int, ArenaGame]]:
    """Open the journal at ``path`` to go on appending, with the games it already holds (by
    game id), each replayed and checked against ``tasks`` (the run's schedule). Raises
    ``ArenaInputError`` if it names another run, ``MalformedRecord`` naming the line of a game
    that does not replay or does not match the schedule."""
    path = Path(path)
    header = read_journal_header(path)
    # Both ways: a name only one of them has (the move time limit) differs too.
    for name in dict.fromkeys([*key, *header["run"]]):
        found, want = header["run"].get(name), key.get(name)
        if found != want:
            raise ArenaInputError(
                f"journal: {short_repr(str(path))} is a run with {name} "
                f"{short_repr(found)}, this one has {short_repr(want)}: "
                f"resume it with the arguments it was started with")
    raw = path.read_bytes()
    complete = raw[:raw.rfind(b"\n") + 1]
    if len(complete) < len(raw):  # the last game was being written when the run stopped
        with path.open("r+b") as handle:
            handle.truncate(len(complete))
    done: dict[int, ArenaGame] = {}
    lines = load_records(path)[1:]
    for number, line in enumerate(lines, 2):
        where = f"{path}, line {number}"
        game = game_from_line(line, where)
        if not 0 <= game.game_id < len(tasks):
            raise MalformedRecord(f"{where}: game id {game.game_id} is not in this run's "
                                  f"schedule of {len(tasks)} games")
        if game.game_id in done:
            raise MalformedRecord(f"{where}: game {game.game_id} is in the journal twice")
        check_against_task(game, tasks[game.game_id], where)
        done[game.game_id] = game
    return Journal(path), done
