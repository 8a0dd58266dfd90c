"""Watching recorded games: the arena's ``games.jsonl`` files under one folder.

The server is given one folder (``scripts/serve.py --runs``); the page names files by their
path relative to it, and a path that leads outside it (``..``, an absolute path, a link that
points elsewhere) is refused; messages name files by that relative path too, and no absolute
path of the server is sent (``RunFolder.public``: not in a message, nor a scenario a record
names by path). A game is replayed through the game core (``agents.arena.replay``,
which checks every move and digest), and its positions are built per ply for the view asked
for: either player's (what that player knew) or everything. A game's result is sent only from
its replay: the list of a file's games carries the result of those replayed so far (kept with
the file's records), never what a record claims.
"""

from __future__ import annotations

import posixpath
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.arena.journal import records_of
from agents.arena.records import load_records
from agents.arena.replay import record_result, replay
from agents.web.play import PlayError
from agents.web.views import action_words, board_json, position_json, revealed_json
from tbw_envs.core.contract import is_integer, short_repr
from tbw_envs.games import game_names, get_game

__all__ = ["RunFolder", "VIEWS"]

RECORD_FILE = "games.jsonl"
VIEWS = ("all", "0", "1")
MAX_FILES = 1000
MAX_DEPTH = 4
# An absolute path in a message: a "/" that starts a word, up to a space or a quote.
ABSOLUTE_PATH = re.compile(r"(?<![\w.])/[^\s'\"]+")


@dataclass
class LoadedFile:
    """A games file as read, and what replaying its games found, by index: the result the
    replay gave, or why the game does not replay."""

    records: list[dict[str, Any]]
    results: dict[int, dict[str, Any]] = field(default_factory=dict)
    problems: dict[int, str] = field(default_factory=dict)


