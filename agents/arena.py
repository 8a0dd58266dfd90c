"""Play agents against each other on game cores and measure their strength.

Games run on the game core (``state.view(player)`` -> ``agent.act`` -> ``state.apply``), the same
forward model the environments wrap, so a match between two search agents pays no env overhead.

Two layers:

- ``play_game`` / ``run_match``: a seat-swapped match between two agent objects, in process.
- ``run_round_robin``: every pair of agents given as spec strings (``agents.registry``), in
  *paired* games (for each game seed both seat assignments start from the same position: the
  same two Junqi layouts, or TBW's deterministic scenario), played in parallel processes. Every
  seed depends on the game alone (base seed, pairing, game, seat), so the worker count never
  changes a result. It reports wins/draws/losses by seat with Wilson intervals per pairing,
  Bradley-Terry ratings on the Elo scale with bootstrap intervals, how games ended, and time per
  move, and it writes every game as a replayable record (``scripts/replay.py``).

The statistics are small pure functions (``wilson_interval``, ``bradley_terry``,
``elo_ratings``) so they can be tested against hand-checkable cases.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import hashlib
import itertools
import json
import math
import os
import pickle
import random
import struct
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from tbw_envs.contract import is_integer, kind_of, short_repr

GAMES = ("tbw", "junqi")
# /2 adds the base seed, the seating, the requested opening length and the digests ("digests",
# ``DIGEST_SCHEME``); scripts/replay.py still verifies /1 records as far as they allow.
RECORD_FORMAT = "tbw-envs-arena-game/2"
RECORD_FORMATS = ("tbw-envs-arena-game/1", RECORD_FORMAT)


# ====================================================================== input checks and caps

# Every argument of ``run_round_robin`` / ``run_match`` (and every option of scripts/arena.py) is
# checked before the first game starts, against these caps:
# - games: at most MAX_GAMES in one round robin (all pairings, after rounding up to even) or one
#   match. Every finished game is kept in memory (its moves and digests) until the files are
#   written, so the cap bounds memory; the schedule itself is built lazily.
MAX_GAMES = 100_000
# - seeds (the base seed, ``bootstrap_seed``, a match's seed): integers in [0, 2**63).
MAX_SEED = 2**63 - 1
# - workers (processes, or Ray tasks in flight): 1 to MAX_WORKERS.
MAX_WORKERS = 256
# - bootstrap resamples: 0 (no intervals) to MAX_BOOTSTRAP; each one refits the ratings.
MAX_BOOTSTRAP = 10_000
# - opening plies: at most 1 / OPENING_FRACTION of the longest game the scenario or rule set
#   allows (``max_opening_plies``): TBW ``max_turns`` x all units (each unit acts once a turn),
#   Junqi ``ply_cap`` (or ``total_ply_limit`` if lower). duel_5v5_8x8: 40 x 10 / 4 = 100; ccgc:
#   2000 / 4 = 500. The opening also stops before a ply that would end the game
#   (``random_opening(stop_before_end=True)``), so the agents always play.
OPENING_FRACTION = 4


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


def check_variant(game: str, variant: Any) -> str:
    """A TBW scenario or Junqi rule set given by name or path, as a string (None: the default)."""
    what = "scenario" if game == "tbw" else "rule set"
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
    if game == "tbw":
        scenario = _tbw_scenario(variant)
        units = len(scenario.units)
        return (scenario.max_turns * units,
                f"{scenario.max_turns} turns x {units} units = {scenario.max_turns * units} plies")
    rules = _junqi_rules(variant)
    if rules.total_ply_limit is not None and rules.total_ply_limit < rules.ply_cap:
        return rules.total_ply_limit, f"total_ply_limit {rules.total_ply_limit} plies"
    return rules.ply_cap, f"ply_cap {rules.ply_cap} plies"


def max_opening_plies(game: str, variant: str) -> int:
    """The cap on random opening plies: a quarter (``1 / OPENING_FRACTION``) of the longest
    game ``variant`` allows, at least 1."""
    return max(1, longest_game_plies(game, variant)[0] // OPENING_FRACTION)


def check_opening_plies(game: str, variant: str, opening_plies: Any) -> int:
    plies = check_int(opening_plies, "opening_plies", 0)
    cap = max_opening_plies(game, variant)
    if plies > cap:
        what = "scenario" if game == "tbw" else "rule set"
        raise ArenaInputError(
            f"opening_plies {plies:,} is more than the cap of {cap:,} for {game} {what} "
            f"{short_repr(variant)}: 1/{OPENING_FRACTION} of its longest game "
            f"({longest_game_plies(game, variant)[1]})")
    return plies


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


def build_entrants(game: str, entries: Sequence[Any], labels: Sequence[str],
                   pickled: bool, variant: str | None = None) -> None:
    """Build every entrant once, here and now, so a bad spec (unknown agent, an agent that does
    not play ``game``, bad options, a model file that does not load) or a failing factory is
    reported before any game; with ``pickled`` (worker processes, Ray) a factory must pickle."""
    for index, entry in enumerate(entries):
        who = f"agent #{index + 1} ({labels[index]})"
        if pickled and not isinstance(entry, str):
            try:
                pickle.dumps(entry)
            except Exception as exc:
                raise ArenaInputError(
                    f"{who}: a factory must be picklable to play in worker processes (define "
                    f"it at module level, or use workers=1): {type(exc).__name__}: "
                    f"{short_repr(str(exc))}") from None
        try:
            agent = build_agent(entry, 0, game, variant)
        except Exception as exc:
            raise ArenaInputError(f"{who}: {exc}" if isinstance(exc, ValueError) else
                                  f"{who}: cannot be built: {type(exc).__name__}: {exc}"
                                  ) from None
        for method in ("act", "reset"):
            if not callable(getattr(agent, method, None)):
                raise ArenaTypeError(f"{who}: the agent it builds ({kind_of(agent)}) has no "
                                     f"{method}() method")


# ====================================================================== statistics (pure)

Z_95 = 1.96
# The Elo scale: a rating difference of 400 is odds of 10 to 1.
ELO_PER_NAT = 400.0 / math.log(10.0)
ELO_ANCHOR = 1500.0
# Virtual games each agent plays against a fixed reference agent (half of them won): enough to
# keep a perfect record's rating finite, negligible next to a few dozen real games.
PRIOR_GAMES = 0.5


def wilson_interval(points: float, games: float, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a success rate of ``points / games`` (a draw counts as half a
    point). Unlike the normal approximation it stays inside [0, 1] and is sensible at 0 or 1."""
    if games <= 0:
        return 0.0, 1.0
    rate = points / games
    z2 = z * z
    denominator = 1.0 + z2 / games
    centre = (rate + z2 / (2.0 * games)) / denominator
    half_width = z * math.sqrt(rate * (1.0 - rate) / games + z2 / (4.0 * games * games))
    half_width /= denominator
    return max(0.0, centre - half_width), min(1.0, centre + half_width)


def bradley_terry(points: Any, games: Any, prior_games: float = PRIOR_GAMES,
                  tolerance: float = 1e-10, max_iterations: int = 200) -> np.ndarray:
    """Maximum a posteriori Bradley-Terry log-strengths (natural log) from pairwise scores.

    ``points[i][j]`` is what agent i scored against agent j (win 1, draw 0.5), ``games[i][j]``
    the games they played (symmetric, zero diagonal), so ``points + points.T == games``. The
    model: i beats j with probability ``exp(t_i) / (exp(t_i) + exp(t_j))``; a draw counts as
    half a win and half a loss. Each agent also plays ``prior_games`` virtual games, half of
    them won, against a reference agent of log-strength 0: this keeps the log-likelihood
    strictly concave, so perfect records and agents that never met get finite ratings.
    Newton's method with step halving: a handful of iterations even for lopsided data.
    """
    points = np.asarray(points, dtype=float)
    games = np.asarray(games, dtype=float)
    n = points.shape[0]
    if points.shape != (n, n) or games.shape != (n, n):
        raise ValueError(f"points and games must be square and alike, got {points.shape} and "
                         f"{games.shape}")
    if not np.allclose(games, games.T) or np.any(np.diag(games) != 0):
        raise ValueError("games must be symmetric with a zero diagonal")
    if not np.allclose(points + points.T, games) or np.any(points < 0):
        raise ValueError("points[i][j] + points[j][i] must equal games[i][j], points >= 0")
    if prior_games <= 0:
        raise ValueError(f"prior_games must be positive, got {prior_games}")
    wins = points.sum(axis=1) + prior_games / 2.0

    def log_likelihood(theta: np.ndarray) -> float:
        # log(exp(t_i) + exp(t_j)) counted once per ordered pair -> halve it for unordered.
        pair_terms = 0.5 * float((games * np.logaddexp(theta[:, None], theta[None, :])).sum())
        prior_terms = float((prior_games * np.logaddexp(theta, 0.0)).sum())
        return float(wins @ theta) - pair_terms - prior_terms

    theta = np.zeros(n)
    current = log_likelihood(theta)
    for _ in range(max_iterations):
        beats = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # P(i beats j)
        beats_reference = 1.0 / (1.0 + np.exp(-theta))
        gradient = wins - (games * beats).sum(axis=1) - prior_games * beats_reference
        curvature = games * beats * (1.0 - beats)
        hessian = curvature - np.diag(
            curvature.sum(axis=1) + prior_games * beats_reference * (1.0 - beats_reference)
        )
        step = np.linalg.solve(hessian, -gradient)
        scale = 1.0
        while True:
            candidate = theta + scale * step
            value = log_likelihood(candidate)
            if value >= current - 1e-12 or scale < 1e-8:
                break
            scale /= 2.0
        theta, current = candidate, value
        if np.max(np.abs(scale * step)) < tolerance:
            break
    return theta


