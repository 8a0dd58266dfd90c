"""The web app for a game it has never heard of (``agents.web.text_board``): a game whose
description names no web board (the minigame, one-heap Nim) is served the generic board, its
text render and its legal actions in words, and a person plays it to the end through the API;
its position comes from the person's view only; the page's checks (agents that play the game,
layouts) hold for it too."""

from __future__ import annotations

import json
import random

import pytest

from agents.web.views import web_board
from tests.helpers.minigame import NimState
from tests.helpers.web_agents import wait_for_turn


def test_the_page_lists_the_registered_game_with_its_own_suggestions(client,
                                                                     registered_minigame):
    games = {g["name"]: g for g in client.get("/api/games").json()["games"]}
    assert list(games)[-1] == "nim" and {"tbw", "junqi"} < set(games)
    nim = games["nim"]
    assert nim["title"] == "Nim" and nim["variant_noun"] == "heap"
    assert nim["variants"] == registered_minigame.variants()
    assert nim["opponents"] == list(registered_minigame.arena_agents) == ["random"]
    assert not nim["has_layouts"] and not nim["arranges_layouts"]
    assert games["junqi"]["arranges_layouts"] and not games["tbw"]["arranges_layouts"]


@pytest.mark.parametrize("seat", [0, 1])
def test_a_whole_game_is_played_on_the_text_board(client, registered_minigame, seat):
    game = registered_minigame
    response = client.post("/api/play", json={"game": "nim", "variant": "large",
                                              "opponent": "random", "seat": seat, "seed": 4})
    assert response.status_code == 200, response.text
    data = response.json()
    board, session_id = data["board"], data["id"]
    assert board == {"game": "nim", "kind": "text", "hidden_information": True,
                     "variant": "large", "title": "Nim", "description": None}
    rand = random.Random(seat)
    mine = 0
    while True:
        state = wait_for_turn(client, session_id)
        assert state["error"] is None
        position = state["position"]
        # The same state the session holds, rendered and described by the game itself.
        replayed = NimState(game.load_variant("large"))
        for entry in state["log"]:
            replayed.apply(int(entry["text"].rsplit(" ", 1)[1]))
        assert position["text"] == game.render_text(replayed.view(seat))
        if state["over"]:
            break
        assert position["current_player"] == seat and not position["terminal"]
        assert [a["action"] for a in position["actions"]] == replayed.legal_actions()
        assert [a["words"] for a in position["actions"]] == [
            game.describe_action(replayed, a) for a in replayed.legal_actions()]
        action = rand.choice(position["actions"])["action"]
        response = client.post(f"/api/play/{session_id}/move", json={"action": action})
        assert response.status_code == 200, response.text
        mine += 1
    assert mine >= 1 and state["plies"] == len(state["log"]) >= 6  # 21 stones, 4 at most a ply
    assert "actions" not in state["position"]
    winner = replayed.winner
    assert state["returns"][winner] == 1.0 and state["returns"][1 - winner] == -1.0
    assert state["position"]["winner"] == state["revealed"]["winner"] == winner
    assert state["revealed"]["end_reason"] == "last_stone"
    assert state["revealed"]["text"] == game.render_text(replayed)


def test_the_position_is_built_from_the_view_and_the_whole_one_only_at_the_end(
        client, registered_minigame, monkeypatch):
    # A view that hides the heap: the page must show it, never the state's own render.
    class HiddenHeap(NimState):
        def __str__(self) -> str:
            return "a hidden heap" if not self.is_terminal() else "the heap is empty"

    monkeypatch.setattr(NimState, "view", lambda self, player: HiddenHeap(
        self.variant, self.stones, self.current_player, self.winner, self.ply))
    data = client.post("/api/play", json={"game": "nim", "seat": 0, "seed": 1}).json()
    session_id = data["id"]
    state = data["state"]
    while not state["over"]:
        assert state["position"]["text"] == "a hidden heap"
        assert "revealed" not in state
        action = state["position"]["actions"][0]["action"]
        client.post(f"/api/play/{session_id}/move", json={"action": action})
        state = wait_for_turn(client, session_id)
    assert state["revealed"]["text"].startswith("heap small: empty, player ")


