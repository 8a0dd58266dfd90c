"""Playing against an agent through the web API (``agents.web.app``, ``agents.web.play``): whole
games of each game end; the person is sent only their view until the game is over; an illegal
or untimely move gets a clear message and changes nothing; bad requests are refused by name;
games are separate sessions; the page cannot make the server load files."""

from __future__ import annotations

import random
import textwrap

import pytest

from tbw_envs.junqi.pieces import PIECE_CODES
from tests.helpers.web_agents import illegal_move_agent_spec, wait_for_turn


def legal_actions(state):
    position = state["position"]
    if "moves" in position:
        return [m[2] for m in position["moves"]]
    actions = [a["action"] for tiles in position["options"].values() for o in tiles
               for a in o["actions"]]
    return actions


def assert_hidden(state):
    """Nothing of the opponent's pieces but their places, unless the game is over."""
    if state["game"] != "junqi":
        return
    if not state["over"]:
        assert "revealed" not in state and "layouts" not in state
    for post in state["position"]["posts"]:
        if post is not None and post["owner"] != state["seat"]:
            assert post["piece"] is None


def play_whole_game(client, request, rand, end_turn=None):
    response = client.post("/api/play", json=request)
    assert response.status_code == 200, response.text
    data = response.json()
    session_id, board = data["id"], data["board"]
    moves = 0
    while True:
        state = wait_for_turn(client, session_id)
        assert state["error"] is None
        assert_hidden(state)
        if state["over"]:
            return board, state, moves
        actions = legal_actions(state)
        if end_turn is not None or board["game"] == "tbw":
            actions.append(board["end_turn"])
        response = client.post(f"/api/play/{session_id}/move",
                               json={"action": rand.choice(actions)})
        assert response.status_code == 200, response.text
        assert_hidden(response.json()["state"])
        moves += 1


@pytest.mark.parametrize(("game", "variant", "seat"), [
    ("tbw", "duel_5v5_8x8", 0), ("tbw", "hex_skirmish", 1), ("junqi", "ccgc", 0),
    ("junqi", "house", 1),
])
def test_a_whole_game_against_random_ends_and_reveals_at_the_end(client, game, variant, seat):
    board, state, moves = play_whole_game(
        client, {"game": game, "variant": variant, "opponent": "random", "seat": seat,
                 "seed": 7}, random.Random(seat))
    assert state["over"] and moves > 0
    assert sorted(state["returns"]) in ([-1.0, 1.0], [0.0, 0.0])
    assert state["revealed"]["end_reason"] == state["position"]["end_reason"]
    if game == "junqi":
        # Over: the whole board, both sides' pieces named, and both layouts.
        shown = [p for p in state["revealed"]["posts"] if p is not None]
        assert {p["owner"] for p in shown} <= {0, 1}
        assert all(p["piece"] in PIECE_CODES for p in shown)
        assert len(state["layouts"]) == 2
        assert len(state["position"]["history"]) == state["plies"]
    else:
        assert len(state["log"]) == min(state["plies"], 300)


def test_junqi_against_a_search_agent_moving_first(client):
    data = client.post("/api/play", json={"game": "junqi", "opponent": "ismcts:iterations=20",
                                          "seat": 1, "seed": 3}).json()
    state = wait_for_turn(client, data["id"])
    assert state["your_turn"] and state["plies"] == 1
    assert state["position"]["history"][0]["player"] == 0


@pytest.mark.input_contract
def test_an_illegal_move_is_refused_by_name_and_changes_nothing(client):
    data = client.post("/api/play", json={"game": "junqi", "opponent": "random", "seed": 1}).json()
    session_id = data["id"]
    before = client.get(f"/api/play/{session_id}").json()["state"]
    for action, words in [(5, "illegal move: action 5 (A0-B0) is not legal here"),
                          (3605, "is not legal here"), (99999, "not an action of this game"),
                          (-1, "not an action of this game"),
                          ("K0", "action must be an integer action id"),
                          (True, "action must be an integer action id"),
                          (1.5, "action must be an integer action id")]:
        response = client.post(f"/api/play/{session_id}/move", json={"action": action})
        assert response.status_code == 400
        assert words in response.json()["error"]
    for body in ({}, {"action": 1, "extra": 2}, [1]):
        response = client.post(f"/api/play/{session_id}/move", json=body)
        assert response.status_code == 400 and "action" in response.json()["error"]
    response = client.post(f"/api/play/{session_id}/move", content=b"{not json",
                           headers={"Content-Type": "application/json"})
    assert response.status_code == 400 and "not JSON" in response.json()["error"]
    assert client.get(f"/api/play/{session_id}").json()["state"] == before


