"""The web app served on a free local port in a background thread (the browser tests, the
screenshot script): ``with serve_in_thread(app) as url: ...``."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

# Debian's Chromium, headless; without the background-networking flags it keeps trying to reach
# Google's hosts, which a closed network refuses.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync")


@contextlib.contextmanager
def serve_in_thread(app: Any, start_seconds: float = 30.0) -> Iterator[str]:
    """``app`` on 127.0.0.1 at a free port, in a thread: yields its URL, stops it after."""
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_seconds
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the web app did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(10)
