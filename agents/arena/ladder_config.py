"""A pinned ladder's config, ``configs/ladder/<game>.yaml``: a fixed reference pool with fixed
ratings, so that one candidate agent is rated on the same scale every time (``ladder``).

The file, every key required and no other allowed::

    game: tbw                      # the game's name
    variant: duel_5v5_8x8          # TBW scenario or Junqi rule set: a bundled name or a path
                                   # (a relative path is read from the ladder file's folder)
    games_per_opponent: 20         # default games against each pool member, even (paired games)
    opening_plies: 10              # random plies starting every game, as in scripts/arena.py
    seed: 0                        # base seed of every game
    pool:                          # the reference agents and their pinned ratings
      - {spec: greedy, elo: 1600.0}
      - {spec: random, elo: 1400.0}
    source: python scripts/arena.py --game tbw --agents greedy random --games 200

``elo`` is on the arena's scale (Bradley-Terry in Elo units, as ``agents.arena.stats.elo_ratings``
gives them); ``source`` says how the ratings were pinned (the round robin's command). The file
is read with ``tbw_envs.core.yaml_loader`` (no aliases, no duplicate keys) and every field is
checked here; a problem raises ``LadderConfigError`` naming the file and the field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.arena.checks import (
    MAX_GAMES,
    ArenaInputError,
    check_game,
    check_opening_plies,
)
from agents.common.weights import resolve_config
from tbw_envs.core.configs_path import configs_dir
from tbw_envs.core.contract import MAX_SEED, is_integer, kind_of, short_repr
from tbw_envs.core.yaml_loader import ConfigError, load_yaml
from tbw_envs.games import game_names, get_game

LADDER_KEYS = ("game", "variant", "games_per_opponent", "opening_plies", "seed", "pool",
               "source")
POOL_KEYS = ("spec", "elo")
MAX_POOL = 256  # reference agents in one ladder
MAX_SOURCE_CHARS = 10_000


class LadderConfigError(ConfigError, ArenaInputError):
    """A ladder file that cannot be used: a ConfigError (the message starts with the file) and,
    like every arena input error, a ValueError."""


@dataclass(frozen=True)
class PoolMember:
    spec: str
    elo: float


@dataclass(frozen=True)
class Ladder:
    """A checked ladder config (``load_ladder``)."""

    game: str
    variant: str
    games_per_opponent: int
    opening_plies: int
    seed: int
    pool: tuple[PoolMember, ...]
    source: str
    path: str | None = None  # the file it was read from

    @property
    def specs(self) -> list[str]:
        return [member.spec for member in self.pool]

    @property
    def elos(self) -> list[float]:
        return [member.elo for member in self.pool]


def bundled_ladder_dir() -> Path:
    return configs_dir() / "ladder"


def ladder_path(game: str, ladder: Any = None) -> Path:
    """The file of ``ladder``: None -> the game's bundled ``configs/ladder/<game>.yaml``; a name
    without a folder or suffix -> ``configs/ladder/<name>.yaml``; anything else a path."""
    return resolve_config(game if ladder is None else ladder, bundled_ladder_dir(),
                          what="ladder", also=("None (the game's own)",),
                          error=LadderConfigError)


def load_ladder(ladder: Any = None, game: str | None = None) -> Ladder:
    """The checked ladder ``ladder`` (None, a name or a path: ``ladder_path``); with ``game``,
    the ladder must be of that game."""
    if game is not None and game not in game_names():
        raise LadderConfigError(f"unknown game {short_repr(game)}; games: "
                                f"{', '.join(game_names())}")
    if ladder is None and game is None:
        raise LadderConfigError("load_ladder needs a ladder file or a game")
    path = ladder_path(game or "", ladder)
    data = load_yaml(path, error=LadderConfigError)
    checked = check_ladder(data, source=str(path), base_dir=path.parent)
    if game is not None and checked.game != game:
        raise LadderConfigError(f"{path}: game: a ladder of {checked.game!r}, not {game!r}")
    return checked


def check_ladder(data: Any, source: str = "<ladder>", base_dir: Path | None = None) -> Ladder:
    """Every field of a ladder config (the parsed YAML ``data``), or ``LadderConfigError``
    naming ``source`` and the field."""

    def fail(message: str) -> LadderConfigError:
        return LadderConfigError(f"{source}: {message}")

    if not isinstance(data, dict):
        raise fail(f"a ladder is a mapping of {', '.join(LADDER_KEYS)}; got {kind_of(data)}")
    unknown = [key for key in data if key not in LADDER_KEYS]
    if unknown:
        raise fail(f"unknown key(s) {', '.join(short_repr(k) for k in unknown)}; a ladder has "
                   f"{', '.join(LADDER_KEYS)}")
    missing = [key for key in LADDER_KEYS if key not in data]
    if missing:
        raise fail(f"missing key(s) {', '.join(missing)}")
    game = data["game"]
    if not isinstance(game, str) or game not in game_names():
        raise fail(f"game: unknown game {short_repr(game)}; games: {', '.join(game_names())}")
    variant = check_ladder_variant(game, data["variant"], base_dir, fail)
    games = whole(data["games_per_opponent"], "games_per_opponent", 2, MAX_GAMES, fail)
    if games % 2:
        raise fail(f"games_per_opponent must be even (each seed is played from both seats), "
                   f"got {games}")
    try:
        opening_plies = check_opening_plies(
            game, variant, whole(data["opening_plies"], "opening_plies", 0, None, fail))
    except ArenaInputError as exc:
        raise fail(str(exc)) from None
    seed = whole(data["seed"], "seed", 0, MAX_SEED, fail)
    pool = check_pool(data["pool"], fail)
    if len(pool) * games > MAX_GAMES:
        raise fail(f"{len(pool)} pool members x {games} games = {len(pool) * games:,} games: "
                   f"more than the cap of {MAX_GAMES:,}")
    text = data["source"]
    if not isinstance(text, str) or not text.strip():
        raise fail(f"source must be a non-empty text (the command that pinned the ratings), "
                   f"got {kind_of(text)} {short_repr(text)}")
    if len(text) > MAX_SOURCE_CHARS:
        raise fail(f"source is longer than {MAX_SOURCE_CHARS:,} characters")
    return Ladder(game=game, variant=variant, games_per_opponent=games,
                  opening_plies=opening_plies, seed=seed, pool=pool, source=text,
                  path=None if source.startswith("<") else source)


def check_ladder_variant(game: str, variant: Any, base_dir: Path | None, fail) -> str:
    """A bundled name as is; a relative path (a folder or a .yaml suffix in it) from
    ``base_dir``; the scenario or rule set must load."""
    noun = get_game(game).variant_noun
    if not isinstance(variant, str) or not variant.strip():
        raise fail(f"variant ({game} {noun}) must be a name or a path, got {kind_of(variant)} "
                   f"{short_repr(variant)}")
    looks_like_path = "/" in variant or variant.endswith((".yaml", ".yml"))
    if looks_like_path and base_dir is not None and not Path(variant).is_absolute():
        variant = str(base_dir / variant)
    try:
        check_game(game, variant)
    except ValueError as exc:
        raise fail(f"variant: {exc}") from None
    return variant


def whole(value: Any, name: str, minimum: int, maximum: int | None, fail) -> int:
    if not is_integer(value):
        raise fail(f"{name} must be a whole number, got {kind_of(value)} {short_repr(value)}")
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        bound = f"at least {minimum}" if maximum is None else f"{minimum} to {maximum:,}"
        raise fail(f"{name} must be {bound}, got {short_repr(value)}")
    return value


def check_pool(pool: Any, fail) -> tuple[PoolMember, ...]:
    if not isinstance(pool, list):
        raise fail(f"pool must be a list of {{spec, elo}} entries, got {kind_of(pool)} "
                   f"{short_repr(pool)}")
    if not pool:
        raise fail("pool is empty: a ladder needs at least one reference agent")
    if len(pool) > MAX_POOL:
        raise fail(f"pool has {len(pool)} members, more than the cap of {MAX_POOL}")
    members = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(pool):
        where = f"pool #{index + 1}"
        if not isinstance(entry, dict):
            raise fail(f"{where} must be a mapping {{spec: ..., elo: ...}}, got "
                       f"{kind_of(entry)} {short_repr(entry)}")
        unknown = [key for key in entry if key not in POOL_KEYS]
        if unknown:
            raise fail(f"{where}: unknown key(s) {', '.join(short_repr(k) for k in unknown)}; "
                       f"a pool member has spec and elo")
        missing = [key for key in POOL_KEYS if key not in entry]
        if missing:
            raise fail(f"{where}: missing key(s) {', '.join(missing)}")
        spec, elo = entry["spec"], entry["elo"]
        if not isinstance(spec, str) or not spec.strip():
            raise fail(f"{where}: spec must be a non-empty agent spec, got {kind_of(spec)} "
                       f"{short_repr(spec)}")
        if spec in seen:
            raise fail(f"{where}: spec {short_repr(spec)} is already pool #{seen[spec] + 1}; "
                       f"each reference agent appears once")
        seen[spec] = index
        if isinstance(elo, bool) or not isinstance(elo, (int, float)):
            raise fail(f"{where} ({spec}): elo must be a number, got {kind_of(elo)} "
                       f"{short_repr(elo)}")
        if not math.isfinite(elo):
            raise fail(f"{where} ({spec}): elo must be finite, got {elo}")
        members.append(PoolMember(spec=spec, elo=float(elo)))
    return tuple(members)
