"""The web app: a Starlette application serving the page (``agents/web/static``) and a JSON API.

API (every error is ``{"error": message}`` with a 4xx status, and changes nothing):

* ``GET /api/games``: the games, their variants and suggested opponents.
* ``POST /api/play`` ``{game, variant?, opponent?, seat?, seed?, layout?}``: a new game against
  an agent; answers ``{id, board, state}``.
* ``GET /api/play/{id}``: the person's view now (``thinking`` while the agent moves).
* ``POST /api/play/{id}/move`` ``{action}``: play one action.
* ``DELETE /api/play/{id}``: forget the game.
* ``GET /api/{game}/layout?policy=P``: for a game whose web board lets the person arrange a
  layout (Junqi: ``heuristic`` or ``random``), one to start arranging from (Junqi: rows of
  piece codes in its owner's frame, front row first; "." on camps).
* ``GET /api/runs``: the recorded games files under the runs folder.
* ``GET /api/runs/games?file=F``: the games of one file.
* ``GET /api/runs/game?file=F&index=I&view=all|0|1``: one game replayed, a position per ply.

Hidden information: a player's state is built from their view only; the whole board is sent
only when the game is over (``agents.web.views``).

Who may talk to the server (the Host, Origin and Content-Type checks, the security headers):
``agents.web.guard``. What a page may ask an agent to spend: ``agents.web.limits``. A body is
JSON of at most 64 KiB, nested at most ``MAX_JSON_DEPTH`` deep, with no repeated keys and no
NaN or Infinity; anything else gets a 400 (or 413) naming the problem: the API answers 4xx for
every bad request, never 500. Error messages name no absolute path of the server
(``RunFolder.public``: relative to the runs folder, or cut to the file's name).
"""

from __future__ import annotations

import contextlib
import json
import random
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.web.guard import RequestGuard
from agents.web.limits import DEFAULT_MAX_SECONDS, PageLimits
from agents.web.play import IDLE_SECONDS, PlayError, SessionStore
from agents.web.views import layout_board, web_board
from agents.web.watch import RunFolder
from tbw_envs.core.contract import short_repr
from tbw_envs.games import game_names, get_game

__all__ = ["create_app", "STATIC_DIR"]

STATIC_DIR = Path(__file__).parent / "static"
MAX_BODY_BYTES = 64 * 1024
MAX_JSON_DEPTH = 8  # a layout, the deepest request, is 3


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    """Starlette's own refusals (an unknown path, a method not allowed) in the API's shape."""
    status = getattr(exc, "status_code", 500)
    return JSONResponse({"error": str(getattr(exc, "detail", "") or "error")}, status_code=status)


async def _server_error(request: Request, exc: Exception) -> JSONResponse:
    """A failure the API did not foresee: still JSON, naming it, so the page can show it."""
    message = request.app.state.runs.public(str(exc))
    return JSONResponse({"error": f"server error: {type(exc).__name__}: {short_repr(message)}"},
                        status_code=500)


def _object_without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise PlayError(f"request body repeats the key {short_repr(key)}")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise PlayError(f"request body holds {name}, which JSON does not allow")