def elo_ratings(log_strengths: Any, anchor: float = ELO_ANCHOR) -> np.ndarray:
    """Bradley-Terry log-strengths on the Elo scale, the mean of the agents set to ``anchor``."""
    theta = np.asarray(log_strengths, dtype=float)
    return anchor + ELO_PER_NAT * (theta - theta.mean())


# ====================================================================== the seat-swapped match


@dataclass
class GameRecord:
    seats: tuple[str, str]  # agent names in seat order (player 0, player 1)
    returns: tuple[float, float]
    plies: int
    seconds_per_agent: dict[str, float]
    moves_per_agent: dict[str, int]
    final_state: Any = field(repr=False, default=None)

    def winner(self) -> str | None:
        if self.returns[0] == self.returns[1]:
            return None
        return self.seats[0] if self.returns[0] > self.returns[1] else self.seats[1]


def tbw_game(scenario: Any = "duel_5v5_8x8") -> Callable[[int], Any]:
    """A new-game factory for TBW: the scenario's initial state (TBW has no chance)."""
    from tbw_envs.tbw import load_scenario

    loaded = load_scenario(scenario)
    return lambda seed: loaded.initial_state()


def junqi_game(rules: Any = "ccgc") -> Callable[[int], Any]:
    """A new-game factory for Junqi: both layouts drawn uniformly at random from ``seed``."""
    from tbw_envs.junqi import JunqiState, load_rules

    loaded = load_rules(rules)
    return lambda seed: JunqiState.random_initial(random.Random(seed), rules=loaded)


def play_game(new_state: Callable[[int], Any], agents: Sequence[Any], seed: int,
              max_plies: int = 100_000) -> GameRecord:
    """One game: ``agents[i]`` plays player ``i``."""
    if not callable(new_state):
        raise ArenaTypeError(f"new_state must be a callable new_state(seed), got "
                             f"{kind_of(new_state)} {short_repr(new_state)}")
    if isinstance(agents, (str, bytes)) or not isinstance(agents, Sequence) or len(agents) != 2:
        raise ArenaInputError(f"agents must be a pair of agents (player 0, player 1), got "
                              f"{kind_of(agents)} {short_repr(agents)}")
    seed = check_int(seed, "seed", 0, MAX_SEED)
    max_plies = check_int(max_plies, "max_plies", 1)
    state = new_state(seed)
    for i, agent in enumerate(agents):
        agent.reset(seed * 2 + i)
    names = tuple(a.name for a in agents)
    seconds = {n: 0.0 for n in names}
    moves = {n: 0 for n in names}
    plies = 0
    while not state.is_terminal():
        if plies >= max_plies:
            raise RuntimeError(f"game did not end within {max_plies} plies")
        player = state.current_player
        agent = agents[player]
        start = time.perf_counter()
        action = agent.act(state.view(player))
        seconds[agent.name] += time.perf_counter() - start
        moves[agent.name] += 1
        state.apply(action)
        plies += 1
    returns = state.returns()
    return GameRecord(names, (returns[0], returns[1]), plies, seconds, moves, state)


@dataclass
class MatchResult:
    agents: tuple[str, str]
    games: list[GameRecord]

    def score(self, name: str) -> dict[str, float]:
        wins = sum(1 for g in self.games if g.winner() == name)
        losses = sum(1 for g in self.games if g.winner() not in (None, name))
        draws = len(self.games) - wins - losses
        n = max(len(self.games), 1)
        points = (wins + 0.5 * draws) / n
        ci_low, ci_high = wilson_interval(points * n, n)
        secs = sum(g.seconds_per_agent.get(name, 0.0) for g in self.games)
        moves = sum(g.moves_per_agent.get(name, 0) for g in self.games)
        return {
            "wins": wins, "losses": losses, "draws": draws, "score": points,
            "ci_low": ci_low, "ci_high": ci_high,
            "ms_per_move": 1000.0 * secs / max(moves, 1),
        }

    def table(self) -> str:
        header = f"{'agent':<28}{'games':>6}{'wins':>6}{'losses':>8}{'draws':>7}" \
                 f"{'score':>8}{'95% CI':>15}{'ms/move':>10}"
        lines = [header, "-" * len(header)]
        for name in self.agents:
            s = self.score(name)
            ci = f"[{s['ci_low']:.2f}, {s['ci_high']:.2f}]"
            lines.append(
                f"{name:<28}{len(self.games):>6}{s['wins']:>6}{s['losses']:>8}{s['draws']:>7}"
                f"{s['score']:>8.3f}{ci:>15}{s['ms_per_move']:>10.2f}"
            )
        plies = [g.plies for g in self.games]
        lines.append(
            f"plies per game: mean {sum(plies) / max(len(plies), 1):.1f}, "
            f"min {min(plies, default=0)}, max {max(plies, default=0)}"
        )
        return "\n".join(lines)


def run_match(new_state: Callable[[int], Any], agent_a: Any, agent_b: Any, games: int,
              seed: int = 0, progress: bool = False) -> MatchResult:
    """``games`` games, alternating seats: even games put ``agent_a`` on player 0. Every
    argument is checked before the first game (``games`` at most ``MAX_GAMES``)."""
    if not callable(new_state):
        raise ArenaTypeError(f"new_state must be a callable new_state(seed), got "
                             f"{kind_of(new_state)} {short_repr(new_state)}")
    for which, agent in (("agent_a", agent_a), ("agent_b", agent_b)):
        for method in ("act", "reset"):
            if not callable(getattr(agent, method, None)):
                raise ArenaTypeError(f"{which} must be an agent with act() and reset(), got "
                                     f"{kind_of(agent)} {short_repr(agent)}")
        if not isinstance(getattr(agent, "name", None), str):
            raise ArenaTypeError(f"{which} must have a string name, got "
                                 f"{short_repr(getattr(agent, 'name', None))}")
    if agent_a is agent_b:
        raise ArenaInputError("agent_a and agent_b are the same object: pass two agents (a "
                              "match against itself needs a second copy)")
    games = check_int(games, "games", 1, MAX_GAMES)
    seed = check_int(seed, "seed", 0, MAX_SEED - MAX_GAMES)
    progress = check_flag(progress, "progress")
    if agent_a.name == agent_b.name:
        agent_b.name = f"{agent_b.name} (2)"
    iterator = range(games)
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(iterator, desc=f"{agent_a.name} v {agent_b.name}", unit="game")
            iterator = bar
        except ImportError:  # the progress bar is a nicety, never a requirement
            pass
    records = []
    for g in iterator:
        seats = (agent_a, agent_b) if g % 2 == 0 else (agent_b, agent_a)
        records.append(play_game(new_state, seats, seed=seed + g))
        if bar is not None:
            result = MatchResult((agent_a.name, agent_b.name), records)
            bar.set_postfix({agent_a.name[:12]: f"{result.score(agent_a.name)['score']:.2f}"})
    return MatchResult((agent_a.name, agent_b.name), records)


# ====================================================================== round robin: one game