class RunFolder:
    """The recorded games under ``root``, read on request (a few files kept in memory)."""

    def __init__(self, root: str | Path, cache_files: int = 4):
        # A games.jsonl file stands for the folder it is in.
        path = Path(root).resolve()
        self.root = path.parent if path.is_file() else path
        # By (path, modification time in ns, size): a file written again is read again.
        self._cache: OrderedDict[tuple[Path, int, int], LoadedFile] = OrderedDict()
        self._cache_files = cache_files
        self._lock = threading.Lock()

    def shown(self, path: Path) -> str:
        """How messages name ``path``: relative to the runs folder."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.name

    def public(self, text: str) -> str:
        """``text`` with no absolute path of the server in it: a path inside the runs folder
        made relative to it, any other (a record may name its scenario or rule set by path, and
        a message may cut one short) cut to ``.../`` and its last part."""
        root = str(self.root) + "/"

        def shown(match: re.Match[str]) -> str:
            path = match.group()
            return path[len(root):] if path.startswith(root) else f".../{posixpath.basename(path)}"

        return ABSOLUTE_PATH.sub(shown, text)

    # ------------------------------------------------------------------ files
    def files(self) -> list[str]:
        """Every ``games.jsonl`` (and other ``.jsonl``: the ``journal.jsonl`` of a run still
        going) file under the folder, relative paths with '/' separators, newest first."""
        if not self.root.is_dir():
            return []
        found: list[tuple[float, str]] = []
        self._walk(self.root, 0, found)
        found.sort(key=lambda item: (-item[0], item[1]))
        return [path for _, path in found[:MAX_FILES]]

    def _walk(self, folder: Path, depth: int, found: list[tuple[float, str]]) -> None:
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                resolved = entry.resolve()
                if not resolved.is_relative_to(self.root):
                    continue  # a link out of the folder
                if entry.is_dir() and depth < MAX_DEPTH:
                    self._walk(entry, depth + 1, found)
                elif entry.is_file() and entry.suffix == ".jsonl":
                    found.append((entry.stat().st_mtime,
                                  entry.relative_to(self.root).as_posix()))
            except (OSError, RuntimeError):  # RuntimeError: a link that leads to itself
                continue

    def resolve(self, relative: Any) -> Path:
        """The file ``relative`` names inside the folder; a run folder means its games.jsonl.
        Anything that leads outside the folder is refused."""
        if not isinstance(relative, str) or not relative or "\0" in relative:
            raise PlayError(f"file must be a path inside the runs folder, got "
                            f"{short_repr(relative)}")
        candidate = Path(relative)
        if candidate.is_absolute() or ".." in candidate.parts:
            raise PlayError(f"file {short_repr(relative)}: only paths inside the runs folder are "
                            f"served", status=403)
        try:
            path = (self.root / candidate).resolve()
        except (OSError, RuntimeError):  # a link that leads to itself
            raise PlayError(f"no games file {short_repr(relative)} in the runs folder (a link "
                            f"that cannot be followed)", status=404) from None
        if not path.is_relative_to(self.root):
            raise PlayError(f"file {short_repr(relative)}: only paths inside the runs folder "
                            f"are served", status=403)
        if path.is_dir():
            path = path / RECORD_FILE
        if not path.is_file() or path.suffix != ".jsonl":
            raise PlayError(f"no games file {short_repr(relative)} in the runs folder",
                            status=404)
        return path

    def records(self, relative: Any) -> list[dict[str, Any]]:
        return self.loaded(relative).records

    def loaded(self, relative: Any) -> LoadedFile:
        """The file ``relative`` names, read (or as read before, if it has not changed)."""
        path = self.resolve(relative)
        shown = self.shown(path)
        try:
            stat = path.stat()
            key = (path, stat.st_mtime_ns, stat.st_size)
            with self._lock:
                if key in self._cache:
                    self._cache.move_to_end(key)
                    return self._cache[key]
            loaded = LoadedFile(records_of(load_records(path, name=shown)))
        except OSError as exc:
            raise PlayError(f"{shown}: cannot be read ({exc.strerror or type(exc).__name__})",
                            status=500) from None
        except ValueError as exc:
            raise PlayError(self.public(str(exc))) from None
        with self._lock:
            self._cache[key] = loaded
            while len(self._cache) > self._cache_files:
                self._cache.popitem(last=False)
        return loaded

    # ------------------------------------------------------------------ games
    def games(self, relative: Any) -> list[dict[str, Any]]:
        """One line per game of the file: what the page lists to choose from. A game's
        "result" is the one its replay gave (null until it has been replayed: a record's own
        claim is never sent), "problem" why it does not replay (null if it does or has not
        been tried)."""
        loaded = self.loaded(relative)
        out = []
        with self._lock:
            results, problems = dict(loaded.results), dict(loaded.problems)
        known = game_names()
        for index, record in enumerate(loaded.records):
            game = record.get("game") if isinstance(record, dict) else None
            if game not in known:
                continue
            variant = record.get(get_game(game).variant_flag)
            out.append({
                "index": index, "game": game, "game_id": record.get("game_id"),
                "variant": self.public(variant) if isinstance(variant, str) else variant,
                "agents": record.get("agents"), "result": results.get(index),
                "problem": problems.get(index), "thinking": "thinking" in record,
            })
        return out

    def _check_variant(self, record: dict[str, Any], index: Any) -> None:
        """A record names its board or rule set: a bundled one, or a file inside the runs
        folder. Any other path would have the server read a file a record chose."""
        description = get_game(record["game"])
        variant = record.get(description.variant_flag)
        if not isinstance(variant, str) or variant in description.variants():
            return  # not a name at all: the replay's own checks refuse it
        try:  # where the replay would read it: relative to the server's folder
            inside = Path(variant).resolve().is_relative_to(self.root)
        except (OSError, ValueError, RuntimeError):  # a loop of links, a NUL
            inside = False
        if not inside:
            raise PlayError(f"game {index} names its {description.variant_noun} by a file "
                            f"outside the runs folder; the watcher replays bundled ones "
                            f"({', '.join(description.variants())}) and files inside the runs "
                            f"folder only", status=403)

    def game(self, relative: Any, index: Any, view: Any = "all") -> dict[str, Any]:
        """Game ``index`` of the file, replayed: the board, and per ply the position in
        ``view`` ("all", or "0" / "1" for that player's knowledge) with the move in words."""
        loaded = self.loaded(relative)
        records = loaded.records
        if isinstance(index, bool) or not is_integer(index) or not 0 <= int(index) < len(records):
            raise PlayError(f"game must be an index 0 to {len(records) - 1}, got "
                            f"{short_repr(index)}", status=404)
        view = str(view)
        if view not in VIEWS:
            raise PlayError(f"view must be one of {list(VIEWS)}, got {short_repr(view)}")
        record = records[int(index)]
        game = record.get("game") if isinstance(record, dict) else None
        if game not in game_names():
            raise PlayError(f"game {index} is of an unknown game {short_repr(game)}")
        self._check_variant(record, index)
        frames: list[dict[str, Any]] = []
        actions = record.get("actions") or []

        def on_ply(ply: int, state: Any) -> None:
            position = (revealed_json(game, state, history=False) if view == "all"
                        else position_json(game, state.view(int(view)), history=False))
            if ply < len(actions) and not state.is_terminal():
                position["next"] = action_words(game, state, actions[ply])
            frames.append(position)

        try:
            final = replay(record, int(index), on_ply=on_ply)
        except ValueError as exc:
            problem = self.public(str(exc))
            with self._lock:
                loaded.problems[int(index)] = problem
            raise PlayError(f"game {index} does not replay: {problem}") from None
        result = record_result(record, final)
        with self._lock:
            loaded.results[int(index)] = result
        description = get_game(game)
        return {
            "game": game, "agents": record.get("agents"), "result": result,
            "view": view,
            "board": board_json(game, record[description.variant_flag]),
            "frames": frames, "thinking": record.get("thinking"),
        }
