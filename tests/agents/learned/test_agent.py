"""A self-play network as an arena agent (``learned:path=...``): it plays legal games in the
arena for both games, plays the env's own argmax (the planes it builds equal the batched env's),
cannot tell apart two Junqi positions that differ only in hidden pieces, and is refused for
another game or board; the training command runs, resumes and refuses changed settings."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (the train extra)")
pytest.importorskip("numba", reason="numba not installed (the fast extra)")

from agents.arena import run_round_robin  # noqa: E402
from agents.cli import train_learned  # noqa: E402
from agents.learned.files import load_net  # noqa: E402
from agents.learned.net import greedy_actions  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from agents.training.selfplay_eval import play_match  # noqa: E402
from tbw_envs import vector  # noqa: E402
from tbw_envs.junqi.state import JunqiState  # noqa: E402
from tests.helpers.learned_nets import VARIANTS, trained_file  # noqa: E402


@pytest.mark.parametrize("game", ["junqi", "tbw"])
def test_the_agent_plays_the_nets_argmax_on_the_envs_planes(game, tmp_path):
    path, trainer = trained_file(tmp_path, game)
    agent = make_agent(f"learned:path={path}", game=game)
    envs = vector.make(game, 4, seed=11, **VARIANTS[game])
    obs, info = envs.reset(seed=11)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(25):
        for i in range(4):
            if not info["action_mask"][i].any():  # over: the next step starts a new game
                continue
            state = envs.state(i)
            view = state.view(state.current_player) if game == "junqi" else state
            planes, mask = agent.encode(view)
            assert np.array_equal(planes, obs[i]) and np.array_equal(mask,
                                                                     info["action_mask"][i])
            expected = greedy_actions(trainer.net, obs[i:i + 1], info["action_mask"][i:i + 1])
            chosen = agent.act(view)
            frame = agent._frame(view)
            assert chosen == frame.to_core(view, int(expected[0]))
            assert chosen in state.legal_actions()
            checked += 1
        obs, _, _, _, info = envs.step(vector.sample_legal(info["action_mask"], rng))
    assert checked > 80


@pytest.mark.parametrize("game", ["junqi", "tbw"])
def test_the_agent_plays_arena_games_in_both_seats(game, tmp_path):
    path, _ = trained_file(tmp_path, game)
    result = run_round_robin(game, [f"learned:path={path}", "random"], 4, workers=1,
                             progress=False, bootstrap=0)
    (stats,) = result.pairing_stats()
    assert stats.games == 4


def test_hidden_pieces_do_not_reach_the_agent(tmp_path):
    """Two positions that differ only in which hidden enemy piece stands where: the same view,
    the same planes, the same move."""
    path, _ = trained_file(tmp_path, "junqi")
    agent = make_agent(f"learned:path={path}", game="junqi")
    homes = {"L1": (0, "flag"), "L3": (0, "mine"), "A1": (1, "flag"), "A3": (1, "mine"),
             "E0": (0, "major"), "K2": (0, "captain")}
    real = JunqiState.from_pieces({**homes, "D0": (1, "lieutenant"), "A4": (1, "marshal")})
    twin = JunqiState.from_pieces({**homes, "D0": (1, "marshal"), "A4": (1, "lieutenant")})
    assert real.kind != twin.kind
    planes_real, _ = agent.encode(real.view(0))
    planes_twin, _ = agent.encode(twin.view(0))
    assert np.array_equal(planes_real, planes_twin)
    assert agent.act(real.view(0)) == agent.act(twin.view(0))


def test_another_game_or_board_is_refused(tmp_path):
    path, _ = trained_file(tmp_path, "tbw")
    with pytest.raises(ValueError, match="trained on tbw, cannot play junqi"):
        make_agent(f"learned:path={path}", game="junqi")
    with pytest.raises(ValueError, match="expects planes"):
        make_agent(f"learned:path={path}", game="tbw", variant="battle_10v10_16x16")
    with pytest.raises(ValueError, match="path="):
        make_agent("learned", game="tbw")


def test_a_match_counts_seat_swapped_first_games(tmp_path):
    _, trainer = trained_file(tmp_path, "junqi")
    score = play_match(trainer.net, trainer.net, "junqi", VARIANTS["junqi"], 20, seed=1)
    assert score.games == 20 and score.wins + score.draws + score.losses == 20
    low, high = score.interval
    assert low <= score.score <= high
    with pytest.raises(ValueError, match="even"):
        play_match(trainer.net, "random", "junqi", VARIANTS["junqi"], 5, seed=1)


SMALL_LADDER = """\
game: junqi
variant: ccgc
games_per_opponent: 2
opening_plies: 0
seed: 5
pool:
  - {spec: random, elo: 1000}
  - {spec: "greedy:weights=tuned", elo: 1800}
source: typed for this test
"""


def test_the_command_trains_resumes_and_keeps_its_settings(tmp_path, capsys):
    out = tmp_path / "run"
    ladder = tmp_path / "ladder.yaml"
    ladder.write_text(SMALL_LADDER)
    common = ["--out", str(out), "--eval-every", "2", "--eval-games", "8", "--no-progress",
              "--ladder", str(ladder), "--ladder-every", "2"]
    first = ["--game", "junqi", "--updates", "2", "--envs", "8", "--rollout-steps", "4",
             "--minibatch", "16", "--channels", "8", "--checkpoint-every", "2"]
    assert train_learned.main(first + common) == 0
    assert train_learned.main(["--updates", "4", *common]) == 0
    with open(out / "curve.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [int(row["update"]) for row in rows] == [1, 2, 3, 4]
    assert rows[1]["vs_random"] != "" and rows[3]["vs_previous"] != ""
    # The pinned-ladder rating as training goes: one per --ladder-every, of the network kept.
    with open(out / "ladder.csv", newline="") as handle:
        ratings = list(csv.DictReader(handle))
    assert [(int(r["update"]), int(r["games"])) for r in ratings] == [(2, 4), (4, 4)]
    for rating in ratings:
        assert float(rating["elo_low"]) <= float(rating["elo"]) <= float(rating["elo_high"])
        assert load_net(out / rating["net"])[1]["updates_done"] == int(rating["update"])
    assert "Elo on the pinned ladder" in capsys.readouterr().out
    runs = json.loads((out / "run.json").read_text())
    assert [run["updates_done"] for run in runs] == [2, 4]
    assert (out / "learning_curve.png").stat().st_size > 0
    net, meta = load_net(out / "net.npz")
    assert meta["updates_done"] == 4 and meta["weights_only"]
    with pytest.raises(SystemExit):
        train_learned.main(["--updates", "6", "--envs", "16", *common])
    assert "holds a checkpoint" in capsys.readouterr().err


def test_ladder_ratings_are_refused_on_another_variant_than_the_ladders(tmp_path, capsys):
    with pytest.raises(SystemExit):
        train_learned.main(["--game", "tbw", "--scenario", "battle_10v10_16x16", "--updates",
                            "1", "--envs", "4", "--out", str(tmp_path / "run"),
                            "--ladder-every", "1", "--no-progress"])
    assert "rates on duel_5v5_8x8" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
