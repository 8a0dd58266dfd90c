"""Game records (``agents.arena.records``, ``digests``, ``replay``): every record replays through
the game core and verifies, binds its agents to their seats and digests every ply; digests do
not depend on the process; a tampered record fails with a clear message."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from agents.arena import (
    DIGEST_SCHEME,
    RECORD_FORMATS,
    DigestChain,
    record_start_state,
)
from agents.cli import replay as replay_cli
from tbw_envs.games import get_game
from tests.helpers import REPO_ROOT


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_every_record_replays_and_verifies(written_runs, game):
    records = replay_cli.load_records(written_runs[game]["games.jsonl"])
    assert len(records) == 2 and {r["game"] for r in records} == {game}
    assert replay_cli.verify_records(records) == []
    final = replay_cli.replay(records[0])
    assert final.is_terminal() and list(final.returns()) == records[0]["result"]["returns"]
    if game == "junqi":
        assert all(len(r["start"]["layouts"]) == 2 for r in records)


@pytest.mark.parametrize(("tamper", "message"), [
    (lambda r: r["result"].update(end_reason="flag_captured_twice"), "end_reason differs"),
    (lambda r: r["result"].update(returns=[r["result"]["returns"][1], 7]), "returns differs"),
    (lambda r: r["actions"].pop(), "not over"),
    (lambda r: r["actions"].append(r["actions"][-1]), "the game ended after"),
    (lambda r: r["actions"].__setitem__(0, 3599), "ply 1: action 3599"),
])
def test_a_tampered_record_fails_with_a_clear_message(written_runs, tamper, message):
    record = replay_cli.load_records(written_runs["junqi"]["games.jsonl"])[0]
    tamper(record)
    with pytest.raises(replay_cli.ReplayMismatch, match=message):
        replay_cli.replay(record)


def load(opening_runs, game):
    return replay_cli.load_records(opening_runs[game])


# ---------------------------------------------------------------------- what a record holds


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_a_record_binds_agents_to_seats_and_digests_every_ply(opening_runs, game):
    records = load(opening_runs, game)
    assert replay_cli.verify_records(records) == []
    for record in records:
        digests = record["digests"]
        assert record["format"] == RECORD_FORMATS[-1] and digests["scheme"] == DIGEST_SCHEME
        assert len(digests["plies"]) == len(record["actions"]) == record["result"]["plies"]
        assert record["start"]["opening_plies"] == record["start"]["opening_plies_requested"]
        assert isinstance(record["swapped"], bool) and record["base_seed"] == 11
    first, second = records
    assert first["agents"] == second["agents"][::-1] and second["swapped"]


def test_digests_do_not_depend_on_the_process_or_the_hash_seed(opening_runs):
    record = load(opening_runs, "junqi")[0]
    script = (
        "import json, sys\n"
        "from agents.arena import DigestChain, record_start_state, record_digest\n"
        "from tbw_envs.games import get_game\n"
        "record = json.loads(sys.stdin.read())\n"
        "state = record_start_state(record)\n"
        "chain = DigestChain(get_game('junqi'), record['rules'], state)\n"
        "for action in record['actions']:\n"
        "    state.apply(action); chain.step(action, state)\n"
        "print(chain.start, chain.final, record_digest(record))\n"
    )
    outputs = set()
    for hash_seed in ("0", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        done = subprocess.run([sys.executable, "-c", script], input=json.dumps(record),
                              capture_output=True, text=True, cwd=REPO_ROOT, env=env, check=True,
                              timeout=60)
        outputs.add(tuple(done.stdout.split()))
    assert outputs == {(record["digests"]["start"], record["digests"]["final"],
                        record["digests"]["record"])}


def test_the_digest_scheme_is_pinned():
    # A change to the state encoding would make every written record fail --verify: bump
    # DIGEST_SCHEME (and teach replay.py the old one) instead of changing these values.
    from tbw_envs.junqi import JunqiState, load_layout

    tbw = record_start_state({"game": "tbw", "scenario": "duel_5v5_8x8"})
    chain = DigestChain(get_game("tbw"), "duel_5v5_8x8", tbw)
    action = tbw.legal_actions()[0]
    tbw.apply(action)
    assert (chain.start[:16], chain.step(action, tbw)) == ("85d9db93f81b5282",
                                                           "e15c7d6576586b0f")
    layout = load_layout("flag_left_mined")
    junqi = JunqiState.initial((layout, layout))
    chain = DigestChain(get_game("junqi"), "ccgc", junqi)
    action = junqi.legal_actions()[0]
    junqi.apply(action)
    assert (chain.start[:16], chain.step(action, junqi)) == ("5bd59688d5b944bf",
                                                             "cde639b25998412a")


def test_recorded_games_read_one_games_records_from_folders_and_files(written_runs):
    from agents.arena.records import recorded_games, replay_record

    junqi = written_runs["junqi"]["games.jsonl"]
    games = recorded_games([junqi.parent, written_runs["tbw"]["games.jsonl"]], "junqi")
    records = replay_cli.load_records(junqi)
    assert len(games) == len(records) == 2
    for (start, actions), record in zip(games, records, strict=True):
        assert actions == record["actions"]
        state = start.clone()
        for action in actions:
            state.apply(action)
        assert state.returns() == replay_record(record).returns()
    with pytest.raises(ValueError, match="no junqi games in"):
        recorded_games([written_runs["tbw"]["games.jsonl"]], "junqi")


def test_recorded_thinking_is_per_ply_and_bound_by_the_record_digest(tmp_path):
    from agents.arena import run_round_robin
    from agents.arena.records import MalformedRecord, ReplayMismatch

    result = run_round_robin("junqi", ["ismcts:iterations=10", "random"], games_per_pairing=2,
                             workers=1, seed=2, bootstrap=0, record_thinking=True)
    records = [game.to_record() for game in result.games]
    assert replay_cli.verify_records(records) == []
    for record in records:
        ismcts_seat = record["agents"].index("ismcts:iterations=10")
        assert len(record["thinking"]) == len(record["actions"])
        for ply, thought in enumerate(record["thinking"]):
            assert (thought is not None) == (ply % 2 == ismcts_seat)
    # The same games without the flag: the same moves, and no thinking in the record.
    plain = run_round_robin("junqi", ["ismcts:iterations=10", "random"], games_per_pairing=2,
                            workers=1, seed=2, bootstrap=0)
    assert [g.to_record()["actions"] for g in plain.games] == [r["actions"] for r in records]
    assert all("thinking" not in g.to_record() for g in plain.games)
    # Changing what was thought breaks the record's digest; a wrong shape is named.
    changed = json.loads(json.dumps(records[0]))
    changed["thinking"][changed["thinking"].index(None) - 1 or 1] = {"iterations": 1}
    with pytest.raises(ReplayMismatch, match="digest"):
        replay_cli.replay(changed)
    changed["thinking"].pop()
    with pytest.raises(MalformedRecord, match="field 'thinking' must be a list of one object"):
        replay_cli.replay(changed)


def test_a_thinking_report_must_be_a_json_object():
    from agents.arena import ArenaTypeError
    from agents.arena.play import agent_thinking

    class Reports:
        name = "reports"

        def __init__(self, value):
            self.value = value

        def thinking(self):
            return self.value

    assert agent_thinking(object()) is None
    assert agent_thinking(Reports(None)) is None
    assert agent_thinking(Reports({"a": [1, 2.5, None]})) == {"a": [1, 2.5, None]}
    for bad in ([1, 2], {"x": float("nan")}, {"x": object()}):
        with pytest.raises(ArenaTypeError, match=r"reports.thinking\(\) must return None or a"):
            agent_thinking(Reports(bad))
