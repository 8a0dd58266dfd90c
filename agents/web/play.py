"""A person against an agent: one ``PlaySession`` per game, kept in a ``SessionStore``.

The session owns the game state; the person gets only their view of it (``agents.web.views``).
The agent thinks in a worker thread, so the server keeps answering (the page polls and shows
that the agent is thinking); a TBW turn is all of the agent's unit actions, applied one by one
so the page can follow them.

What a page may ask for is limited: a registry agent by spec, with no file paths in its
parameters and its budget within the server's caps (``agents.web.limits``). Agents that load
files (``ppo:path=...``, ``weights=my.yaml``, your own ``file.py:Name``) are offered only when
the person who started the server listed them (``scripts/serve.py --agents``), since the server
would otherwise load any file a page names.

An agent's search stops (``agents.common.budget.stop_when``) when its game is deleted or
evicted or the server shuts down, and in any case after ``max_seconds`` of thinking a move. The
store keeps at most ``max_sessions`` games: it makes room by dropping finished games and games
idle for longer than ``idle_seconds`` (an hour by default), never a game still in play, and
answers 429 when every game it holds is.
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from agents.common.budget import stop_when
from agents.registry import agent_params, make_agent, parse_agent_spec
from agents.user_agents import is_user_spec
from agents.web.limits import PageLimitError, PageLimits
from agents.web.views import board_json, layout_board, position_json, revealed_json
from tbw_envs.core.contract import MAX_SEED, is_integer, kind_of, short_repr
from tbw_envs.core.errors import IllegalActionError
from tbw_envs.games import game_names, get_game

__all__ = ["PlayError", "PlaySession", "SessionStore", "check_page_spec"]

LOG_LINES = 300  # the last actions the page lists
# A page's opponent spec: far stricter than the spec syntax's own limit
# (``agents.common.spec_syntax.MAX_SPEC_CHARS``), since anyone who reaches the server may send one.
MAX_PAGE_SPEC_CHARS = 500
IDLE_SECONDS = 3600.0  # a game no request has touched for this long may be dropped
# The person's layout when the page names none: the game's own random one.
DEFAULT_LAYOUT = "random"


class PlayError(ValueError):
    """A request the game cannot take: the message says what and why; nothing changed."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def check_page_spec(spec: Any, game: str, allowed: Sequence[str] = (),
                    limits: PageLimits | None = None) -> str:
    """``spec`` if a page may name it for ``game``: any registry spec without file paths and
    within ``limits`` (default: ``PageLimits()``), or one of ``allowed`` (the specs the server
    was started with) as it stands."""
    if not isinstance(spec, str):
        raise PlayError(f"opponent must be an agent spec (text), got {kind_of(spec)} "
                        f"{short_repr(spec)}")
    spec = spec.strip()
    if not spec or len(spec) > MAX_PAGE_SPEC_CHARS:
        raise PlayError(f"opponent must be an agent spec of 1 to {MAX_PAGE_SPEC_CHARS} characters")
    if spec in allowed:
        return spec
    if is_user_spec(spec):
        raise PlayError(f"opponent {short_repr(spec)}: your own agent files are offered only "
                        f"when the server is started with them (scripts/serve.py --agents "
                        f"{short_repr(spec)})")
    try:
        name, values = parse_agent_spec(spec, game)
    except ValueError as exc:
        raise PlayError(f"opponent: {exc}") from None
    try:
        (limits or PageLimits()).check(name, values, agent_params(name, game))
    except PageLimitError as exc:
        raise PlayError(f"opponent {short_repr(spec)}: {exc}") from None
    return spec


def _check_seat(seat: Any) -> int:
    if isinstance(seat, bool) or not is_integer(seat) or int(seat) not in (0, 1):
        raise PlayError(f"seat must be 0 (moves first) or 1, got {short_repr(seat)}")
    return int(seat)


def _check_seed(seed: Any) -> int:
    if seed is None:
        return secrets.randbelow(2**31)
    if isinstance(seed, bool) or not is_integer(seed) or not 0 <= int(seed) <= MAX_SEED:
        raise PlayError(f"seed must be null or an integer 0 to 2**63-1, got {short_repr(seed)}")
    return int(seed)


