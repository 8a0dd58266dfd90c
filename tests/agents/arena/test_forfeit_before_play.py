"""Faults outside ``act``: an agent whose ``reset`` raises, whose Junqi layout raises or is
refused (both before play: ply 0), or whose ``thinking()`` raises under ``record_thinking``
forfeits that game (``on_agent_error="forfeit"``) or stops the run with one line; the records
verify and a journal holding them resumes. An agent that cannot be built is no forfeit: it is
refused before the first game."""

from __future__ import annotations

import copy
import csv

import pytest

from agents.arena import ArenaInputError, result_tables, run_round_robin, write_result
from agents.arena.digests import record_digest
from agents.arena.journal import JOURNAL_NAME
from agents.arena.play import AgentError
from agents.arena.records import load_records
from agents.arena.replay import forfeit_note, verify_records
from tbw_envs.games import get_game
from tests.helpers.bad_agents import RANDOM_AGENT

FAILING_AGENTS = RANDOM_AGENT + '''

class ResetRaises(Random):
    def reset(self, seed=None):
        raise OSError("the reset is broken")


class ResetRaisesOnEvenSeeds(Random):
    def reset(self, seed=None):
        if seed % 2 == 0:
            raise OSError("even seeds are broken")
        super().reset(seed)


class ThinkingRaisesOnThird(Random):
    def thinking(self):
        if self.moves == 3:
            raise KeyError("lost my thoughts")
        return {"moves": self.moves}


class LayoutRaises(Random):
    def layout(self, rng, rules):
        raise RuntimeError("cannot deploy")


class LayoutInvalid(Random):
    def layout(self, rng, rules):
        return 42


class CannotBeBuilt(Random):
    def __init__(self, seed=None):
        raise ValueError("not today")
'''

NAMES = ("Random", "ResetRaises", "ResetRaisesOnEvenSeeds", "ThinkingRaisesOnThird",
         "LayoutRaises", "LayoutInvalid", "CannotBeBuilt")


@pytest.fixture
def failing(tmp_path):
    """Specs of the failing agents, by class name."""
    path = tmp_path / "failing_agents.py"
    path.write_text(FAILING_AGENTS)
    return {name: f"{path}:{name}" for name in NAMES}


def run(specs, game="tbw", workers=1, **extra):
    return run_round_robin(game, specs, 2, seed=5, workers=workers, opening_plies=4,
                           bootstrap=0, **extra)


def the_seeds_start(game, record):
    """The start a record of a game lost before play must hold: the pair's seed's, no agent
    choosing."""
    description = get_game(game)
    return description.start(record[description.variant_flag], record["seed"], (None, None),
                             ("", "")).record


@pytest.mark.parametrize("workers", [1, 2])
def test_a_reset_that_raises_forfeits_before_play(failing, workers, capsys):
    bad = failing["ResetRaises"]
    result = run([bad, failing["Random"], "random"], workers=workers, on_agent_error="forfeit")
    assert len(result.games) == 6
    for g in result.games:
        if bad not in g.labels:
            assert g.forfeit is None
            continue
        seat = g.labels.index(bad)
        assert g.forfeit == {"seat": seat, "agent": bad, "spec": bad, "kind": "reset_failed",
                             "reason": "reset() raised OSError: the reset is broken", "ply": 0}
        assert g.actions == [] and g.opening_plies == 0 and g.moves == (0, 0)
        assert g.winner_seat == 1 - seat and g.end_reason == "forfeit"
        record = g.to_record()
        assert {k: v for k, v in record["start"].items() if not k.startswith("opening")} == \
            the_seeds_start("tbw", record)
    lines = [line for line in capsys.readouterr().err.splitlines()
             if line.startswith("forfeit: ")]
    assert len(lines) == 4
    assert all("reset() raised OSError: the reset is broken before play of tbw game" in line
               for line in lines)
    records = [g.to_record() for g in result.games]
    assert verify_records(records) == []
    assert "failed in reset() (records 0, 1, 2, 3) cannot be checked" in forfeit_note(records)


