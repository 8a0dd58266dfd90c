"""A whole ``games.jsonl`` proves it is complete (``agents.arena.completeness``): every writer
puts a manifest beside it (the count, each record's game id and digest in order, a digest over
them), and a record removed, doubled, reordered, changed or added, or an edited manifest, is
named; a resumed run's manifest describes the final file."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from agents.arena import run_round_robin, write_result
from agents.arena.completeness import (
    Manifest,
    completeness_problems,
    manifest_problem,
    read_manifest,
)
from agents.arena.digests import manifest_of, record_digest
from agents.arena.journal import JOURNAL_NAME
from agents.arena.ladder import run_ladder
from agents.arena.records import MalformedRecord, load_records, manifest_path, write_records
from agents.arena.replay import verify_records
from tests.helpers.quick_games import SKIRMISH

RUN = {"game": "tbw", "specs": ["greedy", "random"], "games_per_pairing": 4, "seed": 5,
       "opening_plies": 4, "bootstrap": 0}


@pytest.fixture(scope="module")
def run_file(tmp_path_factory):
    """A written run of four games: its games.jsonl (the manifest beside it)."""
    out = tmp_path_factory.mktemp("complete")
    return write_result(run_round_robin(**RUN, workers=1), out, chart=False)["games.jsonl"]


def records_and_manifest(run_file):
    return load_records(run_file), json.loads(manifest_path(run_file).read_text())


def problems_of(records, manifest_value, tmp_path):
    """``verify_records`` of ``records`` with ``manifest_value`` as the file's manifest, through
    the files (as scripts/replay.py reads them)."""
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    manifest_path(path).write_text(json.dumps(manifest_value), encoding="utf-8")
    return verify_records(load_records(path), read_manifest(path))


def test_every_writer_puts_the_manifest_of_its_records_beside_them(run_file):
    records, manifest = records_and_manifest(run_file)
    assert manifest["count"] == len(records) == 4
    assert manifest["records"] == [[r["game_id"], record_digest(r)] for r in records]
    assert manifest_problem(manifest) is None
    assert verify_records(records, read_manifest(run_file)) == []
    results = json.loads((run_file.parent / "results.json").read_text())
    assert results["files"]["games.manifest.json"] == "games.manifest.json"


def test_the_ladder_writes_the_manifest_too(tmp_path):
    (tmp_path / "skirmish.yaml").write_text(yaml.safe_dump(SKIRMISH), encoding="utf-8")
    ladder = tmp_path / "ladder.yaml"
    ladder.write_text(yaml.safe_dump({
        "game": "tbw", "variant": str(tmp_path / "skirmish.yaml"), "games_per_opponent": 2,
        "opening_plies": 1, "seed": 0, "source": "a test",
        "pool": [{"spec": "random", "elo": 1400}, {"spec": "greedy", "elo": 1600}]}))
    result = run_ladder("tbw", "greedy", ladder=ladder, workers=1, progress=False)
    path = tmp_path / "out" / "games.jsonl"
    path.parent.mkdir()
    assert result.write_games(path) == manifest_path(path)
    records = load_records(path)
    assert len(records) == 4 and verify_records(records, read_manifest(path)) == []


def test_a_resumed_run_writes_the_manifest_of_the_whole_file(tmp_path):
    full = run_round_robin(**RUN, workers=1, journal=tmp_path / "full" / JOURNAL_NAME)
    # The same run killed after two of its four games: the header and two game lines.
    journal = tmp_path / "cut" / JOURNAL_NAME
    journal.parent.mkdir()
    lines = (tmp_path / "full" / JOURNAL_NAME).read_text().splitlines(keepends=True)
    journal.write_text("".join(lines[:3]))
    full_paths = write_result(full, tmp_path / "full", chart=False)
    resumed = run_round_robin(**RUN, workers=1, journal=journal, resume=True)
    assert resumed.resumed_games == 2
    paths = write_result(resumed, tmp_path / "cut", chart=False)
    assert not journal.exists()
    assert (paths["games.manifest.json"].read_bytes()
            == full_paths["games.manifest.json"].read_bytes())
    assert verify_records(load_records(paths["games.jsonl"]),
                          read_manifest(paths["games.jsonl"])) == []


def test_a_write_cut_short_leaves_no_manifest_of_another_file(tmp_path, run_file):
    path = tmp_path / "games.jsonl"
    manifest_path(path).write_text(manifest_path(run_file).read_text())

    class Broken:
        def to_record(self):
            raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_records([Broken()], path)
    assert not manifest_path(path).exists()


# ---------------------------------------------------------------------- what is named


def remove(records, index):
    del records[index]


def double(records, index):
    records.insert(index + 1, copy.deepcopy(records[index]))


def swap(records, first, second):
    records[first], records[second] = records[second], records[first]


def rebind(record):
    """Make the record's own digest agree with an edit, as a careful editor would."""
    record["digests"]["record"] = record_digest(record)


def change_specs(records, index):
    records[index]["specs"][1] = "random:seed=1"
    rebind(records[index])


