"""What the commands share (``agents.cli.common``): the value types, the variant flags built from
the registered games, how the game is picked without ``--game``, and how a command names itself;
and that the commands, their console scripts and their launchers agree."""

from __future__ import annotations

import argparse
import ast
import importlib

import pytest

from agents.arena.main_guard import guarded_lines
from agents.cli import common
from tbw_envs.games import COMMAND_FLAGS, registered_games
from tests.helpers import REPO_ROOT


def test_whole_numbers_and_seconds_are_checked_with_the_value_named():
    assert common.whole_number("12", 1, 100) == 12
    for text, words in (("0", "must be at least 1, got 0"),
                        ("101", "must be at most 100, got 101"),
                        ("2.5", "expected a whole number, got '2.5'"),
                        ("9" * 41, "expected a whole number")):
        with pytest.raises(argparse.ArgumentTypeError, match=words):
            common.whole_number(text, 1, 100)
    assert common.positive_seconds("0.5") == 0.5
    for text in ("0", "-1", "nan", "inf", "soon"):
        with pytest.raises(argparse.ArgumentTypeError, match=repr(text)):
            common.positive_seconds(text)


def parser_of(command: str) -> argparse.ArgumentParser:
    return importlib.import_module(f"agents.cli.{command}").build_parser()


@pytest.mark.parametrize("command", list(common.COMMANDS))
def test_every_option_of_a_command_is_one_no_game_may_take_as_its_variant_flag(command):
    """``tbw_envs.games.COMMAND_FLAGS`` is what registration refuses as a ``variant_flag``: an
    option missing there would let a game's flag collide with it."""
    variant_flags = {game.variant_flag for game in registered_games()}
    options = {action.dest for action in parser_of(command)._actions if action.option_strings}
    assert options - variant_flags - COMMAND_FLAGS == set()


def test_the_commands_are_the_console_scripts_and_the_launchers():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11
    scripts = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {console: f"agents.cli.{command}:main"
                       for command, (console, _) in common.COMMANDS.items()}
    for command, (_, launcher) in common.COMMANDS.items():
        source = (REPO_ROOT / launcher).read_text(encoding="utf-8")
        tree = ast.parse(source)
        imports = [node for node in tree.body if isinstance(node, ast.ImportFrom)]
        assert [(node.module, [a.name for a in node.names]) for node in imports] == [
            (f"agents.cli.{command}", ["main"])], launcher
        # A spawned arena worker imports the launcher again: main() runs only when guarded.
        [(first, last)] = guarded_lines(tree)
        calls = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)]
        assert calls and all(first <= line <= last for line in calls), launcher


@pytest.mark.parametrize(("argv0", "words"), [
    ("scripts/arena.py", ["python", "scripts/arena.py"]),
    ("/home/me/clone/scripts/arena.py", ["python", "scripts/arena.py"]),
    ("/home/me/.venv/bin/tbw-arena", ["tbw-arena"]),
    ("/usr/lib/python3/site-packages/pytest/__main__.py", ["tbw-arena"]),
])
def test_a_command_names_itself_as_it_was_started(monkeypatch, argv0, words):
    monkeypatch.setattr("sys.argv", [argv0, "--games", "2"])
    assert common.command_words("arena") == words


def test_a_variant_flag_that_is_already_an_option_is_refused_naming_both(registered_minigame):
    parser = argparse.ArgumentParser(prog="tbw-something")
    parser.add_argument("--heap")
    with pytest.raises(ValueError, match=r"game 'nim' declares variant_flag 'heap', but "
                                         r"tbw-something already has an option --heap"):
        common.add_variant_flags(parser)


def test_the_variant_flags_and_their_help_come_from_the_registered_games(registered_minigame):
    parser = argparse.ArgumentParser()
    common.add_variant_flags(parser)
    assert parser.parse_args(["--heap", "large"]).heap == "large"
    text = parser.format_help()
    assert "Nim: a bundled heap name or a YAML path (default small)" in " ".join(text.split())
    args = parser.parse_args(["--heap", "large", "--scenario", "hex_skirmish"])
    assert common.other_variant_problems(args, "nim") == [
        "--scenario applies to TBW only; Nim takes --heap (got --scenario 'hex_skirmish')"]
    assert common.other_variant_problems(args, "tbw") == [
        "--heap applies to Nim only; TBW takes --scenario (got --heap 'large')"]


class Refused(Exception):
    pass


def refuse(message: str):
    raise Refused(message)


def test_without_game_the_flag_then_the_agents_then_the_first_game_decide(registered_minigame):
    parser = argparse.ArgumentParser()
    common.add_game_flag(parser)
    common.add_variant_flags(parser)

    def pick(*argv, specs=()):
        return common.pick_game(parser.parse_args(list(argv)), refuse, specs)

    assert pick("--heap", "small") == "nim"
    assert pick("--rules", "ccgc", specs=["greedy"]) == "junqi"
    assert pick(specs=["ismcts", "random"]) == "junqi"
    assert pick(specs=["random"]) == "tbw"
    assert pick("--game", "nim", specs=["exact"]) == "nim"  # the agents are checked later
    with pytest.raises(Refused, match=r"--scenario and --heap name 2 games \(tbw, nim\)"):
        pick("--scenario", "duel_5v5_8x8", "--heap", "small")
    with pytest.raises(Refused, match="--agents: the agents play different games"):
        pick(specs=["ismcts", "exact"])
