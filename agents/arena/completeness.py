"""Whether a ``games.jsonl`` holds every record its writer wrote, each once and in order.

The writer puts a manifest beside the file (``records.write_records``; ``games.manifest.json``):
the count of its records, each record's ``[game id, record digest]`` in file order, and a digest
over those (``agents.arena.digests``). ``completeness_problems`` first checks that the manifest
agrees with itself (an edited count, entry or digest is named as an edit of the manifest, and
nothing is compared with it then), and then names each record of the file that is not where the
manifest lists it: missing, doubled, out of order, changed after it was written, or added.
A file without a manifest can only be checked record by record (``agents.arena.replay``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.arena.digests import MANIFEST_FORMAT, manifest_digest, manifest_entry
from agents.arena.record_shape import record_name
from agents.arena.records import MalformedRecord, manifest_path
from tbw_envs.core.contract import is_integer, short_repr

MAX_MANIFEST_BYTES = 64 * 2**20  # 100,000 games (the arena's cap) take about 8 MB
MAX_NAMED = 20  # records named per kind of problem; the rest are counted


@dataclass(frozen=True)
class Manifest:
    """A file's manifest as read (its JSON value, checked only by ``manifest_problem``) and the
    name messages call it by."""

    value: Any
    name: str


def read_manifest(records_file: str | Path, name: str | None = None) -> Manifest | None:
    """The manifest beside ``records_file`` (``records.manifest_path``), or None if there is
    none; ``name`` is what messages call the records file (default its path). Raises
    ``MalformedRecord`` like ``load_manifest``."""
    path = manifest_path(records_file)
    if not path.is_file():
        return None
    shown = str(path) if name is None else str(Path(name).with_name(path.name))
    return Manifest(load_manifest(path, shown), shown)


def load_manifest(path: str | Path, name: str | None = None) -> Any:
    """The JSON value of the manifest file at ``path``. Raises ``MalformedRecord`` naming it (as
    ``name``, default ``path``) for a file that is too long, not UTF-8 or not JSON
    (``OSError`` if it cannot be read)."""
    name = str(path) if name is None else name
    with Path(path).open("rb") as handle:
        raw = handle.read(MAX_MANIFEST_BYTES + 1)
    if len(raw) > MAX_MANIFEST_BYTES:
        raise MalformedRecord(f"{name}: longer than {MAX_MANIFEST_BYTES:,} bytes")
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise MalformedRecord(f"{name}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                              f"{exc.start})") from None
    except RecursionError:
        raise MalformedRecord(f"{name}: JSON nested too deeply") from None
    except ValueError as exc:
        raise MalformedRecord(f"{name}: not JSON ({short_repr(str(exc))})") from None


def _is_entry(entry: Any) -> bool:
    return (isinstance(entry, list) and len(entry) == 2 and is_integer(entry[0])
            and not isinstance(entry[0], bool) and entry[0] >= 0 and _is_digest(entry[1]))


def _is_digest(value: Any) -> bool:
    return (isinstance(value, str) and len(value) == 64
            and all(c in "0123456789abcdef" for c in value))


def manifest_problem(manifest: Any, name: str = "the manifest") -> str | None:
    """Why ``manifest`` cannot be trusted (a field of the wrong shape, or an edit that left it
    disagreeing with itself), or None."""
    def problem(what: str) -> str:
        return f"{name}: {what}; completeness not checked"

    if not isinstance(manifest, dict):
        return problem(f"a manifest is a JSON object, got {type(manifest).__name__}")
    if manifest.get("format") != MANIFEST_FORMAT:
        return problem(f"unknown manifest format {short_repr(manifest.get('format'))}; expected "
                       f"{MANIFEST_FORMAT}")
    count, entries, digest = (manifest.get(key) for key in ("count", "records", "digest"))
    if not (is_integer(count) and not isinstance(count, bool) and count >= 0):
        return problem(f"field 'count' must be a non-negative integer, got {short_repr(count)}")
    if not isinstance(entries, list):
        return problem(f"field 'records' must be a list of [game id, record digest], got "
                       f"{type(entries).__name__}")
    bad = next((i for i, entry in enumerate(entries) if not _is_entry(entry)), None)
    if bad is not None:
        return problem(f"records[{bad}] must be [game id, 64 lowercase hex digits], got "
                       f"{short_repr(entries[bad])}")
    if not _is_digest(digest):
        return problem(f"field 'digest' must be 64 lowercase hex digits, got "
                       f"{short_repr(digest)}")
    if count != len(entries):
        return problem(f"the manifest was edited: its count is {count}, but it lists "
                       f"{len(entries)} records")
    recomputed = manifest_digest(entries)
    if recomputed != digest:
        return problem(f"the manifest was edited: its digest ({digest[:16]}...) is not that of "
                       f"the records it lists ({recomputed[:16]}...)")
    return None


def file_entry(record: Any) -> list[Any] | None:
    """The ``manifest_entry`` of a record as the file holds it (None for what is no record)."""
    if not isinstance(record, dict):
        return None
    try:
        return manifest_entry(record)
    except (RecursionError, TypeError, ValueError):  # nothing the arena writes
        return None


def listed_digests(manifest: Manifest) -> set[str]:
    """The record digests a manifest that agrees with itself lists (none for one that does
    not): a record that hashes to one of them is as it was written."""
    if manifest_problem(manifest.value, manifest.name) is not None:
        return set()
    return {digest for _, digest in manifest.value["records"]}


def completeness_problems(records: list[Any], manifest: Manifest) -> list[str]:
    """What keeps ``records`` (a file's, in file order) from being exactly the records the
    file's ``manifest`` lists, in its order: each problem names the record (its index in the
    file, or in the manifest for one that is missing) and its game; empty when complete."""
    problem = manifest_problem(manifest.value, manifest.name)
    if problem is not None:
        return [problem]
    listed = [tuple(entry) for entry in manifest.value["records"]]
    found = [file_entry(record) for record in records]
    if [None if entry is None else tuple(entry) for entry in found] == listed:
        return []
    places: dict[str, list[int]] = {}  # manifest positions by record digest, first first
    for position, (_, digest) in enumerate(listed):
        places.setdefault(digest, []).append(position)
    first_at: dict[str, int] = {}  # file index of a digest's first record
    matched: list[tuple[int, int]] = []  # (file index, manifest position), in file order
    doubled, unlisted = [], []
    for index, entry in enumerate(found):
        digest = None if entry is None else entry[1]
        if digest in places and places[digest]:
            first_at.setdefault(digest, index)
            matched.append((index, places[digest].pop(0)))
        elif digest in first_at:
            doubled.append(f"{record_name(records[index], index)} appears twice: it repeats "
                           f"record {first_at[digest]}")
        else:
            unlisted.append(index)
    missing = sorted(position for positions in places.values() for position in positions)
    changed = []
    for index in list(unlisted):
        game_id = records[index].get("game_id") if isinstance(records[index], dict) else None
        same_game = next((p for p in missing if listed[p][0] == game_id), None)
        if same_game is not None:  # that game's record is there, but not as it was written
            missing.remove(same_game)
            unlisted.remove(index)
            changed.append(f"{record_name(records[index], index)} is not the record the "
                           f"manifest lists for game {game_id} (its record {same_game}): it "
                           f"was changed after the file was written")
    added = [f"{record_name(records[index], index)} is not in the manifest: it was added "
             f"after the file was written" for index in unlisted]
    lost = [f"record {position} is missing (game {listed[position][0]}): the manifest lists "
            f"it, the file does not hold it" for position in missing]
    return [*_capped(lost, "missing"), *_capped(doubled, "doubled"), *_capped(changed, "changed"),
            *_capped(added, "added"), *_order_problems(matched, listed)]


def _order_problems(matched: list[tuple[int, int]], listed: list[tuple[Any, str]]) -> list[str]:
    """The records that are not in the manifest's order: those whose place among the matched
    records differs from the manifest's, named together."""
    in_order = sorted(position for _, position in matched)
    displaced = [(index, position, want)
                 for (index, position), want in zip(matched, in_order, strict=True)
                 if position != want]
    if not displaced:
        return []
    shown = displaced[:MAX_NAMED]
    more = f" and {len(displaced) - len(shown)} more" if len(displaced) > len(shown) else ""
    return [f"records {_words(str(index) for index, _, _ in shown)}{more} are out of order: "
            f"the file has games {', '.join(str(listed[p][0]) for _, p, _ in shown)} there, "
            f"the manifest games {', '.join(str(listed[w][0]) for _, _, w in shown)}"]


def _words(items: Iterable[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _capped(problems: list[str], kind: str) -> list[str]:
    if len(problems) <= MAX_NAMED:
        return problems
    return [*problems[:MAX_NAMED], f"... and {len(problems) - MAX_NAMED} more records {kind}"]