def derive_seed(*parts: Any) -> int:
    """A 63-bit seed from any printable parts, stable across processes and Python runs (unlike
    ``hash``), so a game's seeds depend on what the game is, never on who plays it when."""
    digest = hashlib.blake2b(repr(parts).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def layout_seed(game_seed: int, seat: int) -> int:
    """Seed of seat ``seat``'s Junqi layout: the random layout, or the ``random.Random`` handed
    to an agent's own ``layout(rng, rules)`` (the same stream, so an agent that just draws
    ``random_layout(rng)`` reproduces the default)."""
    return derive_seed(game_seed, "layout", seat)


def entrant_label(entry: Any) -> str:
    """Display name of an entrant: the spec string, or a factory's ``name`` / ``__name__``."""
    if isinstance(entry, str):
        return entry
    return str(getattr(entry, "name", None) or getattr(entry, "__name__", None) or repr(entry))


def entrant_spec(entry: Any) -> str:
    """What a record says about how an agent was built."""
    if isinstance(entry, str):
        return entry
    module = getattr(entry, "__module__", "?")
    return f"{module}:{getattr(entry, '__qualname__', repr(entry))}"


def build_agent(entry: Any, seed: int, game: str, variant: str | None = None) -> Any:
    """An agent from a registry spec string (told the game and its scenario or rule set, so a
    learned model for another board is refused), or from a picklable factory called as
    ``factory(seed)`` (a class defined at module level will do)."""
    if isinstance(entry, str):
        from agents.registry import make_agent

        return make_agent(entry, seed=seed, game=game, variant=variant)
    return entry(seed)


@lru_cache(maxsize=16)
def _tbw_scenario(variant: str):
    from tbw_envs.tbw import load_scenario

    return load_scenario(variant)


@lru_cache(maxsize=16)
def _junqi_rules(variant: str):
    from tbw_envs.junqi import load_rules

    return load_rules(variant)


def default_variant(game: str) -> str:
    return "duel_5v5_8x8" if game == "tbw" else "ccgc"


def check_game(game: str, variant: str) -> None:
    """Raise ValueError unless ``game`` is known and its scenario or rule set loads."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; games: {', '.join(GAMES)}")
    if game == "tbw":
        _tbw_scenario(variant)
    else:
        _junqi_rules(variant)


# ====================================================================== digests of a game

# A record proves the game it describes with a chain of SHA-256 digests over a canonical
# encoding of the game core's state (``state_encoding``: little-endian int64 arrays and
# compact, key-sorted JSON, the same bytes in every process, whatever PYTHONHASHSEED):
#   h_0 = sha256("tbw-envs-arena/start" 0 context 0 state_0)
#   h_k = sha256(h_{k-1} action_k 0 state_k)          (h as 32 raw bytes, action in decimal)
# where the context fingerprints the scenario (TBW: board, terrain, unit types, units, rules)
# or the rule set (Junqi: every field but the description). The record stores h_0 and h_n in
# full ("start", "final"), the first PLY_DIGEST_HEX hex digits of every h_k ("plies", so a replay
# names the first ply that differs) and "record", the SHA-256 of the whole record but that
# field (canonical JSON): it binds the agents to their seats, the seeds, the opening and the
# result to the moves. The digests catch any edit or corruption and a replay under changed
# rules; they are not a signature (whoever edits a record can recompute them).
DIGEST_SCHEME = "sha256-chain/1"
PLY_DIGEST_HEX = 16


def canonical_json(value: Any) -> bytes:
    """Compact, key-sorted, ASCII JSON: one byte string per value in every process."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=True).encode("ascii")


def _int64s(values: Sequence[int]) -> bytes:
    return struct.pack(f"<{len(values)}q", *values)


def state_encoding(game: str, state: Any) -> bytes:
    """The game core's whole state (what decides every later move and the result) as bytes:
    its per-unit or per-post arrays as little-endian 64-bit integers (TBW: Hp, tiles, acted;
    Junqi: owner, kind, moved and both sides' beliefs), then its scalars as canonical JSON.
    Junqi's history enters as its length and its last ply; the chain of digests binds the
    rest."""
    if game == "tbw":
        arrays = _int64s(state.hp + state.pos + state.acted)
        scalars = ["tbw/1", len(state.hp), state.current_side, state.turn, state.winner,
                   state.terminal, state.last_side]
    else:
        arrays = _int64s(state.owner + state.kind + state.moved + state.possible[0]
                         + state.possible[1])
        last = list(state.history[-1]) if state.history else None
        scalars = ["junqi/1", len(state.owner), state.flag_revealed, state.flag_revealed_ply,
                   len(state.history), last, state.current_player, state.phase, state.ply,
                   state.quiet_plies, state.winner, state.end_reason]
    return canonical_json(scalars) + b"\0" + arrays


@lru_cache(maxsize=16)
def game_context(game: str, variant: str) -> bytes:
    """Canonical JSON of the scenario (TBW) or rule set (Junqi) a game is played under."""
    if game == "tbw":
        sc = _tbw_scenario(variant)
        context = {
            "name": sc.name, "board": [sc.board.topology, sc.board.rows, sc.board.cols],
            "terrain_grid": list(sc.terrain_grid),
            "terrain_types": {name: asdict(t) for name, t in sc.terrain_types.items()},
            "unit_types": {name: asdict(t) for name, t in sc.unit_types.items()},
            "units": [asdict(u) for u in sc.units], "first_side": sc.first_side,
            "max_turns": sc.max_turns, "win": sc.win, "line_of_sight": sc.line_of_sight,
            "turn_limit_result": sc.turn_limit_result,
        }
    else:
        rules = _junqi_rules(variant)
        context = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)
                   if f.name != "description"}
    return canonical_json([game, context])