@pytest.mark.input_contract
def test_tbw_illegal_moves_name_the_problem(client):
    data = client.post("/api/play", json={"game": "tbw", "opponent": "random", "seed": 1}).json()
    session_id = data["id"]
    before = client.get(f"/api/play/{session_id}").json()["state"]
    legal = set(legal_actions(before)) | {data["board"]["end_turn"]}
    illegal = next(a for a in range(data["board"]["end_turn"]) if a not in legal)
    response = client.post(f"/api/play/{session_id}/move", json={"action": illegal})
    assert response.status_code == 400
    assert response.json()["error"].startswith(f"illegal move: action {illegal} (unit ")
    assert client.get(f"/api/play/{session_id}").json()["state"] == before


@pytest.mark.input_contract
@pytest.mark.parametrize(("request_body", "words"), [
    ({"game": "chess"}, "game must be one of"),
    ({"game": "junqi", "seat": 2}, "seat must be 0"),
    ({"game": "junqi", "seat": "0"}, "seat must be 0"),
    ({"game": "junqi", "seed": -1}, "seed must be"),
    ({"game": "junqi", "seed": "1"}, "seed must be"),
    ({"game": "junqi", "seed": True}, "seed must be"),
    ({"game": "junqi", "seed": 2**63}, "seed must be"),
    ({"game": "junqi", "seat": 0.0}, "seat must be 0"),
    ({"game": "junqi", "variant": "nope"}, "variant must be one of"),
    ({"game": "junqi", "opponent": "alphazero"}, "unknown agent"),
    ({"game": "junqi", "opponent": "ismcts:iterations=-3"}, "iterations"),
    ({"game": "junqi", "opponent": "alg2"}, "does not play junqi"),
    ({"game": "junqi", "opponent": 3}, "opponent must be an agent spec"),
    ({"game": "junqi", "opponent": "x" * 600}, "1 to 500 characters"),
    ({"game": "junqi", "opponent": "agent.py:Mine"}, "offered only when the server is started"),
    ({"game": "junqi", "opponent": "ppo:path=/etc/passwd"}, "names a file"),
    ({"game": "tbw", "opponent": "exact:weights=../../secret.yaml"}, "names a file"),
    ({"game": "junqi", "layout": "diagonal"}, "layout must be one of"),
    ({"game": "junqi", "layout": [["FL"] * 5] * 6}, "your layout"),
    ({"game": "junqi", "colour": "red"}, "unknown field(s) ['colour']"),
])
def test_bad_requests_are_refused_by_name(client, request_body, words):
    response = client.post("/api/play", json=request_body)
    assert response.status_code == 400
    assert words in response.json()["error"]
    assert len(client.app.state.sessions) == 0


@pytest.mark.input_contract
def test_bodies_that_are_not_a_json_object_or_too_big_are_refused(client):
    for body, status, words in [(b"[1]", 400, "expected a JSON object, got list"),
                                (b"\xff", 400, "request body is not JSON"),
                                (b'{"game": "' + b"x" * 70_000 + b'"}', 413,
                                 "request body over 65536 bytes")]:
        response = client.post("/api/play", content=body,
                               headers={"Content-Type": "application/json"})
        assert response.status_code == status and words in response.json()["error"]
    # Starlette's own refusals come in the same shape.
    assert client.get("/api/nothing").json() == {"error": "Not Found"}
    assert client.delete("/api/games").status_code == 405
    assert len(client.app.state.sessions) == 0


def test_an_arranged_junqi_layout_is_played_and_checked(client):
    rows = client.get("/api/junqi/layout?policy=heuristic").json()["rows"]
    assert len(rows) == 6 and all(len(row) == 5 for row in rows)
    data = client.post("/api/play", json={"game": "junqi", "layout": rows, "seed": 2}).json()
    position = data["state"]["position"]
    # Player 0's front row is row G (posts 30-34), its back row L.
    for r, row in enumerate(rows):
        for c, token in enumerate(row):
            post = position["posts"][(6 + r) * 5 + c]
            assert (post is None) if token == "." else post["piece"] == token
    # The flag moved out of its headquarters is refused, naming the rule.
    flag = next((r, c) for r, row in enumerate(rows) for c, t in enumerate(row) if t == "FL")
    other = (0, 0)
    rows[flag[0]][flag[1]], rows[other[0]][other[1]] = rows[other[0]][other[1]], "FL"
    response = client.post("/api/play", json={"game": "junqi", "layout": rows})
    assert response.status_code == 400 and "flag" in response.json()["error"]


def test_games_are_separate_sessions(client):
    first = client.post("/api/play", json={"game": "junqi", "seed": 1}).json()
    second = client.post("/api/play", json={"game": "junqi", "seed": 1}).json()
    assert first["id"] != second["id"]
    action = first["state"]["position"]["moves"][0][2]
    client.post(f"/api/play/{first['id']}/move", json={"action": action})
    assert wait_for_turn(client, first["id"])["plies"] == 2
    assert client.get(f"/api/play/{second['id']}").json()["state"]["plies"] == 0
    assert client.delete(f"/api/play/{second['id']}").status_code == 200
    response = client.get(f"/api/play/{second['id']}")
    assert response.status_code == 404 and "no such game" in response.json()["error"]
    assert client.post("/api/play/nope/move", json={"action": 1}).status_code == 404


