"""The commands work for games registered after they were written: TBW's description under
another name and variant flag (``third``, ``--board``), and the minigame (one-heap Nim, ``nim``,
``--heap``, only the random agent). Each takes its own flag, refuses another game's, picks the
game from the flag when ``--game`` is absent, and takes its arena defaults from the description;
all in process, through ``main([...])``."""

from __future__ import annotations

import json

import pytest
import yaml

from agents.arena import replay_record
from agents.cli import arena, convert_model, ladder, replay, train, train_rllib
from agents.policy.policy_files import load_policy
from scripts.bench.bench_envs import main as bench_envs_main
from tbw_envs.games import register, unregister
from tbw_envs.tbw.env.game import TBWGame
from tests.helpers.ppo import maskable_ppo_or_skip


class Third(TBWGame):
    """TBW under another name and variant flag: a game the commands have never seen."""

    name = "third"
    variant_flag = "board"


@pytest.fixture
def third():
    game = register(Third())
    yield game
    unregister(game.name)


def records_of(out) -> list[dict]:
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


def refused(main, argv, capsys) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    return capsys.readouterr().err


def test_arena_plays_a_renamed_game_on_its_own_flag_and_replay_verifies_it(third, tmp_path,
                                                                            capsys):
    out = tmp_path / "run"
    assert arena.main(["--game", "third", "--board", "duel_5v5_8x8", "--agents", "greedy",
                       "random", "--games", "2", "--workers", "1", "--out", str(out)]) == 0
    assert "final board of the last game" in capsys.readouterr().out
    records = records_of(out)
    assert [(r["game"], r["board"]) for r in records] == [("third", "duel_5v5_8x8")] * 2
    # The description's defaults, as TBW's: 10 random opening plies.
    assert {r["start"]["opening_plies"] for r in records} == {10}
    assert replay.main([str(out / "games.jsonl"), "--verify"]) == 0
    assert "verified 2 records" in capsys.readouterr().out
    assert replay.main([str(out / "games.jsonl"), "--text"]) == 0
    board = third.render_text(replay_record(records[0])).rstrip()  # the description's render
    plies = len(records[0]["actions"])
    assert capsys.readouterr().out == (f"--- final position of record 0 (game 0, 'third': "
                                       f"'greedy' v 'random'), ply {plies}\n{board}\n")


def test_the_flag_picks_the_game_and_another_games_flag_is_refused(third, capsys):
    parser = arena.build_parser()
    assert arena.games_to_run(parser.parse_args(["--board", "hex_skirmish"])) == ["third"]
    err = refused(arena.main, ["--game", "third", "--scenario", "hex_skirmish"], capsys)
    assert "--scenario applies to TBW only; TBW (third) takes --board (got --scenario " in err
    err = refused(arena.main, ["--game", "tbw", "--board", "hex_skirmish"], capsys)
    assert "--board applies to TBW (third) only; TBW takes --scenario" in err


def test_arena_takes_a_minigames_defaults_from_its_description(registered_minigame, tmp_path,
                                                               capsys):
    out = tmp_path / "nim"
    assert arena.main(["--heap", "large", "--workers", "1", "--out", str(out)]) == 0
    assert "heap large" in capsys.readouterr().out  # the text render, from the description
    results = json.loads((out / "results.json").read_text())
    # Nim's defaults: the random agent against itself, 4 games a pairing, no opening.
    assert (results["game"], results["games"]) == ("nim", 4)
    assert [a["agent"] for a in results["ratings"]["agents"]] == ["random", "random (2)"]
    records = records_of(out)
    assert {(r["heap"], r["start"].get("opening_plies", 0)) for r in records} == {("large", 0)}
    assert replay.main([str(out / "games.jsonl"), "--verify", "--game-index", "3"]) == 0
    err = refused(arena.main, ["--game", "nim", "--agents", "greedy"], capsys)
    assert "does not play nim" in err