def in_workers_once(cases: list[tuple]) -> list:
    """Each case with ``workers`` 1 (this process) and 2 (worker processes), the second only for
    the first case by default and under ``slow`` for the others: ``play_task`` turns every fault
    into the same forfeit or ``AgentError``, which the pool hands back the same way, and a pool
    costs about 1.5 s to start."""
    return ([(*case, 1) for case in cases] + [(*cases[0], 2)]
            + [pytest.param(*case, 2, marks=pytest.mark.slow) for case in cases[1:]])


@pytest.mark.parametrize(("agent", "reason", "workers"), in_workers_once([
    ("LayoutRaises", "layout() raised RuntimeError: cannot deploy"),
    ("LayoutInvalid", "chose a layout the rules refuse: layout of "),
]))
def test_a_junqi_layout_that_raises_or_is_refused_forfeits_before_play(failing, agent, reason,
                                                                       workers):
    bad = failing[agent]
    result = run([bad, failing["Random"]], game="junqi", workers=workers,
                 on_agent_error="forfeit")
    for g in result.games:
        seat = g.labels.index(bad)
        assert g.forfeit["seat"] == seat and g.forfeit["kind"] == "layout_failed"
        assert g.forfeit["ply"] == 0 and g.forfeit["reason"].startswith(reason)
        assert g.actions == [] and g.winner_seat == 1 - seat
        # No layout was played: the record holds the seed's random ones, to replay from.
        assert g.layout_sources == ("random", "random")
        record = g.to_record()
        assert {k: v for k, v in record["start"].items() if not k.startswith("opening")} == \
            the_seeds_start("junqi", record)
    records = [g.to_record() for g in result.games]
    assert verify_records(records) == []
    assert "failed to choose a layout (records 0, 1)" in forfeit_note(records)


def test_a_thinking_that_raises_forfeits_the_move_it_followed(failing):
    bad = failing["ThinkingRaisesOnThird"]
    result = run([bad, failing["Random"]], on_agent_error="forfeit", record_thinking=True)
    for g in result.games:
        seat = g.labels.index(bad)
        assert g.forfeit["kind"] == "thinking_failed" and g.forfeit["seat"] == seat
        assert g.forfeit["reason"] == "thinking() raised KeyError: 'lost my thoughts'"
        # The move its thinking followed is not kept: the record stops before it.
        assert g.moves[seat] == 2 and g.forfeit["ply"] == len(g.actions) + 1
        assert len(g.thinking) == len(g.actions)
        assert [t for t in g.thinking if t is not None] == [{"moves": 1}, {"moves": 2}]
    records = [g.to_record() for g in result.games]
    assert verify_records(records) == []
    assert "failed in thinking() (records 0, 1)" in forfeit_note(records)
    # Without recording thinking, thinking() is never asked, and the agent plays on.
    plain = run([bad, failing["Random"]], on_agent_error="forfeit")
    assert all(g.forfeit is None for g in plain.games)


@pytest.mark.parametrize(("game", "agent", "extra", "said", "workers"), in_workers_once([
    ("tbw", "ResetRaises", {}, "reset() raised OSError: the reset is broken before play"),
    ("junqi", "LayoutRaises", {}, "layout() raised RuntimeError: cannot deploy before play"),
    ("junqi", "LayoutInvalid", {}, "chose a layout the rules refuse: layout of "),
    ("tbw", "ThinkingRaisesOnThird", {"record_thinking": True},
     "thinking() raised KeyError: 'lost my thoughts' on ply "),
]))
def test_under_stop_a_fault_outside_act_stops_the_run_with_one_line(failing, workers, game,
                                                                    agent, extra, said):
    with pytest.raises(AgentError) as error:
        run([failing["Random"], failing[agent]], game=game, workers=workers, **extra)
    line = error.value.line
    assert "\n" not in line
    assert line.startswith(f"agent {failing[agent]!r} (player ")
    assert said in line and f"of {game} game {error.value.game_id} (" in line


def test_an_agent_that_cannot_be_built_is_refused_before_any_game(failing, no_games):
    with pytest.raises(ArenaInputError, match=r"agent #1 \(.*CannotBeBuilt\): .*not today"):
        run([failing["CannotBeBuilt"], "random"], on_agent_error="forfeit")


# ---------------------------------------------------------------------- journal, files, verifier


