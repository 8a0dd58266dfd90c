"""An agent that raises or returns an illegal action (``on_agent_error``): the default stops the
run with an ``AgentError`` naming the agent, the game and the error; ``"forfeit"`` scores the
game as that agent's loss, records why, and the run goes on, in this process or in workers, with
a journal that resumes, and with records that verify (the bad move checked where it can be)."""

from __future__ import annotations

import copy
import csv

import pytest

from agents import RandomAgent
from agents.arena import (
    ArenaInputError,
    play_game,
    result_tables,
    run_round_robin,
    tbw_game,
    write_result,
)
from agents.arena.digests import record_digest
from agents.arena.journal import JOURNAL_NAME
from agents.arena.play import AgentError
from agents.arena.records import load_records
from agents.arena.replay import forfeit_note, verify_records
from tests.helpers.bad_agents import write_bad_agents


@pytest.fixture
def bad(tmp_path):
    """Specs of the agent file's agents, by class name."""
    return write_bad_agents(tmp_path)


def run(specs, workers=1, **extra):
    return run_round_robin("tbw", specs, 2, seed=3, workers=workers, opening_plies=4,
                           bootstrap=0, **extra)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_forfeit_is_the_bad_agents_loss_and_the_run_goes_on(bad, workers, capsys):
    specs = [bad["RaisesOnThird"], bad["Illegal"], "random"]
    result = run(specs, workers=workers, on_agent_error="forfeit")
    assert len(result.games) == 6  # every game was played
    for g in result.games:
        forfeit = g.forfeit
        assert forfeit is not None, g.labels  # each game seats one of the two bad agents
        seat = forfeit["seat"]
        assert g.end_reason == "forfeit" and g.winner_seat == 1 - seat
        assert forfeit["agent"] == g.labels[seat] and forfeit["spec"] == g.specs[seat]
        assert forfeit["ply"] == len(g.actions) + 1 == g.plies + 1
        if forfeit["kind"] == "raised":
            assert g.labels[seat] == bad["RaisesOnThird"]
            assert forfeit["reason"] == "raised ValueError: the third move is cursed"
            assert g.moves[seat] == 2  # its first two moves were played and kept
        else:
            assert g.labels[seat] == bad["Illegal"] and forfeit["kind"] == "illegal_action"
            assert forfeit["reason"].startswith("returned an illegal action: ")
            assert isinstance(forfeit["action"], int) and g.moves[seat] == 0
    scores = {r.agent: r.score for r in result.ratings()}
    assert scores["random"] == 1.0
    # Their own pairing: Illegal forfeits on its first move, before RaisesOnThird's third.
    assert scores[bad["RaisesOnThird"]] == 0.5 and scores[bad["Illegal"]] == 0.0
    lines = [line for line in capsys.readouterr().err.splitlines()
             if line.startswith("forfeit: ")]
    assert len(lines) == 6
    assert sum(f"game {g.game_id} " in line for g in result.games for line in lines) == 6
    # Every record replays, its forfeit checked; the same games whatever the worker count.
    records = [g.to_record() for g in result.games]
    assert verify_records(records) == []
    assert [g.outcome() for g in result.games] == [
        g.outcome() for g in run(specs, workers=1, on_agent_error="forfeit").games]


def test_a_non_integer_action_is_recorded_as_its_text_and_verifies(bad):
    result = run([bad["ReturnsNone"], "random"], on_agent_error="forfeit")
    assert {g.forfeit["action"] for g in result.games} == {"None"}
    assert verify_records([g.to_record() for g in result.games]) == []


@pytest.mark.parametrize("workers", [1, 2])
def test_by_default_a_bad_agent_stops_the_run_naming_it_and_the_game(bad, workers):
    with pytest.raises(AgentError) as error:
        run(["random", bad["RaisesOnThird"]], workers=workers)
    line = error.value.line
    assert "\n" not in line
    assert line.startswith(f"agent {bad['RaisesOnThird']!r} (player ")
    assert "raised ValueError: the third move is cursed on ply " in line
    assert f"of tbw game {error.value.game_id} (" in line
    assert "on_agent_error='forfeit'" in str(error.value)


def test_play_game_raises_the_agents_own_error():
    class Raising(RandomAgent):
        def act(self, view):
            raise KeyError("no move")

    with pytest.raises(KeyError, match="no move"):
        play_game(tbw_game(), [Raising(seed=0), RandomAgent(seed=1)], seed=0)


def test_on_agent_error_is_checked():
    with pytest.raises(ArenaInputError, match="on_agent_error must be one of stop, forfeit, "
                                              "got 'skip'"):
        run(["random"], on_agent_error="skip")


# ---------------------------------------------------------------------- the verifier


def forfeited_record(bad, kind):
    spec = bad["RaisesOnThird"] if kind == "raised" else bad["Illegal"]
    games = run([spec, "random"], on_agent_error="forfeit").games
    return next(g.to_record() for g in games if g.forfeit["kind"] == kind)