def _depth(value: Any) -> int:
    """How deeply ``value`` nests lists and objects (a scalar: 0), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth + 1)
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict)
                                                  else item))
    return deepest


def parse_json_body(raw: bytes) -> Any:
    """``raw`` as JSON, or ``PlayError`` (400) naming what is wrong with it."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PlayError(f"request body is not JSON: not UTF-8 ({exc.reason} at byte "
                        f"{exc.start})") from None
    try:
        value = json.loads(text or "{}", object_pairs_hook=_object_without_repeats,
                           parse_constant=_no_constant)
    except PlayError:
        raise
    except json.JSONDecodeError as exc:
        raise PlayError(f"request body is not JSON: {exc}") from None
    except RecursionError:  # deeper than the parser goes: far deeper than the limit
        raise PlayError(f"request body nests deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError:  # an integer of more digits than Python converts
        raise PlayError(f"request body holds an integer of more than "
                        f"{sys.get_int_max_str_digits()} digits") from None
    if _depth(value) > MAX_JSON_DEPTH:
        raise PlayError(f"request body nests deeper than {MAX_JSON_DEPTH} levels")
    return value


async def _body(request: Request) -> Any:
    chunks, size = [], 0
    async for chunk in request.stream():  # stops reading at the limit
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise PlayError(f"request body over {MAX_BODY_BYTES} bytes", status=413)
        chunks.append(chunk)
    return parse_json_body(b"".join(chunks))


def create_app(runs_dir: str | Path = "runs", allowed_specs: tuple[str, ...] = (),
               max_sessions: int = 32, threads: int = 2,
               max_seconds: float = DEFAULT_MAX_SECONDS, hosts: tuple[str, ...] = (),
               idle_seconds: float = IDLE_SECONDS) -> Starlette:
    """The app. ``runs_dir``: the only folder the watcher reads. ``allowed_specs``: agent
    specs the page may pick beyond registry agents (your own files, learned models by path).
    ``max_seconds``: an agent's thinking a move, at most (``agents.web.limits``). ``hosts``:
    the host names the server answers to besides this machine's (``agents.web.guard``)."""
    limits = PageLimits(max_seconds=max_seconds, threads=threads)
    store = SessionStore(max_sessions=max_sessions, idle_seconds=idle_seconds, threads=threads,
                         allowed_specs=allowed_specs, limits=limits)
    runs = RunFolder(runs_dir)

    def _error(exc: PlayError) -> JSONResponse:
        return JSONResponse({"error": runs.public(str(exc))},
                            status_code=exc.status)

    def games(request: Request) -> Response:
        out = []
        for name in game_names():
            description = get_game(name)
            out.append({
                "name": name, "title": description.title,
                "variant_noun": description.variant_noun,
                "variants": description.variants(),
                "default_variant": description.default_variant,
                "opponents": list(allowed_specs) + list(web_board(description).OPPONENTS),
                "has_layouts": description.has_layouts,
                # Whether the page may offer to arrange a layout (GET /api/{game}/layout).
                "arranges_layouts": layout_board(description) is not None,
            })
        return JSONResponse({"games": out, "limits": limits.caps()})

    async def play_new(request: Request) -> Response:
        try:
            body = await _body(request)
            # Building an agent may load a network, and an agent moving first thinks at once.
            session_id, session = await run_in_threadpool(store.create, body)
            state = await run_in_threadpool(session.snapshot)
        except PlayError as exc:
            return _error(exc)
        return JSONResponse({"id": session_id, "board": session.board, "state": state})

    def play_get(request: Request) -> Response:
        try:
            session = store.get(request.path_params["id"])
            return JSONResponse({"board": session.board, "state": session.snapshot()}
                                if request.query_params.get("board") else
                                {"state": session.snapshot()})
        except PlayError as exc:
            return _error(exc)

    async def play_move(request: Request) -> Response:
        try:
            session = store.get(request.path_params["id"])
            body = await _body(request)
            if not isinstance(body, dict) or set(body) != {"action"}:
                raise PlayError('expected {"action": <action id>}')
            state = await run_in_threadpool(session.move, body["action"])
        except PlayError as exc:
            return _error(exc)
        return JSONResponse({"state": state})

    def play_delete(request: Request) -> Response:
        try:
            store.delete(request.path_params["id"])
        except PlayError as exc:
            return _error(exc)
        return JSONResponse({"deleted": True})

    def starting_layout(request: Request) -> Response:
        game = request.path_params["game"]
        if game not in game_names():
            return _error(PlayError(f"no game {short_repr(game)}; games are "
                                    f"{list(game_names())}", status=404))
        board = layout_board(game)
        if board is None:
            return _error(PlayError(f"{get_game(game).title} has no layout to arrange",
                                    status=404))
        policy = request.query_params.get("policy", board.LAYOUT_POLICY_NAMES[0])
        try:
            return JSONResponse(board.starting_layout(policy, random.Random()))
        except ValueError as exc:
            return _error(PlayError(str(exc)))

    def runs_list(request: Request) -> Response:
        return JSONResponse({"root": runs.root.name, "files": runs.files()})

    def runs_games(request: Request) -> Response:
        try:
            return JSONResponse({"games": runs.games(request.query_params.get("file"))})
        except PlayError as exc:
            return _error(exc)

    def runs_game(request: Request) -> Response:
        query = request.query_params
        try:
            index = query.get("index", "")
            if not index.isdigit():
                raise PlayError(f"index must be a game number, got {index!r}")
            return JSONResponse(runs.game(query.get("file"), int(index),
                                          query.get("view", "all")))
        except PlayError as exc:
            return _error(exc)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        store.close()

    def index(request: Request) -> Response:
        return FileResponse(STATIC_DIR / "index.html")

    app = Starlette(routes=[
        Route("/", index),
        Route("/api/games", games),
        Route("/api/play", play_new, methods=["POST"]),
        Route("/api/play/{id}", play_get),
        Route("/api/play/{id}", play_delete, methods=["DELETE"]),
        Route("/api/play/{id}/move", play_move, methods=["POST"]),
        Route("/api/{game}/layout", starting_layout),
        Route("/api/runs", runs_list),
        Route("/api/runs/games", runs_games),
        Route("/api/runs/game", runs_game),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ], lifespan=lifespan, middleware=[Middleware(RequestGuard, hosts=hosts)],
        exception_handlers={HTTPException: _http_error, Exception: _server_error})
    app.state.sessions = store
    app.state.runs = runs
    return app
