"""The web app as a network service (``agents.web.guard``, ``agents.web.limits``,
``agents.web.play``): what any web page the person visits might try, as a hostile page would, is
refused with a 4xx naming why, and changes nothing. Each test fails when its protection is
taken out: the Host, Origin and Content-Type checks, the security headers, the caps on what a
page may ask an agent to spend, the stop of a search whose game is deleted, evicted or whose
server shuts down, the store that never drops a game in play, and the strict JSON reader."""

from __future__ import annotations

import json
import re
import threading
import time

import pytest

from agents.web.limits import PageLimits
from agents.web.play import PlayError, PlaySession, check_page_spec
from tests.helpers import REPO_ROOT
from tests.helpers.web_agents import illegal_move_agent_spec

JSON = {"Content-Type": "application/json"}


def sessions(client):
    return client.app.state.sessions


# ---------------------------------------------------------------------- who may talk to it


@pytest.mark.parametrize("route", ["/", "/api/games", "/api/runs", "/static/app.js",
                                   "/api/play/nope"])
def test_a_foreign_host_is_refused_on_every_route(client, route):
    response = client.get(route, headers={"Host": "evil.example"})
    assert response.status_code == 421
    assert "not to Host 'evil.example'" in response.json()["error"]
    response = client.post("/api/play", json={"game": "tbw"}, headers={"Host": "evil.example"})
    assert response.status_code == 421 and len(sessions(client)) == 0


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:8000", "localhost:8000", "LOCALHOST",
                                  "[::1]:8000", "[::1]"])