def test_a_journal_with_faults_before_play_resumes_to_the_same_games(failing, tmp_path):
    specs = [failing["ResetRaises"], "random", "random"]
    journal = tmp_path / "full" / JOURNAL_NAME
    full = run(specs, on_agent_error="forfeit", journal=journal)
    lines = journal.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut" / JOURNAL_NAME
    cut.parent.mkdir()
    cut.write_text("".join(lines[:1 + 3]))
    resumed = run(specs, on_agent_error="forfeit", journal=cut, resume=True, workers=2)
    assert resumed.resumed_games == 3
    assert [g.to_record() for g in resumed.games] == [g.to_record() for g in full.games]
    paths = write_result(resumed, tmp_path / "out", chart=False)
    assert verify_records(load_records(paths["games.jsonl"])) == []
    with paths["games.csv"].open() as handle:
        rows = [row for row in csv.DictReader(handle) if row["forfeit_agent"]]
    assert [row["forfeit_reason"] for row in rows] == [
        "before play: reset() raised OSError: the reset is broken"] * 4
    tables = result_tables(resumed)
    section = tables[tables.index("Forfeits:"):].split("\n\n")[0].splitlines()
    assert section[1].split() == ["agent", "forfeits", "reset", "failed"]
    assert section[3].split() == [failing["ResetRaises"], "4", "4"]


def test_a_pair_with_one_game_lost_before_play_verifies(failing):
    # Both games of a pair share an opening, but a game lost before play has none.
    bad = failing["ResetRaisesOnEvenSeeds"]
    result = run_round_robin("tbw", [bad, "random"], 8, seed=5, workers=1, opening_plies=4,
                             bootstrap=0, on_agent_error="forfeit")
    lost = [g.forfeit is not None for g in result.games]
    assert any(lost[i] != lost[i + 1] for i in range(0, len(lost), 2)), lost
    assert all(g.opening_plies == 4 for g in result.games if g.forfeit is None)
    assert verify_records([g.to_record() for g in result.games]) == []


def resealed(record):
    record["digests"]["record"] = record_digest(record)
    return record


def test_the_verifier_refuses_a_fault_before_play_that_does_not_fit_the_record(failing):
    tbw = run([failing["ResetRaises"], "random"], on_agent_error="forfeit").games[0].to_record()
    played = run(["random"], on_agent_error="forfeit").games[0].to_record()
    thinking = run([failing["ThinkingRaisesOnThird"], "random"], on_agent_error="forfeit",
                   record_thinking=True).games[0].to_record()

    def edited(record, edit):
        record = copy.deepcopy(record)
        edit(record)
        return resealed(record)

    cases = [
        # A fault before play with moves after it.
        (edited(tbw, lambda r: r.update(actions=played["actions"][:1])),
         "result.forfeit.ply is 0 (before play), but the record has 1 actions"),
        # A fault on a move said to be before play, and the other way round.
        (edited(tbw, lambda r: r["result"]["forfeit"].update(kind="raised")),
         "but kind 'raised' is a fault on a move"),
        (edited(thinking, lambda r: r["result"]["forfeit"].update(kind="reset_failed")),
         "'reset_failed' is a fault before play, but result.forfeit.ply is"),
        # TBW has no layouts to fail at.
        (edited(tbw, lambda r: r["result"]["forfeit"].update(kind="layout_failed")),
         "result.forfeit.kind is 'layout_failed', but in tbw no agent chooses a layout"),
        # A failed thinking() in a record that kept none.
        (edited(thinking, lambda r: r.pop("thinking")),
         "'thinking_failed', but the record holds no thinking"),
        (edited(tbw, lambda r: r["result"]["forfeit"].update(ply=-1)),
         "field 'result.forfeit.ply' must be a non-negative integer"),
    ]
    for record, message in cases:
        [problem] = verify_records([record])
        assert message in problem, problem


def test_a_layout_failure_claiming_an_agents_layout_is_refused(failing):
    record = run([failing["LayoutRaises"], failing["Random"]], game="junqi",
                 on_agent_error="forfeit").games[0].to_record()
    record["start"]["layout_sources"] = ["agent", "random"]
    [problem] = verify_records([resealed(record)])
    assert "no agent chose a layout, but start.layout_sources is" in problem
