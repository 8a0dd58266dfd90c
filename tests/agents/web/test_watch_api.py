"""Watching recorded games through the web API (``agents.web.watch``): the files under the runs
folder and nothing else; a game replayed per ply in each view, one player's view hiding the
other's pieces; what a search thought, when the arena recorded it."""

from __future__ import annotations

import json
import os
import textwrap

import pytest

from agents.arena import run_round_robin, write_result


def record_ply(record, ply):
    """(from post, to post) of the record's ``ply``-th action (1-based)."""
    action = record["actions"][ply - 1]
    return action // 60, action % 60


@pytest.fixture
def runs_client(make_client, written_runs):
    root = written_runs["tbw"]["games.jsonl"].parent.parent
    return make_client(runs_dir=root), root


def replayed_result(client, name, index):
    """What the game view says the result of game ``index`` is (it replays the game)."""
    response = client.get("/api/runs/game", params={"file": name, "index": index})
    assert response.status_code == 200, response.json()
    return response.json()["result"]


def test_the_files_and_games_of_the_runs_folder(runs_client):
    client, root = runs_client
    files = client.get("/api/runs").json()["files"]
    assert sorted(files) == ["junqi/games.jsonl", "tbw/games.jsonl"]  # the manifests aside
    for name in files:
        records = [json.loads(line) for line in (root / name).read_text().splitlines()]
        for index, record in enumerate(records):
            result = replayed_result(client, name, index)
            assert result == {key: record["result"][key]
                              for key in ("returns", "winner", "end_reason", "plies")}
        games = client.get("/api/runs/games", params={"file": name}).json()["games"]
        assert [g["result"] for g in games] == [replayed_result(client, name, i)
                                                for i in range(len(records))]
        assert [g["agents"] for g in games] == [r["agents"] for r in records]
    # A run folder stands for its games.jsonl.
    assert client.get("/api/runs/games", params={"file": "tbw"}).status_code == 200


def test_the_games_list_gives_no_result_for_a_game_not_yet_replayed(make_client, tmp_path,
                                                                    written_runs):
    (tmp_path / "run").mkdir()
    path = tmp_path / "run" / "games.jsonl"
    path.write_bytes(written_runs["junqi"]["games.jsonl"].read_bytes())
    client = make_client(runs_dir=tmp_path)
    games = client.get("/api/runs/games", params={"file": "run"}).json()["games"]
    assert len(games) == 2
    for g in games:
        assert g["result"] is None and g["problem"] is None
        assert not {"winner", "end_reason", "plies"} & set(g)
    result = replayed_result(client, "run", 1)
    games = client.get("/api/runs/games", params={"file": "run"}).json()["games"]
    assert games[0]["result"] is None and games[1]["result"] == result
    # The file written again is read again: what was replayed before no longer counts.
    path.write_bytes(path.read_bytes() + b"\n")
    games = client.get("/api/runs/games", params={"file": "run"}).json()["games"]
    assert [g["result"] for g in games] == [None, None]