class _ChosenLayout:
    """A seat whose layout is already chosen, as ``Game.start`` asks a seat for one (the game
    checks it)."""

    def __init__(self, layout: Any):
        self.chosen = layout

    def layout(self, rng: random.Random, rules: Any) -> Any:
        return self.chosen


class PlaySession:
    """One game of a person (``human_seat``) against an agent built from ``opponent``.

    ``layout`` is the person's, in a game with layouts whose web board lets them choose
    (``agents.web.views.layout_board``; Junqi's: a layout policy name, 6 rows of 5 piece codes
    in their own frame, or layout text); elsewhere only ``DEFAULT_LAYOUT``, the game's own
    choice. ``opponent_layout`` overrides the agent's own choice (for tests). ``max_seconds``:
    the agent's thinking a move is stopped there (None: no limit)."""

    def __init__(self, game: str, variant: Any, opponent: str, human_seat: int,
                 seed: int | None = None, layout: Any = DEFAULT_LAYOUT,
                 opponent_layout: Any = None, executor: ThreadPoolExecutor | None = None,
                 max_seconds: float | None = None):
        if game not in game_names():
            raise PlayError(f"unknown game {short_repr(game)}; games are {list(game_names())}")
        self.game = game
        description = get_game(game)
        if variant is None:
            variant = description.default_variant
        try:
            self.variant = description.load_variant(variant)
        except ValueError as exc:
            raise PlayError(f"{description.variant_noun}: {exc}") from None
        self.variant_name = variant if isinstance(variant, str) else self.variant.name
        self.human_seat = _check_seat(human_seat)
        self.agent_seat = 1 - self.human_seat
        self.seed = _check_seed(seed)
        self.opponent = opponent
        try:
            self.agent = make_agent(opponent, seed=self.seed, game=game, variant=self.variant_name)
            self.agent.reset(self.seed)
        except (ValueError, ImportError) as exc:  # ImportError: a learned agent needs torch
            raise PlayError(f"opponent: {exc}") from None
        except Exception as exc:  # a user's agent may fail any way when built
            raise PlayError(f"opponent {short_repr(opponent)} cannot be built: "
                            f"{type(exc).__name__}: {short_repr(str(exc))}") from None
        # The game's own start: each seat's layout(rng, rules) where the game has layouts,
        # the person's being the one they chose.
        seats: list[Any] = [None, None]
        seats[self.agent_seat] = (self.agent if opponent_layout is None
                                  else _ChosenLayout(opponent_layout))
        seats[self.human_seat] = self._human_seat(description, layout)
        labels = ["you", opponent] if self.human_seat == 0 else [opponent, "you"]
        try:
            start = description.start(self.variant, self.seed, seats, labels)
        except ValueError as exc:
            raise PlayError(str(exc)) from None
        self.state = start.state
        self.layouts = start.layouts
        self.board = board_json(game, self.variant)
        self.actions: list[int] = []
        self.log: list[dict[str, Any]] = []  # each action in words, as it was played
        self.error: str | None = None  # the agent failed: the game stops, the page says why
        self.created = self.touched = time.monotonic()
        self._lock = threading.Lock()
        self._executor = executor
        self._thinking: Future | None = None
        self.max_seconds = max_seconds
        self._closed = threading.Event()  # set: stop thinking, play no more
        self._start_agent_if_due()

    def _human_seat(self, description: Any, layout: Any) -> _ChosenLayout | None:
        """The person's seat as ``Game.start`` asks it for a layout: the one they chose where
        the game's web board lets them choose; else None (the game's own choice)."""
        if not description.has_layouts:
            return None  # nothing to choose: a layout sent along is of no use, not an error
        board = layout_board(description)
        if board is None:
            if layout is None or layout == DEFAULT_LAYOUT:
                return None
            raise PlayError(f"layout: the page cannot choose a layout in {description.title}; "
                            f"leave it out (the game draws one), got {short_repr(layout)}")
        try:
            return _ChosenLayout(board.human_layout(layout, random.Random(self.seed)))
        except ValueError as exc:
            raise PlayError(str(exc)) from None

    # ------------------------------------------------------------------ what the page sees
    @property
    def thinking(self) -> bool:
        return self._thinking is not None and not self._thinking.done()

    @property
    def in_play(self) -> bool:
        """Not over: the game can still go on (or its agent is still thinking)."""
        return self.thinking or (self.error is None and not self.state.is_terminal()
                                 and not self._closed.is_set())

    def close(self) -> None:
        """Stop the agent's search now (it returns at its next clock check) and play no more."""
        self._closed.set()
        future = self._thinking
        if future is not None:
            future.cancel()  # not started yet: never starts

    def snapshot(self) -> dict[str, Any]:
        """The person's view, and the whole board once the game is over."""
        with self._lock:
            self.touched = time.monotonic()
            state = self.state
            over = state.is_terminal()
            my_turn = (not over and state.current_player == self.human_seat
                       and not self.thinking and self.error is None)
            view = state.view(self.human_seat)
            out: dict[str, Any] = {
                "game": self.game,
                "variant": self.variant_name,
                "opponent": self.opponent,
                "seat": self.human_seat,
                "plies": len(self.actions),
                "thinking": self.thinking,
                "your_turn": my_turn,
                "over": over,
                "error": self.error,
                "log": self.log[-LOG_LINES:],
                "position": position_json(self.game, view, legal=my_turn),
            }
            if over:
                out["returns"] = list(state.returns())
                out["revealed"] = revealed_json(self.game, state)
                if self.layouts is not None:
                    out["layouts"] = list(self.layouts)
            return out

    # ------------------------------------------------------------------ moves
    def move(self, action: Any) -> dict[str, Any]:
        """Play the person's ``action``; an illegal one raises ``PlayError`` and changes
        nothing. Then the agent starts thinking if it is its turn."""
        with self._lock:
            self.touched = time.monotonic()
            state = self.state
            if self.error is not None:
                raise PlayError(f"the game stopped: {self.error}", status=409)
            if state.is_terminal():
                raise PlayError("the game is over", status=409)
            if self.thinking or state.current_player != self.human_seat:
                raise PlayError("it is the agent's turn; wait for its move", status=409)
            if isinstance(action, bool) or not is_integer(action):
                raise PlayError(f"action must be an integer action id, got {kind_of(action)} "
                                f"{short_repr(action)}")
            action = int(action)
            if action not in state.legal_actions():
                words = self._words(action)
                raise PlayError(f"illegal move: {words} is not legal here")
            self._apply(action)
        self._start_agent_if_due()
        return self.snapshot()

    def _apply(self, action: Any) -> None:
        """Play ``action`` (the core refuses an illegal one and changes nothing) and log it;
        called with the lock held."""
        player = self.state.current_player
        words = get_game(self.game).describe_action(self.state, action)
        self.state.apply(action)
        self.actions.append(int(action))
        self.log.append({"player": player, "text": f"player {player}: {words}"})

    def _words(self, action: int) -> str:
        try:
            return f"action {action} ({get_game(self.game).describe_action(self.state, action)})"
        except (ValueError, IllegalActionError):
            return f"action {action} (not an action of this game)"

    def _start_agent_if_due(self) -> None:
        with self._lock:
            due = (not self.state.is_terminal() and self.state.current_player == self.agent_seat
                   and not self.thinking and self.error is None and not self._closed.is_set())
            if not due:
                return
            if self._executor is None:  # no worker: think here (tests, scripts)
                self._thinking = None
        if self._executor is None:
            self._agent_turn()
        else:
            self._thinking = self._executor.submit(self._agent_turn)

    def _agent_turn(self) -> None:
        """Every agent action until the person is to move (TBW: a whole turn)."""
        while True:
            with self._lock:
                state = self.state
                if (state.is_terminal() or state.current_player != self.agent_seat
                        or self._closed.is_set()):
                    return
                view = state.view(self.agent_seat)
            try:
                with stop_when(self._closed, seconds=self.max_seconds):
                    action = self.agent.act(view)
            except Exception as exc:  # the page must learn why the game stopped
                with self._lock:
                    self.error = f"the agent failed: {type(exc).__name__}: {short_repr(str(exc))}"
                return
            with self._lock:
                if self._closed.is_set():
                    return  # deleted while it thought: its move is of no game now
                try:
                    self._apply(action)
                except (IllegalActionError, ValueError) as exc:
                    self.error = f"the agent played an illegal move: {short_repr(str(exc))}"
                    return

    def wait(self, timeout: float | None = None) -> None:
        """Block until the agent has moved (tests and scripts)."""
        future = self._thinking
        if future is not None:
            future.result(timeout)