def test_ladder_rates_on_a_renamed_game_read_from_its_ladder_file(third, tmp_path, capsys):
    pinned = {"game": "third", "variant": "duel_5v5_8x8", "games_per_opponent": 2,
              "opening_plies": 4, "seed": 0, "source": "a test",
              "pool": [{"spec": "random", "elo": 1000}, {"spec": "greedy", "elo": 1500}]}
    path = tmp_path / "third.yaml"
    path.write_text(yaml.safe_dump(pinned), encoding="utf-8")
    rating = tmp_path / "rating.json"
    # No --game and no --board: the ladder file names its game.
    assert ladder.main(["--agent", "greedy", "--ladder", str(path), "--workers", "1",
                        "--out", str(tmp_path / "out"), "--json", str(rating)]) == 0
    assert json.loads(rating.read_text())["game"] == "third"
    assert replay.main([str(tmp_path / "out" / "games.jsonl"), "--verify"]) == 0
    capsys.readouterr()
    err = refused(ladder.main, ["--agent", "greedy", "--ladder", str(path), "--board",
                                "hex_skirmish"], capsys)
    assert "third: --board 'hex_skirmish': the ladder is pinned on the scenario" in err


def test_training_takes_the_games_flag_and_its_own_flags_by_what_the_game_is(
        third, registered_minigame, capsys):
    args = train.parse_args(["--board", "hex_skirmish", "--opponent", "greedy"])
    assert (args.game, args.board, args.scenario, args.rules) == ("third", "hex_skirmish",
                                                                   None, None)
    assert args.opening_plies == 0 and args.deployment is None  # a game that starts alike
    info = train.game_info(args)
    assert (info["game"], info["board"], info["scenario"]) == ("third", "hex_skirmish", None)
    assert train.parse_args(["--game", "junqi"]).rules == "ccgc"
    err = refused(train.parse_args, ["--game", "third", "--scenario", "hex_skirmish"], capsys)
    assert "--scenario applies to TBW only; TBW (third) takes --board" in err
    err = refused(train.parse_args, ["--game", "nim", "--deployment", "agents"], capsys)
    assert "--deployment applies to junqi, not nim" in err
    err = refused(train.parse_args, ["--game", "nim", "--eval-prior"], capsys)
    assert "--eval-prior exists for Junqi only" in err and "Nim has no such prior" in err
    err = refused(train.parse_args, ["--game", "junqi", "--opening-plies", "3"], capsys)
    assert "--opening-plies applies to tbw, third, nim, not junqi" in err


def test_rllib_training_and_the_converter_take_the_games_flag(third, tmp_path, capsys):
    parser = train_rllib.build_parser()
    args = parser.parse_args(["--board", "paper_figure3"])
    assert train_rllib.check_variant_flags(args, parser) == "paper_figure3"
    assert args.game == "third"
    err = refused(train_rllib.main, ["--game", "third", "--rules", "ccgc"], capsys)
    assert "--rules applies to Junqi only; TBW (third) takes --board" in err
    model = tmp_path / "model.zip"
    model.write_bytes(b"never read: the flags are refused first")
    err = refused(convert_model.main, [str(model), str(tmp_path / "policy.npz"), "--game",
                                       "third", "--scenario", "duel_5v5_8x8"], capsys)
    assert "--scenario applies to TBW only; TBW (third) takes --board" in err


def test_the_environment_benchmark_measures_a_game_it_has_never_heard_of(registered_minigame,
                                                                          capsys):
    assert bench_envs_main(["--seconds", "0.02", "--heap", "small"]) == 0
    printed = capsys.readouterr().out
    for layer in ("core", "raw_env", "env()", "single"):
        assert f"nim small{' ' * 23}{layer}" in printed
    assert "tbw" not in printed.split("overhead")[1]  # only the game its flag names


