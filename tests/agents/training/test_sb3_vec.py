"""MaskedSB3VecEnv (agents.training.sb3_vec): SuperSuit's vector envs of our parallel_env for
sb3-contrib's MaskablePPO: masks, legality, episode ends, seeding, errors (training through it:
tests/scripts/integrations/test_supersuit_vec.py).

The adapter itself needs stable-baselines3 only (it subclasses SB3's VecEnv): the tests on a fake
vector env run without SuperSuit; the tests on SuperSuit's vector envs skip without it."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed (train extra)")

from agents.training.sb3_vec import MaskedSB3VecEnv  # noqa: E402
from tbw_envs import junqi_v0, tbw_v0  # noqa: E402

GAMES = {
    "tbw": lambda: tbw_v0.parallel_env(scenario="duel_5v5_8x8"),
    "junqi": lambda: junqi_v0.parallel_env(),
}


def vec_env(game: str, copies: int = 2) -> MaskedSB3VecEnv:
    """SuperSuit's vector env of ``copies`` games behind the adapter (skips without SuperSuit)."""
    ss = pytest.importorskip("supersuit",
                             reason="supersuit is not installed (pip install supersuit)")
    return MaskedSB3VecEnv(ss.concat_vec_envs_v1(
        ss.pettingzoo_env_to_vec_env_v1(GAMES[game]()), copies, base_class="gymnasium"))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_masked_random_play_never_plays_an_illegal_action(game):
    venv = vec_env(game)
    assert venv.num_envs == 4 and isinstance(venv.observation_space, spaces.Box)
    assert venv.has_attr("action_masks") and not venv.has_attr("seed")
    venv.seed(0)
    obs = venv.reset()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(1500 if game == "tbw" else 3000):
        masks = venv.action_masks()
        assert masks.shape == (4, venv.action_space.n) and masks.any(axis=1).all()
        assert np.array_equal(np.stack(venv.env_method("action_masks")), masks)
        # exactly one seat of each game has a choice; the other may only wait
        for game_rows in masks.reshape(2, 2, -1):
            assert sorted(row.sum() == 1 for row in game_rows) in ([False, True], [True, True])
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        obs, rewards, dones, infos = venv.step(actions)
        assert obs.shape == (4, *venv.observation_space.shape)
        for i in np.flatnonzero(dones):
            info = infos[i]
            # SuperSuit resets a finished game inside the step and merges the new game's reset
            # infos over the old one's, so end_reason and winner here are the new game's
            # ("not over"); the outcome is in the rewards (docs/integrations.md).
            assert (info["end_reason"], info["winner"]) == (0, -1)
            assert info["terminal_observation"].shape == venv.observation_space.shape
            assert info["TimeLimit.truncated"] in (True, False)
            partner = i ^ 1  # the other seat of the same game ends in the same step
            # +1/-1 or a 0/0 draw: a rule ending (an illegal move would give -1 and 0)
            assert dones[partner] and rewards[i] == -rewards[partner]
            finished += 1
    assert finished >= 2  # whole games were played, and the reset rows played on
    venv.close()


def test_seeding_reproduces_the_reset():
    venv = vec_env("junqi")  # random deployments: the seed matters
    venv.seed(3)
    first = venv.reset()
    venv.seed(3)
    assert np.array_equal(venv.reset(), first)
    venv.seed(4)
    assert not np.array_equal(venv.reset(), first)


class _FakeGames:
    """Two rows, Dict observations, one step that truncates row 0 and terminates row 1."""

    num_envs = 2
    observation_space = spaces.Dict({
        "observation": spaces.Box(0, 1, (3,), np.float32),
        "action_mask": spaces.Box(0, 1, (2,), np.int8),
    })
    action_space = spaces.Discrete(2)

    def _obs(self, value):
        return {"observation": np.full((2, 3), value, np.float32),
                "action_mask": np.array([[1, 0], [0, 1]], np.int8)}

    def reset(self, seed=None, options=None):
        self.seed_given = seed
        return self._obs(0.0), [{}, {}]

    def step(self, actions):
        last = self._obs(0.5)
        infos = [{"terminal_observation": {k: v[i] for k, v in last.items()}} for i in (0, 1)]
        return (self._obs(1.0), np.array([0.0, 1.0]), np.array([False, True]),
                np.array([True, False]), infos)

    def close(self):
        pass


def test_episode_ends_follow_sb3_conventions():
    venv = MaskedSB3VecEnv(_FakeGames())
    with pytest.raises(RuntimeError, match="call reset"):
        venv.action_masks()
    venv.seed(7)
    venv.reset()
    assert venv.games.seed_given == 7
    venv.reset()
    assert venv.games.seed_given is None  # a seed is used once, as SB3's own vector envs do
    obs, rewards, dones, infos = venv.step(np.array([0, 1]))
    assert obs.tolist() == [[1.0] * 3] * 2 and dones.tolist() == [True, True]
    assert [info["TimeLimit.truncated"] for info in infos] == [True, False]
    assert infos[0]["terminal_observation"].tolist() == [0.5] * 3
    assert venv.action_masks().tolist() == [[True, False], [False, True]]
    assert rewards.dtype == np.float32


def test_bad_input_is_refused_with_clear_errors():
    class Flat(_FakeGames):
        observation_space = spaces.Box(0, 1, (3,), np.float32)

    with pytest.raises(TypeError, match="Dict observations with 'observation' and 'action_mask'"):
        MaskedSB3VecEnv(Flat())

    class WrongMask(_FakeGames):
        action_space = spaces.Discrete(5)

    with pytest.raises(ValueError, match=r"action mask has shape \(2,\).*5 actions"):
        MaskedSB3VecEnv(WrongMask())
    venv = MaskedSB3VecEnv(_FakeGames())
    with pytest.raises(AttributeError, match="no method 'render_all'"):
        venv.env_method("render_all")
    with pytest.raises(AttributeError, match="no attribute 'spec'"):
        venv.get_attr("spec")
