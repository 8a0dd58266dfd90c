"""Playing one game on the game core: ``state.view(player)`` -> ``agent.act`` -> ``state.apply``,
the same forward model the environments wrap, so a match between two search agents pays no env
overhead. ``play_out`` is the one game loop; ``play_game`` (two agent objects, in process) and
``play_task`` (a scheduled round-robin game, in whichever process) both use it.

An agent that raises in ``act`` or returns an action the rules refuse is an ``AgentFault``. A
round-robin game then either stops the run (``on_agent_error="stop"``: ``AgentError``, which
names the agent, the game and the error) or is scored as a loss for that agent
(``"forfeit"``: the record keeps the moves before the bad one and ``ArenaGame.forfeit`` says
why). The arena has no per-move time limit (an agent's budget is its own option), so there is
no timeout to forfeit on."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.arena.checks import ArenaInputError, ArenaTypeError, check_int
from agents.arena.digests import DigestChain
from agents.arena.openings import random_opening
from agents.arena.players import build_agent, entrant_spec
from agents.arena.records import FORFEIT_END_REASON, ArenaGame, forfeit_returns
from agents.arena.scheduling import GameTask
from tbw_envs.core.contract import MAX_SEED, is_integer, kind_of, short_repr
from tbw_envs.core.errors import IllegalActionError
from tbw_envs.games import get_game

ON_AGENT_ERROR = ("stop", "forfeit")  # what a round robin does when an agent misbehaves


class AgentFault(Exception):
    """An agent that raised in ``act`` (``kind`` "raised") or returned an action the rules
    refuse ("illegal_action", with the ``action`` it returned) on ply ``ply`` (1-based, the
    opening counted) as player ``seat``."""

    def __init__(self, seat: int, ply: int, kind: str, reason: str, action: Any = None):
        super().__init__(reason)
        self.seat, self.ply, self.kind, self.reason, self.action = seat, ply, kind, reason, action

    def __reduce__(self):
        return (type(self), (self.seat, self.ply, self.kind, self.reason, self.action))


class AgentError(RuntimeError):
    """A round-robin game stopped by an agent's fault (``on_agent_error="stop"``); ``line`` is
    the one-line message naming the agent, the game and the error. Picklable, so a worker
    process hands it back whole."""

    def __init__(self, line: str, game_id: int, seat: int):
        super().__init__(f"{line}; on_agent_error='forfeit' scores such a game as its loss and "
                         f"goes on")
        self.line, self.game_id, self.seat = line, game_id, seat

    def __reduce__(self):
        return (type(self), (self.line, self.game_id, self.seat))


def recorded_action(action: Any) -> int | str:
    """An agent's bad action as a record keeps it: the integer, or the repr of a non-integer."""
    return int(action) if is_integer(action) else short_repr(action)


@dataclass
class SeatTimes:
    """Thinking time of the two seats over one game."""

    seconds: list[float] = field(default_factory=lambda: [0.0, 0.0])  # total, per seat
    longest: list[float] = field(default_factory=lambda: [0.0, 0.0])  # longest move, per seat
    moves: list[int] = field(default_factory=lambda: [0, 0])


def play_out(state: Any, agents: Sequence[Any], actions: list[int], max_plies: int,
             chain: DigestChain | None = None,
             thinking: list[Any] | None = None, times: SeatTimes | None = None) -> SeatTimes:
    """Let ``agents[player]`` move until the game ends, appending each action to ``actions``
    (which may already hold an opening: ``max_plies`` counts it) and digesting it into
    ``chain``, and timing each move into ``times`` (a new ``SeatTimes`` by default); with
    ``thinking``, append what the mover's ``thinking()`` says after each move
    (None for an agent without one); returns the seats' thinking times. Raises ``AgentFault``
    (the state and ``actions`` as they were before that move; ``times`` holds the moves made)
    for an agent that raises or returns an illegal action."""
    times = SeatTimes() if times is None else times
    while not state.is_terminal():
        if len(actions) >= max_plies:
            raise RuntimeError(f"game did not end within {max_plies} plies")
        player = state.current_player
        view = state.view(player)  # built outside the clock: the core's cost, not the agent's
        start = time.perf_counter()
        try:
            action = agents[player].act(view)
        except Exception as exc:
            raise AgentFault(player, len(actions) + 1, "raised",
                             f"raised {type(exc).__name__}: {exc}") from exc
        elapsed = time.perf_counter() - start
        try:
            state.apply(action)  # the core rejects an illegal action, leaving the state as is
        except IllegalActionError as exc:
            raise AgentFault(player, len(actions) + 1, "illegal_action",
                             f"returned an illegal action: {exc}",
                             recorded_action(action)) from exc
        actions.append(int(action))
        if thinking is not None:
            thinking.append(agent_thinking(agents[player]))
        if chain is not None:
            chain.step(action, state)
        times.seconds[player] += elapsed
        times.longest[player] = max(times.longest[player], elapsed)
        times.moves[player] += 1
    return times


def agent_thinking(agent: Any) -> Any:
    """What ``agent`` says it thought about its last move (``thinking()``: None or a JSON-ready
    object, as the Junqi searches give), or None for an agent without one."""
    report = getattr(agent, "thinking", None)
    if not callable(report):
        return None
    value = report()
    try:
        if value is not None and not isinstance(value, dict):
            raise TypeError(f"got {kind_of(value)}")
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ArenaTypeError(f"{getattr(agent, 'name', kind_of(agent))}.thinking() must return "
                             f"None or a JSON-ready object (of objects, lists, strings, finite "
                             f"numbers, null): {exc}") from None
    return value


