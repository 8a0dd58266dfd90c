"""The round robin's journal (``agents.arena.journal``): an interrupted run resumes with the games
it had finished (replayed and checked) and plays only the rest, to the same results as an
uninterrupted run; a journal of another run, or one that was edited, is refused by name."""

from __future__ import annotations

import json

import pytest

import agents.arena.roundrobin as roundrobin
from agents.arena import (
    ArenaInputError,
    ArenaTypeError,
    result_tables,
    run_round_robin,
    write_result,
)
from agents.arena.journal import JOURNAL_NAME, read_journal_header
from agents.arena.records import MalformedRecord, load_records

SPECS = ["greedy", "random", "random"]
RUN = {"game": "tbw", "specs": SPECS, "games_per_pairing": 2, "seed": 11, "opening_plies": 4}


def full_run(tmp_path, **extra):
    """The uninterrupted run, its journal kept (``write`` is what removes it)."""
    journal = tmp_path / "full" / JOURNAL_NAME
    result = run_round_robin(**RUN, workers=1, journal=journal, command="the command", **extra)
    return result, journal


def interrupted(tmp_path, journal, keep: int, torn: bool = True):
    """A copy of ``journal`` as a run killed after ``keep`` games would leave it: the header,
    ``keep`` game lines and (``torn``) half of the next line."""
    lines = journal.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut" / JOURNAL_NAME
    cut.parent.mkdir()
    cut.write_text("".join(lines[:1 + keep]) + (lines[1 + keep][:200] if torn else ""))
    return cut


def count_played(monkeypatch):
    played = []
    real = roundrobin.play_task

    def counting(task):
        played.append(task.game_id)
        return real(task)

    monkeypatch.setattr(roundrobin, "play_task", counting)
    return played


def test_the_journal_holds_the_run_and_every_game_as_it_finished(tmp_path):
    result, journal = full_run(tmp_path)
    header = read_journal_header(journal)
    assert header["command"] == "the command"
    assert header["run"] == {"game": "tbw", "variant": "duel_5v5_8x8", "specs": SPECS,
                             "games_per_pairing": 2, "seed": 11, "opening_plies": 4,
                             "record_thinking": False}
    lines = load_records(journal)[1:]
    assert [line["record"] for line in lines] == [g.to_record() for g in result.games]
    assert result.resumed_games == 0 and result.journal == journal


def test_a_resumed_run_plays_only_the_missing_games_to_the_same_results(tmp_path, monkeypatch):
    full, journal = full_run(tmp_path)
    cut = interrupted(tmp_path, journal, keep=4)
    played = count_played(monkeypatch)
    resumed = run_round_robin(**RUN, workers=1, journal=cut, resume=True)
    assert played == [4, 5]  # the torn fifth game is played again
    assert resumed.resumed_games == 4
    assert [g.outcome() for g in resumed.games] == [g.outcome() for g in full.games]
    assert [g.to_record() for g in resumed.games] == [g.to_record() for g in full.games]
    assert [g.move_seconds for g in resumed.games[:4]] == [g.move_seconds
                                                           for g in full.games[:4]]
    assert [r.elo for r in resumed.ratings()] == [r.elo for r in full.ratings()]
    # The journal is whole again: resuming once more plays nothing.
    played.clear()
    again = run_round_robin(**RUN, workers=1, journal=cut, resume=True)
    assert played == [] and again.resumed_games == 6
    assert "4 games" not in result_tables(again) and "6 were read back" in result_tables(again)


def test_resuming_in_worker_processes_gives_the_same_games(tmp_path):
    full, journal = full_run(tmp_path)
    cut = interrupted(tmp_path, journal, keep=1, torn=False)
    resumed = run_round_robin(**RUN, workers=2, journal=cut, resume=True)
    assert [g.outcome() for g in resumed.games] == [g.outcome() for g in full.games]
    assert len(load_records(cut)) == 1 + 6


def test_recorded_thinking_survives_the_journal(tmp_path):
    run = {"game": "tbw", "specs": ["tree:solves=2", "greedy"], "games_per_pairing": 2,
           "seed": 3, "opening_plies": 4, "record_thinking": True}
    full = run_round_robin(**run, workers=1, journal=tmp_path / "j.jsonl")
    cut = interrupted(tmp_path, tmp_path / "j.jsonl", keep=1, torn=False)
    resumed = run_round_robin(**run, workers=1, journal=cut, resume=True)
    assert resumed.games[0].thinking == full.games[0].thinking
    assert any(step is not None for step in resumed.games[0].thinking)


