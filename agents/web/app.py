"""The web app: a Starlette application serving the page (``agents/web/static``) and a JSON API.

API (every error is ``{"error": message}`` with a 4xx status, and changes nothing):

* ``GET /api/games``: the games, their variants and suggested opponents.
* ``POST /api/play`` ``{game, variant?, opponent?, seat?, seed?, layout?}``: a new game against
  an agent; answers ``{id, board, state}``.
* ``GET /api/play/{id}``: the person's view now (``thinking`` while the agent moves).
* ``POST /api/play/{id}/move`` ``{action}``: play one action.
* ``DELETE /api/play/{id}``: forget the game.
* ``GET /api/junqi/layout?policy=heuristic|random``: a layout to start arranging from (rows of
  piece codes in its owner's frame, front row first; "." on camps).
* ``GET /api/runs``: the recorded games files under the runs folder.
* ``GET /api/runs/games?file=F``: the games of one file.
* ``GET /api/runs/game?file=F&index=I&view=all|0|1``: one game replayed, a position per ply.

Hidden information: a player's state is built from their view only; the whole board is sent
only when the game is over (``agents.web.views``).
"""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.junqi.deployment import LAYOUT_POLICIES
from agents.web.play import OPPONENT_EXAMPLES, PlayError, SessionStore
from agents.web.views import board_json
from agents.web.watch import RunFolder
from tbw_envs.core.contract import short_repr
from tbw_envs.games import GAMES, get_game
from tbw_envs.junqi.layout import format_layout

__all__ = ["create_app", "STATIC_DIR"]

STATIC_DIR = Path(__file__).parent / "static"
MAX_BODY_BYTES = 64 * 1024


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    """Starlette's own refusals (an unknown path, a method not allowed) in the API's shape."""
    status = getattr(exc, "status_code", 500)
    return JSONResponse({"error": str(getattr(exc, "detail", "") or "error")}, status_code=status)


async def _server_error(request: Request, exc: Exception) -> JSONResponse:
    """A failure the API did not foresee: still JSON, naming it, so the page can show it."""
    return JSONResponse({"error": f"server error: {type(exc).__name__}: {short_repr(str(exc))}"},
                        status_code=500)


def _error(exc: PlayError) -> JSONResponse:
    return JSONResponse({"error": str(exc)}, status_code=exc.status)


async def _body(request: Request) -> Any:
    chunks, size = [], 0
    async for chunk in request.stream():  # stops reading at the limit
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise PlayError(f"request body over {MAX_BODY_BYTES} bytes", status=413)
        chunks.append(chunk)
    raw = b"".join(chunks)
    try:
        return json.loads(raw or b"{}")
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PlayError(f"request body is not JSON: {exc}") from None


def create_app(runs_dir: str | Path = "runs", allowed_specs: tuple[str, ...] = (),
               max_sessions: int = 32, threads: int = 2) -> Starlette:
    """The app. ``runs_dir``: the only folder the watcher reads. ``allowed_specs``: agent
    specs the page may pick beyond registry agents (your own files, learned models by path)."""
    store = SessionStore(max_sessions=max_sessions, threads=threads, allowed_specs=allowed_specs)
    runs = RunFolder(runs_dir)

    def games(request: Request) -> Response:
        out = []
        for name in GAMES:
            description = get_game(name)
            out.append({
                "name": name, "title": description.title,
                "variant_noun": description.variant_noun,
                "variants": description.variants(),
                "default_variant": description.default_variant,
                "opponents": list(allowed_specs) + OPPONENT_EXAMPLES.get(name, ["random"]),
                "has_layouts": description.has_layouts,
            })
        return JSONResponse({"games": out})

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

    def junqi_layout(request: Request) -> Response:
        policy = request.query_params.get("policy", "heuristic")
        if policy not in LAYOUT_POLICIES:
            return _error(PlayError(f"policy must be one of {sorted(LAYOUT_POLICIES)}, got "
                                    f"{policy!r}"))
        layout = LAYOUT_POLICIES[policy](random.Random())
        board = board_json("junqi", "ccgc")
        rows = [line.split() for line in format_layout(layout).splitlines()]
        return JSONResponse({"rows": rows, "pieces": board["pieces"],
                             "headquarters": board["layout"]["headquarters"]})

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
        Route("/api/junqi/layout", junqi_layout),
        Route("/api/runs", runs_list),
        Route("/api/runs/games", runs_games),
        Route("/api/runs/game", runs_game),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ], lifespan=lifespan, exception_handlers={HTTPException: _http_error,
                                              Exception: _server_error})
    app.state.sessions = store
    app.state.runs = runs
    return app
