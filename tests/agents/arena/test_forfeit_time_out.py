"""The round robin's move time limit (``move_time_limit``): an agent whose move takes longer
forfeits it (kind "time_out") or stops the run, one that never returns is abandoned without
hanging the run, searches are asked to stop short of the limit, the record and the journal keep
the limit, and the verifier accepts a time-out it cannot re-check. Without a limit no thread is
started and a record is as it always was.

The slow agents sleep seconds past a limit of 0.2 s (or wait on an event never set), so no test
depends on the machine's speed; a run that could hang is waited for on a thread with a generous
timeout that only bounds the hang."""

from __future__ import annotations

import copy
import json
import math
import threading

import pytest

from agents.arena import ArenaInputError, result_tables, run_round_robin
from agents.arena import play as arena_play
from agents.arena.digests import record_digest
from agents.arena.journal import JOURNAL_NAME, read_journal_header
from agents.arena.play import AgentError
from agents.arena.replay import forfeit_note, verify_records
from agents.arena.scheduling import GameTask
from tbw_envs.games import get_game
from tests.helpers.bad_agents import RANDOM_AGENT

LIMIT = 0.2  # seconds; the slow agents take several seconds, or forever

SLOW_AGENTS = RANDOM_AGENT + '''
import threading
import time

from agents.common.budget import Deadline

NEVER = threading.Event()  # nobody sets it


class Thinking(Random):
    """Plays at random after ``think()``, which each slow agent below makes slow."""

    def act(self, view):
        self.moves += 1
        self.think()
        return self.rng.choice(view.legal_actions())

    def think(self):
        pass


class SleepsOnSecond(Thinking):
    """Sleeps 5 s on its second move of a game."""

    def think(self):
        if self.moves == 2:
            time.sleep(5)


class HangsOnFirst(Thinking):
    """Never returns from a move (the arena's untimed warm-up move among them)."""

    def think(self):
        NEVER.wait()


class HangsOnSecond(Thinking):
    """Never returns from its second move of a game."""

    def think(self):
        if self.moves == 2:
            NEVER.wait()


class LateOnSecond(Thinking):
    """Half a second on its second move: past the limit, yet back soon after."""

    def think(self):
        if self.moves == 2:
            time.sleep(0.5)


class ReportsItsClock(Thinking):
    """Says, through thinking(), what the project's clock made inside act() saw: the seconds it
    had left (None: no limit) and the thread it ran on."""

    def think(self):
        self.seen = {"remaining": Deadline(None).remaining(),
                     "thread": threading.current_thread().name}

    def thinking(self):
        return self.seen
'''


@pytest.fixture
def slow(tmp_path):
    """Specs of the slow agents, by class name."""
    path = tmp_path / "slow_agents.py"
    path.write_text(SLOW_AGENTS)
    return {name: f"{path}:{name}" for name in ("Random", "SleepsOnSecond", "HangsOnFirst",
                                                "HangsOnSecond", "LateOnSecond",
                                                "ReportsItsClock")}


def run(specs, workers=1, **extra):
    return run_round_robin("tbw", specs, 2, seed=3, workers=workers, opening_plies=4,
                           bootstrap=0, **extra)


def bounded(function, *args, timeout=300, **kwargs):
    """``function(*args, **kwargs)`` on a thread, waited for at most ``timeout`` seconds: the
    timeout only bounds a hang (a hung run fails the test instead of the whole session)."""
    outcome = {}

    def target():
        try:
            outcome["value"] = function(*args, **kwargs)
        except BaseException as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"the run did not finish within {timeout} s: it hung"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("agent", ["SleepsOnSecond", "HangsOnSecond"])