@pytest.mark.input_contract
@pytest.mark.parametrize(("change", "named"), [
    ({"seed": 12}, "seed"), ({"games_per_pairing": 4}, "games_per_pairing"),
    ({"specs": ["greedy", "random"]}, "specs"), ({"opening_plies": 0}, "opening_plies"),
    ({"record_thinking": True}, "record_thinking"),
])
def test_a_journal_of_another_run_is_refused_by_name(tmp_path, change, named):
    _, journal = full_run(tmp_path)
    before = journal.read_bytes()
    with pytest.raises(ArenaInputError, match=f"run with {named} .* this one has"):
        run_round_robin(**(RUN | change), workers=1, journal=journal, resume=True)
    assert journal.read_bytes() == before


def edit_line(journal, index, edit):
    lines = journal.read_text().splitlines()
    line = json.loads(lines[index])
    edit(line)
    lines[index] = json.dumps(line)
    journal.write_text("\n".join(lines) + "\n")


@pytest.mark.input_contract
@pytest.mark.parametrize(("edit", "message"), [
    (lambda line: line["record"]["actions"].__setitem__(-1, 0), "line 3: .*ply"),
    (lambda line: line["record"]["result"].__setitem__("winner", None), "line 3: .*winner differs"),
    (lambda line: line["record"]["specs"].__setitem__(0, "exact"), "line 3: .*digests.record"),
    (lambda line: line["timing"].__setitem__("moves", "many"), "line 3: timing.moves"),
    (lambda line: line.pop("record"), "line 3: not a journal line"),
])
def test_an_edited_game_is_refused_naming_its_line(tmp_path, edit, message):
    _, journal = full_run(tmp_path)
    edit_line(journal, 2, edit)
    with pytest.raises(MalformedRecord, match=message):
        run_round_robin(**RUN, workers=1, journal=journal, resume=True)


@pytest.mark.input_contract
def test_a_game_in_the_wrong_place_or_twice_is_refused(tmp_path):
    _, journal = full_run(tmp_path)
    lines = journal.read_text().splitlines(keepends=True)
    (tmp_path / "twice.jsonl").write_text("".join(lines[:3] + lines[2:3]))
    with pytest.raises(MalformedRecord, match="line 4: game 1 is in the journal twice"):
        run_round_robin(**RUN, workers=1, journal=tmp_path / "twice.jsonl", resume=True)
    # A whole, valid game of another run with the same key but the other base seed's records
    # cannot be spliced in: its seeds differ from the schedule's.
    other = run_round_robin(**(RUN | {"seed": 12}), workers=1, journal=tmp_path / "o.jsonl")
    spliced = json.dumps({"record": other.games[0].to_record(), "layouts": None,
                          "layout_sources": None,
                          "timing": {"move_seconds": [0, 0], "max_move_seconds": [0, 0],
                                     "moves": [1, 1]}})
    (tmp_path / "spliced.jsonl").write_text(lines[0] + spliced + "\n")
    with pytest.raises(MalformedRecord, match="line 2: game 0 has seed .* the journal was edited"):
        run_round_robin(**RUN, workers=1, journal=tmp_path / "spliced.jsonl", resume=True)


@pytest.mark.input_contract
def test_journal_arguments_are_checked(tmp_path):
    with pytest.raises(ArenaInputError, match="resume=True needs the journal"):
        run_round_robin(**RUN, workers=1, resume=True)
    with pytest.raises(ArenaTypeError, match="journal must be a file path"):
        run_round_robin(**RUN, workers=1, journal=3)
    with pytest.raises(ArenaTypeError, match="resume must be"):
        run_round_robin(**RUN, workers=1, journal=tmp_path / "j", resume="yes")
    with pytest.raises(ArenaInputError, match="no journal at"):
        run_round_robin(**RUN, workers=1, journal=tmp_path / "none.jsonl", resume=True)
    (tmp_path / "bad.jsonl").write_text('{"format": "something else"}\n')
    with pytest.raises(ArenaInputError, match="does not start with a tbw-envs-arena-journal"):
        run_round_robin(**RUN, workers=1, journal=tmp_path / "bad.jsonl", resume=True)
    _, journal = full_run(tmp_path)
    with pytest.raises(ArenaInputError, match="already exists .* resume it"):
        run_round_robin(**RUN, workers=1, journal=journal)


def test_write_takes_the_folder_of_its_journal_and_removes_the_journal(tmp_path):
    out = tmp_path / "run"
    result = run_round_robin(**RUN, workers=1, journal=out / JOURNAL_NAME)
    paths = write_result(result, out, chart=False, overwrite=False)
    assert not (out / JOURNAL_NAME).exists()
    assert [r for r in load_records(paths["games.jsonl"])] == [g.to_record()
                                                              for g in result.games]
    assert json.loads(paths["results.json"].read_text())["resumed_games"] == 0
    # A folder holding anything else is still refused without overwrite.
    other = tmp_path / "other"
    result = run_round_robin(**RUN, workers=1, journal=other / JOURNAL_NAME)
    (other / "notes.txt").write_text("mine")
    with pytest.raises(ArenaInputError, match="not empty"):
        write_result(result, other, chart=False, overwrite=False)
    assert (other / JOURNAL_NAME).exists()