def test_a_registered_game_changes_no_other_games_records(tmp_path):
    """A record carries the bundled games' variant keys and its own: installing a game (here
    registering ``third``) must not add ``board: null`` to every TBW record, which would change
    the bytes, and so the hashes, of every run made with the plugin installed."""
    argv = ["--game", "tbw", "--agents", "greedy", "random", "--games", "2", "--workers", "1",
            "--no-render"]
    assert arena.main([*argv, "--out", str(tmp_path / "before")]) == 0
    game = register(Third())
    try:
        assert arena.main([*argv, "--out", str(tmp_path / "with_third")]) == 0
        assert arena.main(["--game", "third", "--agents", "greedy", "random", "--games", "2",
                           "--workers", "1", "--no-render", "--out", str(tmp_path / "third")]) == 0
    finally:
        unregister(game.name)
    before = (tmp_path / "before" / "games.jsonl").read_bytes()
    assert (tmp_path / "with_third" / "games.jsonl").read_bytes() == before
    assert "board" not in records_of(tmp_path / "before")[0]
    third_record = records_of(tmp_path / "third")[0]
    assert (third_record["board"], third_record["scenario"]) == ("duel_5v5_8x8", None)


def test_arena_leaves_out_an_inherited_default_that_ships_nothing_for_the_game(third, tmp_path,
                                                                               capsys):
    """TBW's description renamed keeps TBW's default entrants, ``ppo:pretrained`` among them,
    and no policy is shipped for the new name: the arena plays the rest, and says so."""
    out = tmp_path / "run"
    assert arena.main(["--game", "third", "--games", "2", "--workers", "1", "--no-render",
                       "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert ("note: third: the default agent ppo:pretrained is left out (it cannot be "
            "built for third): agent spec 'ppo:pretrained': no ppo:pretrained agent of third "
            "is shipped"
            in printed)
    assert {spec for r in records_of(out) for spec in r["specs"]} == {"exact", "greedy",
                                                                       "random"}
    # The bundled game's own defaults are played as given: none is left out.
    assert arena.default_agents("tbw") == list(TBWGame.arena_agents)


def test_training_a_renamed_game_writes_a_policy_that_plays_it(third, tmp_path, capsys):
    """The policy file names its game's own variant field (``board``), and the learned agent
    plays the renamed game's views (TBW states, which TBW's description knows too) as that
    game, in training's evaluation and in the arena."""
    maskable_ppo_or_skip()
    out = tmp_path / "train"
    assert train.main(["--game", "third", "--board", "duel_5v5_8x8", "--timesteps", "64",
                       "--n-steps", "64", "--batch-size", "32", "--n-epochs", "1",
                       "--eval-every", "64", "--eval-games", "2", "--eval-opponents",
                       "random", "--policy", "mlp", "--out", str(out)]) == 0
    policy = out / "policy.npz"
    _, info = load_policy(policy)
    assert (info["game"], info["board"], info["scenario"]) == ("third", "duel_5v5_8x8", None)
    capsys.readouterr()
    run = tmp_path / "arena"
    assert arena.main(["--game", "third", "--agents", f"ppo:path={policy}", "random",
                       "--games", "2", "--workers", "1", "--no-render", "--out", str(run)]) == 0
    assert {r["specs"][0] for r in records_of(run)} == {f"ppo:path={policy}", "random"}


def test_a_broken_ladder_file_is_reported_as_its_own_games(registered_minigame, tmp_path,
                                                           capsys):
    """Without --game, a ladder file whose pool is wrong is still the game it names: the error
    says so, not the first registered game's."""
    pinned = {"game": "nim", "variant": "small", "games_per_opponent": 2, "opening_plies": 0,
              "seed": 0, "source": "a test",
              "pool": [{"spec": "random", "elo": 1000}, {"spec": "random", "elo": 1100}]}
    path = tmp_path / "nim.yaml"
    path.write_text(yaml.safe_dump(pinned), encoding="utf-8")
    err = refused(ladder.main, ["--agent", "random", "--ladder", str(path)], capsys)
    assert f"error: nim: {path}: pool #2: spec 'random' is already pool #1" in err