def test_a_claimed_result_that_does_not_replay_is_never_listed(make_client, tmp_path,
                                                             written_runs):
    records = [json.loads(line) for line in
               written_runs["junqi"]["games.jsonl"].read_text().splitlines()]
    claimed = records[0]["result"]
    claimed.update(winner=None if claimed["winner"] is not None else 0,
                   end_reason="resigned", plies=claimed["plies"] + 5)
    (tmp_path / "claims.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    client = make_client(runs_dir=tmp_path)
    first = client.get("/api/runs/games", params={"file": "claims.jsonl"}).json()["games"][0]
    assert first["result"] is None and "resigned" not in json.dumps(first)
    response = client.get("/api/runs/game", params={"file": "claims.jsonl", "index": 0})
    assert response.status_code == 400 and "does not replay" in response.json()["error"]
    first = client.get("/api/runs/games", params={"file": "claims.jsonl"}).json()["games"][0]
    assert first["result"] is None and "result.winner differs" in first["problem"]


@pytest.mark.input_contract
def test_watch_errors_name_files_relative_to_the_runs_folder(make_client, tmp_path,
                                                            written_runs):
    root = tmp_path / "runs"
    (root / "deep" / "er").mkdir(parents=True)
    good = written_runs["tbw"]["games.jsonl"].read_text().splitlines()[0]
    (root / "deep" / "er" / "bad.jsonl").write_text(good + "\n{not json\n")
    os.symlink("loop.jsonl", root / "loop.jsonl")  # a link that leads to itself
    # A record naming its scenario by a path on the server that is not there (any more).
    moved = json.loads(good)
    moved["scenario"] = str(root / "scenarios" / "gone.yaml")
    (root / "moved.jsonl").write_text(json.dumps(moved) + "\n")
    client = make_client(runs_dir=root)
    listed = client.get("/api/runs")
    assert listed.status_code == 200
    assert sorted(listed.json()["files"]) == ["deep/er/bad.jsonl", "moved.jsonl"]
    for params, status, words in [
        ({"file": "deep/er/bad.jsonl"}, 400, "deep/er/bad.jsonl, line 2: not JSON"),
        ({"file": "loop.jsonl"}, 404, "no games file 'loop.jsonl' in the runs folder"),
    ]:
        for route in ("/api/runs/games", "/api/runs/game"):
            response = client.get(route, params={**params, "index": "0"})
            error = response.json()["error"]
            assert response.status_code == status and words in error, error
            assert str(tmp_path) not in error and str(root) not in error
    response = client.get("/api/runs/game", params={"file": "moved.jsonl", "index": "0"})
    error = response.json()["error"]
    assert response.status_code == 400 and "gone.yaml" in error, error
    assert "/tmp/" not in error  # where tmp_path is, even cut short by the message
    listed = client.get("/api/runs/games", params={"file": "moved.jsonl"}).json()["games"]
    assert listed[0]["variant"] == "scenarios/gone.yaml"


@pytest.mark.parametrize("view", ["all", "0", "1"])
def test_a_junqi_game_replays_per_ply_and_a_player_view_hides_the_other_side(runs_client,
                                                                              view):
    client, root = runs_client
    data = client.get("/api/runs/game",
                      params={"file": "junqi/games.jsonl", "index": 1, "view": view}).json()
    record = json.loads((root / "junqi/games.jsonl").read_text().splitlines()[1])
    frames = data["frames"]
    assert len(frames) == record["result"]["plies"] + 1
    assert all("next" in f for f in frames[:-1]) and "next" not in frames[-1]
    assert frames[-1]["end_reason"] == record["result"]["end_reason"]
    for frame in frames:
        assert "history" not in frame  # a frame carries the last ply, not the whole record
        if frame["ply"]:
            last = record_ply(record, frame["ply"])
            assert (frame["last"]["from"], frame["last"]["to"]) == last
        else:
            assert frame["last"] is None
        for post in frame["posts"]:
            if post is None:
                continue
            hidden = view != "all" and post["owner"] != int(view)
            assert (post["piece"] is None) == hidden


def test_tbw_steps_one_unit_action_at_a_time(runs_client):
    client, root = runs_client
    data = client.get("/api/runs/game", params={"file": "tbw/games.jsonl", "index": 0}).json()
    record = json.loads((root / "tbw/games.jsonl").read_text().splitlines()[0])
    assert len(data["frames"]) == len(record["actions"]) + 1
    assert data["frames"][0]["next"].startswith(("unit", "END_TURN"))
    assert data["board"]["game"] == "tbw" and data["thinking"] is None


@pytest.mark.input_contract
@pytest.mark.parametrize(("file", "status", "words"), [
    ("../junqi/games.jsonl", 403, "only paths inside the runs folder"),
    ("/etc/passwd", 403, "only paths inside the runs folder"),
    ("junqi/../../x.jsonl", 403, "only paths inside the runs folder"),
    ("nope/games.jsonl", 404, "no games file"),
    ("tbw/results.json", 404, "no games file"),
    ("", 400, "must be a path inside the runs folder"),
])
def test_paths_outside_the_runs_folder_are_refused(runs_client, file, status, words):
    client, _ = runs_client
    response = client.get("/api/runs/games", params={"file": file})
    assert response.status_code == status and words in response.json()["error"]


@pytest.mark.input_contract
def test_a_link_out_of_the_runs_folder_is_refused(make_client, tmp_path, written_runs):
    root = tmp_path / "runs"
    root.mkdir()
    os.symlink(written_runs["tbw"]["games.jsonl"].parent, root / "elsewhere")
    client = make_client(runs_dir=root)
    assert client.get("/api/runs").json()["files"] == []
    response = client.get("/api/runs/games", params={"file": "elsewhere/games.jsonl"})
    assert response.status_code == 403


@pytest.mark.input_contract
@pytest.mark.parametrize(("params", "words"), [
    ({"index": "9999"}, "game must be an index"),
    ({"index": "-1"}, "index must be a game number"),
    ({"index": "x"}, "index must be a game number"),
    ({"index": "0", "view": "2"}, "view must be one of"),
])
def test_bad_game_requests_name_the_problem(runs_client, params, words):
    client, _ = runs_client
    response = client.get("/api/runs/game", params={"file": "junqi/games.jsonl", **params})
    assert response.status_code in (400, 404) and words in response.json()["error"]


def test_a_tampered_record_is_refused_by_its_replay(make_client, tmp_path, written_runs):
    lines = written_runs["junqi"]["games.jsonl"].read_text().splitlines()
    record = json.loads(lines[0])
    record["actions"][0] = 3599
    (tmp_path / "bad.jsonl").write_text(json.dumps(record) + "\n")
    client = make_client(runs_dir=tmp_path)
    response = client.get("/api/runs/game", params={"file": "bad.jsonl", "index": 0})
    assert response.status_code == 400 and "does not replay" in response.json()["error"]


def test_what_a_search_thought_is_shown_when_recorded(make_client, tmp_path):
    result = run_round_robin("junqi", ["ismcts:iterations=20", "greedy"], games_per_pairing=2,
                             workers=1, seed=3, bootstrap=0, record_thinking=True)
    write_result(result, tmp_path / "thinking", chart=False)
    client = make_client(runs_dir=tmp_path)
    games = client.get("/api/runs/games", params={"file": "thinking"}).json()["games"]
    assert all(g["thinking"] for g in games)
    data = client.get("/api/runs/game", params={"file": "thinking", "index": 0}).json()
    thinking = data["thinking"]
    assert len(thinking) == len(data["frames"]) - 1
    # ISMCTS is player 0 in game 0: its plies say what it thought, greedy's say nothing.
    for ply, (frame, thought) in enumerate(zip(data["frames"], thinking, strict=False)):
        if frame["current_player"] == 0:
            assert thought["iterations"] <= 20 and thought["moves"], ply
            assert set(thought["belief"]) == {str(p) for p, post in enumerate(frame["posts"])
                                              if post is not None and post["owner"] == 1}
        else:
            assert thought is None


def test_a_tbw_planners_plan_is_shown_when_recorded(make_client, tmp_path):
    result = run_round_robin("tbw", ["tree:solves=4", "greedy"], games_per_pairing=2,
                             workers=1, seed=3, bootstrap=0, record_thinking=True)
    write_result(result, tmp_path / "plans", chart=False)
    client = make_client(runs_dir=tmp_path)
    data = client.get("/api/runs/game", params={"file": "plans", "index": 0}).json()
    record = result.games[0].to_record()
    assert data["thinking"] == record["thinking"]
    for ply, thought in enumerate(data["thinking"]):
        mover = data["frames"][ply]["current_player"]
        if ply < record["start"]["opening_plies"] or mover == 1:  # the opening; greedy
            assert thought is None
        else:
            assert thought["plan"][0] == record["actions"][ply]


def test_a_games_file_given_as_the_runs_folder_stands_for_its_folder(make_client, written_runs):
    path = written_runs["junqi"]["games.jsonl"]
    client = make_client(runs_dir=path)
    assert client.get("/api/runs").json()["files"] == ["games.jsonl"]
    assert len(client.get("/api/runs/games", params={"file": "games.jsonl"}).json()["games"]) == 2


def test_a_run_still_going_is_watched_through_its_journal(make_client, tmp_path):
    journal = tmp_path / "going" / "journal.jsonl"
    result = run_round_robin("junqi", ["greedy", "random"], games_per_pairing=2, workers=1,
                             seed=4, bootstrap=0, journal=journal)
    client = make_client(runs_dir=tmp_path)
    assert client.get("/api/runs").json()["files"] == ["going/journal.jsonl"]
    games = client.get("/api/runs/games", params={"file": "going/journal.jsonl"}).json()["games"]
    assert [g["game_id"] for g in games] == [g.game_id for g in result.games]
    assert [replayed_result(client, "going/journal.jsonl", i)["plies"]
            for i in range(len(games))] == [g.plies for g in result.games]
    data = client.get("/api/runs/game",
                      params={"file": "going/journal.jsonl", "index": 1, "view": "0"}).json()
    assert len(data["frames"]) == result.games[1].plies + 1


def test_a_record_naming_a_board_file_outside_the_runs_folder_is_not_replayed(make_client,
                                                                                 written_runs):
    # A record chooses the file its board is read from; the watcher reads none outside the
    # runs folder (a YAML error could quote the file).
    source = written_runs["tbw"]["games.jsonl"]
    runs_root = source.parent.parent
    records = [json.loads(line) for line in source.read_text().splitlines()]
    records[0]["scenario"] = "/etc/passwd"
    folder = runs_root / "outside"
    folder.mkdir()
    (folder / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    client = make_client(runs_dir=runs_root)
    response = client.get("/api/runs/game", params={"file": "outside/games.jsonl", "index": 0})
    assert response.status_code == 403
    message = response.json()["error"]
    assert "outside the runs folder" in message and "passwd" not in message
    assert "root:" not in response.text


def test_a_forfeited_game_is_shown_as_the_forfeiter_s_loss(make_client, tmp_path):
    agent_file = tmp_path / "cursed.py"
    agent_file.write_text(textwrap.dedent("""
        class Cursed:
            def __init__(self, seed=None):
                pass

            def reset(self, seed=None):
                pass

            def act(self, view):
                raise ValueError("cursed")
    """))
    spec = f"{agent_file}:Cursed"
    result = run_round_robin("tbw", [spec, "random"], 1, seed=3, bootstrap=0,
                             on_agent_error="forfeit")
    run = tmp_path / "runs" / "forfeit"
    write_result(result, run)
    client = make_client(runs_dir=tmp_path / "runs")
    for index, game in enumerate(result.games):
        shown = client.get("/api/runs/game", params={"file": "forfeit/games.jsonl",
                                                     "index": index}).json()["result"]
        seat = game.forfeit["seat"]
        assert shown["end_reason"] == "forfeit" and shown["winner"] == 1 - seat
