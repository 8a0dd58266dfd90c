"""What the command lines share: argparse value types, ``--game`` and one variant flag per
registered game, and how a command names itself in what it prints and records.

The variant flags come from the game descriptions (``tbw_envs.games``) each time a parser is
built, so a game registered later has its flag on every command: ``Game.variant_flag`` is the
flag (``--scenario`` for TBW, ``--rules`` for Junqi), ``variant_noun`` and ``default_variant``
its help. A command refuses the flag of another game than the one it plays
(``refuse_other_variants``) and, without ``--game``, picks the game from the variant flag given
or the agents named (``pick_game``), else the first registered game: never by a game's name.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from agents.arena import MAX_GAMES, MAX_SEED, MAX_WORKERS, ArenaInputError, check_ray_address
from agents.arena.players import agents_game
from tbw_envs.core.contract import short_repr
from tbw_envs.description import Game
from tbw_envs.games import game_names, get_game, registered_games

__all__ = [
    "ARENA_OPTIONS", "COMMANDS", "RUNS_FOLDER", "ErrorReporter", "add_game_flag",
    "add_variant_flags", "command_words", "games_count", "games_named_by_variants",
    "given_variant", "label", "missing_extra", "non_empty", "non_negative_int", "option",
    "option_message", "other_variant_problems", "pick_game", "positive_int", "positive_seconds",
    "ray_address", "refuse_other_variants", "registered", "seed_value", "variant_flags",
    "whole_number", "workers_count",
]

MAX_NUMBER_CHARS = 40  # int() of a huge string is slow, and every cap is far below this
RUNS_FOLDER = Path("runs")  # where a run without --out goes, under the current folder
# Each command's console script (pyproject.toml, [project.scripts]) and its launcher in a clone.
COMMANDS = {
    "arena": ("tbw-arena", "scripts/arena.py"),
    "ladder": ("tbw-ladder", "scripts/ladder.py"),
    "replay": ("tbw-replay", "scripts/replay.py"),
    "serve": ("tbw-serve", "scripts/serve.py"),
    "train": ("tbw-train", "scripts/train_ppo.py"),
    "train_rllib": ("tbw-train-rllib", "scripts/train_rllib.py"),
    "convert_model": ("tbw-convert-model", "scripts/convert_model.py"),
    "tune_weights": ("tbw-tune-weights", "scripts/tune_weights.py"),
    "budget_curve": ("tbw-budget-curve", "scripts/budget_curve.py"),
    "reproduce_table2": ("tbw-reproduce-table2", "scripts/reproduce_table2.py"),
}
# The messages of agents.arena name API arguments; the command lines name their options.
ARENA_OPTIONS = (("games_per_pairing", "--games"), ("opening_plies", "--opening-plies"),
                 ("move_time_limit", "--move-time-limit"), ("workers", "--workers"),
                 ("seed", "--seed"), ("out:", "--out:"))

ErrorReporter = Callable[[str], NoReturn]  # parser.error: prints the usage and exits with 2


# ---------------------------------------------------------------------------- value types


def whole_number(text: str, minimum: int, maximum: int | None = None) -> int:
    """A decimal integer in ``[minimum, maximum]`` (argparse type)."""
    value = None
    if len(text) <= MAX_NUMBER_CHARS:
        with contextlib.suppress(ValueError):
            value = int(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {short_repr(text)}")
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise argparse.ArgumentTypeError(f"must be at most {maximum:,}, got {value:,}")
    return value


def positive_int(text: str) -> int:
    return whole_number(text, 1)


def non_negative_int(text: str) -> int:
    return whole_number(text, 0)


def games_count(text: str) -> int:
    return whole_number(text, 1, MAX_GAMES)


def workers_count(text: str) -> int:
    return whole_number(text, 1, MAX_WORKERS)


def seed_value(text: str) -> int:
    return whole_number(text, 0, MAX_SEED)


def positive_seconds(text: str) -> float:
    """A finite number of seconds above 0 (argparse type)."""
    value = None
    if len(text) <= MAX_NUMBER_CHARS:
        with contextlib.suppress(ValueError):
            value = float(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {short_repr(text)}")
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds above 0, got "
                                         f"{short_repr(text)}")
    return value


def non_empty(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError(f"must not be empty, got {short_repr(text)}")
    return text


def ray_address(text: str) -> str:
    """'local', 'auto', HOST:PORT or ray://HOST:PORT (argparse type)."""
    try:
        return check_ray_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


# ---------------------------------------------------------------------------- games and variants


def option(name: str) -> str:
    """The command-line flag of a keyword: ``opening_plies`` -> ``--opening-plies``."""
    return "--" + name.replace("_", "-")


def registered() -> list[Game]:
    """The registered games' descriptions, in registration order (bundled first), as they are
    now: a game registered after a parser was built is not on that parser."""
    return list(registered_games())


def label(game: Game) -> str:
    """A game for people: its title, and its name too when the title does not say it (a game
    derived from another may keep the other's title)."""
    return game.title if game.title.lower() == game.name else f"{game.title} ({game.name})"


def variant_flags() -> dict[str, list[Game]]:
    """Each variant flag of the registered games and the games that take it (several games may
    share one: a game derived from another keeps its flag)."""
    flags: dict[str, list[Game]] = {}
    for game in registered():
        flags.setdefault(game.variant_flag, []).append(game)
    return flags


