"""The replay command (``agents.cli.replay``) proves what a record claims: ``--verify`` recomputes
the seeds, the opening, every ply's digest and the result, and each way of tampering with a record
is caught and named (the record, the first mismatch, its ply). Records without digests (format /1)
verify as far as they can and say so; bad files and options get a clear message instead of a
traceback; text and GIF output."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import agents.arena.replay as arena_replay
from agents.arena import (
    RECORD_FORMATS,
    record_start_state,
)
from agents.arena.records import manifest_path
from agents.cli import replay as replay_cli
from tests.helpers.arena_runs import OPENING


def load(opening_runs, game):
    return replay_cli.load_records(opening_runs[game])


def write(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


# ---------------------------------------------------------------------- tampering


def ply_after_opening(record) -> int:
    return OPENING + 3  # 1-based ply index of an agent's move


def replace_with_other_legal_move(record, ply: int) -> None:
    """Put another legal action at ``ply`` (1-based) and keep the rest of the game as it was."""
    state = record_start_state(record)
    for action in record["actions"][:ply - 1]:
        state.apply(action)
    alternatives = [a for a in state.legal_actions() if a != record["actions"][ply - 1]]
    assert alternatives, "the test needs a ply with a choice"
    record["actions"][ply - 1] = alternatives[0]


def swap_labels(record) -> None:
    for key in ("agents", "specs"):
        record[key] = record[key][::-1]


def strip_to_v1(record) -> None:
    """What scripts/arena.py wrote before digests (format /1)."""
    record["format"] = RECORD_FORMATS[0]
    for key in ("swapped", "base_seed", "digests"):
        record.pop(key)
    record["start"].pop("opening_plies_requested")


def flip_hex(text: str) -> str:
    return ("0" if text[0] != "0" else "1") + text[1:]


TAMPERS = {
    # name: (tamper, message fragment of the first mismatch)
    "move-replaced-by-another-legal-move": (
        lambda r: replace_with_other_legal_move(r, ply_after_opening(r)),
        f"ply {OPENING + 3}: the state digest differs"),
    "opening-move-replaced-by-another-legal-move": (
        lambda r: replace_with_other_legal_move(r, 2),
        "opening ply 2: the record has action"),
    "labels-swapped": (swap_labels, "digests.record differs"),
    "labels-swapped-winner-flipped": (
        lambda r: (swap_labels(r), r["result"].update(winner=None)),
        "result.winner differs"),
    "result-returns-edited": (
        lambda r: r["result"].update(returns=[-x for x in r["result"]["returns"]]),
        "result.returns differs"),
    "result-winner-edited": (
        lambda r: r["result"].update(winner=1 - r["result"]["winner"]),
        "result.winner differs"),
    "result-end-reason-edited": (
        lambda r: r["result"].update(end_reason="ply_cap"), "result.end_reason differs"),
    "result-plies-edited": (
        lambda r: r["result"].update(plies=r["result"]["plies"] + 1), "result.plies differs"),
    "opening-plies-edited": (
        lambda r: r["start"].update(opening_plies=OPENING - 1),
        "start.opening_plies differs: the record says 3"),
    "opening-plies-requested-edited": (
        lambda r: r["start"].update(opening_plies_requested=OPENING + 2),
        "start.opening_plies differs"),
    "opening-erased": (
        lambda r: r["start"].update(opening_plies=0, opening_plies_requested=0),
        "digests.record differs"),
    "ply-digest-edited": (
        lambda r: r["digests"]["plies"].__setitem__(5, flip_hex(r["digests"]["plies"][5])),
        "digests.plies[5] (ply 6) differs from the replay"),
    "last-ply-digest-edited": (
        lambda r: r["digests"]["plies"].__setitem__(-1, flip_hex(r["digests"]["plies"][-1])),
        "was edited, not the move"),
    "ply-digest-appended": (
        lambda r: r["digests"]["plies"].append("0" * 16), "digests.plies has"),
    "last-ply-digest-dropped": (
        lambda r: r["digests"]["plies"].pop(), "digests.plies has"),
    "start-digest-edited": (
        lambda r: r["digests"].update(start=flip_hex(r["digests"]["start"])),
        "digests.start was edited, not the starting position"),
    "final-digest-edited": (
        lambda r: r["digests"].update(final=flip_hex(r["digests"]["final"])),
        "digests.final was edited, not the game"),
    "record-digest-edited": (
        lambda r: r["digests"].update(record=flip_hex(r["digests"]["record"])),
        "digests.record differs"),
    "actions-truncated": (
        lambda r: r["actions"].__delitem__(slice(-3, None)),
        "actions end, but the game is not over"),
    "actions-and-digests-truncated": (
        lambda r: (r["actions"].__delitem__(slice(-3, None)),
                   r["digests"]["plies"].__delitem__(slice(-3, None))),
        "actions end, but the game is not over"),
    "action-appended": (
        lambda r: (r["actions"].append(r["actions"][-1]), r["digests"]["plies"].append("0" * 16)),
        "the game ended after"),
    "seed-edited": (lambda r: r.update(seed=r["seed"] + 1), "seed differs"),
    "base-seed-edited": (lambda r: r.update(base_seed=r["base_seed"] + 1), "seed differs"),
    "agent-seeds-swapped": (
        lambda r: r.update(agent_seeds=r["agent_seeds"][::-1]), "agent_seeds differ"),
    "seating-flag-flipped": (
        lambda r: r.update(swapped=not r["swapped"]), "agent_seeds differ"),
    "specs-edited": (
        lambda r: r.update(specs=[r["specs"][0], "exact"]), "digests.record differs"),
    "digests-dropped": (lambda r: r.pop("digests"), "missing field 'digests'"),
    "digests-scheme-edited": (
        lambda r: r["digests"].update(scheme="md5/1"), "field 'digests.scheme' must be"),
    "actions-null": (lambda r: r.update(actions=None), "field 'actions' must be a list"),
    "action-a-bool": (lambda r: r["actions"].__setitem__(0, True), "field 'actions' must be"),
}
JUNQI_TAMPERS = {
    "layout-edited": (
        lambda r: r["start"]["layouts"].reverse(),
        "the layout of player 0 is marked random but is not the one seed"),
    "layout-source-edited": (
        lambda r: r["start"].update(layout_sources=["agent", "agent"]), "digests.record differs"),
}


@pytest.mark.parametrize("game", ["tbw", "junqi"])
@pytest.mark.parametrize("name", list(TAMPERS) + list(JUNQI_TAMPERS))
def test_every_tampering_is_caught_and_named(opening_runs, game, name, tmp_path, capsys):
    if name in JUNQI_TAMPERS and game != "junqi":
        pytest.skip("Junqi layouts only")
    tamper, message = (TAMPERS | JUNQI_TAMPERS)[name]
    records = load(opening_runs, game)
    if name == "result-winner-edited" and records[1]["result"]["winner"] is None:
        pytest.skip("a drawn game has no winner to flip")
    original = copy.deepcopy(records[1])
    tamper(records[1])
    assert records[1] != original
    with pytest.raises(replay_cli.ReplayMismatch) as info:
        replay_cli.replay(records[1], 1)
    assert message in str(info.value) and str(info.value).startswith("record 1 ")
    # The command line: exit 1, the record's index and the same first mismatch, and the
    # untouched record 0 still verifies.
    path = write(tmp_path / "tampered.jsonl", records)
    assert replay_cli.main([str(path), "--verify"]) == 1
    captured = capsys.readouterr()
    assert "mismatch(es)" in captured.out and "all match" not in captured.out
    assert "MISMATCH record 1 " in captured.err and message in captured.err
    assert "MISMATCH record 0 " not in captured.err
    assert replay_cli.main([str(path), "--verify", "--game-index", "0"]) == 0
    assert replay_cli.main([str(path), "--verify", "--game-index", "1"]) == 1


def test_labels_swapped_in_one_game_of_a_pair_are_caught_even_without_digests(
        opening_runs, tmp_path, capsys):
    records = load(opening_runs, "tbw")
    for record in records:
        strip_to_v1(record)
    swap_labels(records[1])
    assert replay_cli.verify_records(records[1:]) == []  # alone, a /1 record cannot tell
    problems = replay_cli.verify_records(records)
    assert len(problems) == 1 and "do not swap seats" in problems[0]
    assert replay_cli.main([str(write(tmp_path / "v1.jsonl", records)), "--verify"]) == 1


# ---------------------------------------------------------------------- digests edited alone


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_each_ply_digest_edited_alone_is_named_as_that_digest(opening_runs, game):
    record = load(opening_runs, game)[0]
    plies = len(record["digests"]["plies"])
    for ply in range(1, plies + 1):
        edited = copy.deepcopy(record)
        edited["digests"]["plies"][ply - 1] = flip_hex(edited["digests"]["plies"][ply - 1])
        with pytest.raises(replay_cli.ReplayMismatch) as info:
            replay_cli.replay(edited)
        message = str(info.value)
        assert (f"digests.plies[{ply - 1}] (ply {ply}) differs from the replay" in message
                and f"digests.plies[{ply - 1}] was edited, not the move" in message), message


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_a_move_or_a_start_that_differs_is_still_named_as_the_move_or_the_start(opening_runs,
                                                                                game):
    record = load(opening_runs, game)[1]
    moved = copy.deepcopy(record)
    replace_with_other_legal_move(moved, len(moved["actions"]) - 1)
    with pytest.raises(replay_cli.ReplayMismatch) as info:
        replay_cli.replay(moved)
    assert "the state digest differs" in str(info.value)
    assert "is not the move that was played" in str(info.value)
    if game == "junqi":  # another start: both layouts said chosen, then swapped
        started = copy.deepcopy(record)
        started["start"].update(layout_sources=["agent", "agent"])
        started["start"]["layouts"].reverse()
        with pytest.raises(replay_cli.ReplayMismatch,
                           match="the starting position differs from the recorded one"):
            replay_cli.replay(started)


def test_an_edit_of_digests_record_alone_is_named_as_that_field(opening_runs, tmp_path, capsys):
    # Alone, a record cannot tell an edit of digests.record from one of a field it binds; its
    # file's manifest can, for it lists the digest the record hashes to.
    path = tmp_path / "games.jsonl"
    path.write_bytes(opening_runs["tbw"].read_bytes())
    manifest = manifest_path(opening_runs["tbw"])
    manifest_path(path).write_bytes(manifest.read_bytes())
    records = replay_cli.load_records(path)
    records[0]["digests"]["record"] = flip_hex(records[0]["digests"]["record"])
    write(path, records)
    with pytest.raises(replay_cli.ReplayMismatch, match="or digests.record itself was"):
        replay_cli.replay(records[0])
    assert replay_cli.main([str(path), "--verify"]) == 1
    err = capsys.readouterr().err
    assert "MISMATCH record 0 " in err and ("the record hashes to the digest its file's "
                                            "manifest lists: digests.record was edited") in err


# ---------------------------------------------------------------------- completeness


def copied_run(opening_runs, tmp_path, manifest: bool = True) -> Path:
    path = tmp_path / "games.jsonl"
    path.write_bytes(opening_runs["tbw"].read_bytes())
    if manifest:
        manifest_path(path).write_bytes(manifest_path(opening_runs["tbw"]).read_bytes())
    return path


def test_a_whole_file_with_its_manifest_verifies_complete(opening_runs, tmp_path, capsys):
    path = copied_run(opening_runs, tmp_path)
    assert replay_cli.main([str(path), "--verify"]) == 0
    out = capsys.readouterr().out
    assert "all match, and the file is complete" in out and "not checked" not in out


def test_a_lone_file_verifies_record_by_record_and_says_completeness_was_not_checked(
        opening_runs, tmp_path, capsys):
    path = copied_run(opening_runs, tmp_path, manifest=False)
    records = replay_cli.load_records(path)
    write(path, records[:1])  # a record removed: without the manifest nothing can tell
    assert replay_cli.main([str(path), "--verify"]) == 0
    out = capsys.readouterr().out
    assert "verified 1 records" in out and "all match; completeness not checked" in out
    assert "no games.manifest.json beside it" in out


@pytest.mark.parametrize(("edit", "message"), [
    (lambda rs: rs.pop(0), "record 0 is missing (game 0)"),
    (lambda rs: rs.append(copy.deepcopy(rs[1])), "record 2 (game 1, 'tbw': 'random' v "
                                                 "'greedy') appears twice: it repeats record 1"),
    (lambda rs: rs.reverse(), "records 0 and 1 are out of order"),
])
def test_a_file_that_is_not_whole_fails_and_says_which_record(opening_runs, tmp_path, capsys,
                                                             edit, message):
    path = copied_run(opening_runs, tmp_path)
    records = replay_cli.load_records(path)
    edit(records)
    write(path, records)
    assert replay_cli.main([str(path), "--verify"]) == 1
    captured = capsys.readouterr()
    assert f"MISMATCH {message}" in captured.err and "mismatch(es)" in captured.out


@pytest.mark.parametrize(("content", "message"), [
    (lambda m: m.update(count=m["count"] + 1), "the manifest was edited: its count is 3"),
    (lambda m: m["records"].reverse(), "the manifest was edited: its digest"),
    ("{", "games.manifest.json: not JSON"),
])
def test_an_edited_or_broken_manifest_fails_verification(opening_runs, tmp_path, capsys, content,
                                                         message):
    path = copied_run(opening_runs, tmp_path)
    if callable(content):
        manifest = json.loads(manifest_path(path).read_text())
        content(manifest)
        content = json.dumps(manifest)
    manifest_path(path).write_text(content)
    assert replay_cli.main([str(path), "--verify"]) == 1
    captured = capsys.readouterr()
    assert message in captured.err and "completeness not checked" in captured.err
    assert "Traceback" not in captured.err


# ---------------------------------------------------------------------- records without digests


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_old_records_verify_as_far_as_they_can_and_say_digests_are_missing(opening_runs, game,
                                                                           tmp_path, capsys):
    records = load(opening_runs, game)
    for record in records:
        strip_to_v1(record)
    path = write(tmp_path / "v1.jsonl", records)
    assert replay_cli.main([str(path), "--verify"]) == 0
    out = capsys.readouterr().out
    assert "all match" in out and "2 of 2 records carry no digests" in out
    assert "not the state after each ply nor which agent sat in which seat" in out
    assert replay_cli.main([str(path), "--verify", "--game-index", "1"]) == 0
    assert "carries no digests" in capsys.readouterr().out
    assert replay_cli.main([str(path), "--verify", "--require-digests"]) == 1
    assert "--require-digests" in capsys.readouterr().err
    # What a /1 record can prove is still checked: its opening (a longer one would have drawn
    # another move at ply 5; a shorter one cannot be told from the agents' play) and its result.
    records[0]["start"]["opening_plies"] = OPENING + 1
    records[1]["result"]["end_reason"] = "ply_cap"
    problems = replay_cli.verify_records(records)
    assert len(problems) == 3
    assert "record 0 " in problems[0] and "opening ply 5: the record has action" in problems[0]
    assert "record 1 " in problems[1] and "result.end_reason differs" in problems[1]
    assert "their random openings differ" in problems[2]  # the two games of the pair


# ---------------------------------------------------------------------- bad files and options


def bad_file(tmp_path: Path, opening_runs, case: str) -> Path:
    path = tmp_path / "records.jsonl"
    good = json.dumps(load(opening_runs, "tbw")[0])
    if case == "not-utf8":
        path.write_bytes(good.encode() + b"\n" + b'{"game": "tbw\xff\xfe"}\n')
    elif case == "deep-nesting":
        path.write_text("[" * 200_000 + "]" * 200_000 + "\n")
    elif case == "deep-nesting-in-a-field":
        path.write_text('{"actions": ' + "[" * 200_000 + "]" * 200_000 + "}\n")
    elif case == "not-json":
        path.write_text(good + "\n{'game': 'tbw'}\n")
    elif case == "a-list":
        path.write_text("[1, 2, 3]\n")
    elif case == "an-integer-of-5000-digits":
        path.write_text('{"actions": [' + "9" * 5000 + "]}\n")
    elif case == "actions-null":
        record = json.loads(good)
        record["actions"] = None
        path.write_text(json.dumps(record) + "\n")
    elif case == "empty":
        path.write_text("\n\n")
    return path


FILE_CASES = {
    # case: (exit code, message fragment)
    "not-utf8": (1, "line 2: not UTF-8 text (byte 0xff at column 14)"),
    "deep-nesting": (1, "line 1: JSON nested too deeply"),
    "deep-nesting-in-a-field": (1, "line 1: JSON nested too deeply"),
    "not-json": (1, "line 2: not JSON"),
    "a-list": (1, "line 1: a record is a JSON object, got list"),
    "an-integer-of-5000-digits": (1, "line 1: not JSON"),
    "actions-null": (1, "record 0 (game 0, 'tbw': 'greedy' v 'random'): field 'actions' must "
                        "be a list of non-negative integers, got NoneType None"),
    "empty": (2, "holds no records"),
}


@pytest.mark.parametrize("mode", [["--verify"], ["--text"], ["--verify", "--game-index", "0"]])
@pytest.mark.parametrize("case", list(FILE_CASES))
def test_bad_record_files_get_a_clear_error_not_a_traceback(opening_runs, tmp_path, capsys, case,
                                                            mode):
    path = bad_file(tmp_path, opening_runs, case)
    code, message = FILE_CASES[case]
    try:
        status = replay_cli.main([str(path), *mode])
    except SystemExit as exc:
        status = exc.code
    err = capsys.readouterr().err
    assert status == code and message in err, err
    assert "Traceback" not in err and len(err) < 2000


OPTION_CASES = {
    "fps-zero": (["--gif", "{tmp}/g.gif", "--fps", "0"], "argument --fps: must be a number "
                                                         "above 0 and at most 100, got '0'"),
    "fps-negative": (["--gif", "{tmp}/g.gif", "--fps", "-2"], "argument --fps: must be"),
    "fps-nan": (["--gif", "{tmp}/g.gif", "--fps", "nan"], "argument --fps: must be"),
    "fps-inf": (["--gif", "{tmp}/g.gif", "--fps", "inf"], "argument --fps: must be"),
    "fps-word": (["--gif", "{tmp}/g.gif", "--fps", "fast"], "argument --fps: expected a number"),
    "every-zero": (["--text", "--every", "0"], "argument --every: must be at least 1, got 0"),
    "every-word": (["--text", "--every", "often"], "argument --every: expected a whole number, "
                                                   "got 'often'"),
    "gif-in-a-missing-folder": (["--gif", "{tmp}/nowhere/g.gif"], "--gif: the folder"),
    "gif-is-a-folder": (["--gif", "{tmp}"], "is a folder"),
    "gif-empty": (["--gif", ""], "--gif: an empty path"),
    "require-digests-without-verify": (["--require-digests"], "applies to --verify only"),
    "game-index-out-of-range": (["--game-index", "7"], "--game-index 7 out of range"),
    "missing-file": (["--verify", "--records-override", "{tmp}/none.jsonl"], "cannot read"),
}


@pytest.mark.parametrize("case", list(OPTION_CASES))
def test_bad_replay_options_are_refused_before_any_replay(opening_runs, tmp_path, capsys,
                                                          monkeypatch, case):
    replayed = []
    monkeypatch.setattr(replay_cli, "replay", lambda *a, **k: replayed.append(a))
    monkeypatch.setattr(arena_replay, "replay", lambda *a, **k: replayed.append(a))
    argv, message = OPTION_CASES[case]
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in argv]
    records = str(opening_runs["tbw"])
    if "--records-override" in argv:
        at = argv.index("--records-override")
        records = argv[at + 1]
        del argv[at:at + 2]
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(SystemExit) as exit_info:
        replay_cli.main([records, *argv])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert replayed == [] and sorted(tmp_path.rglob("*")) == before  # no GIF, no replay


def test_a_gif_at_a_high_frame_rate_is_written(opening_runs, tmp_path, capsys):
    gif = tmp_path / "g.gif"
    assert replay_cli.main([str(opening_runs["tbw"]), "--gif", str(gif), "--fps", "100", "--every",
                            "20"]) == 0
    assert gif.read_bytes()[:6] in (b"GIF87a", b"GIF89a")


def test_replay_cli_verifies_a_file_and_exits_1_on_a_mismatch(written_runs, tmp_path, capsys):
    path = written_runs["tbw"]["games.jsonl"]
    assert replay_cli.main([str(path), "--verify"]) == 0
    assert "verified 2 records" in capsys.readouterr().out
    records = replay_cli.load_records(path)
    records[1]["result"]["plies"] += 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert replay_cli.main([str(bad), "--verify"]) == 1
    captured = capsys.readouterr()
    assert "1 mismatch" in captured.out and "record 1" in captured.err
    assert "plies differs" in captured.err


def test_replay_cli_renders_text_and_writes_a_gif(written_runs, tmp_path, capsys):
    path = written_runs["tbw"]["games.jsonl"]
    assert replay_cli.main([str(path), "--game-index", "-1", "--text", "--every", "10"]) == 0
    out = capsys.readouterr().out
    assert "--- ply 10" in out and "final position" in out and "game over" in out
    gif = tmp_path / "game.gif"
    assert replay_cli.main([str(path), "--game-index", "0", "--gif", str(gif), "--every",
                            "8"]) == 0
    assert gif.read_bytes()[:6] in (b"GIF87a", b"GIF89a")