def test_this_machine_s_names_are_answered(client, host):
    assert client.get("/api/games", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize("host", ["127.0.0.1.evil.example", "localhost.evil.example", "[::1]x",
                                  "127.0.0.1:80:80", ""])
def test_names_that_only_look_local_are_refused(client, host):
    assert client.get("/api/games", headers={"Host": host}).status_code == 421


def test_a_host_the_server_was_started_with_is_answered(make_client):
    client = make_client(hosts=("games.lan",))
    assert client.get("/api/games", headers={"Host": "games.lan:8000"}).status_code == 200
    assert client.get("/api/games", headers={"Host": "other.lan"}).status_code == 421


@pytest.mark.parametrize("origin", ["http://evil.example", "http://127.0.0.1:9999",
                                    "https://127.0.0.1", "null", "http://127.0.0.1.evil.example"])
def test_a_state_changing_request_from_another_origin_is_refused(client, origin):
    # A cross-site form post: text/plain needs no preflight, so only the Origin check stops it.
    response = client.post("/api/play", content=json.dumps({"game": "junqi"}),
                           headers={"Origin": origin, "Content-Type": "text/plain"})
    assert response.status_code == 403 and "another site" in response.json()["error"]
    response = client.post("/api/play", json={"game": "junqi"}, headers={"Origin": origin})
    assert response.status_code == 403
    assert len(sessions(client)) == 0
    game = client.post("/api/play", json={"game": "junqi", "seed": 1}).json()
    move = game["state"]["position"]["moves"][0][2]
    for request in (lambda: client.delete(f"/api/play/{game['id']}", headers={"Origin": origin}),
                    lambda: client.post(f"/api/play/{game['id']}/move", json={"action": move},
                                        headers={"Origin": origin})):
        assert request().status_code == 403
    assert client.get(f"/api/play/{game['id']}").json()["state"]["plies"] == 0


def test_a_cross_site_fetch_is_refused_by_its_fetch_metadata(client):
    response = client.post("/api/play", json={"game": "junqi"},
                           headers={"Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 403 and len(sessions(client)) == 0


def test_the_page_s_own_origin_and_scripts_without_one_are_answered(client):
    for headers in ({"Origin": "http://127.0.0.1"}, {"Sec-Fetch-Site": "same-origin"}, {}):
        response = client.post("/api/play", json={"game": "junqi"}, headers=headers)
        assert response.status_code == 200, response.text
    assert len(sessions(client)) == 3


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", "application/jsonx"])
def test_a_post_that_is_not_json_is_refused(client, content_type):
    headers = {} if content_type is None else {"Content-Type": content_type}
    response = client.post("/api/play", content=b'{"game": "junqi"}', headers=headers)
    assert response.status_code == 415
    assert "Content-Type: application/json" in response.json()["error"]
    assert len(sessions(client)) == 0
    response = client.post("/api/play", content=b'{"game": "junqi"}',
                           headers={"Content-Type": "application/json; charset=utf-8"})
    assert response.status_code == 200


@pytest.mark.parametrize("route", ["/", "/static/app.js", "/api/games", "/api/nothing"])
def test_every_answer_carries_the_security_headers(client, route):
    for host in ("127.0.0.1", "evil.example"):
        headers = client.get(route, headers={"Host": host}).headers
        assert headers["x-frame-options"] == "DENY"
        assert headers["x-content-type-options"] == "nosniff"
        policy = headers["content-security-policy"]
        assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
        assert "unsafe-inline" not in policy


def test_the_page_has_no_inline_script_or_style_the_policy_would_block():
    from agents.web.app import STATIC_DIR

    page = (STATIC_DIR / "index.html").read_text()
    assert "<script>" not in page and " style=" not in page and "<style" not in page
    assert re.search(r"\son[a-z]+=", page) is None  # no onclick= handlers either
    assert "style:" not in (STATIC_DIR / "app.js").read_text()


# ---------------------------------------------------------------------- what a page may spend


@pytest.mark.parametrize(("game", "spec", "words"), [
    ("junqi", "ismcts:seconds=3600", "seconds=3600 is over this server's cap of 10 s"),
    ("junqi", "ismcts:iterations=1000000", "iterations=1,000,000 is over this server's cap of "
                                           "25,000 for ismcts"),
    ("junqi", "ucbmcts:iterations=1000000", "cap of 60,000 for ucbmcts"),
    ("junqi", "mcts:iterations=20000", "cap of 10,000 for mcts"),
    ("tbw", "tree:seconds=3600", "seconds=3600 is over"),
    ("tbw", "tree:solves=100000", "cap of 100 for tree"),
    ("tbw", "tree:solve_nodes=100000000", "cap of 5,000,000 for tree"),
    ("tbw", "oep:population=10000,generations=1000000", "for oep"),
    ("tbw", "oep:population=10000", "population=10,000 is over this server's cap of 160"),
    ("tbw", "alg5:budget=1000000000", "budget=1,000,000,000 is over this server's cap of "
                                      "5,000,000 for alg5"),
    ("tbw", "exact:budget=3600.0", "budget=3600 is over this server's cap of 10 s"),
    ("junqi", "ppo:pretrained,threads=256", "threads=256 is over this server's cap of 2"),
    ("tbw", "ppo:pretrained,threads=3", "threads=3 is over"),
])
def test_a_spec_over_a_cap_is_refused_naming_the_cap_and_its_flag(client, game, spec, words):
    response = client.post("/api/play", json={"game": game, "opponent": spec})
    assert response.status_code == 400
    message = response.json()["error"]
    assert words in message
    assert "--max-seconds" in message or "--threads" in message
    assert len(sessions(client)) == 0


@pytest.mark.parametrize(("game", "spec"), [
    ("junqi", "ismcts:iterations=25000"), ("junqi", "ismcts:seconds=10"),
    ("junqi", "ucbmcts:iterations=60000"), ("junqi", "mcts:iterations=10000"),
    ("tbw", "tree:solves=100"), ("tbw", "oep:population=160,generations=1000"),
    ("tbw", "alg5:budget=5000000"), ("tbw", "exact:budget=10.0"),
    ("junqi", "ppo:pretrained,threads=2"), ("junqi", "ismcts:policy=pretrained"),
    ("tbw", "exact:weights=tuned"), ("junqi", "greedy:weights=tuned"),
])
def test_specs_within_the_caps_pass(game, spec):
    assert check_page_spec(spec, game) == spec


def test_the_caps_scale_with_the_server_s_time_and_threads():
    roomy = PageLimits(max_seconds=20, threads=4)
    assert check_page_spec("ismcts:iterations=50000", "junqi", limits=roomy)
    assert check_page_spec("ppo:pretrained,threads=4", "junqi", limits=roomy)
    with pytest.raises(PlayError, match="cap of 50,000"):
        check_page_spec("ismcts:iterations=50001", "junqi", limits=roomy)
    with pytest.raises(PlayError, match="cap of 1 s"):
        check_page_spec("ismcts:seconds=2", "junqi", limits=PageLimits(max_seconds=1))


def test_the_page_is_told_the_caps(make_client):
    limits = make_client(max_seconds=4, threads=1).get("/api/games").json()["limits"]
    assert limits["max_seconds"] == 4 and limits["threads"] == 1
    assert limits["counts"]["ismcts:iterations"] == 10_000


@pytest.mark.parametrize(("game", "spec"), [
    ("junqi", "ppo:path=.."), ("junqi", "ppo:path=."), ("junqi", "ppo:path=runs"),
    ("tbw", "ppo:path=tbw_envs"), ("junqi", "ismcts:policy=.."), ("junqi", "ismcts:policy=runs"),
    ("junqi", "ppo:path=~"), ("tbw", "exact:weights=.."), ("junqi", "greedy:weights=~root"),
])
def test_no_spec_from_a_page_names_a_file_or_folder(client, game, spec):
    response = client.post("/api/play", json={"game": game, "opponent": spec})
    assert response.status_code == 400 and "file" in response.json()["error"]
    assert len(sessions(client)) == 0


# ---------------------------------------------------------------------- stopping a search

FIRST_MOVE = {"game": "junqi", "opponent": "ismcts:iterations=25000", "seat": 1, "seed": 3}


def _thinking(client):
    """A game whose agent (moving first) is seen to be in its search: the one worker thread is
    held until the test has wrapped the agent's act, so the search cannot start unseen."""
    store = sessions(client)
    gate = threading.Event()
    store.executor.submit(gate.wait, 60)
    data = client.post("/api/play", json=FIRST_MOVE).json()
    session = store.get(data["id"])
    searching = threading.Event()
    act = session.agent.act

    def act_and_tell(view):
        searching.set()
        return act(view)

    session.agent.act = act_and_tell
    gate.set()
    assert searching.wait(30), "the agent never started its search"
    time.sleep(0.2)  # some iterations in, so the stop comes mid-search
    assert session.thinking
    return data["id"], session


def test_deleting_a_game_stops_its_agent_s_search(make_client):
    client = make_client(threads=1)
    game_id, session = _thinking(client)
    assert client.delete(f"/api/play/{game_id}").status_code == 200
    session.wait(timeout=60)  # bounds a hang only; the count below is the assertion
    assert session.agent.last_stats["iterations"] < 25_000
    assert session.actions == []  # the stopped search's move is not played


def test_evicting_an_idle_game_stops_its_agent_s_search(make_client):
    client = make_client(threads=1)
    game_id, session = _thinking(client)
    session.touched -= 7200  # as if no request had come for two hours
    assert client.get(f"/api/play/{game_id}").status_code == 404
    session.wait(timeout=60)
    assert session.agent.last_stats["iterations"] < 25_000


def test_shutting_down_stops_every_search(make_client):
    client = make_client(threads=1)
    game_id, session = _thinking(client)
    sessions(client).close()  # what the app's shutdown calls
    session.wait(timeout=60)
    assert session.agent.last_stats["iterations"] < 25_000


def test_a_move_s_thinking_stops_at_the_server_s_time_limit():
    # Without a worker the agent thinks in the constructor: 25,000 iterations stopped at
    # 0.2 s, and the game goes on with that move.
    session = PlaySession("junqi", None, "ismcts:iterations=25000", 1, seed=3, max_seconds=0.2)
    assert session.agent.last_stats["iterations"] < 25_000 and len(session.actions) == 1


# ---------------------------------------------------------------------- a full store

def test_games_in_play_are_never_dropped_and_a_full_store_answers_429(make_client, tmp_path):
    spec = illegal_move_agent_spec(tmp_path)
    client = make_client(max_sessions=3, allowed_specs=(spec,))
    ids = [client.post("/api/play", json={"game": "tbw", "seed": i}).json()["id"]
           for i in range(3)]
    response = client.post("/api/play", json={"game": "tbw"})
    assert response.status_code == 429
    assert "3 games in play, its limit" in response.json()["error"]
    assert "--max-games" in response.json()["error"]
    assert all(client.get(f"/api/play/{i}").status_code == 200 for i in ids)
    # A game that has stopped (its agent failed) is not in play: it makes room.
    client.delete(f"/api/play/{ids[2]}")
    stopped = client.post("/api/play", json={"game": "junqi", "opponent": spec, "seat": 1})
    stopped_id = stopped.json()["id"]
    sessions(client).get(stopped_id).wait(timeout=60)
    assert client.get(f"/api/play/{stopped_id}").json()["state"]["error"]
    assert client.post("/api/play", json={"game": "tbw"}).status_code == 200
    assert client.get(f"/api/play/{stopped_id}").status_code == 404
    assert all(client.get(f"/api/play/{i}").status_code == 200 for i in ids[:2])
    # An idle game makes room too.
    sessions(client).get(ids[0]).touched -= 7200
    assert client.post("/api/play", json={"game": "tbw"}).status_code == 200
    assert client.get(f"/api/play/{ids[0]}").status_code == 404


# ---------------------------------------------------------------------- malformed bodies


@pytest.mark.parametrize(("body", "words"), [
    (b"[" * 30_000 + b"]" * 30_000, "nests deeper than 8 levels"),
    (b'{"game": "junqi", "seed": ' + b"9" * 5000 + b"}", "integer of more than"),
    (b'{"game": "junqi", "game": "tbw"}', "repeats the key 'game'"),
    (b'{"game": "junqi", "seed": NaN}', "NaN"),
    (b'{"game": "junqi", "seed": Infinity}', "Infinity"),
    (b'{"game": "junqi", "layout": [[[[[[[[["FL"]]]]]]]]]}', "nests deeper"),
    (b'{"game": "junqi", "seed": 1e400}', "seed must be"),
])
def test_malformed_json_gets_a_400_with_a_message(client, body, words):
    for route in ("/api/play", "/api/play/nope/move"):
        response = client.post(route, content=body, headers=JSON)
        assert response.status_code in (400, 404), response.text
        if route == "/api/play":
            assert response.status_code == 400 and words in response.json()["error"]
    assert len(sessions(client)) == 0


def test_malformed_moves_get_a_400_too(client):
    game = client.post("/api/play", json={"game": "junqi", "seed": 1}).json()
    for body in (b"[" * 30_000, b'{"action": 1, "action": 2}', b'{"action": ' + b"7" * 5000 + b"}"):
        response = client.post(f"/api/play/{game['id']}/move", content=body, headers=JSON)
        assert response.status_code == 400 and response.json()["error"]
    assert client.get(f"/api/play/{game['id']}").json()["state"]["plies"] == 0


# ---------------------------------------------------------------------- what errors name


def test_errors_name_no_absolute_server_path(client, tmp_path):
    runs = client.app.state.runs
    assert runs.public(f"{runs.root}/a/games.jsonl: bad") == "a/games.jsonl: bad"
    assert runs.public(f"no file {REPO_ROOT}/configs/x.yaml") == "no file .../x.yaml"
    response = client.post("/api/play", json={"game": "tbw", "opponent": "greedy:weights=nope"})
    message = response.json()["error"]
    assert response.status_code == 400 and str(REPO_ROOT) not in message