# An agent that thinks until the test lets it move (a file appears), however busy the machine.
SLOW_AGENT = textwrap.dedent("""
    import os
    import time

    GATE = {gate!r}

    class SlowAgent:
        name = "slow"

        def __init__(self, seed=None):
            pass

        def reset(self, seed=None):
            pass

        def act(self, view):
            for _ in range(6000):
                if os.path.exists(GATE):
                    break
                time.sleep(0.01)
            return view.legal_actions()[0]
""")


def test_while_the_agent_thinks_the_page_is_told_and_a_move_waits(make_client, tmp_path):
    path = tmp_path / "slow_agent.py"
    gate = tmp_path / "move now"
    path.write_text(SLOW_AGENT.format(gate=str(gate)))
    spec = f"{path}:SlowAgent"
    client = make_client(allowed_specs=(spec,))
    assert spec in client.get("/api/games").json()["games"][0]["opponents"]
    data = client.post("/api/play", json={"game": "junqi", "opponent": spec, "seat": 1}).json()
    state = client.get(f"/api/play/{data['id']}").json()["state"]
    assert state["thinking"] and not state["your_turn"] and "moves" not in state["position"]
    response = client.post(f"/api/play/{data['id']}/move", json={"action": 0})
    assert response.status_code == 409 and "agent's turn" in response.json()["error"]
    gate.touch()
    assert wait_for_turn(client, data["id"])["plies"] == 1


def test_an_agent_that_fails_stops_the_game_with_its_reason(make_client, tmp_path):
    spec = illegal_move_agent_spec(tmp_path)
    client = make_client(allowed_specs=(spec,))
    data = client.post("/api/play", json={"game": "junqi", "opponent": spec, "seat": 1}).json()
    state = wait_for_turn(client, data["id"])
    assert "the agent played an illegal move" in state["error"]
    response = client.post(f"/api/play/{data['id']}/move", json={"action": 0})
    assert response.status_code == 409 and "the game stopped" in response.json()["error"]


def test_the_page_lists_games_variants_and_opponents(client):
    games = {g["name"]: g for g in client.get("/api/games").json()["games"]}
    assert set(games) == {"tbw", "junqi"}
    assert "duel_5v5_8x8" in games["tbw"]["variants"] and "ccgc" in games["junqi"]["variants"]
    assert "ppo:pretrained" in games["junqi"]["opponents"] and games["junqi"]["has_layouts"]
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/../app.py").status_code == 404


def test_the_page_fetches_nothing_from_elsewhere():
    from agents.web.app import STATIC_DIR

    files = sorted(STATIC_DIR.iterdir())
    assert {f.name for f in files} == {"index.html", "app.js", "style.css", "favicon.svg"}
    for path in files:
        text = path.read_text().replace("http://www.w3.org/2000/svg", "")  # a name, not a fetch
        assert "http:" not in text and "https:" not in text and "//cdn" not in text, path.name


def test_a_learned_opponent_without_torch_says_what_to_install(client, monkeypatch):
    import agents.web.play as web_play

    def no_torch(*args, **kwargs):
        raise ImportError("PPOAgent needs torch and sb3-contrib (the train extra)")

    monkeypatch.setattr(web_play, "make_agent", no_torch)
    response = client.post("/api/play", json={"game": "junqi", "opponent": "ppo:pretrained"})
    assert response.status_code == 400
    assert response.json()["error"] == ("opponent: PPOAgent needs torch and sb3-contrib (the "
                                        "train extra)")


def test_an_agent_that_fails_to_build_is_named(make_client, tmp_path):
    path = tmp_path / "broken_agent.py"
    path.write_text("class Broken:\n    name = 'broken'\n\n"
                    "    def __init__(self, seed=None):\n        raise KeyError('no model')\n\n"
                    "    def reset(self, seed=None):\n        pass\n\n"
                    "    def act(self, view):\n        return 0\n")
    spec = f"{path}:Broken"
    client = make_client(allowed_specs=(spec,))
    response = client.post("/api/play", json={"game": "junqi", "opponent": spec})
    assert response.status_code == 400 and "no model" in response.json()["error"]


def test_an_unforeseen_failure_is_still_a_json_error(tmp_path, monkeypatch):
    from starlette.testclient import TestClient

    from agents.web.app import create_app

    app = create_app(runs_dir=tmp_path)
    monkeypatch.setattr(app.state.runs, "files", lambda: 1 / 0)
    with TestClient(app, raise_server_exceptions=False, base_url="http://127.0.0.1") as client:
        response = client.get("/api/runs")
    assert response.status_code == 500
    assert response.json() == {"error": "server error: ZeroDivisionError: 'division by zero'"}
