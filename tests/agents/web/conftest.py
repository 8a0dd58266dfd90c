"""The web app's test client (Starlette's, over the real routes)."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the web app needs the web extra (starlette not installed)")
pytest.importorskip("httpx2", reason="Starlette's test client needs httpx2 (not installed)")


@pytest.fixture
def make_client(tmp_path):
    """``make_client(runs_dir=..., allowed_specs=...)``: a test client of a new app."""
    from starlette.testclient import TestClient

    from agents.web.app import create_app

    clients = []

    def make(runs_dir=None, allowed_specs=(), **kwargs):
        app = create_app(runs_dir=runs_dir or tmp_path, allowed_specs=allowed_specs, **kwargs)
        # The host the server answers to (agents.web.guard): 127.0.0.1, as a browser on
        # this machine would name it.
        client = TestClient(app, base_url="http://127.0.0.1")
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client):
    return make_client()