def test_a_move_past_the_limit_forfeits_and_the_run_goes_on(slow, agent, workers, capsys):
    specs = [slow[agent], slow["Random"], slow["Random"]]
    result = bounded(run, specs, workers=workers, on_agent_error="forfeit",
                     move_time_limit=LIMIT)
    assert len(result.games) == 6  # every game was played, the hung one abandoned
    for g in result.games:
        if slow[agent] not in g.labels:
            assert g.forfeit is None and g.end_reason != "forfeit"
            continue
        forfeit = g.forfeit
        seat = forfeit["seat"]
        assert g.labels[seat] == slow[agent] and forfeit["kind"] == "time_out"
        assert g.winner_seat == 1 - seat and g.end_reason == "forfeit"
        assert g.moves[seat] == 1  # its first move was played and kept, the second was not
        assert forfeit["ply"] == len(g.actions) + 1
        assert forfeit["reason"] == (f"did not return a move within {2 * LIMIT:g} s (the limit "
                                     f"is {LIMIT:g} s) and was abandoned: its thread was left "
                                     f"running")
        assert g.max_move_seconds[seat] <= LIMIT
    lines = [line for line in capsys.readouterr().err.splitlines()
             if line.startswith("forfeit: ")]
    assert len(lines) == 4 and all("its thread was left running on ply" in line
                                   for line in lines)
    records = [g.to_record() for g in result.games]
    assert all(record["move_time_limit"] == LIMIT for record in records)
    assert verify_records(records) == []
    assert "ran out of time (records 0, 1, 2, 3) cannot be checked" in forfeit_note(records)
    tables = result_tables(result)
    assert f"move time limit {LIMIT:g} s" in tables.splitlines()[0]
    section = tables[tables.index("Forfeits:"):].split("\n\n")[0].splitlines()
    assert section[1].split() == ["agent", "forfeits", "time", "out"]
    assert section[3].split() == [slow[agent], "4", "4"]


def test_an_agent_that_hangs_in_the_warm_up_does_not_hang_the_run(slow, monkeypatch):
    monkeypatch.setattr(arena_play, "WARM_UP_WAIT_SECONDS", 1.0)
    result = bounded(run, [slow["HangsOnFirst"], slow["Random"]], on_agent_error="forfeit",
                     move_time_limit=LIMIT, timeout=120)
    assert [g.forfeit["kind"] for g in result.games] == ["time_out", "time_out"]
    # Its first move after the 4 plies of the opening.
    assert all(g.moves[g.forfeit["seat"]] == 0 and g.forfeit["ply"] in (5, 6)
               for g in result.games)


def test_a_late_move_is_timed_in_the_reason(slow, monkeypatch):
    # Waiting long enough that the half-second move always comes back before it is judged.
    monkeypatch.setattr(arena_play, "MOVE_WAIT_FACTOR", 100.0)
    result = run([slow["LateOnSecond"], slow["Random"]], on_agent_error="forfeit",
                 move_time_limit=LIMIT)
    for g in result.games:
        reason = g.forfeit["reason"]
        assert g.forfeit["kind"] == "time_out", reason
        seconds = float(reason.removeprefix("took ").split(" s for a move; ")[0])
        assert reason == f"took {seconds:.2f} s for a move; the limit is {LIMIT:g} s"
        assert seconds >= 0.5


@pytest.mark.parametrize("workers", [1, 2])
def test_under_stop_a_time_out_stops_the_run_with_one_line(slow, workers):
    with pytest.raises(AgentError) as error:
        bounded(run, [slow["Random"], slow["HangsOnSecond"]], workers=workers,
                move_time_limit=LIMIT)
    line = error.value.line
    assert "\n" not in line
    assert line.startswith(f"agent {slow['HangsOnSecond']!r} (player ")
    assert (f"did not return a move within {2 * LIMIT:g} s (the limit is {LIMIT:g} s) and was "
            f"abandoned: its thread was left running on ply ") in line
    assert f"of tbw game {error.value.game_id} (" in line
    assert "on_agent_error='forfeit'" in str(error.value)


def test_searches_are_asked_to_stop_short_of_the_limit_on_a_thread_of_their_own(slow):
    limit = 60.0  # long enough that every move starts well before it
    timed = run([slow["ReportsItsClock"], slow["Random"]], move_time_limit=limit,
                record_thinking=True)
    seen = [step for g in timed.games for step in g.thinking if step is not None]
    assert seen and all(step["thread"] == "arena move" for step in seen)
    # The stop comes TIME_MARGIN short of the limit, so a search that honours it is in time.
    assert all(0 < step["remaining"] <= limit * (1 - arena_play.TIME_MARGIN) for step in seen)
    untimed = run([slow["ReportsItsClock"], slow["Random"]], record_thinking=True)
    seen = [step for g in untimed.games for step in g.thinking if step is not None]
    assert seen and all(step == {"remaining": None, "thread": "MainThread"} for step in seen)
    # Without a limit a record is as it always was: no field for the limit.
    assert all("move_time_limit" not in g.to_record() for g in untimed.games)
    assert [g.actions for g in timed.games] == [g.actions for g in untimed.games]