class SessionStore:
    """The games being played, by id: at most ``max_sessions``. Room is made by dropping
    finished games (the least recently used first) and games idle for ``idle_seconds``
    without a request; a game still in play is never dropped, and when every game held is in
    play a new one is refused with 429. ``limits``: what a page may ask an agent to spend."""

    def __init__(self, max_sessions: int = 32, idle_seconds: float = IDLE_SECONDS,
                 threads: int = 2, allowed_specs: Sequence[str] = (),
                 limits: PageLimits | None = None):
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self.allowed_specs = tuple(allowed_specs)
        self.limits = limits or PageLimits(threads=threads)
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="agent")
        self._sessions: OrderedDict[str, PlaySession] = OrderedDict()
        self._lock = threading.Lock()

    def create(self, request: Any) -> tuple[str, PlaySession]:
        if not isinstance(request, dict):
            raise PlayError(f"expected a JSON object, got {kind_of(request)}")
        known = {"game", "variant", "opponent", "seat", "seed", "layout"}
        unknown = sorted(set(request) - known)
        if unknown:
            raise PlayError(f"unknown field(s) {unknown}; fields are {sorted(known)}")
        game = request.get("game")
        if game not in game_names():
            raise PlayError(f"game must be one of {list(game_names())}, got {short_repr(game)}")
        opponent = check_page_spec(request.get("opponent", "random"), game, self.allowed_specs,
                                   self.limits)
        variant = request.get("variant")
        if variant is not None and (not isinstance(variant, str)
                                    or variant not in get_game(game).variants()):
            raise PlayError(f"variant must be one of {get_game(game).variants()}, got "
                            f"{short_repr(variant)}")
        with self._lock:
            self._make_room()  # before the agent is built: a full store starts nothing
        session = PlaySession(game, variant, opponent, request.get("seat", 0),
                              seed=request.get("seed"),
                              layout=request.get("layout", DEFAULT_LAYOUT),
                              executor=self.executor, max_seconds=self.limits.max_seconds)
        session_id = secrets.token_urlsafe(16)
        with self._lock:
            try:
                self._make_room()  # another request may have filled it meanwhile
            except PlayError:
                session.close()
                raise
            self._sessions[session_id] = session
        return session_id, session

    def get(self, session_id: str) -> PlaySession:
        with self._lock:
            self._drop_idle()
            session = self._sessions.get(session_id)
            if session is None:
                raise PlayError("no such game (it ended long ago, or the server restarted)",
                                status=404)
            self._sessions.move_to_end(session_id)
            return session

    def delete(self, session_id: str) -> None:
        with self._lock:
            session = self._sessions.pop(session_id, None)
        if session is None:
            raise PlayError("no such game", status=404)
        session.close()

    def _drop(self, key: str) -> None:
        self._sessions.pop(key).close()

    def _drop_idle(self) -> None:
        now = time.monotonic()
        # The page polls while its agent thinks, so a game whose page is open is never idle.
        for key in [k for k, s in self._sessions.items() if now - s.touched > self.idle_seconds]:
            self._drop(key)

    def _make_room(self) -> None:
        """Room for one more game, called with the lock held: idle games go, then finished
        ones, the least recently used first; 429 when all the rest are in play."""
        self._drop_idle()
        if len(self._sessions) < self.max_sessions:
            return
        finished = [k for k, s in self._sessions.items() if not s.in_play]
        if not finished:
            raise PlayError(f"the server holds {self.max_sessions} games in play, its limit "
                            f"(scripts/serve.py --max-games); finish or leave one (a game no "
                            f"request touches for {self.idle_seconds / 60:g} minutes is "
                            f"dropped), or try again later", status=429)
        self._drop(finished[0])

    def __len__(self) -> int:
        return len(self._sessions)

    def close(self) -> None:
        """Stop every agent's search and the workers (the server shuts down)."""
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for session in sessions:
            session.close()
        self.executor.shutdown(wait=False, cancel_futures=True)