def resealed(record):
    """``record`` with its digest recomputed, so the replay's own checks are what fail."""
    record["digests"]["record"] = record_digest(record)
    return record


def test_the_verifier_checks_the_illegal_action_was_illegal(bad):
    record = forfeited_record(bad, "illegal_action")
    assert verify_records([record]) == []
    from agents.arena.records import record_start_state

    state = record_start_state(record)
    for action in record["actions"]:
        state.apply(action)
    legal = copy.deepcopy(record)
    legal["result"]["forfeit"]["action"] = state.legal_actions()[0]
    [problem] = verify_records([resealed(legal)])
    assert "is legal on ply" in problem and "no reason to forfeit" in problem


@pytest.mark.parametrize(("edit", "message"), [
    (lambda f, r: f.update(seat=1 - f["seat"]), "result.forfeit.seat is"),
    (lambda f, r: f.update(ply=f["ply"] + 1), "result.forfeit.ply is"),
    (lambda f, r: f.update(agent="someone else"), "result.forfeit.agent is"),
    (lambda f, r: f.update(kind="timeout"), "result.forfeit.kind' must be one of"),
    (lambda f, r: r["result"].pop("forfeit"), "the game is not over"),
    (lambda f, r: r["result"].update(winner=f["seat"]), "result.winner differs"),
])
def test_the_verifier_refuses_a_forfeit_that_does_not_match_the_replay(bad, edit, message):
    record = forfeited_record(bad, "raised")
    edit(record["result"]["forfeit"], record)
    [problem] = verify_records([resealed(record)])
    assert message in problem


def test_a_forfeit_added_to_a_finished_game_is_refused():
    record = run(["random"]).games[0].to_record()
    record["result"]["forfeit"] = {"seat": 0, "agent": "random", "spec": "random",
                                   "kind": "raised", "reason": "raised X: y",
                                   "ply": len(record["actions"]) + 1}
    [problem] = verify_records([resealed(record)])
    assert "the game was over" in problem and "nobody could forfeit it" in problem


def test_the_note_says_a_raise_cannot_be_checked(bad):
    records = [forfeited_record(bad, "raised"), forfeited_record(bad, "illegal_action")]
    note = forfeit_note(records)
    assert note.startswith("2 of 2 records are games an agent forfeited")
    assert "each illegal action was checked to be illegal" in note
    assert "that the agent raised (records 0) cannot be checked" in note
    assert forfeit_note([run(["random"]).games[0].to_record()]) is None


# ---------------------------------------------------------------------- journal and tables


def test_a_journal_with_forfeits_resumes_to_the_same_games(bad, tmp_path):
    specs = [bad["RaisesOnThird"], "random", "random"]
    journal = tmp_path / "full" / JOURNAL_NAME
    full = run(specs, on_agent_error="forfeit", journal=journal)
    assert sum(g.forfeit is not None for g in full.games) == 4
    lines = journal.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut" / JOURNAL_NAME
    cut.parent.mkdir()
    cut.write_text("".join(lines[:1 + 2]))  # the header and the first two games: forfeits
    with pytest.raises(ArenaInputError, match=r"holds 2 forfeited game\(s\) \(game 0, 1\); "
                                              r"resume it with on_agent_error='forfeit'"):
        run(specs, journal=cut, resume=True)
    resumed = run(specs, on_agent_error="forfeit", journal=cut, resume=True, workers=2)
    assert resumed.resumed_games == 2
    assert [g.outcome() for g in resumed.games] == [g.outcome() for g in full.games]
    assert [g.to_record() for g in resumed.games] == [g.to_record() for g in full.games]


def test_the_tables_and_games_csv_count_and_explain_forfeits(bad, tmp_path):
    result = run([bad["RaisesOnThird"], bad["Illegal"], "random"], on_agent_error="forfeit")
    tables = result_tables(result)
    section = tables[tables.index("Forfeits:"):].split("\n\n")[0].splitlines()
    rows = {line.split()[0]: line.split()[1:] for line in section[3:]}
    assert rows == {bad["RaisesOnThird"]: ["2", "2", "0"], bad["Illegal"]: ["4", "0", "4"]}
    paths = write_result(result, tmp_path / "out", chart=False)
    with paths["games.csv"].open() as handle:
        games = list(csv.DictReader(handle))
    for row, g in zip(games, result.games, strict=True):
        assert row["end_reason"] == "forfeit"
        assert row["forfeit_agent"] == g.labels[g.forfeit["seat"]]
        assert row["forfeit_reason"] == f"ply {g.forfeit['ply']}: {g.forfeit['reason']}"
    assert verify_records(load_records(paths["games.jsonl"])) == []
    clean = run(["random"])
    assert "Forfeits" not in result_tables(clean)