@pytest.mark.input_contract
@pytest.mark.parametrize(("value", "shown"), [
    (0, "0"), (-1.5, "-1.5"), (math.nan, "nan"), (math.inf, "inf"), (3600.5, "3600.5"),
    ("1", "'1'"), (True, "True"),
])
def test_the_move_time_limit_is_checked(no_games, value, shown):
    message = (r"move_time_limit must be a number of seconds > 0 and <= 3600, or None for no "
               rf"limit, got (\w+ )?{shown}")
    with pytest.raises(ArenaInputError, match=message):
        run(["random"], move_time_limit=value)
    with pytest.raises(ArenaInputError, match=message):
        GameTask(game=get_game("tbw"), variant="duel_5v5_8x8", game_id=0, pairing=0, pair=0,
                 swapped=False, seed=0, entries=("random", "random"),
                 labels=("random", "random (2)"), agent_seeds=(0, 1), move_time_limit=value)


# ---------------------------------------------------------------------- journal and verifier


def test_the_journal_keeps_the_limit_and_resumes_only_with_it(slow, tmp_path):
    specs = [slow["SleepsOnSecond"], slow["Random"], slow["Random"]]
    journal = tmp_path / "full" / JOURNAL_NAME
    full = run(specs, on_agent_error="forfeit", move_time_limit=LIMIT, journal=journal)
    assert read_journal_header(journal)["run"]["move_time_limit"] == LIMIT
    lines = journal.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut" / JOURNAL_NAME
    cut.parent.mkdir()
    cut.write_text("".join(lines[:1 + 3]))  # the header and three games, two time-outs
    for other in (None, 0.3):
        with pytest.raises(ArenaInputError, match=f"run with move_time_limit {LIMIT}, this one "
                                                  f"has {other}"):
            run(specs, on_agent_error="forfeit", move_time_limit=other, journal=cut,
                resume=True)
    resumed = run(specs, on_agent_error="forfeit", move_time_limit=LIMIT, journal=cut,
                  resume=True)
    assert resumed.resumed_games == 3
    assert [g.to_record() for g in resumed.games] == [g.to_record() for g in full.games]
    assert verify_records([g.to_record() for g in resumed.games]) == []
    # A run without a limit does not resume one with a limit, nor the other way round.
    plain = tmp_path / "plain" / JOURNAL_NAME
    run(["random"], journal=plain)
    with pytest.raises(ArenaInputError, match="run with move_time_limit None, this one has 1.0"):
        run(["random"], journal=plain, resume=True, move_time_limit=1)


def test_a_journal_game_of_another_limit_is_refused(slow, tmp_path):
    journal = tmp_path / JOURNAL_NAME
    run(["random"], move_time_limit=5, journal=journal)
    lines = journal.read_text().splitlines(keepends=True)
    # A game of the same run played with another limit, its record resealed.
    line = json.loads(lines[1])
    line["record"]["move_time_limit"] = 7.0
    line["record"]["digests"]["record"] = record_digest(line["record"])
    journal.write_text(lines[0] + json.dumps(line) + "\n")
    with pytest.raises(ValueError, match="game 0 has move time limit 7.0, the schedule 5.0"):
        run(["random"], move_time_limit=5, journal=journal, resume=True)


def resealed(record):
    record["digests"]["record"] = record_digest(record)
    return record


def test_the_verifier_accepts_a_time_out_only_under_a_limit(slow):
    games = run([slow["SleepsOnSecond"], slow["Random"]], on_agent_error="forfeit",
                move_time_limit=LIMIT).games
    record = games[0].to_record()
    assert verify_records([record]) == []
    without = copy.deepcopy(record)
    del without["move_time_limit"]
    [problem] = verify_records([resealed(without)])
    assert "'time_out', but the record has no move_time_limit" in problem
    for bad in (0, -1, "0.2", None, 10**6):
        edited = copy.deepcopy(record)
        edited["move_time_limit"] = bad
        [problem] = verify_records([resealed(edited)])
        assert "field 'move_time_limit' must be a number of seconds > 0 and <= 3600" in problem
    # The limit is bound by the record's digest.
    edited = copy.deepcopy(record)
    edited["move_time_limit"] = 0.5
    [problem] = verify_records([edited])
    assert "digests.record differs" in problem