def add_game_flag(parser: argparse.ArgumentParser, *, required: bool = False,
                  help: str | None = None) -> None:
    parser.add_argument("--game", choices=list(game_names()), required=required, default=None,
                        help=help)


def add_variant_flags(parser: argparse.ArgumentParser, *, several: bool = False,
                      what: str | None = None) -> None:
    """One option per variant flag of the registered games (``--scenario``, ``--rules``, ...),
    default None so that a flag given to the wrong game is an error, not ignored; ``several``:
    each takes one or more values; ``what``: the help's words for the value (``{noun}`` is the
    game's variant noun; default: a bundled name or a YAML path, and the default variant).
    Added in a group of their own, after the command's other options: a game whose flag is one
    of them is refused here, naming both."""
    group = parser.add_argument_group(
        "variants", "each game's own flag; give the one of the game played")
    for flag, games in variant_flags().items():
        defaults = (games[0].default_variant if len(games) == 1 else
                    ", ".join(f"{label(game)} {game.default_variant}" for game in games))
        nouns = " or ".join(dict.fromkeys(game.variant_noun for game in games))
        titles = ", ".join(map(label, games))
        plural = " (one or more)" if several else ""
        described = (what.format(noun=nouns) if what is not None else
                     f"a bundled {nouns} name or a YAML path{plural} (default {defaults})")
        try:
            group.add_argument(
                option(flag), dest=flag, type=non_empty, default=None,
                nargs="+" if several else None,
                metavar=games[0].variant_noun.upper().replace(" ", "_"),
                help=f"{titles}: {described}; refused with another --game")
        except argparse.ArgumentError as exc:
            raise ValueError(f"game {games[0].name!r} declares variant_flag {flag!r}, but "
                             f"{parser.prog} already has an option {option(flag)} ({exc})"
                             ) from None


def given_variant(args: argparse.Namespace, game: str | Game) -> Any:
    """What the command line gives for ``game``'s variant flag (None: not given)."""
    return getattr(args, get_game(game).variant_flag, None)


def games_named_by_variants(args: argparse.Namespace) -> list[str]:
    """The games whose variant flag is given, in registration order."""
    return [game.name for game in registered() if given_variant(args, game) is not None]


def other_variant_problems(args: argparse.Namespace, game: str | Game) -> list[str]:
    """What is wrong with the variant flags given for ``game``: each flag it does not take."""
    chosen = get_game(game)
    problems = []
    for flag, games in variant_flags().items():
        value = getattr(args, flag, None)
        if flag != chosen.variant_flag and value is not None:
            shown = " ".join(value) if isinstance(value, list) else value
            problems.append(f"{option(flag)} applies to {' and '.join(map(label, games))} "
                            f"only; {label(chosen)} takes {option(chosen.variant_flag)} (got "
                            f"{option(flag)} {short_repr(shown)})")
    return problems


def refuse_other_variants(args: argparse.Namespace, game: str | Game,
                          error: ErrorReporter) -> None:
    """``error`` (``parser.error``) for a variant flag that ``game`` does not take."""
    problems = other_variant_problems(args, game)
    if problems:
        error("; ".join(problems))


def pick_game(args: argparse.Namespace, error: ErrorReporter, specs: Sequence[Any] = (),
              specs_option: str = "--agents") -> str:
    """The game to play: ``--game``; else the game whose variant flag is given; else the game
    the agents ``specs`` play (``agents.arena.players.agents_game``: a registry agent of one
    game, an agent file that declares its game); else the first registered game. ``error`` for
    variant flags of different games, or agents that play different games."""
    if args.game is not None:
        return args.game
    named = games_named_by_variants(args)
    if len(named) > 1:
        flags = " and ".join(dict.fromkeys(option(get_game(name).variant_flag)
                                           for name in named))
        error(f"{flags} name {len(named)} games ({', '.join(named)}); name the game with "
              f"--game")
    if named:
        return named[0]
    try:
        game = agents_game(list(specs))
    except ArenaInputError as exc:
        error(f"{specs_option}: {exc}; name the game with --game")
    return game or game_names()[0]


# ---------------------------------------------------------------------------- the command itself


def option_message(message: str, names: Sequence[tuple[str, str]] = ()) -> str:
    """``message`` of ``agents.arena`` with the API argument it starts with (``names`` first,
    then ``ARENA_OPTIONS``) as the command line's option: ``games_per_pairing must ...`` ->
    ``--games must ...``."""
    for api, flag in (*names, *ARENA_OPTIONS):
        if message.startswith(api):
            return flag + message[len(api):]
    return message


def command_words(command: str) -> list[str]:
    """How to run ``command`` (a key of ``COMMANDS``), for what a command prints and records:
    ``["python", "scripts/arena.py"]`` when this process was started from a launcher in a clone
    (the words the docs use, the same from any folder), else the console script
    (``["tbw-arena"]``), as when installed or called in process."""
    console_script, launcher = COMMANDS[command]
    started = Path(sys.argv[0])
    if started.suffix == ".py" and started.parent.name == Path(launcher).parent.name:
        return ["python", launcher]
    return [console_script]


def missing_extra(command: str, extra: str, error: ImportError) -> int:
    """Say which extra ``command`` needs and how to install it; the exit status (2)."""
    print(f"{command} needs the {extra} extra: pip install -c constraints.txt -e '.[{extra}]' "
          f"({error})", file=sys.stderr)
    return 2
