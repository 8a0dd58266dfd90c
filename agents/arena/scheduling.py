"""The one seeding scheme of every game the arena plays: each game's task, with seeds that depend
on the game alone (base seed, pairing, pair, seat), never on the worker that plays it or when. A
round robin's schedule (``iter_tasks``) and a match between two agent objects (``match_tasks``:
``agents.arena.match.run_match``, ``agents.arena.play.play_game``) draw their games from it
alike, so a match's game is the round robin's game of the same seeds."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from agents.arena.checks import (
    ArenaInputError,
    ArenaTypeError,
    check_int,
    check_specs,
    check_total_games,
    even_games,
)
from agents.arena.players import entrants
from agents.common.params import MAX_SECONDS
from tbw_envs.core.contract import MAX_SEED, is_real_number, kind_of, short_repr
from tbw_envs.core.seeding import derive_seed
from tbw_envs.description import Game
from tbw_envs.games import get_game


def agent_seed(game_seed: int, game_in_pairing: int, seat: int) -> int:
    """The seed an agent is built and reset with (``schedule``)."""
    return derive_seed("agent", game_seed, game_in_pairing, seat)


def pair_seed(base_seed: int, pairing: int, pair: int) -> int:
    """The seed shared by both games of pair ``pair`` of ``pairing`` (``schedule``)."""
    return derive_seed("pair", base_seed, pairing, pair)


def check_move_time_limit(value: Any) -> float | None:
    """The seconds an agent may take for a move (None: no limit) as a float: finite, > 0 and at
    most ``agents.common.params.MAX_SECONDS``; raises ``ArenaInputError`` (``ArenaTypeError``
    for a value that is not a number) naming the value otherwise."""
    if value is None:
        return None
    what = f"a number of seconds > 0 and <= {MAX_SECONDS:g}, or None for no limit"
    if not is_real_number(value):
        raise ArenaTypeError(f"move_time_limit must be {what}, got {kind_of(value)} "
                             f"{short_repr(value)}")
    seconds = float(value)
    if not (math.isfinite(seconds) and 0.0 < seconds <= MAX_SECONDS):
        raise ArenaInputError(f"move_time_limit must be {what}, got {short_repr(value)}")
    return seconds


@dataclass(frozen=True)
class GameTask:
    """Everything a worker process needs to play one game: picklable data, the game's
    description among it (resolved once, where the run starts, and never looked up by name
    again by the code that plays the game)."""

    game: Game
    variant: str  # TBW scenario or Junqi rule set, as given (a name or a path)
    game_id: int  # position in the round robin: pairing-major, then pair, then seat order
    pairing: int
    pair: int  # index of the game seed within the pairing; each seed is played twice
    swapped: bool  # False: the pairing's first agent is player 0
    seed: int  # the pair's seed, shared by both of its games
    entries: tuple[Any, Any]  # spec strings (or picklable factories) by seat
    labels: tuple[str, str]
    agent_seeds: tuple[int, int]
    opening_plies: int = 0  # random plies played before the agents, the same for both seatings
    base_seed: int | None = None  # the round robin's seed (``seed`` derives from it)
    record_thinking: bool = False  # keep each agent's ``thinking()`` after every move
    on_agent_error: str = "stop"  # or "forfeit": an agent at fault (``play.AgentFault``) loses
    # Seconds an agent may take for a move (``agents.arena.play``), None: no limit; the record
    # says which limit applied.
    move_time_limit: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "move_time_limit", check_move_time_limit(self.move_time_limit))
        if not isinstance(self.game, Game):
            raise ArenaTypeError(f"GameTask.game must be a game's description (a "
                                 f"tbw_envs.games.Game: get_game(name)), got "
                                 f"{kind_of(self.game)} {short_repr(self.game)}")


def schedule(game: str | Game, variant: str, entries: Sequence[Any], games_per_pairing: int,
             seed: int, opening_plies: int = 0,
             ) -> tuple[list[Any], list[str], list[tuple[int, int]], list[GameTask]]:
    """Entrants, their labels, the pairings and every game's task, in a fixed order, for
    ``game`` (a name or a description).

    Each listed entry is an entrant (a repeated spec is a second, independently seeded copy,
    labelled ``spec (2)``); a single entry plays a copy of itself. Every pair of entrants meets
    in ``games_per_pairing`` games (rounded up to even): for pair k the two games share the
    seed ``derive_seed("pair", seed, pairing, k)`` and so the starting position, with seats
    swapped; agents are reset with ``derive_seed("agent", pair_seed, game_in_pairing, seat)``.
    With ``opening_plies`` both games of a pair first play the same random opening
    (``random_opening``). The task list is built in full (at most ``MAX_GAMES``);
    ``run_round_robin`` draws the same tasks lazily from ``iter_tasks``.
    """
    opening_plies = check_int(opening_plies, "opening_plies", 0)
    seed = check_int(seed, "seed", 0, MAX_SEED)
    entries = check_specs(entries)
    check_total_games(len(entries), games_per_pairing)
    entries, labels, pairings = entrants(entries)
    tasks = list(iter_tasks(get_game(game), variant, entries, labels, pairings,
                            games_per_pairing, seed, opening_plies))
    return entries, labels, pairings, tasks


def iter_tasks(game: Game, variant: str, entries: Sequence[Any], labels: Sequence[str],
               pairings: Sequence[tuple[int, int]], games_per_pairing: int, seed: int,
               opening_plies: int = 0, record_thinking: bool = False,
               on_agent_error: str = "stop",
               move_time_limit: float | None = None) -> Iterator[GameTask]:
    """Every game's task in ``schedule``'s order, one at a time (nothing is built up front)."""
    game_id = itertools.count()
    for pairing, (a, b) in enumerate(pairings):
        for pair in range(even_games(games_per_pairing) // 2):
            game_seed = pair_seed(seed, pairing, pair)
            for swapped in (False, True):
                seats = (b, a) if swapped else (a, b)
                game_in_pairing = 2 * pair + int(swapped)
                yield GameTask(
                    game=game, variant=variant, game_id=next(game_id), pairing=pairing,
                    pair=pair, swapped=swapped, seed=game_seed,
                    entries=(entries[seats[0]], entries[seats[1]]),
                    labels=(labels[seats[0]], labels[seats[1]]),
                    agent_seeds=tuple(agent_seed(game_seed, game_in_pairing, seat)
                                      for seat in (0, 1)),
                    opening_plies=opening_plies, base_seed=seed,
                    record_thinking=record_thinking, on_agent_error=on_agent_error,
                    move_time_limit=move_time_limit,
                )


def match_tasks(game: Game, variant: str, labels: Sequence[str], games: int, seed: int,
                opening_plies: int = 0) -> Iterator[GameTask]:
    """The ``games`` games of a seat-swapped match between two agent objects named ``labels``
    (the first is player 0 in even games): the first ``games`` games of the round robin of two
    entrants with base seed ``seed``, so pair k's two games share a starting position and each
    game's seeds are the round robin's. The labels stand in for the specs (an agent built from
    a spec is named by it)."""
    return itertools.islice(iter_tasks(game, variant, labels, labels, [(0, 1)], games, seed,
                                       opening_plies), games)