@pytest.mark.input_contract
def test_bad_requests_for_the_game_are_refused_by_name(client, registered_minigame):
    for body, words in [
        ({"game": "nim", "opponent": "greedy"}, "does not play nim"),
        ({"game": "nim", "opponent": "ismcts:iterations=10"}, "does not play nim"),
        ({"game": "nim", "variant": "huge"}, "variant must be one of ['small', 'tiny', 'large']"),
    ]:
        response = client.post("/api/play", json=body)
        assert response.status_code == 400 and words in response.json()["error"], body
    data = client.post("/api/play", json={"game": "nim", "seed": 2}).json()
    response = client.post(f"/api/play/{data['id']}/move", json={"action": 7})
    assert response.status_code == 400
    assert response.json()["error"].startswith("illegal move: action 7 (")
    assert len(client.app.state.sessions) == 1


@pytest.mark.input_contract
def test_a_game_with_layouts_but_no_layout_board_takes_none_from_the_page(
        client, registered_minigame, monkeypatch):
    monkeypatch.setattr(registered_minigame, "has_layouts", True)
    assert web_board("nim").KIND == "text"
    response = client.post("/api/play", json={"game": "nim", "layout": [["MA"] * 5] * 6})
    assert response.status_code == 400
    assert "the page cannot choose a layout in Nim" in response.json()["error"]
    assert client.post("/api/play", json={"game": "nim", "seed": 1}).status_code == 200
    response = client.get("/api/nim/layout")
    assert response.status_code == 404 and "Nim has no layout to arrange" in response.text


def test_the_layout_route_is_for_games_that_arrange_layouts(client):
    rows = client.get("/api/junqi/layout").json()["rows"]  # the heuristic one by default
    assert len(rows) == 6 and all(len(row) == 5 for row in rows)
    for url, status, words in [("/api/tbw/layout", 404, "TBW has no layout to arrange"),
                               ("/api/chess/layout", 404, "no game 'chess'"),
                               ("/api/junqi/layout?policy=diagonal", 400,
                                "policy must be one of ['heuristic', 'random']")]:
        response = client.get(url)
        assert response.status_code == status and words in response.json()["error"], url


def test_a_recorded_game_is_watched_on_the_text_board(make_client, registered_minigame,
                                                      tmp_path):
    from agents.arena import run_round_robin, write_result

    game = registered_minigame
    result = run_round_robin("nim", ["random", "random"], games_per_pairing=2, workers=1,
                             bootstrap=0)
    written = write_result(result, tmp_path / "nim", chart=False)["games.jsonl"]
    record = json.loads(written.read_text().splitlines()[0])
    client = make_client(runs_dir=tmp_path)
    listed = client.get("/api/runs/games?file=nim").json()["games"]
    assert [g["game"] for g in listed] == ["nim", "nim"] and listed[0]["variant"] == "small"
    for view in ("all", "0", "1"):
        data = client.get(f"/api/runs/game?file=nim&index=0&view={view}").json()
        assert data["board"]["kind"] == "text" and data["game"] == "nim"
        state = NimState(game.load_variant("small"))
        assert len(data["frames"]) == len(record["actions"]) + 1
        for ply, frame in enumerate(data["frames"]):
            assert frame["text"] == game.render_text(state) and "actions" not in frame
            if ply < len(record["actions"]):
                assert frame["next"] == game.describe_action(state, record["actions"][ply])
                state.apply(record["actions"][ply])
        assert frame["terminal"] and frame["winner"] == data["result"]["winner"] == state.winner


@pytest.fixture
def third_game():
    """TBW's description under another name and variant flag, registered for the test: a game
    the app has never heard of that reuses a bundled web board."""
    from tbw_envs.games import register, unregister
    from tbw_envs.tbw.env.game import TBWGame

    class ThirdGame(TBWGame):
        name = "third"
        variant_flag = "board"

    game = register(ThirdGame())
    yield game
    unregister(game.name)


def test_a_game_that_names_a_bundled_web_board_is_served_that_board(client, third_game):
    games = {g["name"]: g for g in client.get("/api/games").json()["games"]}
    assert games["third"]["opponents"] == games["tbw"]["opponents"]
    data = client.post("/api/play", json={"game": "third", "variant": "duel_5v5_8x8",
                                          "opponent": "greedy", "seed": 5}).json()
    assert (data["board"]["game"], data["board"]["kind"]) == ("third", "tiles")
    assert data["board"] == {**client.post("/api/play", json={
        "game": "tbw", "variant": "duel_5v5_8x8", "seed": 5}).json()["board"], "game": "third"}
    end_turn = data["board"]["end_turn"]
    response = client.post(f"/api/play/{data['id']}/move", json={"action": end_turn})
    assert response.status_code == 200
    assert response.json()["state"]["log"][0]["text"] == "player 0: END_TURN"