FILE_EDITS = {
    # name: (edit of the four records, the problems verify_records names)
    "middle-record-removed": (
        lambda rs: remove(rs, 2),
        ["record 2 is missing (game 2): the manifest lists it, the file does not hold it"]),
    "last-record-removed": (
        lambda rs: remove(rs, 3),
        ["record 3 is missing (game 3): the manifest lists it, the file does not hold it"]),
    "record-doubled": (
        lambda rs: double(rs, 1),
        ["record 2 (game 1, 'tbw': 'random' v 'greedy') appears twice: it repeats record 1"]),
    "records-swapped": (
        lambda rs: swap(rs, 1, 2),
        ["records 1 and 2 are out of order: the file has games 2, 1 there, the manifest "
         "games 1, 2"]),
    "first-moved-last": (
        lambda rs: rs.append(rs.pop(0)),
        ["records 0, 1, 2 and 3 are out of order: the file has games 1, 2, 3, 0 there, the "
         "manifest games 0, 1, 2, 3"]),
    "record-changed-and-its-digest-rebound": (
        lambda rs: change_specs(rs, 3),
        ["record 3 (game 3, 'tbw': 'random' v 'greedy') is not the record the manifest lists "
         "for game 3 (its record 3): it was changed after the file was written"]),
    "record-of-another-run-added": (
        lambda rs: (rs.append(copy.deepcopy(rs[0])), rs[4].update(game_id=9), rebind(rs[4])),
        ["record 4 (game 9, 'tbw': 'greedy' v 'random') is not in the manifest: it was added "
         "after the file was written"]),
    "one-removed-one-doubled": (
        lambda rs: (remove(rs, 0), double(rs, 2)),
        ["record 0 is missing (game 0): the manifest lists it, the file does not hold it",
         "record 3 (game 3, 'tbw': 'random' v 'greedy') appears twice: it repeats record 2"]),
}


@pytest.mark.parametrize("name", list(FILE_EDITS))
def test_a_file_that_is_not_whole_is_named_record_by_record(run_file, tmp_path, name):
    records, manifest = records_and_manifest(run_file)
    edit, expected = FILE_EDITS[name]
    edit(records)
    assert verify_records(records) == []  # record by record, each is fine
    assert problems_of(records, manifest, tmp_path) == expected


def test_a_changed_record_is_named_by_its_replay_and_by_the_manifest(run_file, tmp_path):
    records, manifest = records_and_manifest(run_file)
    records[1]["specs"][0] = "random:seed=1"  # its digest not rebound this time
    problems = problems_of(records, manifest, tmp_path)
    assert len(problems) == 2
    assert problems[0].startswith("record 1 ") and "digests.record differs" in problems[0]
    assert "is not the record the manifest lists for game 1" in problems[1]


def test_an_edit_of_digests_record_alone_is_named_as_that_field(run_file, tmp_path):
    records, manifest = records_and_manifest(run_file)
    digest = records[2]["digests"]["record"]
    records[2]["digests"]["record"] = ("0" if digest[0] != "0" else "1") + digest[1:]
    problems = problems_of(records, manifest, tmp_path)
    assert len(problems) == 1 and problems[0].startswith("record 2 ")
    assert ("the record hashes to the digest its file's manifest lists: digests.record was "
            "edited, not the record") in problems[0]


def flip(text):
    return ("0" if text[0] != "0" else "1") + text[1:]


MANIFEST_EDITS = {
    # name: (edit of the manifest, what the one problem says)
    "count-edited": (lambda m: m.update(count=3),
                     "the manifest was edited: its count is 3, but it lists 4 records"),
    "entry-digest-edited": (
        lambda m: m["records"][1].__setitem__(1, flip(m["records"][1][1])),
        "the manifest was edited: its digest"),
    "entry-game-id-edited": (lambda m: m["records"][1].__setitem__(0, 7),
                             "the manifest was edited: its digest"),
    "entry-dropped-and-count-fixed": (
        lambda m: (m["records"].pop(), m.update(count=3)), "the manifest was edited: its digest"),
    "entries-swapped": (lambda m: m["records"].reverse(), "the manifest was edited: its digest"),
    "digest-edited": (lambda m: m.update(digest=flip(m["digest"])),
                      "the manifest was edited: its digest"),
    "format-edited": (lambda m: m.update(format="md5/1"), "unknown manifest format 'md5/1'"),
    "records-not-a-list": (lambda m: m.update(records={}),
                           "field 'records' must be a list of [game id, record digest]"),
    "entry-not-a-pair": (lambda m: m["records"].__setitem__(0, [0]),
                         "records[0] must be [game id, 64 lowercase hex digits], got [0]"),
    "count-a-bool": (lambda m: m.update(count=True), "field 'count' must be a non-negative"),
}


@pytest.mark.parametrize("name", list(MANIFEST_EDITS))
def test_an_edited_manifest_is_named_and_not_trusted(run_file, tmp_path, name):
    records, manifest = records_and_manifest(run_file)
    edit, message = MANIFEST_EDITS[name]
    edit(manifest)
    problems = problems_of(records, manifest, tmp_path)
    assert len(problems) == 1, problems
    assert problems[0].startswith(str(tmp_path / "games.manifest.json") + ": ")
    assert message in problems[0] and problems[0].endswith("completeness not checked")


@pytest.mark.parametrize(("content", "message"), [
    (b"{not json", "not JSON"),
    (b'{"format": "\xff"}', "not UTF-8 text (byte 0xff at offset 12)"),
    (b"[" * 100_000 + b"]" * 100_000, "JSON nested too deeply"),
])
def test_a_manifest_that_is_not_json_is_refused_by_name(run_file, tmp_path, content, message):
    path = tmp_path / "games.jsonl"
    path.write_bytes(run_file.read_bytes())
    manifest_path(path).write_bytes(content)
    with pytest.raises(MalformedRecord) as info:
        read_manifest(path, name="run/games.jsonl")
    assert str(info.value).startswith("run/games.manifest.json: ") and message in str(info.value)


def test_a_lone_file_has_no_manifest_to_check():
    assert read_manifest("no/such/folder/games.jsonl") is None


def test_many_missing_records_are_counted_not_all_named(run_file):
    records, manifest = records_and_manifest(run_file)
    entries = [[i, f"{i:064x}"] for i in range(30)] + manifest["records"]
    problems = completeness_problems(records, Manifest(manifest_of(entries), "m"))
    assert len(problems) == 21 and problems[-1] == "... and 10 more records missing"
