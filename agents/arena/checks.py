"""The arena's input checks and caps: every argument of ``run_round_robin`` / ``run_match`` (and
every option of scripts/arena.py) is checked before the first game starts."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tbw_envs.core.contract import (
    OPENING_FRACTION,
    is_integer,
    kind_of,
    opening_plies_cap,
    short_repr,
)
from tbw_envs.games import game_names, get_game

# - games: at most MAX_GAMES in one round robin (all pairings, after rounding up to even) or one
#   match. Every finished game is kept in memory (its moves and digests) until the files are
#   written, so the cap bounds memory; the schedule itself is built lazily.
MAX_GAMES = 100_000
# - seeds (the base seed, ``bootstrap_seed``, a match's seed): integers from 0 to
#   ``tbw_envs.core.contract.MAX_SEED`` (2**63 - 1).
# - workers (processes, or Ray tasks in flight): 1 to MAX_WORKERS.
MAX_WORKERS = 256
# - bootstrap resamples: 0 (no intervals) to MAX_BOOTSTRAP; each one refits the ratings.
MAX_BOOTSTRAP = 10_000
# - opening plies: at most 1 / OPENING_FRACTION of the longest game the scenario or rule set
#   allows (``max_opening_plies``): TBW ``max_turns`` x all units (each unit acts once a turn),
#   Junqi ``ply_cap`` (or ``total_ply_limit`` if lower). duel_5v5_8x8: 40 x 10 / 4 = 100; ccgc:
#   2000 / 4 = 500. The opening also stops before a ply that would end the game
#   (``random_opening(stop_before_end=True)``), so the agents always play. The cap is
#   ``tbw_envs.core.contract.opening_plies_cap``, which the single-agent envs and train_ppo.py
#   share.

# The files a run writes in its folder (``RoundRobinResult.write``; the journal while it runs,
# ``agents.arena.journal``).
OUTPUT_FILES = ("results.json", "games.csv", "pairings.csv", "ratings.csv", "games.jsonl",
                "games.manifest.json", "arena.png", "journal.jsonl")


class ArenaInputError(ValueError):
    """An argument of the arena that is out of range or does not apply, reported before any game
    is played (the message names the argument and quotes the value, cut short)."""


class ArenaTypeError(ArenaInputError, TypeError):
    """An argument of the arena of the wrong type: a TypeError (the input contract) and, like
    every arena input error, a ValueError."""


def check_int(value: Any, name: str, minimum: int = 0, maximum: int | None = None) -> int:
    """``value`` as a plain int in ``[minimum, maximum]``: a Python or numpy integer, never a
    bool or a float (``games=True`` or ``games=2.0`` is refused, not read as 1 or 2)."""
    what = {0: "a non-negative integer", 1: "a positive integer"}.get(
        minimum, f"an integer >= {minimum}")
    if not is_integer(value):
        raise ArenaTypeError(f"{name} must be {what}, got {kind_of(value)} {short_repr(value)}")
    value = int(value)
    if value < minimum:
        raise ArenaInputError(f"{name} must be {what}, got {short_repr(value)}")
    if maximum is not None and value > maximum:
        raise ArenaInputError(f"{name} must be at most {maximum:,}, got {short_repr(value)}")
    return value


def check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ArenaTypeError(f"{name} must be True or False, got {kind_of(value)} "
                             f"{short_repr(value)}")
    return bool(value)


def check_game_name(game: Any) -> str:
    if not isinstance(game, str) or game not in game_names():
        raise ArenaInputError(f"unknown game {short_repr(game)}; games: {', '.join(game_names())}")
    return game


def default_variant(game: str) -> str:
    return get_game(game).default_variant


def check_game(game: str, variant: str) -> None:
    """Raise ValueError unless ``game`` is known and its scenario or rule set loads."""
    get_game(game).load_variant(variant)


def check_variant(game: str, variant: Any) -> str:
    """A scenario or rule set given by name or path, as a string (None: the game's default)."""
    what = get_game(game).variant_noun
    if variant is None:
        return default_variant(game)
    if isinstance(variant, os.PathLike):
        variant = os.fspath(variant)
    if not isinstance(variant, str):
        raise ArenaTypeError(f"variant ({game} {what}) must be a name or a path, got "
                             f"{kind_of(variant)} {short_repr(variant)}")
    if not variant.strip():
        raise ArenaInputError(f"variant ({game} {what}) must not be empty, got "
                              f"{short_repr(variant)}")
    return variant


def check_specs(specs: Any) -> list[Any]:
    """The entrants: a list or tuple of registry spec strings or picklable ``factory(seed)``
    callables (a bare string would otherwise be read as one agent per character)."""
    if isinstance(specs, (str, bytes)) or not isinstance(specs, Sequence):
        raise ArenaTypeError(f"specs must be a list of agent specs (strings) or factories, got "
                             f"{kind_of(specs)} {short_repr(specs)}")
    entries = list(specs)
    if not entries:
        raise ArenaInputError("at least one agent is needed, got an empty list")
    for index, entry in enumerate(entries):
        if isinstance(entry, str):
            if not entry.strip():
                raise ArenaInputError(f"agent #{index + 1}: an empty spec {short_repr(entry)}")
        elif not callable(entry):
            raise ArenaTypeError(f"agent #{index + 1} must be a spec string or a factory(seed) "
                                 f"callable, got {kind_of(entry)} {short_repr(entry)}")
    return entries


def longest_game_plies(game: str, variant: str) -> tuple[int, str]:
    """The most plies a game of ``variant`` can last, and how that number comes about."""
    return get_game(game).longest_game(variant)


def max_opening_plies(game: str, variant: str) -> int:
    """The cap on random opening plies: a quarter (``1 / OPENING_FRACTION``) of the longest
    game ``variant`` allows, at least 1."""
    return opening_plies_cap(longest_game_plies(game, variant)[0])


def check_opening_plies(game: str, variant: str, opening_plies: Any) -> int:
    plies = check_int(opening_plies, "opening_plies", 0)
    cap = max_opening_plies(game, variant)
    if plies > cap:
        raise ArenaInputError(
            f"opening_plies {plies:,} is more than the cap of {cap:,} for {game} "
            f"{get_game(game).variant_noun} {short_repr(variant)}: 1/{OPENING_FRACTION} of its "
            f"longest game ({longest_game_plies(game, variant)[1]})")
    return plies


def even_games(games: int) -> int:
    """Games per pairing rounded up to an even number: every seed is played from both seats."""
    games = check_int(games, "games per pairing", 1)
    return games + games % 2


def check_total_games(entries: int, games_per_pairing: int) -> tuple[int, int]:
    """Pairings and games of a round robin of ``entries`` entrants (a single one plays a copy
    of itself), refused above ``MAX_GAMES`` before any schedule is built."""
    entrants = max(entries, 2)
    pairings = entrants * (entrants - 1) // 2
    total = pairings * even_games(games_per_pairing)
    if total > MAX_GAMES:
        raise ArenaInputError(
            f"{pairings:,} pairing(s) x {even_games(games_per_pairing):,} games = {total:,} "
            f"games: more than the cap of {MAX_GAMES:,} games in one round robin")
    return pairings, total


def check_ray_address(address: Any) -> str:
    """``"local"`` (start a Ray on this machine), ``"auto"`` (join the cluster that ``ray start``
    set up on this machine), ``"ray://host:port"`` (Ray Client, usually port 10001) or
    ``"host:port"`` (a cluster's GCS); anything else raises ValueError."""
    ok = isinstance(address, str) and (
        address in ("local", "auto")
        or (address.startswith("ray://") and len(address) > len("ray://"))
        or (":" in address and address.rsplit(":", 1)[1].isdigit()
            and address.rsplit(":", 1)[0] != "")
    )
    if not ok:
        raise ValueError(f"Ray address must be 'local', 'auto', 'ray://host:port' or "
                         f"'host:port', got {address!r}")
    return address


def check_out_dir(out_dir: Any, overwrite: bool = False, what: str = "out") -> Path:
    """The run folder ``out_dir`` as a Path, checked without writing anything: not empty, not a
    file, inside a writable folder; an existing folder that holds anything is refused unless
    ``overwrite`` (then only the arena's files in it are replaced, and none of their names may
    be a folder)."""
    if isinstance(out_dir, os.PathLike):
        out_dir = os.fspath(out_dir)
    if not isinstance(out_dir, str):
        raise ArenaTypeError(f"{what} must be a folder path, got {kind_of(out_dir)} "
                             f"{short_repr(out_dir)}")
    if not out_dir.strip():
        raise ArenaInputError(f"{what}: an empty path {short_repr(out_dir)}; name a folder "
                              f"(use . for the current one)")
    out = Path(out_dir)
    if out.exists() or out.is_symlink():
        if not out.is_dir():
            raise ArenaInputError(f"{what}: {short_repr(str(out))} exists and is not a folder")
        if any(out.iterdir()):
            if not overwrite:
                raise ArenaInputError(
                    f"{what}: {short_repr(str(out))} already exists and is not empty (an "
                    f"earlier run?); choose another folder or pass --overwrite "
                    f"(overwrite=True) to replace the arena's files in it")
            for name in OUTPUT_FILES:
                if (out / name).is_dir():
                    raise ArenaInputError(f"{what}: {short_repr(str(out / name))} is a folder, "
                                          f"where the arena writes a file")
        if not os.access(out, os.W_OK | os.X_OK):
            raise ArenaInputError(f"{what}: no permission to write in {short_repr(str(out))}")
        return out
    parent = out.parent
    while not (parent.exists() or parent.is_symlink()):
        if parent == parent.parent:
            break
        parent = parent.parent
    if not parent.is_dir():
        raise ArenaInputError(f"{what}: {short_repr(str(parent))} (a parent of "
                              f"{short_repr(str(out))}) is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ArenaInputError(f"{what}: no permission to create {short_repr(str(out))} in "
                              f"{short_repr(str(parent))}")
    return out
