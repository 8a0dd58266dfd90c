"""The serve command (``agents.cli.serve``): it binds to this machine only unless told otherwise,
checks its options and the agents it is given before serving, and serves the app for real
(uvicorn)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from tests.helpers import REPO_ROOT

pytest.importorskip("uvicorn", reason="the web app needs the web extra (uvicorn not installed)")

from agents.cli import serve  # noqa: E402


def test_defaults_bind_to_this_machine_only():
    args = serve.parse_args([])
    assert (args.host, args.port, args.runs, args.agents) == ("127.0.0.1", 8000, "runs", [])
    assert (args.max_seconds, args.max_games, args.allow_host) == (10.0, 32, [])


def test_the_script_s_default_time_cap_is_the_app_s():
    from agents.web.limits import DEFAULT_MAX_SECONDS

    assert serve.DEFAULT_MAX_SECONDS == DEFAULT_MAX_SECONDS


@pytest.mark.input_contract
@pytest.mark.parametrize(("argv", "words"), [
    (["--port", "0"], "--port must be 1 to 65535"),
    (["--port", "70000"], "--port must be 1 to 65535"),
    (["--threads", "0"], "--threads must be at least 1"),
    (["--port", "x"], "invalid int value"),
    (["--max-seconds", "0"], "--max-seconds must be above 0 and at most 3600"),
    (["--max-seconds", "nan"], "--max-seconds must be above 0"),
    (["--max-seconds", "4000"], "at most 3600"),
    (["--max-games", "0"], "--max-games must be at least 1"),
])
def test_bad_options_are_refused(argv, words, capsys):
    with pytest.raises(SystemExit) as exit_info:
        serve.parse_args(argv)
    assert exit_info.value.code == 2 and words in capsys.readouterr().err


@pytest.mark.input_contract
def test_an_agent_that_plays_no_game_is_refused_before_serving(capsys):
    assert serve.main(["--agents", "nobody"]) == 2
    assert "--agents nobody: plays no game here" in capsys.readouterr().err


def test_it_serves_the_page_and_the_api(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, str(REPO_ROOT / "scripts" / "serve.py"), "--port", str(port),
         "--runs", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games") as response:
                    games = json.load(response)["games"]
                break
            except OSError:
                assert process.poll() is None, process.communicate()
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        assert [g["name"] for g in games] == ["tbw", "junqi"]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/") as response:
            assert b"/static/app.js" in response.read()
            assert response.headers["X-Frame-Options"] == "DENY"
        # A hostile name that resolves here (DNS rebinding) is refused; --host's is answered.
        for host, status in (("evil.example", 421), ("localhost", 200)):
            request = urllib.request.Request(f"http://127.0.0.1:{port}/api/games",
                                             headers={"Host": host})
            try:
                with urllib.request.urlopen(request) as response:
                    assert response.status == status
            except urllib.error.HTTPError as refused:
                assert refused.code == status
    finally:
        process.terminate()
        process.wait(10)
