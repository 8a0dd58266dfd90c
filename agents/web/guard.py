"""Who may talk to the server: the checks every request passes before a route sees it.

The server binds to this machine, but any web page the person visits can still reach it: through
the browser (a cross-site form post needs no preflight) and through DNS rebinding (a hostile
name that resolves to 127.0.0.1). So:

* the ``Host`` header must name this server: 127.0.0.1, localhost, [::1], or a host the server
  was started with (``--host``, ``--allow-host``); anything else gets 421;
* a state-changing request (POST, DELETE) from a browser must come from this server's own page:
  an ``Origin`` header, when sent, must be this server's origin, and a ``Sec-Fetch-Site`` header,
  when sent, must not say ``cross-site``; otherwise 403. Scripts such as curl send neither;
* a POST must say ``Content-Type: application/json`` (a cross-site form cannot), or gets 415;
* every answer carries a Content-Security-Policy (this server's own scripts, styles and API
  only; no framing), ``X-Frame-Options: DENY``, ``X-Content-Type-Options: nosniff`` and
  ``Referrer-Policy: no-referrer``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse

__all__ = ["LOCAL_HOSTS", "RequestGuard", "SECURITY_HEADERS", "host_name"]

LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; "
                           "img-src 'self' data:; connect-src 'self'; object-src 'none'; "
                           "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def host_name(host: str | None) -> str | None:
    """The name of a ``Host`` header without its port, lower case (``[::1]`` keeps its
    brackets); None when there is none or it is malformed."""
    if not host:
        return None
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        name, rest = host[:end + 1], host[end + 1:]
        if end < 0 or (rest and not rest.startswith(":")):
            return None
        port = rest[1:]
    else:
        name, _, port = host.partition(":")
    if not name or (port and not port.isdigit()):
        return None
    return name


def _origin_of(scheme: str, host: str) -> tuple[str, str, int] | None:
    parts = urlsplit(f"{scheme}://{host}")
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:
        return None
    return (scheme, parts.hostname or "", port or 0)


def _same_origin(origin: str, scheme: str, host: str) -> bool:
    parts = urlsplit(origin.strip().lower())
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        return False  # "null" (a sandboxed frame, a file), or not an origin at all
    return _origin_of(parts.scheme, parts.netloc) == _origin_of(scheme, host)


def _is_json(content_type: str | None) -> bool:
    media = (content_type or "").split(";", 1)[0].strip().lower()
    return media == "application/json"


class RequestGuard:
    """ASGI middleware: the checks of the module docstring. ``hosts``: the host names (without
    port) this server answers to besides ``LOCAL_HOSTS``."""

    def __init__(self, app: Any, hosts: Iterable[str] = ()):
        self.app = app
        names = {host_name(h) for h in (*LOCAL_HOSTS, *hosts)}
        self.hosts = frozenset(n for n in names if n is not None)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)

        async def send_with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []),
                                      *(h for h in SECURITY_HEADERS if h[0] not in names)]
            await send(message)

        if refusal is not None:
            await refusal(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    def _refusal(self, scope: dict) -> JSONResponse | None:
        headers = Headers(scope=scope)
        host = headers.get("host")
        if host_name(host) not in self.hosts:
            shown = "none" if host is None else repr(host[:100])
            return JSONResponse(
                {"error": f"this server answers to {', '.join(sorted(self.hosts))} only, not "
                          f"to Host {shown} (scripts/serve.py --allow-host adds a name)"},
                status_code=421)
        if scope["method"] not in STATE_CHANGING:
            return None
        origin = headers.get("origin")
        if origin is not None and not _same_origin(origin, scope.get("scheme", "http"), host):
            return JSONResponse({"error": f"refused: a request from another site's page "
                                          f"(Origin {origin[:100]!r})"}, status_code=403)
        if headers.get("sec-fetch-site", "").lower() == "cross-site":
            return JSONResponse({"error": "refused: a request from another site's page "
                                          "(Sec-Fetch-Site: cross-site)"}, status_code=403)
        if scope["method"] == "POST" and not _is_json(headers.get("content-type")):
            shown = headers.get("content-type")
            return JSONResponse(
                {"error": f"a POST must be sent as Content-Type: application/json, got "
                          f"{'none' if shown is None else repr(shown[:100])}"},
                status_code=415)
        return None
