"""The arena command (``agents.cli.arena``): it writes every file of a run, picks the games to run
from its options, and checks every option before the first game, writing nothing when it refuses
one."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agents.cli import arena as arena_cli
from tests.helpers.bad_agents import write_bad_agents

# ---------------------------------------------------------------------- arena CLI


def test_arena_cli_writes_every_file(tmp_path, capsys):
    out = tmp_path / "junqi-run"
    assert arena_cli.main(["--game", "junqi", "--agents", "random", "random", "--games", "2",
                           "--workers", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    for heading in ("Pairings", "Ratings", "How games ended", "Thinking time", "final board"):
        assert heading in printed
    for name in ("results.json", "games.csv", "pairings.csv", "ratings.csv", "games.jsonl"):
        assert (out / name).stat().st_size > 0
    assert (out / "arena.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    results = json.loads((out / "results.json").read_text())
    assert results["command"].endswith("--out " + str(out))
    assert results["games"] == 2 and results["rules"] == "ccgc"
    assert [a["agent"] for a in results["ratings"]["agents"]] == ["random", "random (2)"]
    assert len((out / "games.csv").read_text().splitlines()) == 3
    assert len((out / "pairings.csv").read_text().splitlines()) == 3


def test_arena_cli_records_what_searches_thought_when_asked(tmp_path):
    out = tmp_path / "thinking"
    assert arena_cli.main(["--game", "junqi", "--agents", "ismcts:iterations=5", "random",
                           "--games", "2", "--workers", "1", "--out", str(out), "--no-render",
                           "--record-thinking"]) == 0
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    for record in records:
        seat = record["agents"].index("ismcts:iterations=5")
        thoughts = [t for ply, t in enumerate(record["thinking"]) if ply % 2 == seat]
        assert len(record["thinking"]) == len(record["actions"])
        assert all(t["iterations"] <= 5 and "belief" in t for t in thoughts)


def test_arena_cli_picks_the_games_to_run():
    parser = arena_cli.build_parser()

    def games(*argv):
        return arena_cli.games_to_run(parser.parse_args(list(argv)))

    assert games() == ["tbw", "junqi"]
    assert games("--agents", "greedy", "random") == ["tbw"]
    assert games("--rules", "jj") == ["junqi"]
    assert games("--game", "junqi", "--agents", "random") == ["junqi"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--game", "tbw", "--agents", "minimax"], "unknown agent 'minimax'"),
    (["--game", "junqi", "--agents", "exact", "random"], "does not play junqi"),
    (["--games", "0"], "--games: must be at least 1"),
    (["--workers", "0"], "--workers: must be at least 1"),
    (["--opening-plies", "-2"], "--opening-plies: must be at least 0"),
    (["--games", "two"], "--games: expected a whole number"),
    (["--game", "tbw", "--scenario", "no_such_map"], "no_such_map"),
])
def test_arena_cli_rejects_bad_input_with_argparse_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        arena_cli.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


# ---------------------------------------------------------------------- bad input writes nothing


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>"
            for p in sorted(folder.rglob("*"))}


def cli_case(tmp_path: Path, case: str) -> tuple[list[str], Path]:
    """The arguments of ``case`` and the folder that must stay as it was (or not appear)."""
    run = tmp_path / "run"
    out = ["--out", str(run)]
    small = ["--games", "2", "--workers", "1"]
    existing = tmp_path / "existing"
    existing.mkdir()
    (existing / "games.jsonl").write_text("an earlier run\n")
    a_file = tmp_path / "a-file.txt"
    a_file.write_text("not a folder\n")
    both = tmp_path / "both"
    (both / "junqi").mkdir(parents=True)
    (both / "junqi" / "results.json").write_text("{}\n")
    cases = {
        "opening-cap-tbw": (["--game", "tbw", "--opening-plies", "1000000", *small, *out], run),
        "opening-cap-junqi": (["--game", "junqi", "--agents", "random", "--opening-plies",
                               "501", *small, *out], run),
        "empty-scenario": (["--scenario", "", *small, *out], run),
        "blank-rules": (["--rules", " ", *small, *out], run),
        "scenario-with-junqi": (["--game", "junqi", "--scenario", "hex_skirmish", *small, *out],
                                run),
        "rules-with-tbw": (["--game", "tbw", "--rules", "jj", *small, *out], run),
        "existing-run-folder": (["--game", "tbw", "--agents", "random", *small, "--out",
                                 str(existing)], existing),
        "empty-out": (["--game", "tbw", "--agents", "random", *small, "--out", ""], run),
        "out-is-a-file": (["--game", "tbw", "--agents", "random", *small, "--out",
                           str(a_file)], a_file),
        "out-under-a-file": (["--game", "tbw", "--agents", "random", *small, "--out",
                              str(a_file / "run")], a_file),
        "existing-second-game-folder": (["--scenario", "duel_5v5_8x8", "--rules", "ccgc",
                                         "--agents", "random", *small, "--out", str(both)],
                                        both),
        "overwrite-without-out": (["--game", "tbw", "--overwrite", *small], run),
        "huge-games": (["--games", "999999999999", "--workers", "1", *out], run),
        "float-games": (["--games", "2.5", "--workers", "1", *out], run),
        "too-many-games-in-all": (["--agents", "random", "greedy", "exact", "--games", "60000",
                                   "--workers", "1", *out], run),
        "negative-seed": (["--seed", "-1", *small, *out], run),
        "word-seed": (["--seed", "abc", *small, *out], run),
        "too-many-workers": (["--workers", "100000", "--games", "2", *out], run),
        "empty-agent": (["--agents", "random", "", *small, *out], run),
        "unknown-agent": (["--game", "tbw", "--agents", "minimax", *small, *out], run),
        "agent-of-the-other-game": (["--game", "junqi", "--agents", "exact", *small, *out], run),
        "bad-rules-of-the-second-game": (["--agents", "random", "--rules", "nope", *small,
                                          *out], run),
        "move-time-limit-zero": (["--game", "tbw", "--move-time-limit", "0", *small, *out], run),
        "move-time-limit-over-the-cap": (["--game", "tbw", "--move-time-limit", "3601", *small,
                                          *out], run),
    }
    return cases[case]


CLI_MESSAGES = {
    "opening-cap-tbw": "tbw: --opening-plies 1,000,000 is more than the cap of 100",
    "opening-cap-junqi": "junqi: --opening-plies 501 is more than the cap of 500",
    "empty-scenario": "argument --scenario: must not be empty, got ''",
    "blank-rules": "argument --rules: must not be empty, got ' '",
    "scenario-with-junqi": "--scenario applies to TBW only",
    "rules-with-tbw": "--rules applies to Junqi only",
    "existing-run-folder": "already exists and is not empty (an earlier run?)",
    "empty-out": "argument --out: must not be empty",
    "out-is-a-file": "exists and is not a folder",
    "out-under-a-file": "is not a folder",
    "existing-second-game-folder": "junqi: --out: '",
    "overwrite-without-out": "--overwrite needs --out",
    "huge-games": "argument --games: must be at most 100,000, got 999,999,999,999",
    "float-games": "argument --games: expected a whole number, got '2.5'",
    "too-many-games-in-all": "3 pairing(s) x 60,000 games = 180,000 games: more than the cap",
    "negative-seed": "argument --seed: must be at least 0, got -1",
    "word-seed": "argument --seed: expected a whole number, got 'abc'",
    "too-many-workers": "argument --workers: must be at most 256",
    "empty-agent": "argument --agents: must not be empty",
    "unknown-agent": "unknown agent 'minimax'",
    "agent-of-the-other-game": "'exact' does not play junqi",
    "bad-rules-of-the-second-game": "junqi: unknown Junqi rule set 'nope'",
    "move-time-limit-zero": "argument --move-time-limit: must be a finite number of seconds "
                            "above 0, got '0'",
    "move-time-limit-over-the-cap": "tbw: --move-time-limit must be a number of seconds > 0 "
                                    "and <= 3600",
}


@pytest.mark.input_contract
@pytest.mark.parametrize("case", list(CLI_MESSAGES))
def test_arena_cli_rejects_bad_input_before_any_game_and_writes_nothing(
        case, tmp_path, no_games, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an --out '' must not reach the current folder either
    argv, guarded = cli_case(tmp_path, case)
    before = snapshot(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        arena_cli.main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert CLI_MESSAGES[case] in err, err
    assert snapshot(tmp_path) == before  # no folder created, an existing one untouched
    assert guarded.exists() == (guarded != tmp_path / "run")


@pytest.mark.input_contract
def test_the_second_games_folder_is_refused_before_the_first_game_runs(tmp_path, no_games,
                                                                         capsys):
    both = tmp_path / "both"
    (both / "junqi").mkdir(parents=True)
    (both / "junqi" / "keep.txt").write_text("mine\n")
    with pytest.raises(SystemExit):
        arena_cli.main(["--scenario", "duel_5v5_8x8", "--rules", "ccgc", "--agents", "random",
                        "--games", "2", "--out", str(both)])
    assert "junqi: --out:" in capsys.readouterr().err
    assert not (both / "tbw").exists()
    assert (both / "junqi" / "keep.txt").read_text() == "mine\n"


@pytest.mark.input_contract
def test_overwrite_replaces_the_arena_files_and_keeps_the_rest(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "games.jsonl").write_text("stale\n")
    (out / "notes.txt").write_text("mine\n")
    argv = ["--game", "tbw", "--agents", "greedy", "random", "--games", "2", "--workers", "1",
            "--no-render", "--out", str(out)]
    with pytest.raises(SystemExit):
        arena_cli.main(argv)
    assert (out / "games.jsonl").read_text() == "stale\n"
    capsys.readouterr()
    assert arena_cli.main([*argv, "--overwrite"]) == 0
    assert (out / "games.jsonl").read_text().count("\n") == 2
    assert (out / "notes.txt").read_text() == "mine\n"


@pytest.mark.input_contract
def test_overwrite_refuses_a_folder_where_an_output_file_goes(tmp_path, capsys, no_games):
    out = tmp_path / "run"
    (out / "games.jsonl").mkdir(parents=True)
    with pytest.raises(SystemExit):
        arena_cli.main(["--game", "tbw", "--agents", "random", "--games", "2", "--out",
                        str(out), "--overwrite"])
    assert "is a folder, where the arena writes a file" in capsys.readouterr().err


@pytest.mark.input_contract
@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions "
                    "that apply (not root)")
def test_an_unwritable_out_folder_is_refused_up_front(tmp_path, capsys, no_games):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(SystemExit):
            arena_cli.main(["--game", "tbw", "--agents", "random", "--games", "2", "--out",
                            str(locked / "run")])
    finally:
        locked.chmod(0o700)
    assert "no permission to create" in capsys.readouterr().err
    assert not (locked / "run").exists()


@pytest.mark.input_contract
def test_the_default_out_folder_is_never_an_existing_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # runs/ is under the current folder
    (tmp_path / "runs" / "arena-tbw-20250101-000000").mkdir(parents=True)
    fresh = arena_cli.fresh_default_out("tbw", "20250101-000000")
    assert fresh.name == "arena-tbw-20250101-000000-2" and not fresh.exists()


# ---------------------------------------------------------------------- --resume


def test_an_interrupted_run_resumes_to_the_files_of_an_uninterrupted_one(tmp_path, capsys,
                                                                         monkeypatch):
    import agents.arena.roundrobin as roundrobin

    options = ["--game", "tbw", "--agents", "greedy", "random", "random", "--games", "2",
               "--seed", "5", "--no-render"]
    whole = tmp_path / "whole"
    assert arena_cli.main([*options, "--workers", "1", "--out", str(whole)]) == 0
    real = roundrobin.play_task
    played = []

    def stopped_after_two(task):
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append(task.game_id)
        return real(task)

    monkeypatch.setattr(roundrobin, "play_task", stopped_after_two)
    cut = tmp_path / "cut"
    argv = [*options, "--workers", "1", "--out", str(cut)]
    capsys.readouterr()
    assert arena_cli.main(argv) == 130
    assert f"--resume {cut}" in capsys.readouterr().err
    assert [path.name for path in cut.iterdir()] == ["journal.jsonl"]
    monkeypatch.setattr(roundrobin, "play_task", real)
    assert arena_cli.main(["--resume", str(cut), "--workers", "2"]) == 0
    assert "2 were read back from the interrupted run's journal" in capsys.readouterr().out
    assert not (cut / "journal.jsonl").exists()
    assert (cut / "games.jsonl").read_text() == (whole / "games.jsonl").read_text()
    results = json.loads((cut / "results.json").read_text())
    assert results["command"] == "tbw-arena " + " ".join(argv)  # called in process
    assert results["resumed_games"] == 2 and results["workers"] == 2
    with pytest.raises(SystemExit):  # finished: nothing to resume
        arena_cli.main(["--resume", str(cut)])
    assert "holds a finished run (results.json)" in capsys.readouterr().err


@pytest.mark.input_contract
def test_resume_takes_its_options_from_the_journal_and_names_what_is_missing(tmp_path, capsys,
                                                                             no_games):
    with pytest.raises(SystemExit):
        arena_cli.main(["--resume", str(tmp_path), "--games", "4"])
    assert "drop --games" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        arena_cli.main(["--resume", str(tmp_path), "--seed", "3"])
    assert "drop --seed" in capsys.readouterr().err
    (tmp_path / "junqi").mkdir()
    (tmp_path / "junqi" / "journal.jsonl").write_text('{"format": "tbw-envs-arena-journal/1", '
                                                      '"run": {"game": "chess"}}\n')
    with pytest.raises(SystemExit):
        arena_cli.main(["--resume", str(tmp_path)])
    err = capsys.readouterr().err
    assert "no journal.jsonl in" in err and str(tmp_path / "junqi") in err
    with pytest.raises(SystemExit):
        arena_cli.main(["--resume", str(tmp_path / "junqi")])
    assert "--resume: unknown game" in capsys.readouterr().err


def test_a_move_time_limit_is_in_every_record_and_a_resume_takes_it_from_the_journal(
        tmp_path, capsys, monkeypatch):
    import agents.arena.roundrobin as roundrobin
    from agents.cli import replay as replay_cli

    out = tmp_path / "limited"
    real = roundrobin.play_task
    played = []

    def stopped_after_one(task):
        if played:
            raise KeyboardInterrupt
        played.append(task.game_id)
        return real(task)

    monkeypatch.setattr(roundrobin, "play_task", stopped_after_one)
    assert arena_cli.main(["--game", "tbw", "--agents", "greedy", "random", "--games", "2",
                           "--workers", "1", "--move-time-limit", "60", "--no-render",
                           "--out", str(out)]) == 130
    monkeypatch.setattr(roundrobin, "play_task", real)
    with pytest.raises(SystemExit):
        arena_cli.main(["--resume", str(out), "--move-time-limit", "60"])
    assert "drop --move-time-limit" in capsys.readouterr().err
    assert arena_cli.main(["--resume", str(out), "--no-render"]) == 0
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert [record["move_time_limit"] for record in records] == [60.0, 60.0]
    assert replay_cli.main([str(out / "games.jsonl"), "--verify"]) == 0


# ---------------------------------------------------------------------- --on-agent-error




def bad_agents(tmp_path) -> tuple[str, str]:
    specs = write_bad_agents(tmp_path)
    return specs["RaisesOnThird"], specs["Illegal"]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_forfeits_are_scored_recorded_and_verify(tmp_path, capsys, workers):
    from agents.cli import replay as replay_cli

    raises, illegal = bad_agents(tmp_path)
    out = tmp_path / "run"
    assert arena_cli.main(["--game", "tbw", "--agents", raises, illegal, "random", "--games",
                           "2", "--workers", workers, "--out", str(out),
                           "--on-agent-error", "forfeit"]) == 0
    captured = capsys.readouterr()
    assert len([line for line in captured.err.splitlines() if "forfeit: agent " in line]) == 6
    assert "Forfeits: games lost by an agent at fault" in captured.out
    rows = (out / "games.csv").read_text().splitlines()
    assert rows[0].endswith(",forfeit_agent,forfeit_reason")
    assert all("raised ValueError: the third move is cursed" in row
               or "returned an illegal action" in row for row in rows[1:])
    assert replay_cli.main([str(out / "games.jsonl"), "--verify"]) == 0
    printed = capsys.readouterr().out
    assert "verified 6 records" in printed and "all match" in printed
    assert "6 of 6 records are games an agent forfeited" in printed
    assert "cannot be checked from a record" in printed


def test_by_default_a_bad_agent_stops_the_run_with_one_line_then_resumes_as_forfeits(
        tmp_path, capsys):
    from agents.arena.play import AgentError

    raises, _ = bad_agents(tmp_path)
    out = tmp_path / "run"
    argv = ["--game", "tbw", "--agents", "random", raises, "--games", "2", "--workers", "1",
            "--out", str(out), "--no-render"]
    with pytest.raises(AgentError):  # the traceback follows the line
        arena_cli.main(argv)
    [line] = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert line.startswith(f"error: agent {raises!r} (player 1) raised ValueError: the third "
                           f"move is cursed on ply ")
    assert "of tbw game 0 (random v " in line
    assert f"--resume {out} --on-agent-error forfeit" in line
    assert [path.name for path in out.iterdir()] == ["journal.jsonl"]
    assert arena_cli.main(["--resume", str(out), "--on-agent-error", "forfeit"]) == 0
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert [r["result"]["forfeit"]["agent"] for r in records] == [raises, raises]


# ---------------------------------------------------------------------- the agents' game


def declared_agent(tmp_path, stem: str, declaration: str) -> str:
    return write_bad_agents(tmp_path, declaration, stem)["Illegal"]


def test_without_game_the_agents_file_decides_the_game(tmp_path, capsys):
    junqi_agent = declared_agent(tmp_path, "junqi_agent", 'GAME = "junqi"')
    out = tmp_path / "run"
    assert arena_cli.main(["--agents", junqi_agent, "random", "--games", "2", "--workers", "1",
                           "--out", str(out), "--no-render", "--on-agent-error",
                           "forfeit"]) == 0
    assert json.loads((out / "results.json").read_text())["game"] == "junqi"
    parser = arena_cli.build_parser()
    assert arena_cli.games_to_run(parser.parse_args(["--agents", "ismcts", "random"])) == [
        "junqi"]
    assert arena_cli.games_to_run(parser.parse_args(["--agents", "greedy", "random"])) == ["tbw"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--game", "tbw", "--agents", "JUNQI", "random"],
     "plays junqi (GAME = 'junqi' in "),
    (["--agents", "JUNQI", "TBW"], "--agents: the agents play different games, so no game has "
                                   "them all: "),
    (["--agents", "ismcts", "exact"], "ismcts plays junqi; exact plays tbw; name the game with "
                                      "--game"),
    (["--game", "junqi", "--agents", "ismct"], "did you mean 'ismcts' or 'mcts'? known agents "
                                               "for junqi: "),
])
def test_a_game_mismatch_is_refused_naming_the_agent_and_the_games(tmp_path, capsys, argv,
                                                                   message):
    specs = {"JUNQI": declared_agent(tmp_path, "j", 'GAME = "junqi"'),
             "TBW": declared_agent(tmp_path, "t", 'GAME = "tbw"')}
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_info:
        arena_cli.main([specs.get(a, a) for a in argv] + ["--out", str(out)])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()
