"""The shipped learned agents: the files are the ones measured (their SHA-256 is pinned here and
in the manifest), they load without running code, refuse another board, play legal games and
beat random."""

from __future__ import annotations

import hashlib
import shutil

import pytest

pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (the train extra)")

from agents.arena import run_round_robin  # noqa: E402
from agents.policy import pretrained  # noqa: E402
from agents.registry import make_agent  # noqa: E402

# Typed from docs/results.md ("Shipped learned agents"), not read from the manifest.
PINNED = {
    "tbw": ("pretrained/tbw_duel_5v5_8x8.npz", "duel_5v5_8x8",
            "760484c307bedee440f379a6726dd7e96c6ff2684a6c60f3786da1b5188015cd"),
    "junqi": ("pretrained/junqi_ccgc.npz", "ccgc",
              "00df3e5dc18d0ba6cf692154eae58079f32ed1417c9486e63f0ca50ddc3574c0"),
}
MAX_BYTES = 10 * 1024 * 1024


@pytest.mark.parametrize("game", sorted(PINNED))
def test_each_shipped_file_is_the_one_measured(game):
    name, trained_for, digest = PINNED[game]
    entry = pretrained.manifest()[game]
    assert (entry["file"], entry["trained_for"], entry["sha256"]) == (name, trained_for, digest)
    path = pretrained.pretrained_path(game)
    data = path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == digest and len(data) <= MAX_BYTES


def test_a_changed_file_is_refused(tmp_path, monkeypatch):
    from tbw_envs.core import configs_path

    copy = tmp_path / "configs"
    shutil.copytree(configs_path.configs_dir() / "agents", copy / "agents")
    target = copy / "agents" / PINNED["tbw"][0]
    data = bytearray(target.read_bytes())
    data[-1] ^= 1
    target.write_bytes(bytes(data))
    monkeypatch.setattr(pretrained, "configs_dir", lambda: copy)
    with pytest.raises(ValueError, match="SHA-256"):
        pretrained.pretrained_path("tbw")


def test_pretrained_needs_a_game_and_refuses_another_board():
    with pytest.raises(ValueError, match="needs the game"):
        make_agent("ppo:pretrained")
    with pytest.raises(ValueError, match="battle_10v10_16x16"):
        make_agent("ppo:pretrained", game="tbw", variant="battle_10v10_16x16")
    agent = make_agent("ppo:pretrained", game="tbw", variant="duel_5v5_8x8")
    assert agent.game == "tbw"


@pytest.mark.parametrize("game, opening", [("tbw", 6), ("junqi", 0)])
def test_the_shipped_agent_plays_legal_games_and_beats_random(game, opening):
    result = run_round_robin(game, ["ppo:pretrained", "random"], 6, workers=1,
                             opening_plies=opening, progress=False, bootstrap=0)
    (stats,) = result.pairing_stats()
    assert stats.agents == ("ppo:pretrained", "random") and stats.games == 6
    assert stats.score(0) >= 5 / 6, stats.record(0)


def test_the_junqi_policy_as_a_search_prior():
    """``move_probabilities`` is the policy's distribution over the core's legal moves, the
    same one ``act`` plays the argmax of; ``ismcts:policy=pretrained`` hands it to the root."""
    from agents.registry import make_agent
    from tbw_envs.junqi import JunqiState

    agent = make_agent("ppo:pretrained", game="junqi", seed=0)
    state = JunqiState.random_initial(3)
    for _ in range(30):
        state.apply(state.legal_actions()[0])
        view = state.view(state.current_player)
        moves = view.legal_actions()
        probabilities = agent.move_probabilities(view, moves)
        assert len(probabilities) == len(moves) and min(probabilities) >= 0.0
        assert sum(probabilities) == pytest.approx(1.0, abs=1e-5)
        best = moves[max(range(len(moves)), key=probabilities.__getitem__)]
        assert agent.act(view) == best
    search = make_agent("ismcts:iterations=20,policy=pretrained", game="junqi", seed=0)
    assert search.tree_policy.root_prior(view, moves) == agent.move_probabilities(view, moves)
    assert search.act(view) in moves
    with pytest.raises(ValueError, match="tbw"):
        make_agent(f"ismcts:policy={pretrained.pretrained_path('tbw')}", game="junqi")


# The shipped self-play network (learned:pretrained), typed from docs/results.md.
PINNED_LEARNED = {
    "junqi": ("pretrained/junqi_ccgc_learned.npz", "ccgc",
              "830ae78e4873724c4b747f38de358f364e8035048910a8066b961aa390ec9919"),
}


@pytest.mark.parametrize("game", sorted(PINNED_LEARNED))
def test_each_shipped_network_is_the_one_measured(game):
    name, trained_for, digest = PINNED_LEARNED[game]
    entry = pretrained.manifest("learned")[game]
    assert (entry["file"], entry["trained_for"], entry["sha256"]) == (name, trained_for, digest)
    data = pretrained.pretrained_path(game, "learned").read_bytes()
    assert hashlib.sha256(data).hexdigest() == digest and len(data) <= MAX_BYTES


def test_the_shipped_network_plays_alone_and_guiding_the_search():
    result = run_round_robin("junqi", ["learned:pretrained", "random"], 6, workers=1,
                             progress=False, bootstrap=0)
    (stats,) = result.pairing_stats()
    assert stats.score(0) >= 5 / 6, stats.record(0)
    search = make_agent("learned:pretrained,simulations=10", game="junqi", seed=0)
    assert search.path == str(pretrained.pretrained_path("junqi", "learned"))


def test_an_unshipped_kind_or_game_is_named():
    with pytest.raises(ValueError, match="shipped kinds are ppo, learned"):
        pretrained.manifest_path("dqn")
    with pytest.raises(ValueError, match="no learned:pretrained agent of tbw is shipped"):
        make_agent("learned:pretrained", game="tbw")