# ---------------------------------------------------------------------- two agent objects


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


def game_factory(game: str, variant: Any) -> Callable[[int], Any]:
    """A new-game factory ``new_state(seed)`` for ``game`` on ``variant`` (a name, a path or a
    loaded scenario or rule set): what the seed draws where the game has chance at the start."""
    description = get_game(game)
    loaded = description.load_variant(variant)
    return lambda seed: description.new_state(loaded, seed)


def tbw_game(scenario: Any = "duel_5v5_8x8") -> Callable[[int], Any]:
    """A new-game factory for TBW: the scenario's initial state (TBW has no chance)."""
    return game_factory("tbw", scenario)


def junqi_game(rules: Any = "ccgc") -> Callable[[int], Any]:
    """A new-game factory for Junqi: both layouts drawn uniformly at random from ``seed``."""
    return game_factory("junqi", rules)


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
    actions: list[int] = []
    try:
        times = play_out(state, agents, actions, max_plies)
    except AgentFault as fault:  # in process, the agent's own error is the clearest
        raise fault.__cause__ from None
    seconds = {n: 0.0 for n in names}
    moves = {n: 0 for n in names}
    for seat, name in enumerate(names):
        seconds[name] += times.seconds[seat]
        moves[name] += times.moves[seat]
    returns = state.returns()
    return GameRecord(names, (returns[0], returns[1]), len(actions), seconds, moves, state)


# ---------------------------------------------------------------------- a scheduled game


def play_task(task: GameTask, max_plies: int = 100_000) -> ArenaGame:
    """Play one round-robin game (in whichever process): agents are built here from the task.
    An agent that raises or returns an illegal action forfeits the game
    (``task.on_agent_error == "forfeit"``) or stops the run with an ``AgentError``."""
    try:
        return _play_task(task, max_plies)
    except AgentFault as fault:
        raise AgentError(fault_line(task, fault.seat, fault.ply, one_line(fault.reason)),
                         task.game_id, fault.seat) from fault.__cause__
    except Exception as exc:  # name the game, so a failure in a worker process is traceable
        raise RuntimeError(
            f"{task.game} game {task.game_id} ({task.labels[0]} v {task.labels[1]}, seed "
            f"{task.seed}) failed: {type(exc).__name__}: {exc}"
        ) from exc


def fault_line(game: GameTask | ArenaGame, seat: int, ply: int, reason: str) -> str:
    """One line naming the agent at fault, the game (a task, or the game it gave) and what the
    agent did."""
    return (f"agent {game.labels[seat]!r} (player {seat}) {reason} on ply {ply} of {game.game} "
            f"game {game.game_id} ({game.labels[0]} v {game.labels[1]}, seed {game.seed})")


def one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line of at most ``limit`` characters (an exception's message can span
    many)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _play_task(task: GameTask, max_plies: int) -> ArenaGame:
    agents = []
    for seat in (0, 1):
        agent = build_agent(task.entries[seat], task.agent_seeds[seat], task.game, task.variant)
        agent.reset(task.agent_seeds[seat])
        agents.append(agent)
    start = get_game(task.game).start(task.variant, task.seed, agents, task.labels)
    state = start.state
    actions: list[int] = []
    chain = DigestChain(task.game, task.variant, state)
    for action in random_opening(state.clone(), task.opening_plies, task.seed,
                                 stop_before_end=True):
        state.apply(action)
        actions.append(action)
        chain.step(action, state)
    opening_plies = len(actions)
    thinking = [None] * opening_plies if task.record_thinking else None
    times = SeatTimes()
    forfeit = None
    try:
        play_out(state, agents, actions, max_plies, chain, thinking, times)
        returns = tuple(float(r) for r in state.returns())
        reason = str(state.end_reason)
    except AgentFault as fault:
        if task.on_agent_error != "forfeit":
            raise
        forfeit = {"seat": fault.seat, "agent": task.labels[fault.seat],
                   "spec": entrant_spec(task.entries[fault.seat]), "kind": fault.kind,
                   "reason": one_line(fault.reason), "ply": fault.ply}
        if fault.kind == "illegal_action":
            forfeit["action"] = fault.action
        returns, reason = forfeit_returns(fault.seat), FORFEIT_END_REASON
    return ArenaGame(
        game=task.game, variant=task.variant, game_id=task.game_id, pairing=task.pairing,
        pair=task.pair, swapped=task.swapped, seed=task.seed, labels=task.labels,
        specs=(entrant_spec(task.entries[0]), entrant_spec(task.entries[1])),
        agent_seeds=task.agent_seeds, layouts=start.layouts,
        layout_sources=start.layout_sources, actions=actions,
        returns=(returns[0], returns[1]), end_reason=reason,
        plies=len(actions), move_seconds=(times.seconds[0], times.seconds[1]),
        max_move_seconds=(times.longest[0], times.longest[1]),
        moves=(times.moves[0], times.moves[1]), opening_plies=opening_plies,
        opening_requested=task.opening_plies, base_seed=task.base_seed,
        start_digest=chain.start, ply_digests=bytes(chain.plies), final_digest=chain.final,
        start=start.record, thinking=thinking, forfeit=forfeit,
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
            state = get_game(game).new_state(variant, seed=0)
            agent.act(state.view(state.current_player))