class DigestChain:
    """The running digest of one game (``DIGEST_SCHEME``): ``step`` after every ply."""

    def __init__(self, game: str, variant: str, state: Any):
        self.game = game
        self.value = hashlib.sha256(b"tbw-envs-arena/start\0" + game_context(game, variant)
                                    + b"\0" + state_encoding(game, state)).digest()
        self.start = self.value.hex()
        self.plies = bytearray()  # PLY_DIGEST_HEX // 2 bytes per ply: compact while in memory

    def step(self, action: int, state: Any) -> str:
        """Digest the ply ``action`` that led to ``state``; returns its short hex digest."""
        self.value = hashlib.sha256(self.value + str(int(action)).encode("ascii") + b"\0"
                                    + state_encoding(self.game, state)).digest()
        short = self.value[:PLY_DIGEST_HEX // 2]
        self.plies += short
        return short.hex()

    @property
    def final(self) -> str:
        return self.value.hex()


def ply_digest_list(packed: bytes) -> list[str]:
    width = PLY_DIGEST_HEX // 2
    return [packed[i:i + width].hex() for i in range(0, len(packed), width)]


def record_digest(record: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of ``record`` without ``digests.record``."""
    body = dict(record)
    digests = body.get("digests")
    if isinstance(digests, dict):
        body["digests"] = {key: value for key, value in digests.items() if key != "record"}
    return hashlib.sha256(canonical_json(body)).hexdigest()


def agent_seed(game_seed: int, game_in_pairing: int, seat: int) -> int:
    """The seed an agent is built and reset with (``schedule``)."""
    return derive_seed("agent", game_seed, game_in_pairing, seat)


def pair_seed(base_seed: int, pairing: int, pair: int) -> int:
    """The seed shared by both games of pair ``pair`` of ``pairing`` (``schedule``)."""
    return derive_seed("pair", base_seed, pairing, pair)


TBW_END_REASONS = ("annihilation", "leader_killed", "mutual_defeat", "turn_limit_hp",
                   "turn_limit_draw")


def end_reason(game: str, state: Any) -> str:
    return state.end_reason() if game == "tbw" else str(state.end_reason)


def end_reason_order(game: str) -> tuple[str, ...]:
    if game == "tbw":
        return TBW_END_REASONS
    from tbw_envs.junqi.state import END_REASONS

    return tuple(END_REASONS)


@dataclass(frozen=True)
class GameTask:
    """Everything a worker process needs to play one game: plain, picklable data."""

    game: str
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


@dataclass
class ArenaGame:
    """One finished round-robin game: the record ``games.jsonl`` stores, plus timing."""

    game: str
    variant: str
    game_id: int
    pairing: int
    pair: int
    swapped: bool
    seed: int
    labels: tuple[str, str]  # agents by seat
    specs: tuple[str, str]
    agent_seeds: tuple[int, int]
    layouts: tuple[str, str] | None  # Junqi: both layouts in format_layout text, by seat
    layout_sources: tuple[str, str] | None  # "random" or "agent" per seat
    actions: list[int]
    returns: tuple[float, float]
    end_reason: str
    plies: int
    move_seconds: tuple[float, float]  # total thinking time per seat
    max_move_seconds: tuple[float, float]
    moves: tuple[int, int]
    opening_plies: int = 0  # the first ``opening_plies`` of ``actions`` are the random opening
    opening_requested: int = 0  # what was asked for (the opening stops before the game ends)
    base_seed: int | None = None
    start_digest: str | None = None  # DIGEST_SCHEME: h_0, the short h_k per ply, h_n
    ply_digests: bytes = b""
    final_digest: str | None = None

    @property
    def winner_seat(self) -> int | None:
        if self.returns[0] == self.returns[1]:
            return None
        return 0 if self.returns[0] > self.returns[1] else 1

    def points(self, seat: int) -> float:
        """1 for a win, 0.5 for a draw, 0 for a loss of the agent in ``seat``."""
        winner = self.winner_seat
        return 0.5 if winner is None else float(winner == seat)

    def outcome(self) -> tuple:
        """Everything but timing: what must not depend on workers or scheduling."""
        return (self.game_id, self.seed, self.labels, self.agent_seeds, self.layouts,
                self.layout_sources, self.opening_plies, tuple(self.actions), self.returns,
                self.end_reason, self.plies, self.start_digest, bytes(self.ply_digests),
                self.final_digest)

    def to_record(self) -> dict[str, Any]:
        """The replayable record (one line of ``games.jsonl``): the /1 fields plus the base
        seed, the seating, the requested opening and the digests (``DIGEST_SCHEME``), the last
        of them ``digests.record`` over everything else."""
        record = {
            "format": RECORD_FORMAT,
            "game": self.game,
            "scenario": self.variant if self.game == "tbw" else None,
            "rules": self.variant if self.game == "junqi" else None,
            "game_id": self.game_id,
            "pairing": self.pairing,
            "pair": self.pair,
            "swapped": self.swapped,
            "base_seed": self.base_seed,
            "seed": self.seed,
            "agents": list(self.labels),
            "specs": list(self.specs),
            "agent_seeds": list(self.agent_seeds),
            "start": (
                {"scenario": self.variant} if self.game == "tbw" else
                {"layouts": list(self.layouts or ()),
                 "layout_sources": list(self.layout_sources or ())}
            ) | {"opening_plies": self.opening_plies,
                 "opening_plies_requested": self.opening_requested},
            "actions": list(self.actions),
            "result": {
                "returns": list(self.returns),
                "winner": self.winner_seat,
                "end_reason": self.end_reason,
                "plies": self.plies,
            },
            "digests": {
                "scheme": DIGEST_SCHEME,
                "start": self.start_digest,
                "plies": ply_digest_list(self.ply_digests),
                "final": self.final_digest,
            },
        }
        record["digests"]["record"] = record_digest(record)
        return record


def start_position(game: str, variant: str, layouts: Sequence[Any] | None = None) -> Any:
    """The initial state of a game: TBW's scenario, or Junqi from the two seats' layouts."""
    if game == "tbw":
        return _tbw_scenario(variant).initial_state()
    from tbw_envs.junqi import JunqiState

    if layouts is None or len(layouts) != 2:
        raise ValueError("a Junqi game starts from two layouts, one per seat")
    return JunqiState.initial(tuple(layouts), rules=_junqi_rules(variant))


def record_start_state(record: dict[str, Any]) -> Any:
    """The initial state of a ``games.jsonl`` record."""
    game = record.get("game")
    if game not in GAMES:
        raise ValueError(f"record has unknown game {game!r}")
    if game == "tbw":
        return start_position("tbw", record["scenario"])
    return start_position("junqi", record["rules"], record["start"]["layouts"])


def replay_record(record: dict[str, Any]) -> Any:
    """The final state of a ``games.jsonl`` record, its actions applied by the game core (which
    rejects an illegal one); ``scripts/replay.py`` checks a record step by step."""
    state = record_start_state(record)
    for action in record["actions"]:
        state.apply(action)
    return state


def _seat_layout(agent: Any, label: str, seat: int, game_seed: int, rules: Any):
    """Seat ``seat``'s layout and where it came from."""
    from tbw_envs.junqi.layout import coerce_layout, random_layout

    rng = random.Random(layout_seed(game_seed, seat))
    chooser = getattr(agent, "layout", None)
    if callable(chooser):
        chosen = chooser(rng, rules)
        return coerce_layout(chosen, source=f"layout of {label} (player {seat})"), "agent"
    return random_layout(rng), "random"


def random_opening(state: Any, plies: int, seed: int,
                   stop_before_end: bool = False) -> list[int]:
    """Play up to ``plies`` uniformly random legal actions on ``state`` (fewer if the game ends)
    and return them. Seeded by the pair's seed alone, so both seatings of a pair start from the
    same position: this is what makes paired games of deterministic agents on a fixed TBW
    scenario differ from pair to pair. With ``stop_before_end`` (the arena) the opening stops
    before a drawn action that would end the game, so the agents always get to play; the
    actions it does play are the same as without."""
    rng = random.Random(derive_seed("opening", seed))
    played = []
    for _ in range(plies):
        if state.is_terminal():
            break
        action = rng.choice(list(state.legal_actions()))
        if stop_before_end:
            trial = state.clone()
            trial.apply(action)
            if trial.is_terminal():
                break
        state.apply(action)
        played.append(int(action))
    return played


def play_task(task: GameTask, max_plies: int = 100_000) -> ArenaGame:
    """Play one round-robin game (in whichever process): agents are built here from the task."""
    try:
        return _play_task(task, max_plies)
    except Exception as exc:  # name the game, so a failure in a worker process is traceable
        raise RuntimeError(
            f"{task.game} game {task.game_id} ({task.labels[0]} v {task.labels[1]}, seed "
            f"{task.seed}) failed: {type(exc).__name__}: {exc}"
        ) from exc


def _play_task(task: GameTask, max_plies: int) -> ArenaGame:
    agents = []
    for seat in (0, 1):
        agent = build_agent(task.entries[seat], task.agent_seeds[seat], task.game, task.variant)
        agent.reset(task.agent_seeds[seat])
        agents.append(agent)
    layouts_text = sources = None
    if task.game == "junqi":
        from tbw_envs.junqi.layout import format_layout

        rules = _junqi_rules(task.variant)
        chosen = [_seat_layout(agents[seat], task.labels[seat], seat, task.seed, rules)
                  for seat in (0, 1)]
        state = start_position("junqi", task.variant, [layout for layout, _ in chosen])
        layouts_text = (format_layout(chosen[0][0]), format_layout(chosen[1][0]))
        sources = (chosen[0][1], chosen[1][1])
    else:
        state = start_position("tbw", task.variant)
    actions: list[int] = []
    chain = DigestChain(task.game, task.variant, state)
    for action in random_opening(state.clone(), task.opening_plies, task.seed,
                                 stop_before_end=True):
        state.apply(action)
        actions.append(action)
        chain.step(action, state)
    opening_plies = len(actions)
    seconds = [0.0, 0.0]
    longest = [0.0, 0.0]
    moves = [0, 0]
    while not state.is_terminal():
        if len(actions) >= max_plies:
            raise RuntimeError(f"game did not end within {max_plies} plies")
        player = state.current_player
        view = state.view(player)  # built outside the clock: the core's cost, not the agent's
        start = time.perf_counter()
        action = agents[player].act(view)
        elapsed = time.perf_counter() - start
        state.apply(action)  # the core rejects an illegal action, naming it
        actions.append(int(action))
        chain.step(action, state)
        seconds[player] += elapsed
        longest[player] = max(longest[player], elapsed)
        moves[player] += 1
    returns = state.returns()
    return ArenaGame(
        game=task.game, variant=task.variant, game_id=task.game_id, pairing=task.pairing,
        pair=task.pair, swapped=task.swapped, seed=task.seed, labels=task.labels,
        specs=(entrant_spec(task.entries[0]), entrant_spec(task.entries[1])),
        agent_seeds=task.agent_seeds, layouts=layouts_text, layout_sources=sources,
        actions=actions, returns=(float(returns[0]), float(returns[1])),
        end_reason=end_reason(task.game, state), plies=len(actions),
        move_seconds=(seconds[0], seconds[1]), max_move_seconds=(longest[0], longest[1]),
        moves=(moves[0], moves[1]), opening_plies=opening_plies,
        opening_requested=task.opening_plies, base_seed=task.base_seed,
        start_digest=chain.start, ply_digests=bytes(chain.plies), final_digest=chain.final,
    )


def warm_up(game: str, variant: str, entries: Sequence[Any]) -> None:
    """Build each agent once and let it choose one untimed move, so one-off costs (imports, JIT
    compilation, caches of the rules) are paid before any move is timed. Run once per process;
    the agents are thrown away, so results are unaffected."""
    # A failure here is ignored: the real game reports it with the game's context.
    for entry in dict.fromkeys(entries):
        with contextlib.suppress(Exception):
            agent = build_agent(entry, 0, game, variant)
            agent.reset(0)
            if game == "tbw":
                state = start_position("tbw", variant)
            else:
                from tbw_envs.junqi.layout import random_layout

                state = start_position("junqi", variant, [random_layout(0), random_layout(1)])
            agent.act(state.view(state.current_player))


# ====================================================================== Ray (optional)

RAY_MISSING = ('ray is not installed; it needs its own environment: pip install -c '
               'constraints.txt -e ".[rllib]" (docs/integrations.md, "RLlib")')


def import_ray() -> Any:
    """``import ray``, or an ImportError that says how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise ImportError(RAY_MISSING) from exc
    return ray


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


def connect_ray(address: str, num_cpus: int | None = None, **init_kwargs: Any) -> bool:
    """Connect this process to Ray at ``address`` (``check_ray_address``); ``num_cpus`` sizes a
    ``"local"`` Ray (default: all cores). Returns True when this call connected (the caller
    then calls ``ray.shutdown()``), False when the process was already connected (that
    connection is used whatever ``address`` says)."""
    check_ray_address(address)
    ray = import_ray()
    if ray.is_initialized():
        return False
    if address == "local":
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, **init_kwargs)
    else:
        ray.init(address=address, **init_kwargs)
    return True


_WARMED_ON_RAY: set = set()


def ray_play_task(task: GameTask) -> ArenaGame:
    """One game in a Ray worker: the first time a worker process meets an agent it warms it up
    (``warm_up``, as the process pool's initializer does), then ``play_task``."""
    fresh = [entry for entry in dict.fromkeys(task.entries)
             if (task.game, task.variant, entry) not in _WARMED_ON_RAY]
    if fresh:
        warm_up(task.game, task.variant, fresh)
        _WARMED_ON_RAY.update((task.game, task.variant, entry) for entry in fresh)
    return play_task(task)


def _play_on_ray(tasks: Sequence[GameTask], address: str, workers: int | None,
                 record: Callable[[ArenaGame], None]) -> int:
    """Play every task as a Ray task (1 CPU each), at most ``workers`` at a time (default: the
    cluster's CPUs); ``record`` gets each game as it finishes. Returns the concurrency used."""
    ray = import_ray()
    started = connect_ray(address, num_cpus=workers)
    try:
        limit = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        remote_play = ray.remote(num_cpus=1)(ray_play_task)
        queue = iter(tasks)
        pending: dict[Any, GameTask] = {}

        def submit() -> None:
            for task in queue:
                pending[remote_play.remote(task)] = task
                if len(pending) >= limit:
                    break

        submit()
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    pending.pop(ref)
                    record(ray.get(ref))
                submit()
        except BaseException:
            for ref in pending:
                ray.cancel(ref)
            raise
    finally:
        if started:
            ray.shutdown()
    return limit


# ====================================================================== round robin: schedule


def even_games(games: int) -> int:
    """Games per pairing rounded up to an even number: every seed is played from both seats."""
    games = check_int(games, "games per pairing", 1)
    return games + games % 2


def unique_labels(entries: Sequence[Any]) -> list[str]:
    """Labels for the entrants, numbering repeats: ``random``, ``random (2)``."""
    labels: list[str] = []
    seen: Counter[str] = Counter()
    for entry in entries:
        base = entrant_label(entry)
        seen[base] += 1
        labels.append(base if seen[base] == 1 else f"{base} ({seen[base]})")
    return labels


def schedule(game: str, variant: str, entries: Sequence[Any], games_per_pairing: int,
             seed: int, opening_plies: int = 0,
             ) -> tuple[list[Any], list[str], list[tuple[int, int]], list[GameTask]]:
    """Entrants, their labels, the pairings and every game's task, in a fixed order.

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
    tasks = list(iter_tasks(game, variant, entries, labels, pairings, games_per_pairing, seed,
                            opening_plies))
    return entries, labels, pairings, tasks


def entrants(entries: Sequence[Any]) -> tuple[list[Any], list[str], list[tuple[int, int]]]:
    """The entrants (a single entry plays a copy of itself), their labels and the pairings."""
    entries = list(entries)
    if len(entries) == 1:
        entries = entries * 2
    labels = unique_labels(entries)
    pairings = [(a, b) for a in range(len(entries)) for b in range(a + 1, len(entries))]
    return entries, labels, pairings


def iter_tasks(game: str, variant: str, entries: Sequence[Any], labels: Sequence[str],
               pairings: Sequence[tuple[int, int]], games_per_pairing: int, seed: int,
               opening_plies: int = 0) -> Iterator[GameTask]:
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
                )


# ====================================================================== round robin: results


@dataclass
class PairingStats:
    pairing: int
    agents: tuple[str, str]
    games: int
    # (wins, draws, losses) of agents[0], as player 0 and as player 1; agents[1] mirrors them.
    first_as_player_0: tuple[int, int, int]
    first_as_player_1: tuple[int, int, int]

    def record(self, side: int, as_player: int | None = None) -> tuple[int, int, int]:
        """(wins, draws, losses) of ``agents[side]``, in one seat or (None) both."""
        if as_player is None:
            parts = [self.record(side, 0), self.record(side, 1)]
            return tuple(sum(values) for values in zip(*parts, strict=True))  # type: ignore
        # agents[1] as player p is agents[0] as player 1 - p, seen from the other side.
        if side == 0:
            return self.first_as_player_0 if as_player == 0 else self.first_as_player_1
        wins, draws, losses = self.first_as_player_1 if as_player == 0 else self.first_as_player_0
        return losses, draws, wins

    def score(self, side: int) -> float:
        wins, draws, _ = self.record(side)
        return (wins + 0.5 * draws) / max(self.games, 1)

    def interval(self, side: int) -> tuple[float, float]:
        return wilson_interval(self.score(side) * self.games, self.games)


@dataclass
class Rating:
    agent: str
    elo: float
    low: float
    high: float
    games: int
    score: float


def _wdl(games: Sequence[ArenaGame], seat: int) -> tuple[int, int, int]:
    wins = sum(1 for g in games if g.winner_seat == seat)
    draws = sum(1 for g in games if g.winner_seat is None)
    return wins, draws, len(games) - wins - draws


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]],
                 right_from: int = 1) -> str:
    """A plain text table: the first ``right_from`` columns left-aligned, the rest right."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        return "  ".join(
            cell.ljust(width) if i < right_from else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(cells[0]), rule] + [line(row) for row in cells[1:]])


@dataclass
class RoundRobinResult:
    game: str
    variant: str
    seed: int
    games_per_pairing: int
    labels: list[str]
    specs: list[str]
    pairings: list[tuple[int, int]]
    games: list[ArenaGame]  # ordered by game_id
    workers: int = 1
    wall_seconds: float = 0.0
    bootstrap: int = 200
    bootstrap_seed: int = 0
    opening_plies: int = 0
    _ratings: list[Rating] | None = field(default=None, repr=False)

    # ------------------------------------------------------------------ tallies
    def pairing_games(self, pairing: int) -> list[ArenaGame]:
        return [g for g in self.games if g.pairing == pairing]

    def repeated_pairings(self) -> list[str]:
        """Pairings whose games all repeat one game per seating (deterministic agents on a
        deterministic start): their games are not independent evidence."""
        repeated = []
        for index, (a, b) in enumerate(self.pairings):
            games = self.pairing_games(index)
            if len(games) <= 2:
                continue
            distinct = {(g.swapped, g.layouts, tuple(g.actions)) for g in games}
            if len(distinct) <= 2:
                repeated.append(f"{self.labels[a]} v {self.labels[b]}")
        return repeated

    def pairing_stats(self) -> list[PairingStats]:
        stats = []
        for index, (a, b) in enumerate(self.pairings):
            games = self.pairing_games(index)
            first_p0 = [g for g in games if not g.swapped]
            first_p1 = [g for g in games if g.swapped]
            stats.append(PairingStats(
                pairing=index, agents=(self.labels[a], self.labels[b]), games=len(games),
                first_as_player_0=_wdl(first_p0, 0), first_as_player_1=_wdl(first_p1, 1),
            ))
        return stats

    def _entrant_seat(self, g: ArenaGame) -> tuple[int, int]:
        a, b = self.pairings[g.pairing]
        return (b, a) if g.swapped else (a, b)

    def score_matrix(self, games: Sequence[ArenaGame] | None = None) -> tuple[np.ndarray,
                                                                              np.ndarray]:
        """``points[i][j]``: what entrant i scored against j; ``played[i][j]``: their games."""
        n = len(self.labels)
        points = np.zeros((n, n))
        played = np.zeros((n, n))
        for g in self.games if games is None else games:
            seats = self._entrant_seat(g)
            for seat in (0, 1):
                me, other = seats[seat], seats[1 - seat]
                points[me, other] += g.points(seat)
                played[me, other] += 1
        return points, played

    def ratings(self) -> list[Rating]:
        """Bradley-Terry ratings on the Elo scale (mean of the agents anchored at 1500), with
        95% intervals from a bootstrap over the paired games of each pairing (a pair of games
        from one seed is resampled as a unit, since its two games share a start). With a single
        seed in some pairing a resample can only repeat the data, so the interval is NaN
        (shown as n/a) rather than a misleading zero width."""
        if self._ratings is not None:
            return self._ratings
        points, played = self.score_matrix()
        elo = elo_ratings(bradley_terry(points, played))
        units = self._pair_units()
        low = high = np.full(len(self.labels), np.nan)
        if self.bootstrap > 0 and min(self.seeds_per_pairing(), default=0) >= 2:
            rng = np.random.default_rng(self.bootstrap_seed)
            samples = []
            for _ in range(self.bootstrap):
                boot_points = np.zeros_like(points)
                boot_played = np.zeros_like(played)
                for unit_points, unit_played in units:
                    picks = rng.integers(0, len(unit_points), len(unit_points))
                    boot_points += unit_points[picks].sum(axis=0)
                    boot_played += unit_played[picks].sum(axis=0)
                samples.append(elo_ratings(bradley_terry(boot_points, boot_played)))
            low, high = np.percentile(np.array(samples), [2.5, 97.5], axis=0)
        total_games = played.sum(axis=1)
        self._ratings = [
            Rating(agent=label, elo=float(elo[i]), low=float(low[i]), high=float(high[i]),
                   games=int(total_games[i]),
                   score=float(points[i].sum() / total_games[i]) if total_games[i] else 0.0)
            for i, label in enumerate(self.labels)
        ]
        return self._ratings

    def seeds_per_pairing(self) -> list[int]:
        """How many distinct starting seeds (game pairs) each pairing played."""
        return [len({g.pair for g in self.pairing_games(index)})
                for index in range(len(self.pairings))]

    def _pair_units(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per pairing, each seed's two games as (points, played) matrices to resample."""
        units = []
        for index in range(len(self.pairings)):
            by_pair: dict[int, list[ArenaGame]] = {}
            for g in self.pairing_games(index):
                by_pair.setdefault(g.pair, []).append(g)
            matrices = [self.score_matrix(games) for _, games in sorted(by_pair.items())]
            if matrices:
                units.append((np.array([m[0] for m in matrices]),
                              np.array([m[1] for m in matrices])))
        return units

    def end_summary(self) -> dict[str, Any]:
        """End-reason counts and ply statistics, per pairing and overall."""
        def summarize(games: Sequence[ArenaGame]) -> dict[str, Any]:
            plies = [g.plies for g in games]
            return {
                "games": len(games),
                "end_reasons": dict(Counter(g.end_reason for g in games)),
                "plies_mean": sum(plies) / len(plies) if plies else 0.0,
                "plies_min": min(plies, default=0),
                "plies_max": max(plies, default=0),
            }

        return {
            "pairings": [
                {"agents": [self.labels[a], self.labels[b]],
                 **summarize(self.pairing_games(index))}
                for index, (a, b) in enumerate(self.pairings)
            ],
            "all": summarize(self.games),
        }

    def timing(self) -> list[dict[str, Any]]:
        """Thinking time per agent: moves, mean and longest milliseconds per move."""
        seconds = [0.0] * len(self.labels)
        longest = [0.0] * len(self.labels)
        moves = [0] * len(self.labels)
        for g in self.games:
            for seat, entrant in enumerate(self._entrant_seat(g)):
                seconds[entrant] += g.move_seconds[seat]
                longest[entrant] = max(longest[entrant], g.max_move_seconds[seat])
                moves[entrant] += g.moves[seat]
        return [
            {"agent": label, "moves": moves[i],
             "ms_per_move_mean": 1000.0 * seconds[i] / moves[i] if moves[i] else 0.0,
             "ms_per_move_max": 1000.0 * longest[i]}
            for i, label in enumerate(self.labels)
        ]

    # ------------------------------------------------------------------ presentation
    def title(self) -> str:
        what = f"scenario {self.variant}" if self.game == "tbw" else f"rules {self.variant}"
        return (f"{self.game}: {what}, {len(self.labels)} agents, {len(self.pairings)} "
                f"pairing(s) x {self.games_per_pairing} paired games = {len(self.games)} games, "
                f"seed {self.seed}"
                + (f", {self.opening_plies} random opening plies" if self.opening_plies else ""))

    def tables(self) -> str:
        sections = [self.title()]

        def wdl(values: tuple[int, int, int]) -> str:
            return "-".join(str(v) for v in values)

        rows = []
        for stats in self.pairing_stats():
            for side in (0, 1):
                low, high = stats.interval(side)
                rows.append([
                    f"{stats.agents[0]} v {stats.agents[1]}" if side == 0 else "",
                    stats.agents[side], wdl(stats.record(side, 0)), wdl(stats.record(side, 1)),
                    wdl(stats.record(side)), f"{stats.score(side):.3f}",
                    f"[{low:.3f}, {high:.3f}]",
                ])
        sections.append("Pairings (W-D-L; score counts a draw as half; Wilson 95% interval)\n"
                        + format_table(["pairing", "agent", "as player 0", "as player 1",
                                        "total", "score", "95% CI"], rows, right_from=2))
        repeated = self.repeated_pairings()
        if repeated:
            sections[-1] += (
                f"\nnote: every game of {', '.join(repeated)} repeats one of two games (one per "
                f"seating): the agents and the start are deterministic, so the intervals "
                f"overstate the evidence (--opening-plies N varies the start)"
            )

        points, played = self.score_matrix()
        # Columns by number: long specs cut short would be ambiguous (two "ucbmcts:second").
        short = [f"#{j + 1}" for j in range(len(self.labels))]
        matrix_rows = []
        for i, label in enumerate(self.labels):
            matrix_rows.append([f"#{i + 1} {label}"] + [
                "-" if played[i, j] == 0 else f"{points[i, j] / played[i, j]:.2f}"
                for j in range(len(self.labels))
            ])
        sections.append("Score of the row agent against the column agent\n"
                        + format_table(["agent"] + short, matrix_rows))

        ranked = sorted(self.ratings(), key=lambda r: -r.elo)
        rating_rows = [
            [rank, r.agent, f"{r.elo:.0f}",
             "n/a" if math.isnan(r.low) else f"[{r.low:.0f}, {r.high:.0f}]", r.games,
             f"{r.score:.3f}"]
            for rank, r in enumerate(ranked, 1)
        ]
        caution = ""
        if min(self.seeds_per_pairing(), default=0) < 5:
            caution = ("\n(fewer than 5 seeds in some pairing: the bootstrap interval is crude, "
                       "n/a with a single seed)")
        sections.append(
            f"Ratings: Bradley-Terry on the Elo scale, mean of the agents anchored at "
            f"{ELO_ANCHOR:.0f}; 95% interval from {self.bootstrap} bootstrap resamples of paired "
            f"games{caution}\n" + format_table(["rank", "agent", "Elo", "95% CI", "games",
                                                "score"], rating_rows, right_from=2)
        )

        summary = self.end_summary()
        order = [r for r in end_reason_order(self.game) if r in summary["all"]["end_reasons"]]
        order += sorted(set(summary["all"]["end_reasons"]) - set(order))
        end_rows = []
        for entry, name in [(p, f"{p['agents'][0]} v {p['agents'][1]}")
                            for p in summary["pairings"]] + [(summary["all"], "all")]:
            end_rows.append(
                [name] + [entry["end_reasons"].get(reason, 0) for reason in order]
                + [f"{entry['plies_mean']:.1f}", entry["plies_min"], entry["plies_max"]]
            )
        sections.append("How games ended (counts) and plies per game\n" + format_table(
            ["pairing", *order, "plies mean", "min", "max"], end_rows))

        time_rows = [[t["agent"], t["moves"], f"{t['ms_per_move_mean']:.2f}",
                      f"{t['ms_per_move_max']:.2f}"] for t in self.timing()]
        sections.append("Thinking time\n" + format_table(
            ["agent", "moves", "ms/move mean", "ms/move max"], time_rows))
        sections.append(f"wall time {self.wall_seconds:.1f} s with {self.workers} worker(s)")
        return "\n\n".join(sections)

    def to_json(self, command: str | None = None) -> dict[str, Any]:
        summary = self.end_summary()
        points, played = self.score_matrix()
        return {
            "command": command,
            "game": self.game,
            "scenario" if self.game == "tbw" else "rules": self.variant,
            "seed": self.seed,
            "games_per_pairing": self.games_per_pairing,
            "opening_plies": self.opening_plies,
            "games": len(self.games),
            "workers": self.workers,
            "wall_seconds": self.wall_seconds,
            "agents": [{"label": label, "spec": spec}
                       for label, spec in zip(self.labels, self.specs, strict=True)],
            "pairings": [
                {
                    "agents": list(s.agents), "games": s.games,
                    "records": [
                        {"agent": s.agents[side],
                         "as_player_0": dict(zip(("wins", "draws", "losses"),
                                                 s.record(side, 0), strict=True)),
                         "as_player_1": dict(zip(("wins", "draws", "losses"),
                                                 s.record(side, 1), strict=True)),
                         "total": dict(zip(("wins", "draws", "losses"), s.record(side),
                                           strict=True)),
                         "score": s.score(side), "ci_95": list(s.interval(side))}
                        for side in (0, 1)
                    ],
                }
                for s in self.pairing_stats()
            ],
            "score_matrix": {
                "agents": list(self.labels),
                "score": [[None if played[i, j] == 0 else points[i, j] / played[i, j]
                           for j in range(len(self.labels))] for i in range(len(self.labels))],
                "games": played.astype(int).tolist(),
            },
            "ratings": {
                "model": "Bradley-Terry (draw = half a win), maximum a posteriori by Newton's "
                         f"method with {PRIOR_GAMES} virtual drawn games per agent",
                "scale": f"Elo (400 points = odds of 10:1), mean of the agents = {ELO_ANCHOR:.0f}",
                "interval": f"95% percentile bootstrap, {self.bootstrap} resamples of paired "
                            f"games within each pairing, seed {self.bootstrap_seed}",
                "agents": [
                    {key: None if isinstance(value, float) and math.isnan(value) else value
                     for key, value in asdict(r).items()}
                    for r in self.ratings()
                ],
            },
            "repeated_pairings": self.repeated_pairings(),
            "end_reasons": summary,
            "timing": self.timing(),
        }

    # ------------------------------------------------------------------ files
    def write(self, out_dir: str | Path, command: str | None = None,
              chart: bool = True, overwrite: bool = True) -> dict[str, Path]:
        """``results.json``, ``games.csv``, ``pairings.csv``, ``ratings.csv``, ``games.jsonl``
        and (with matplotlib) ``arena.png`` in ``out_dir``; returns the paths. The folder is
        checked first (``check_out_dir``): with ``overwrite=False`` a folder that holds anything
        is refused."""
        out = check_out_dir(out_dir, overwrite)
        out.mkdir(parents=True, exist_ok=True)
        paths = {name: out / name for name in ("results.json", "games.csv", "pairings.csv",
                                               "ratings.csv", "games.jsonl")}
        with paths["games.jsonl"].open("w", encoding="utf-8") as handle:
            for g in self.games:
                handle.write(json.dumps(g.to_record(), separators=(",", ":")) + "\n")
        self._write_games_csv(paths["games.csv"])
        self._write_pairings_csv(paths["pairings.csv"])
        with paths["ratings.csv"].open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["rank", "agent", "elo", "ci_low", "ci_high", "games", "score"])
            for rank, r in enumerate(sorted(self.ratings(), key=lambda r: -r.elo), 1):
                bounds = ["", ""] if math.isnan(r.low) else [f"{r.low:.1f}", f"{r.high:.1f}"]
                writer.writerow([rank, r.agent, f"{r.elo:.1f}", *bounds, r.games,
                                 f"{r.score:.4f}"])
        if chart:
            paths["arena.png"] = out / "arena.png"
            plot_round_robin(self, paths["arena.png"])
        data = self.to_json(command)
        data["files"] = {name: path.name for name, path in paths.items()}
        paths["results.json"].write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        return paths

    def _write_games_csv(self, path: Path) -> None:
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow([
                "game_id", "pairing", "pair", "seed", "player_0", "player_1", "layout_0",
                "layout_1", "winner", "return_0", "return_1", "end_reason", "plies",
                "ms_per_move_0", "ms_per_move_1", "ms_max_0", "ms_max_1",
            ])
            for g in self.games:
                sources = g.layout_sources or ("", "")
                winner = "draw" if g.winner_seat is None else g.labels[g.winner_seat]
                writer.writerow([
                    g.game_id, g.pairing, g.pair, g.seed, g.labels[0], g.labels[1], sources[0],
                    sources[1], winner, g.returns[0], g.returns[1], g.end_reason, g.plies,
                    *(f"{1000 * g.move_seconds[s] / max(g.moves[s], 1):.3f}" for s in (0, 1)),
                    *(f"{1000 * g.max_move_seconds[s]:.3f}" for s in (0, 1)),
                ])

    def _write_pairings_csv(self, path: Path) -> None:
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow([
                "pairing", "agent", "opponent", "games", "wins", "draws", "losses",
                "wins_as_p0", "draws_as_p0", "losses_as_p0", "wins_as_p1", "draws_as_p1",
                "losses_as_p1", "score", "ci_low", "ci_high",
            ])
            for s in self.pairing_stats():
                for side in (0, 1):
                    low, high = s.interval(side)
                    writer.writerow([
                        s.pairing, s.agents[side], s.agents[1 - side], s.games, *s.record(side),
                        *s.record(side, 0), *s.record(side, 1), f"{s.score(side):.4f}",
                        f"{low:.4f}", f"{high:.4f}",
                    ])


OUTPUT_FILES = ("results.json", "games.csv", "pairings.csv", "ratings.csv", "games.jsonl",
                "arena.png")


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


def plot_round_robin(result: RoundRobinResult, path: str | Path) -> None:
    """The score matrix as a heatmap with the numbers in the cells, and the ratings with their
    95% intervals, side by side in one PNG."""
    import matplotlib

    matplotlib.use("Agg")  # files only: never open a window, never need a display
    import matplotlib.pyplot as plt

    points, played = result.score_matrix()
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(played > 0, points / np.maximum(played, 1), np.nan)
    n = len(result.labels)
    fig, (heat_ax, rating_ax) = plt.subplots(
        1, 2, figsize=(6 + 1.6 * n, 1.5 + 0.75 * n + 2), gridspec_kw={"width_ratios": [1.2, 1]}
    )
    cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#dddddd")  # grey diagonal
    heat_ax.imshow(np.ma.masked_invalid(score), cmap=cmap, vmin=0.0, vmax=1.0)
    heat_ax.set_xticks(range(n), result.labels, rotation=30, ha="right")
    heat_ax.set_yticks(range(n), result.labels)
    heat_ax.set_xlabel("opponent")
    heat_ax.set_title("score of row agent v column agent")
    for i in range(n):
        for j in range(n):
            if played[i, j]:
                # white on the dark ends of the colour map, black in the pale middle
                color = "white" if abs(score[i, j] - 0.5) > 0.35 else "black"
                heat_ax.text(j, i, f"{score[i, j]:.2f}\n({int(played[i, j])} g)", ha="center",
                             va="center", fontsize=9, color=color)
    ranked = sorted(result.ratings(), key=lambda r: r.elo)
    positions = range(len(ranked))
    elos = [r.elo for r in ranked]
    errors = np.nan_to_num([[r.elo - r.low for r in ranked], [r.high - r.elo for r in ranked]])
    rating_ax.errorbar(elos, positions, xerr=np.maximum(errors, 0.0), fmt="o", capsize=4)
    rating_ax.set_yticks(list(positions), [r.agent for r in ranked])
    rating_ax.axvline(ELO_ANCHOR, color="#999999", linewidth=0.8, linestyle="--")
    rating_ax.set_xlabel(f"Elo (mean = {ELO_ANCHOR:.0f}), 95% bootstrap interval")
    rating_ax.set_title("Bradley-Terry ratings")
    rating_ax.margins(y=0.3)
    fig.suptitle(result.title(), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ====================================================================== round robin: driver


def check_round_robin(game: Any, specs: Any, games_per_pairing: Any, seed: Any = 0,
                      workers: Any = None, variant: Any = None, progress: Any = False,
                      bootstrap: Any = 200, bootstrap_seed: Any = 0, opening_plies: Any = 0,
                      ray_address: Any = None, build: bool = True) -> dict[str, Any]:
    """Check every argument of ``run_round_robin`` (types, ranges, the caps at the top of this
    module), load the scenario or rule set and (``build``) build every agent once; returns the
    arguments as plain values. Raises ``ArenaInputError`` (a ValueError; ``ArenaTypeError``,
    also a TypeError, for a value of the wrong type) naming the argument: nothing has been
    played or written yet."""
    if not isinstance(game, str) or game not in GAMES:
        raise ArenaInputError(f"unknown game {short_repr(game)}; games: {', '.join(GAMES)}")
    entries = check_specs(specs)
    games_per_pairing = check_int(games_per_pairing, "games_per_pairing", 1, MAX_GAMES)
    seed = check_int(seed, "seed", 0, MAX_SEED)
    if ray_address is not None:
        if not isinstance(ray_address, str):
            raise ArenaTypeError(f"ray_address must be a string or None, got "
                                 f"{kind_of(ray_address)} {short_repr(ray_address)}")
        check_ray_address(ray_address)
    if workers is not None:
        workers = check_int(workers, "workers", 1, MAX_WORKERS)
    progress = check_flag(progress, "progress")
    bootstrap = check_int(bootstrap, "bootstrap", 0, MAX_BOOTSTRAP)
    bootstrap_seed = check_int(bootstrap_seed, "bootstrap_seed", 0, MAX_SEED)
    variant = check_variant(game, variant)
    check_game(game, variant)
    opening_plies = check_opening_plies(game, variant, opening_plies)
    _, total = check_total_games(len(entries), games_per_pairing)
    entries, labels, pairings = entrants(entries)
    if build:
        build_entrants(game, entries, labels,
                       pickled=ray_address is not None or workers != 1 and total > 1,
                       variant=variant)
    return {"game": game, "entries": entries, "labels": labels, "pairings": pairings,
            "games_per_pairing": games_per_pairing, "total": total, "seed": seed,
            "workers": workers, "variant": variant, "progress": progress,
            "bootstrap": bootstrap, "bootstrap_seed": bootstrap_seed,
            "opening_plies": opening_plies, "ray_address": ray_address}


def run_round_robin(game: str, specs: Sequence[Any], games_per_pairing: int, seed: int = 0,
                    workers: int | None = None, variant: str | None = None,
                    progress: bool = False, bootstrap: int = 200,
                    bootstrap_seed: int = 0, opening_plies: int = 0,
                    ray_address: str | None = None) -> RoundRobinResult:
    """Every pair of ``specs`` (registry spec strings, or picklable ``factory(seed)`` callables)
    plays ``games_per_pairing`` paired games (rounded up to even) of ``game`` (``"tbw"`` or
    ``"junqi"``) on ``variant`` (TBW scenario or Junqi rule set; default ``duel_5v5_8x8`` /
    ``ccgc``). ``workers`` processes play the games (default ``os.cpu_count()``; 1 plays in this
    process); the results do not depend on it. ``opening_plies`` random plies, the same for both
    games of a pair, start every game (``random_opening``): on a fixed TBW scenario,
    deterministic agents otherwise replay one game per seating. ``ray_address`` (``"local"``,
    ``"auto"``, ``"ray://host:10001"``: ``connect_ray``) plays each game as a Ray task instead,
    at most ``workers`` at a time (default: all the cluster's CPUs), with the same results.

    Every argument is checked and every agent built once before the first game
    (``check_round_robin``; the caps are at the top of this module), and the games are
    scheduled lazily."""
    args = check_round_robin(game, specs, games_per_pairing, seed, workers, variant, progress,
                             bootstrap, bootstrap_seed, opening_plies, ray_address)
    variant, seed, workers = args["variant"], args["seed"], args["workers"]
    entries, labels, pairings = args["entries"], args["labels"], args["pairings"]
    games_per_pairing, opening_plies, total = (args["games_per_pairing"], args["opening_plies"],
                                               args["total"])
    if ray_address is None and workers is None:
        workers = min(os.cpu_count() or 1, MAX_WORKERS)
    tasks = iter_tasks(game, variant, entries, labels, pairings, games_per_pairing, seed,
                       opening_plies)
    start = time.perf_counter()
    finished: dict[int, ArenaGame] = {}
    bar = _progress_bar(total, f"{game} round robin") if args["progress"] else None

    def record(result: ArenaGame) -> None:
        finished[result.game_id] = result
        if bar is not None:
            bar.update(1)
            bar.set_postfix_str(_running_summary(labels, pairings, finished.values()),
                                refresh=False)

    try:
        if ray_address is not None:
            workers = _play_on_ray(tasks, ray_address, workers, record)
        elif workers == 1 or total <= 1:
            warm_up(game, variant, entries)
            for task in tasks:
                record(play_task(task))
        else:
            _play_in_processes(tasks, min(workers, total), game, variant, entries, record)
    finally:
        if bar is not None:
            bar.close()
    return RoundRobinResult(
        game=game, variant=variant, seed=seed, games_per_pairing=even_games(games_per_pairing),
        labels=labels, specs=[entrant_spec(entry) for entry in entries], pairings=pairings,
        games=[finished[game_id] for game_id in range(total)], workers=workers,
        wall_seconds=time.perf_counter() - start, bootstrap=args["bootstrap"],
        bootstrap_seed=args["bootstrap_seed"], opening_plies=opening_plies,
    )


def _play_in_processes(tasks: Iterator[GameTask], workers: int, game: str, variant: str,
                       entries: Sequence[Any], record: Callable[[ArenaGame], None]) -> None:
    """Play ``tasks`` in ``workers`` spawned processes, a few per worker in flight at a time
    (the schedule is drawn lazily); ``record`` gets each game as it finishes."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    # spawn: identical on every platform, and safe with threads (tqdm, numba) running.
    context = multiprocessing.get_context("spawn")
    limit = 4 * workers
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=warm_up,
                             initargs=(game, variant, entries)) as pool:
        pending: set[Any] = set()

        def submit() -> None:
            for task in tasks:
                pending.add(pool.submit(play_task, task))
                if len(pending) >= limit:
                    break

        try:
            submit()
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    pending.discard(future)
                    record(future.result())
                submit()
        except BaseException:
            for future in pending:
                future.cancel()
            raise


def _progress_bar(total: int, description: str):
    try:
        from tqdm import tqdm
    except ImportError:  # the progress bar is a nicety, never a requirement
        return None
    return tqdm(total=total, desc=description, unit="game")


def _running_summary(labels: Sequence[str], pairings: Sequence[tuple[int, int]],
                     games: Any) -> str:
    """Each agent's score so far (draw = half), for the progress bar."""
    points = [0.0] * len(labels)
    played = [0] * len(labels)
    for g in games:
        a, b = pairings[g.pairing]
        seats = (b, a) if g.swapped else (a, b)
        for seat in (0, 1):
            points[seats[seat]] += g.points(seat)
            played[seats[seat]] += 1
    parts = [f"{label[:10]} {points[i] / played[i]:.2f}"
             for i, label in enumerate(labels) if played[i]]
    return ", ".join(parts[:6])
