"""A finished round-robin game and its record: one line of ``games.jsonl`` (written here with the
file's manifest, read back by ``load_records``), and the position a record starts from."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.arena.digests import (
    DIGEST_SCHEME,
    manifest_entry,
    manifest_of,
    ply_digest_list,
    record_digest,
)
from tbw_envs.core.contract import short_repr
from tbw_envs.description import Game
from tbw_envs.games import game_names, get_game, variant_fields

# /2 adds the base seed, the seating, the requested opening length and the digests ("digests",
# ``DIGEST_SCHEME``); scripts/replay.py still verifies /1 records as far as they allow.
RECORD_FORMAT = "tbw-envs-arena-game/2"
RECORD_FORMATS = ("tbw-envs-arena-game/1", RECORD_FORMAT)
MAX_LINE_BYTES = 64 * 2**20  # one record; a 1,000,000-ply game with its digests is ~25 MB
MANIFEST_SUFFIX = ".manifest.json"  # games.jsonl's manifest is games.manifest.json
# A game lost by an agent at fault (on_agent_error="forfeit"; ``agents.arena.play``).
FORFEIT_END_REASON = "forfeit"
# What the agent did: on a move (ply >= 1), or before play (ply 0: the game was never set up).
MOVE_FORFEIT_KINDS = ("raised", "illegal_action", "time_out", "thinking_failed")
BEFORE_PLAY_FORFEIT_KINDS = ("reset_failed", "layout_failed")
FORFEIT_KINDS = MOVE_FORFEIT_KINDS + BEFORE_PLAY_FORFEIT_KINDS


class ReplayMismatch(ValueError):
    """A record that does not replay: an illegal action, or a result that differs."""


class MalformedRecord(ReplayMismatch):
    """A file or record that is not what scripts/arena.py writes: not UTF-8, not JSON, nested
    too deeply, or a field missing or of the wrong type."""


def end_reason(game: str, state: Any) -> str:
    """How ``state``'s game ended (every game's state names it the same way)."""
    return str(state.end_reason)


def forfeit_returns(seat: int) -> tuple[float, float]:
    """The returns of a game forfeited by ``seat``: a loss for it, a win for the other."""
    return (-1.0, 1.0) if seat == 0 else (1.0, -1.0)


@dataclass
class ArenaGame:
    """One finished round-robin game: the record ``games.jsonl`` stores, plus timing."""

    game: str
    variant: str
    game_id: int
    pairing: int
    pair: int
    swapped: bool
    seed: int
    labels: tuple[str, str]  # agents by seat
    specs: tuple[str, str]
    agent_seeds: tuple[int, int]
    layouts: tuple[str, str] | None  # Junqi: both layouts in format_layout text, by seat
    layout_sources: tuple[str, str] | None  # "random" or "agent" per seat
    actions: list[int]
    returns: tuple[float, float]
    end_reason: str
    plies: int
    move_seconds: tuple[float, float]  # total thinking time per seat
    max_move_seconds: tuple[float, float]
    moves: tuple[int, int]
    opening_plies: int = 0  # the first ``opening_plies`` of ``actions`` are the random opening
    opening_requested: int = 0  # what was asked for (the opening stops before the game ends)
    base_seed: int | None = None
    start_digest: str | None = None  # DIGEST_SCHEME: h_0, the short h_k per ply, h_n
    ply_digests: bytes = b""
    final_digest: str | None = None
    start: dict[str, Any] = field(default_factory=dict)  # GameStart.record: the record's start
    # With --record-thinking: per ply, what the mover's thinking() said (None: nothing).
    thinking: list[Any] | None = None
    # A game an agent lost by a fault (on_agent_error="forfeit"): {"seat", "agent", "spec",
    # "kind" (FORFEIT_KINDS), "reason", "ply" (of the bad move, 1-based; 0 before play), and
    # for an illegal action "action"}; ``actions`` stop before the bad move. A game lost before
    # play holds no action and the start the pair's seed gives with no agent choosing.
    forfeit: dict[str, Any] | None = None
    # Seconds an agent might take for a move (``run_round_robin(move_time_limit=...)``), None:
    # no limit. It can change results, so a record with a limit says so ("move_time_limit").
    move_time_limit: float | None = None

    @property
    def winner_seat(self) -> int | None:
        if self.returns[0] == self.returns[1]:
            return None
        return 0 if self.returns[0] > self.returns[1] else 1

    def points(self, seat: int) -> float:
        """1 for a win, 0.5 for a draw, 0 for a loss of the agent in ``seat``."""
        winner = self.winner_seat
        return 0.5 if winner is None else float(winner == seat)

    def outcome(self) -> tuple:
        """Everything but timing: what must not depend on workers or scheduling."""
        return (self.game_id, self.seed, self.labels, self.agent_seeds, self.layouts,
                self.layout_sources, self.opening_plies, tuple(self.actions), self.returns,
                self.end_reason, self.plies, self.start_digest, bytes(self.ply_digests),
                self.final_digest, None if self.forfeit is None else tuple(
                    sorted(self.forfeit.items())))

    def to_record(self) -> dict[str, Any]:
        """The replayable record (one line of ``games.jsonl``): the /1 fields plus the base
        seed, the seating, the requested opening and the digests (``DIGEST_SCHEME``), the last
        of them ``digests.record`` over everything else. A forfeited game's result holds
        ``forfeit`` (``agents.arena.replay`` checks it); a game played under a move time limit
        says which ("move_time_limit", absent without one, so such records are as before)."""
        own_key = get_game(self.game).variant_flag
        record = {
            "format": RECORD_FORMAT,
            "game": self.game,
            **{key: self.variant if key == own_key else None for key in variant_fields(self.game)},
            "game_id": self.game_id,
            "pairing": self.pairing,
            "pair": self.pair,
            "swapped": self.swapped,
            "base_seed": self.base_seed,
            "seed": self.seed,
            "agents": list(self.labels),
            "specs": list(self.specs),
            "agent_seeds": list(self.agent_seeds),
            **({} if self.move_time_limit is None else {"move_time_limit": self.move_time_limit}),
            "start": self.start | {"opening_plies": self.opening_plies,
                                   "opening_plies_requested": self.opening_requested},
            "actions": list(self.actions),
            "result": {
                "returns": list(self.returns),
                "winner": self.winner_seat,
                "end_reason": self.end_reason,
                "plies": self.plies,
                **({} if self.forfeit is None else {"forfeit": dict(self.forfeit)}),
            },
            "digests": {
                "scheme": DIGEST_SCHEME,
                "start": self.start_digest,
                "plies": ply_digest_list(self.ply_digests),
                "final": self.final_digest,
            },
        }
        if self.thinking is not None:
            record["thinking"] = self.thinking
        record["digests"]["record"] = record_digest(record)
        return record


def game_from_record(record: dict[str, Any], layouts: tuple[str, str] | None = None,
                     layout_sources: tuple[str, str] | None = None,
                     timing: dict[str, tuple[float, float]] | None = None) -> ArenaGame:
    """The ``ArenaGame`` whose ``to_record()`` is ``record`` (a /2 record, already checked by
    ``agents.arena.replay``), with what a record leaves out given apart: the layouts as
    ``format_layout`` text and the timing (``move_seconds``, ``max_move_seconds``, ``moves``;
    zeros without it)."""
    timing = timing or {}
    result, start, digests = record["result"], record["start"], record["digests"]
    moves = timing.get("moves", (0, 0))
    move_seconds, max_seconds = (tuple(float(s) for s in timing.get(name, (0.0, 0.0)))
                                 for name in ("move_seconds", "max_move_seconds"))
    return ArenaGame(
        game=record["game"], variant=record[get_game(record["game"]).variant_flag],
        game_id=record["game_id"], pairing=record["pairing"], pair=record["pair"],
        swapped=record["swapped"], seed=record["seed"], labels=tuple(record["agents"]),
        specs=tuple(record["specs"]), agent_seeds=tuple(record["agent_seeds"]),
        layouts=layouts, layout_sources=layout_sources, actions=list(record["actions"]),
        returns=tuple(float(r) for r in result["returns"]), end_reason=result["end_reason"],
        plies=result["plies"], move_seconds=move_seconds, max_move_seconds=max_seconds,
        moves=(int(moves[0]), int(moves[1])), opening_plies=start["opening_plies"],
        opening_requested=start["opening_plies_requested"], base_seed=record["base_seed"],
        start_digest=digests["start"],
        ply_digests=b"".join(bytes.fromhex(d) for d in digests["plies"]),
        final_digest=digests["final"],
        start={k: v for k, v in start.items()
               if k not in ("opening_plies", "opening_plies_requested")},
        thinking=record.get("thinking"),
        forfeit=dict(result["forfeit"]) if "forfeit" in result else None,
        move_time_limit=record.get("move_time_limit"),
    )


def record_start_state(record: dict[str, Any]) -> Any:
    """The initial state of a ``games.jsonl`` record."""
    name = record.get("game")
    if not isinstance(name, str) or name not in game_names():
        raise ValueError(f"record has unknown game {name!r}")
    return start_state(get_game(name), record)


def start_state(game: Game, record: dict[str, Any]) -> Any:
    """The initial state of a record of ``game`` (its description, already found)."""
    return game.start_from_record(record[game.variant_flag], record.get("start", {}))


def replay_record(record: dict[str, Any]) -> Any:
    """The final state of a ``games.jsonl`` record, its actions applied by the game core (which
    rejects an illegal one); ``agents.arena.replay`` checks a record step by step."""
    state = record_start_state(record)
    for action in record["actions"]:
        state.apply(action)
    return state


def manifest_path(path: str | Path) -> Path:
    """The manifest beside the records file ``path`` (``games.jsonl``: ``games.manifest.json``)."""
    path = Path(path)
    return path.with_name(path.stem + MANIFEST_SUFFIX)


def write_records(games: Iterable[ArenaGame], path: Path) -> Path:
    """``games`` as JSON lines, one record each (``load_records`` reads them back), and the
    manifest of those lines beside them (``manifest_path``; ``agents.arena.digests``), built
    from the records as written; returns the manifest's path. An old manifest is removed
    first, so a write cut short leaves none rather than one of another file."""
    manifest = manifest_path(path)
    manifest.unlink(missing_ok=True)
    entries = []
    with path.open("w", encoding="utf-8") as handle:
        for g in games:
            record = g.to_record()
            handle.write(json.dumps(record, separators=(",", ":")) + "\n")
            entries.append(manifest_entry(record))
    manifest.write_text(json.dumps(manifest_of(entries)) + "\n", encoding="utf-8")
    return manifest


def load_records(path: str | Path, name: str | None = None) -> list[dict[str, Any]]:
    """The records of a JSON-lines file, one per non-empty line. Raises ``MalformedRecord``
    naming the line (and the file as ``name``, default ``path``) for text that is not UTF-8, not
    JSON, nested too deeply, too long or not an object (``OSError`` if the file cannot be
    read)."""
    records = []
    with Path(path).open("rb") as handle:
        for line_number in range(1, sys.maxsize):
            raw = handle.readline(MAX_LINE_BYTES + 1)
            if not raw:
                break
            where = f"{path if name is None else name}, line {line_number}"
            if len(raw) > MAX_LINE_BYTES:
                raise MalformedRecord(f"{where}: longer than {MAX_LINE_BYTES:,} bytes")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise MalformedRecord(f"{where}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at "
                                      f"column {exc.start + 1})") from None
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except RecursionError:
                raise MalformedRecord(f"{where}: JSON nested too deeply") from None
            except ValueError as exc:  # JSONDecodeError, or an integer of too many digits
                raise MalformedRecord(f"{where}: not JSON ({short_repr(str(exc))})") from None
            if not isinstance(record, dict):
                raise MalformedRecord(f"{where}: a record is a JSON object, got "
                                      f"{type(record).__name__}")
            records.append(record)
    return records


def games_file(path: str | Path) -> Path:
    """The ``games.jsonl`` of an arena run folder, or ``path`` itself if it is a file."""
    path = Path(path)
    return path / "games.jsonl" if path.is_dir() else path


def games_digests(paths: Iterable[str | Path]) -> dict[str, str]:
    """The SHA-256 of each run's ``games_file``, by that file's path: what a model fitted on
    recorded games names as its data."""
    return {str(games_file(p)): hashlib.sha256(games_file(p).read_bytes()).hexdigest()
            for p in paths}


def game_records(paths: Iterable[str | Path], game: str) -> list[dict[str, Any]]:
    """The ``game`` records of arena runs (``games.jsonl`` files, or run folders holding one), in
    file order; other games' records are skipped. Raises ``ValueError`` if there are none."""
    paths = [Path(p) for p in paths]
    records = [record for path in paths for record in load_records(games_file(path))
               if record.get("game") == game]
    if not records:
        raise ValueError(f"no {game} games in {', '.join(map(str, paths))}")
    return records


def start_and_actions(record: dict[str, Any]) -> tuple[Any, list[int]]:
    """A record's starting state and its actions."""
    return record_start_state(record), list(record["actions"])


def recorded_games(paths: Iterable[str | Path], game: str) -> list[tuple[Any, list[int]]]:
    """The ``game`` games of arena records (``games.jsonl`` files, or run folders holding one):
    ``(starting state, actions)`` pairs, in file order; other games' records are skipped."""
    return [start_and_actions(record) for record in game_records(paths, game)]
