"""Playing one game on the game core: ``state.view(player)`` -> ``agent.act`` -> ``state.apply``,
the same forward model the environments wrap, so a match between two search agents pays no env
overhead.

There is one play path: ``play_seated`` plays a game's ``GameTask`` (``agents.arena.scheduling``:
its seeds, seats and opening) with two agents already built, through ``set_up`` and ``play_out``
(the one game loop), and gives its ``ArenaGame``. A round-robin game (``play_task``, in whichever
process) builds its agents from the task's specs first; ``play_game`` and ``run_match``
(``agents.arena.match``) seat agent objects in the tasks ``scheduling.match_tasks`` draws, so a
match's game is the round robin's game of the same seeds and agents, record for record.

An agent at fault is an ``AgentFault`` of one of ``records.FORFEIT_KINDS``. On a move (ply 1
or later) it raised in ``act`` ("raised"), returned an action the rules refuse
("illegal_action"), took longer than the run's ``move_time_limit`` ("time_out") or, with
``record_thinking``, failed in ``thinking()`` after its move ("thinking_failed"); before play
(ply 0) its ``reset`` raised ("reset_failed"), or its choice before play (Junqi's
``layout(rng, rules)``, asked by the game's ``start``) raised or was refused ("layout_failed").
A round-robin game then either stops the run (``on_agent_error="stop"``: ``AgentError``, which
names the agent, the game and the error) or is scored as a loss for that agent
(``"forfeit"``: the record keeps the moves before the bad one and ``ArenaGame.forfeit`` says
why). Building an agent is not a fault: a bad spec is refused before the run starts.

With a ``move_time_limit`` each ``act`` runs on a daemon thread inside ``stop_when`` set
``TIME_MARGIN`` short of the limit, so every search on the project's clocks answers in time.
The arena waits up to ``MOVE_WAIT_FACTOR`` times the limit, so that a move a little late is
timed for the message, and then abandons the move: Python cannot stop a thread, so an agent
that never returns is left running (and, if it computes, shares the process's CPU with the
games after it). Without a limit ``act`` is called directly, with no thread, so a fixed-seed
run gives the same records bit for bit as before limits existed."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.arena.checks import ArenaInputError, ArenaTypeError, check_int
from agents.arena.digests import DigestChain
from agents.arena.openings import random_opening
from agents.arena.players import build_agent, entrant_spec, unique_labels
from agents.arena.records import FORFEIT_END_REASON, ArenaGame, forfeit_returns
from agents.arena.scheduling import GameTask, match_tasks
from agents.common.budget import TIME_MARGIN, stop_when
from tbw_envs.core.contract import MAX_SEED, is_integer, kind_of, short_repr
from tbw_envs.core.errors import IllegalActionError
from tbw_envs.description import Game, GameStart
from tbw_envs.games import get_game

ON_AGENT_ERROR = ("stop", "forfeit")  # what a round robin does when an agent misbehaves
# With a move time limit the arena waits this many times the limit for a move before it
# abandons it: a move a little late is still timed, and its thread ends.
MOVE_WAIT_FACTOR = 2.0
# How long warm_up waits, past the limit, for an agent's untimed first move (one-off costs such
# as JIT compilation may take a while; an agent that hangs must not hang the run).
WARM_UP_WAIT_SECONDS = 30.0


class AgentFault(Exception):
    """An agent at fault as player ``seat`` on ply ``ply`` (1-based, the opening counted; 0
    before play): ``kind`` is one of ``records.FORFEIT_KINDS`` (with ``action``, what it
    returned, for "illegal_action"), ``reason`` says what it did in words."""

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
             thinking: list[Any] | None = None, times: SeatTimes | None = None,
             move_time_limit: float | None = None) -> SeatTimes:
    """Let ``agents[player]`` move until the game ends, appending each action to ``actions``
    (which may already hold an opening: ``max_plies`` counts it) and digesting it into
    ``chain``, and timing each move into ``times`` (a new ``SeatTimes`` by default); with
    ``thinking``, append what the mover's ``thinking()`` says after each move
    (None for an agent without one); returns the seats' thinking times. With
    ``move_time_limit`` (seconds) each move is played by ``act_in_time``. Raises
    ``AgentFault`` for an agent at fault on a move: ``actions``, ``chain`` and ``times`` hold
    the moves before it (as does the state, but after a "thinking_failed", whose move the state
    has applied)."""
    times = SeatTimes() if times is None else times
    while not state.is_terminal():
        if len(actions) >= max_plies:
            raise RuntimeError(f"game did not end within {max_plies} plies")
        player = state.current_player
        ply = len(actions) + 1
        view = state.view(player)  # built outside the clock: the core's cost, not the agent's
        if move_time_limit is None:
            start = time.perf_counter()
            try:
                action = agents[player].act(view)
            except Exception as exc:
                raise AgentFault(player, ply, "raised",
                                 f"raised {type(exc).__name__}: {exc}") from exc
            elapsed = time.perf_counter() - start
        else:
            action, elapsed = act_in_time(agents[player], view, move_time_limit, player, ply)
        try:
            state.apply(action)  # the core rejects an illegal action, leaving the state as is
        except IllegalActionError as exc:
            raise AgentFault(player, ply, "illegal_action",
                             f"returned an illegal action: {exc}",
                             recorded_action(action)) from exc
        if thinking is not None:
            try:
                said = agent_thinking(agents[player])
            except Exception as exc:
                raise AgentFault(player, ply, "thinking_failed",
                                 str(exc) if isinstance(exc, ArenaTypeError) else
                                 f"thinking() raised {type(exc).__name__}: {exc}") from exc
            thinking.append(said)
        actions.append(int(action))
        if chain is not None:
            chain.step(action, state)
        times.seconds[player] += elapsed
        times.longest[player] = max(times.longest[player], elapsed)
        times.moves[player] += 1
    return times


class MoveThread:
    """``agent.act(view)`` on a daemon thread, inside ``stop_when(seconds=stop_after)`` (so the
    project's clocks read as spent then); ``done`` is set when it returns or raises, and
    ``action``, ``error`` and ``seconds`` (timed on the thread, as a move without a limit is)
    then say how."""

    def __init__(self, agent: Any, view: Any, stop_after: float):
        self.action: Any = None
        self.error: BaseException | None = None
        self.seconds = 0.0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(agent, view, stop_after),
                                       name="arena move", daemon=True)
        self.thread.start()

    def _run(self, agent: Any, view: Any, stop_after: float) -> None:
        start = time.perf_counter()
        try:
            with stop_when(seconds=stop_after):
                self.action = agent.act(view)
        except BaseException as exc:  # judged on the arena's thread, as a direct call's would be
            self.error = exc
        finally:
            self.seconds = time.perf_counter() - start
            self.done.set()


def act_in_time(agent: Any, view: Any, limit: float, seat: int, ply: int) -> tuple[Any, float]:
    """``agent``'s move and the seconds it took, played on a ``MoveThread`` that asks the
    agent's searches to stop ``TIME_MARGIN`` short of ``limit`` and is waited for at most
    ``MOVE_WAIT_FACTOR * limit`` seconds. Raises ``AgentFault`` of kind "time_out" for a move
    that took longer than ``limit`` (one still running is abandoned, its thread left running),
    "raised" for one that raised."""
    move = MoveThread(agent, view, limit * (1.0 - TIME_MARGIN))
    waited = MOVE_WAIT_FACTOR * limit
    if not move.done.wait(waited):
        raise AgentFault(seat, ply, "time_out",
                         f"did not return a move within {waited:g} s (the limit is {limit:g} s) "
                         f"and was abandoned: its thread was left running")
    if move.error is not None and not isinstance(move.error, Exception):
        raise move.error  # SystemExit and the like: not the agent's fault to score
    if move.seconds > limit:  # the limit was broken first, whatever the move came to
        raise AgentFault(seat, ply, "time_out",
                         f"took {move.seconds:.2f} s for a move; the limit is {limit:g} s")
    if move.error is not None:
        raise AgentFault(seat, ply, "raised", f"raised {type(move.error).__name__}: "
                                              f"{move.error}") from move.error
    return move.action, move.seconds


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


@dataclass(frozen=True)
class GameSetup:
    """A game on a variant, and the random opening its games start with: what ``play_game``
    and ``run_match`` play (``game_factory``). Called with a seed, it gives the position a game
    of that seed starts from when no agent chooses (Junqi: both layouts random), after the
    opening, as ``play_seated`` starts it."""

    game: Game
    variant: Any  # TBW scenario or Junqi rule set: a name, a path, or a loaded one
    opening_plies: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.game, Game):
            raise ArenaTypeError(f"game must be a game's description (tbw_envs.games.Game), "
                                 f"got {kind_of(self.game)} {short_repr(self.game)}")
        object.__setattr__(self, "opening_plies",
                           check_int(self.opening_plies, "opening_plies", 0))

    def __call__(self, seed: int) -> Any:
        state = self.game.start(self.variant, seed, (None, None), ("", "")).state
        random_opening(state, self.opening_plies, seed, stop_before_end=True)
        return state


def game_factory(game: str | Game, variant: Any, opening_plies: int = 0) -> GameSetup:
    """The ``GameSetup`` of ``game`` (a name or a description) on ``variant`` (a name, a path or
    a loaded scenario or rule set), its games opened by ``opening_plies`` random plies."""
    return GameSetup(get_game(game), variant, opening_plies)


def tbw_game(scenario: Any = "duel_5v5_8x8") -> GameSetup:
    """TBW on ``scenario`` (TBW has no chance: every seed gives the scenario's start)."""
    return game_factory("tbw", scenario)


def junqi_game(rules: Any = "ccgc") -> GameSetup:
    """Junqi on ``rules``: both layouts drawn at random from the seed, unless an agent chooses
    its own (``layout(rng, rules)``)."""
    return game_factory("junqi", rules)


def check_setup(setup: Any) -> GameSetup:
    """``setup`` if it is a ``GameSetup``; ``ArenaTypeError`` naming what it is otherwise."""
    if not isinstance(setup, GameSetup):
        raise ArenaTypeError(f"new_state must be a game setup (game_factory(game, variant), "
                             f"tbw_game(), junqi_game()), whose games' records name their game, "
                             f"got {kind_of(setup)} {short_repr(setup)}")
    return setup


def play_game(new_state: GameSetup, agents: Sequence[Any], seed: int,
              max_plies: int = 100_000) -> ArenaGame:
    """One game of ``new_state`` (a ``GameSetup``): ``agents[i]`` plays player ``i``. It is the
    first game of a round robin of the two agents with base seed ``seed`` (the same seeds and
    start, the same record, the labels and specs being the agents' names), played in process:
    an agent's error is raised as it is."""
    setup = check_setup(new_state)
    if isinstance(agents, (str, bytes)) or not isinstance(agents, Sequence) or len(agents) != 2:
        raise ArenaInputError(f"agents must be a pair of agents (player 0, player 1), got "
                              f"{kind_of(agents)} {short_repr(agents)}")
    seed = check_int(seed, "seed", 0, MAX_SEED)
    max_plies = check_int(max_plies, "max_plies", 1)
    labels = unique_labels([agent.name for agent in agents])
    task = next(match_tasks(setup.game, setup.variant, labels, 1, seed, setup.opening_plies))
    return play_in_process(task, agents, max_plies)


def play_in_process(task: GameTask, agents: Sequence[Any], max_plies: int = 100_000
                    ) -> ArenaGame:
    """``play_seated`` for agent objects in this process: an agent at fault raises its own
    error (the clearest there is in process) rather than an ``AgentFault``."""
    try:
        return play_seated(task, agents, max_plies)
    except AgentFault as fault:
        if fault.__cause__ is None:
            raise RuntimeError(f"agent {task.labels[fault.seat]!r} (player {fault.seat}) "
                               f"{fault.reason}") from None
        raise fault.__cause__ from None


# ---------------------------------------------------------------------- a scheduled game


def play_task(task: GameTask, max_plies: int = 100_000) -> ArenaGame:
    """Play one round-robin game (in whichever process): agents are built here from the task's
    specs, each spec parsed once per process (``players.agent_maker``). An agent at fault
    (``AgentFault``) forfeits the game (``task.on_agent_error == "forfeit"``) or stops the run
    with an ``AgentError``."""
    try:
        agents = [build_agent(task.entries[seat], task.agent_seeds[seat], task.game,
                              task.variant) for seat in (0, 1)]
        return play_seated(task, agents, max_plies)
    except AgentFault as fault:
        raise AgentError(fault_line(task.game.name, task.game_id, task.labels, task.seed,
                                    fault.seat, fault.ply, one_line(fault.reason)),
                         task.game_id, fault.seat) from fault.__cause__
    except Exception as exc:  # name the game, so a failure in a worker process is traceable
        raise RuntimeError(
            f"{task.game.name} game {task.game_id} ({task.labels[0]} v {task.labels[1]}, seed "
            f"{task.seed}) failed: {type(exc).__name__}: {exc}"
        ) from exc


def fault_line(game: str, game_id: int, labels: Sequence[str], seed: int, seat: int, ply: int,
               reason: str) -> str:
    """One line naming the agent at fault, the game (its name, id, agents and seed) and what
    the agent did (on ``ply``; 0: before play)."""
    when = "before play" if ply == 0 else f"on ply {ply}"
    return (f"agent {labels[seat]!r} (player {seat}) {reason} {when} of {game} game {game_id} "
            f"({labels[0]} v {labels[1]}, seed {seed})")


def one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line of at most ``limit`` characters (an exception's message can span
    many)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


@dataclass
class AnswerWatch:
    """The seat whose answer a game's ``start`` holds (None while an agent is being asked)."""

    seat: int | None = None


class ChoosingSeat:
    """An agent as a game's ``start`` sees it: its attributes read through, each method called
    through. A method that raises is an ``AgentFault`` of the seat ("layout_failed", ply 0:
    the one choice a game asks before play is a layout); one that returns sets ``watch.seat``,
    so an answer the game then refuses is known to be that seat's."""

    def __init__(self, agent: Any, seat: int, watch: AnswerWatch):
        self._agent, self._seat, self._watch = agent, seat, watch

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._agent, name)
        if not callable(value):
            return value
        seat, watch = self._seat, self._watch

        def asked(*args: Any, **kwargs: Any) -> Any:
            watch.seat = None
            try:
                answer = value(*args, **kwargs)
            except Exception as exc:
                raise AgentFault(seat, 0, "layout_failed",
                                 f"{name}() raised {type(exc).__name__}: {exc}") from exc
            watch.seat = seat
            return answer

        return asked


def set_up(task: GameTask, agents: Sequence[Any]) -> GameStart:
    """Reset both agents with their seeds and start the game (Junqi: the agents' layouts). Raises
    ``AgentFault`` of ply 0 for an agent whose ``reset`` raises ("reset_failed") or whose
    choice before play raises or is refused by the game ("layout_failed")."""
    for seat, agent in enumerate(agents):
        try:
            agent.reset(task.agent_seeds[seat])
        except Exception as exc:
            raise AgentFault(seat, 0, "reset_failed",
                             f"reset() raised {type(exc).__name__}: {exc}") from exc
    watch = AnswerWatch()
    seats = [ChoosingSeat(agent, seat, watch) for seat, agent in enumerate(agents)]
    try:
        return task.game.start(task.variant, task.seed, seats, task.labels)
    except (TypeError, ValueError) as exc:  # the game's refusal of an answer (a bad layout)
        if watch.seat is None:
            raise
        raise AgentFault(watch.seat, 0, "layout_failed",
                         f"chose a layout the rules refuse: {exc}") from exc


def play_seated(task: GameTask, agents: Sequence[Any], max_plies: int = 100_000) -> ArenaGame:
    """The game of ``task`` with ``agents[seat]`` in each seat, already built: both are reset
    with the task's seeds, the game started (``set_up``) and opened, and played
    (``play_out``). Raises ``AgentFault`` for an agent at fault, unless the task forfeits its
    game (``on_agent_error == "forfeit"``): the record then says why."""
    actions: list[int] = []
    thinking: list[Any] | None = [] if task.record_thinking else None
    times = SeatTimes()
    try:
        start = set_up(task, agents)
    except AgentFault as fault:
        if task.on_agent_error != "forfeit":
            raise
        # A game lost before play was never set up. Its record starts where the pair's seed
        # starts when no agent chooses (Junqi: both layouts random), with no move, so it
        # still replays and its digests still bind it.
        start = task.game.start(task.variant, task.seed, (None, None), ("", ""))
        chain = DigestChain(task.game, task.variant, start.state)
        return task_game(task, start, actions, 0, chain, thinking, times, fault)
    state = start.state
    chain = DigestChain(task.game, task.variant, state)
    for action in random_opening(state.clone(), task.opening_plies, task.seed,
                                 stop_before_end=True):
        state.apply(action)
        actions.append(action)
        chain.step(action, state)
    opening_plies = len(actions)
    if thinking is not None:
        thinking += [None] * opening_plies
    try:
        play_out(state, agents, actions, max_plies, chain, thinking, times,
                 task.move_time_limit)
    except AgentFault as fault:
        if task.on_agent_error != "forfeit":
            raise
        return task_game(task, start, actions, opening_plies, chain, thinking, times, fault)
    return task_game(task, start, actions, opening_plies, chain, thinking, times, None, state)


def task_game(task: GameTask, start: GameStart, actions: list[int], opening_plies: int,
              chain: DigestChain, thinking: list[Any] | None, times: SeatTimes,
              fault: AgentFault | None, state: Any = None) -> ArenaGame:
    """The ``ArenaGame`` of a task's game: one that ended in ``state``, or that the agent at
    ``fault`` forfeited (the record's ``result.forfeit``: ``records.ArenaGame.forfeit``)."""
    if fault is None:
        forfeit = None
        returns = tuple(float(r) for r in state.returns())
        reason = str(state.end_reason)
    else:
        forfeit = {"seat": fault.seat, "agent": task.labels[fault.seat],
                   "spec": entrant_spec(task.entries[fault.seat]), "kind": fault.kind,
                   "reason": one_line(fault.reason), "ply": fault.ply}
        if fault.kind == "illegal_action":
            forfeit["action"] = fault.action
        returns, reason = forfeit_returns(fault.seat), FORFEIT_END_REASON
    return ArenaGame(
        game=task.game.name, variant=task.variant, game_id=task.game_id, pairing=task.pairing,
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
        move_time_limit=task.move_time_limit,
    )


def warm_up(game: Game, variant: str, entries: Sequence[Any],
            move_time_limit: float | None = None) -> None:
    """Build each agent once and let it choose one untimed move, so one-off costs (imports, JIT
    compilation, caches of the rules) are paid before any move is timed. Run once per process;
    the agents are thrown away, so results are unaffected. With ``move_time_limit`` the move
    is asked to stop at the limit, as in play, and waited for at most
    ``WARM_UP_WAIT_SECONDS`` past it, so that an agent that hangs cannot hang the run here."""
    # A failure here is ignored: the real game reports it with the game's context.
    for entry in dict.fromkeys(entries):
        with contextlib.suppress(Exception):
            agent = build_agent(entry, 0, game, variant)
            agent.reset(0)
            state = game.new_state(variant, seed=0)
            view = state.view(state.current_player)
            if move_time_limit is None:
                agent.act(view)
            else:
                move = MoveThread(agent, view, move_time_limit * (1.0 - TIME_MARGIN))
                move.done.wait(move_time_limit + WARM_UP_WAIT_SECONDS)
