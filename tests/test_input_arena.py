"""The arena's input contract: every argument of ``run_round_robin`` / ``run_match`` and every
option of ``scripts/arena.py`` is checked before the first game, with an error that names it,
and a rejected command writes nothing (no run folder created, an existing one untouched)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import agents.arena as arena
import agents.arena.players as arena_players
import agents.arena.roundrobin as arena_roundrobin
from agents.arena import (
    MAX_GAMES,
    ArenaInputError,
    ArenaTypeError,
    max_opening_plies,
    random_opening,
    run_match,
    run_round_robin,
    tbw_game,
)
from agents.random_agent import RandomAgent
from scripts import arena as arena_cli
from tbw_envs.tbw import load_scenario


@pytest.fixture
def no_games(monkeypatch):
    """Any game started (in this process or a pool) fails the test: checks come first."""

    def refuse(*args, **kwargs):
        raise AssertionError("a game was started before the input was checked")

    for name in ("play_task", "warm_up", "play_in_processes", "play_on_ray"):
        monkeypatch.setattr(arena_roundrobin, name, refuse)
    monkeypatch.setattr(arena_cli, "run_round_robin", refuse)


def failing_factory(seed):
    raise RuntimeError("no weights here")


class NotAnAgent:
    name = "not-an-agent"


def not_an_agent_factory(seed):
    return NotAnAgent()


# ---------------------------------------------------------------------- run_round_robin

GOOD = {"game": "tbw", "specs": ["random", "greedy"], "games_per_pairing": 2, "workers": 1}

API_CASES = [
    # (overrides of GOOD, error type, message fragment)
    ({"games_per_pairing": True}, ArenaTypeError,
     "games_per_pairing must be a positive integer, got bool True"),
    ({"games_per_pairing": 2.0}, ArenaTypeError, "got float 2.0"),
    ({"games_per_pairing": "4"}, ArenaTypeError, "got str '4'"),
    ({"games_per_pairing": 0}, ArenaInputError, "games_per_pairing must be a positive integer"),
    ({"games_per_pairing": 999_999_999_999}, ArenaInputError, "at most 100,000"),
    ({"specs": [f"random:seed={i}" for i in range(3)] + ["greedy"] * 20,
      "games_per_pairing": 400}, ArenaInputError, "more than the cap of 100,000 games"),
    ({"seed": "abc"}, ArenaTypeError, "seed must be a non-negative integer, got str 'abc'"),
    ({"seed": -1}, ArenaInputError, "seed must be a non-negative integer, got -1"),
    ({"seed": 1.0}, ArenaTypeError, "seed must be a non-negative integer, got float"),
    ({"seed": 2**63}, ArenaInputError, "seed must be at most"),
    ({"bootstrap": -5}, ArenaInputError, "bootstrap must be a non-negative integer, got -5"),
    ({"bootstrap": 2.5}, ArenaTypeError, "bootstrap must be a non-negative integer"),
    ({"bootstrap": 10**6}, ArenaInputError, "bootstrap must be at most 10,000"),
    ({"bootstrap_seed": None}, ArenaTypeError, "bootstrap_seed must be a non-negative"),
    ({"workers": 0}, ArenaInputError, "workers must be a positive integer, got 0"),
    ({"workers": True}, ArenaTypeError, "workers must be a positive integer, got bool"),
    ({"workers": 10**6}, ArenaInputError, "workers must be at most 256"),
    ({"progress": "yes"}, ArenaTypeError, "progress must be True or False"),
    ({"opening_plies": 1_000_000}, ArenaInputError,
     "opening_plies 1,000,000 is more than the cap of 100 for tbw scenario 'duel_5v5_8x8'"),
    ({"game": "junqi", "opening_plies": 501}, ArenaInputError, "cap of 500 for junqi rule set"),
    ({"opening_plies": -1}, ArenaInputError, "opening_plies must be a non-negative integer"),
    ({"opening_plies": True}, ArenaTypeError, "opening_plies must be a non-negative integer"),
    ({"variant": ""}, ArenaInputError, "variant (tbw scenario) must not be empty"),
    ({"variant": {"board": 1}}, ArenaTypeError, "must be a name or a path, got dict"),
    ({"variant": "no_such_map"}, ValueError, "unknown scenario 'no_such_map'"),
    ({"game": "chess"}, ArenaInputError, "unknown game 'chess'"),
    ({"game": None}, ArenaInputError, "unknown game None"),
    ({"specs": "random"}, ArenaTypeError, "specs must be a list of agent specs"),
    ({"specs": []}, ArenaInputError, "at least one agent is needed"),
    ({"specs": ["random", " "]}, ArenaInputError, "agent #2: an empty spec"),
    ({"specs": ["random", 3]}, ArenaTypeError, "agent #2 must be a spec string or a factory"),
    # (the registry words its own part; the arena names the entrant)
    ({"specs": ["random", "minimax"]}, ArenaInputError,
     ("agent #2 (minimax): ", "unknown agent 'minimax'")),
    ({"game": "junqi", "specs": ["random", "exact"]}, ArenaInputError,
     ("agent #2 (exact): ", "'exact' does not play junqi")),
    ({"specs": ["random", failing_factory]}, ArenaInputError,
     "agent #2 (failing_factory): cannot be built: RuntimeError: no weights here"),
    ({"specs": ["random", not_an_agent_factory]}, ArenaTypeError, "has no act() method"),
    ({"specs": ["random", lambda seed: RandomAgent(seed)], "workers": 2}, ArenaInputError,
     "a factory must be picklable to play in worker processes"),
    ({"ray_address": "nowhere"}, ValueError, "Ray address must be"),
    ({"ray_address": 5}, ArenaTypeError, "ray_address must be a string or None"),
]


@pytest.mark.parametrize(("overrides", "error", "message"), API_CASES,
                         ids=[f"{'-'.join(c[0])}-{i}" for i, c in enumerate(API_CASES)])
def test_run_round_robin_rejects_bad_arguments_before_any_game(no_games, overrides, error,
                                                                message):
    with pytest.raises(error) as info:
        run_round_robin(**(GOOD | overrides))
    for fragment in (message,) if isinstance(message, str) else message:
        assert fragment in str(info.value)
    assert len(str(info.value)) < 400  # values are quoted cut short


def test_arena_errors_are_value_errors_and_type_errors_are_type_errors():
    assert issubclass(ArenaInputError, ValueError)
    assert issubclass(ArenaTypeError, TypeError) and issubclass(ArenaTypeError, ValueError)
    assert not issubclass(ArenaInputError, TypeError)


def test_every_agent_is_built_once_before_the_first_game(monkeypatch, no_games):
    built = []
    real = arena.build_agent

    def spy(entry, seed, game, variant=None):
        built.append(entry)
        return real(entry, seed, game, variant)

    monkeypatch.setattr(arena_players, "build_agent", spy)
    with pytest.raises(ArenaInputError, match="agent #3"):
        run_round_robin("tbw", ["random", "greedy", "minimax"], 2, workers=1)
    assert built == ["random", "greedy", "minimax"]


# ---------------------------------------------------------------------- run_match and play_game

MATCH_CASES = [
    ({"games": True}, ArenaTypeError, "games must be a positive integer, got bool True"),
    ({"games": 0}, ArenaInputError, "games must be a positive integer, got 0"),
    ({"games": 1.5}, ArenaTypeError, "games must be a positive integer, got float 1.5"),
    ({"games": MAX_GAMES + 1}, ArenaInputError, "games must be at most 100,000"),
    ({"seed": "abc"}, ArenaTypeError, "seed must be a non-negative integer, got str 'abc'"),
    ({"seed": -3}, ArenaInputError, "seed must be a non-negative integer, got -3"),
    ({"progress": 1}, ArenaTypeError, "progress must be True or False"),
    ({"new_state": "duel_5v5_8x8"}, ArenaTypeError, "new_state must be a callable"),
    ({"agent_b": "random"}, ArenaTypeError, "agent_b must be an agent with act() and reset()"),
    ({"agent_b": "same"}, ArenaInputError, "agent_a and agent_b are the same object"),
]


@pytest.mark.parametrize(("overrides", "error", "message"), MATCH_CASES)
def test_run_match_rejects_bad_arguments_before_any_game(overrides, error, message):
    agent_a = RandomAgent(0)
    agent_b = RandomAgent(1)
    names = (agent_a.name, agent_b.name)
    calls = []

    def new_state(seed):
        calls.append(seed)
        return load_scenario("paper_figure3").initial_state()

    kwargs = {"new_state": new_state, "agent_a": agent_a, "agent_b": agent_b, "games": 2,
              "seed": 0} | overrides
    if kwargs["agent_b"] == "same":
        kwargs["agent_b"] = agent_a
    with pytest.raises(error, match=None) as info:
        run_match(**kwargs)
    assert message in str(info.value)
    assert calls == [] and (agent_a.name, agent_b.name) == names  # nothing played or renamed


def test_play_game_checks_its_arguments():
    with pytest.raises(ArenaInputError, match="agents must be a pair of agents"):
        arena.play_game(tbw_game("paper_figure3"), [RandomAgent(0)], seed=0)
    with pytest.raises(ArenaTypeError, match="seed must be a non-negative integer, got float"):
        arena.play_game(tbw_game("paper_figure3"), [RandomAgent(0), RandomAgent(1)], seed=0.5)


# ---------------------------------------------------------------------- the opening cap


def test_the_opening_cap_is_a_quarter_of_the_longest_game():
    assert max_opening_plies("tbw", "duel_5v5_8x8") == 40 * 10 // 4 == 100
    assert max_opening_plies("junqi", "ccgc") == 2000 // 4 == 500


@pytest.mark.parametrize(("game", "specs"), [("tbw", ["greedy", "random"]),
                                             ("junqi", ["random", "random"])])
def test_an_opening_at_the_cap_never_ends_the_game_before_the_agents_move(game, specs):
    cap = max_opening_plies(game, arena.default_variant(game))
    result = run_round_robin(game, specs, games_per_pairing=4, workers=1, opening_plies=cap,
                             bootstrap=0)
    for g in result.games:
        assert g.opening_requested == cap
        assert g.opening_plies <= cap and g.plies > g.opening_plies
        assert sum(g.moves) == g.plies - g.opening_plies >= 1


def test_stop_before_end_plays_the_same_opening_only_cut_short():
    plain = load_scenario("duel_5v5_8x8").initial_state()
    full = random_opening(plain, 100_000, seed=1)
    assert plain.is_terminal()
    stopped_state = load_scenario("duel_5v5_8x8").initial_state()
    stopped = random_opening(stopped_state, 100_000, seed=1, stop_before_end=True)
    assert not stopped_state.is_terminal()
    assert stopped == full[:-1]  # the last action ended the game


# ---------------------------------------------------------------------- the command line


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
}


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


def test_overwrite_refuses_a_folder_where_an_output_file_goes(tmp_path, capsys, no_games):
    out = tmp_path / "run"
    (out / "games.jsonl").mkdir(parents=True)
    with pytest.raises(SystemExit):
        arena_cli.main(["--game", "tbw", "--agents", "random", "--games", "2", "--out",
                        str(out), "--overwrite"])
    assert "is a folder, where the arena writes a file" in capsys.readouterr().err


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


def test_the_default_out_folder_is_never_an_existing_one(tmp_path, monkeypatch):
    monkeypatch.setattr(arena_cli, "ROOT", tmp_path)
    (tmp_path / "runs" / "arena-tbw-20250101-000000").mkdir(parents=True)
    fresh = arena_cli.fresh_default_out("tbw", "20250101-000000")
    assert fresh.name == "arena-tbw-20250101-000000-2" and not fresh.exists()
