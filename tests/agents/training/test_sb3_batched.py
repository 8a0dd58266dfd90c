"""BatchedSB3VecEnv (agents.training.sb3_batched): the batched single-agent env as an SB3 VecEnv:
MaskablePPO trains on it, and what SB3 sees (observations, rewards, dones, terminal
observations, infos, masks, seeding) is what the Gymnasium env gives; bad use is refused by
name."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed (train extra)")
pytest.importorskip("numba", reason="numba not installed (the fast extra)")

import tbw_envs  # noqa: E402, F401 (registers the ids)
from agents.training.sb3_batched import BatchedSB3VecEnv  # noqa: E402
from tbw_envs.vector import sample_legal  # noqa: E402
from tests.helpers.quick_games import QUICK_JUNQI, SHORT_TBW, SKIRMISH  # noqa: E402

JUNQI_ID = "tbw_envs/JunqiSingle-v0"
TBW_ID = "tbw_envs/TBWSingle-v0"
# Training runs: (env id, variant, envs, steps). Junqi's default rules; a small TBW scenario of
# 6 rounds, on fewer envs (its batched env stepped about 1,000 learner steps/s here, Junqi's
# about 20,000).
TRAINING = {"junqi": (JUNQI_ID, {"rules": "ccgc"}, 64, 2048),
            "tbw": (TBW_ID, {"scenario": SHORT_TBW}, 16, 512)}
# Variants whose games end in a few moves.
QUICK = {"junqi": (JUNQI_ID, {"rules": QUICK_JUNQI}), "tbw": (TBW_ID, {"scenario": SKIRMISH})}


def make_batched(num_envs: int, env_id: str = JUNQI_ID, **kwargs):
    kwargs.setdefault("autoreset_mode", "same_step")
    return gymnasium.make_vec(env_id, num_envs=num_envs,
                              vectorization_mode="vector_entry_point", **kwargs)


@pytest.mark.parametrize("game", sorted(TRAINING))
def test_maskable_ppo_trains_on_the_batched_envs_with_legal_moves_only(game):
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecMonitor

    class CountEndings(BaseCallback):
        def __init__(self):
            super().__init__()
            self.endings = self.illegal = 0

        def _on_step(self) -> bool:
            for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
                if done:
                    self.endings += 1
                    self.illegal += int(info["illegal_action"])
            return True

    torch.set_num_threads(1)
    env_id, variant, num_envs, steps = TRAINING[game]
    venv = VecMonitor(BatchedSB3VecEnv(make_batched(num_envs, env_id, seed=0, **variant)))
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=256, n_epochs=1, seed=0,
                        verbose=0)
    before = [p.detach().clone() for p in model.policy.parameters()]
    counter = CountEndings()
    model.learn(steps, callback=counter)
    assert model.num_timesteps == steps
    assert any(not torch.equal(a, b)
               for a, b in zip(before, model.policy.parameters(), strict=True))
    # Unmasked, the policy's first move is nearly always illegal and ends the game at once.
    assert counter.endings >= 1 and counter.illegal == 0
    assert len(model.ep_info_buffer) == counter.endings
    venv.close()


@pytest.mark.parametrize("game", sorted(QUICK))
def test_what_sb3_sees_is_what_the_gymnasium_env_gives(game):
    n = 8
    env_id, variant = QUICK[game]  # games of a few moves: many autoresets
    envs = make_batched(n, env_id, **variant)
    venv = BatchedSB3VecEnv(make_batched(n, env_id, **variant))
    venv.seed(11)
    obs = venv.reset()
    want_obs, info = envs.reset(seed=11)
    assert np.array_equal(obs, want_obs)
    rng = np.random.default_rng(0)
    endings = 0
    for _ in range(40):
        assert np.array_equal(venv.action_masks(), info["action_mask"])
        assert np.array_equal(np.stack(venv.env_method("action_masks")), info["action_mask"])
        actions = sample_legal(info["action_mask"], rng)
        obs, rewards, dones, infos = venv.step(actions)
        want_obs, want_rewards, terminated, truncated, info = envs.step(actions)
        assert np.array_equal(obs, want_obs)
        assert rewards.dtype == np.float32 and np.array_equal(rewards, want_rewards)
        assert np.array_equal(dones, terminated | truncated)
        for i in range(n):
            if not dones[i]:
                assert "terminal_observation" not in infos[i]
                assert infos[i]["end_reason"] == info["end_reason"][i]
                continue
            endings += 1
            assert np.array_equal(infos[i]["terminal_observation"], info["final_obs"][i])
            for key in ("end_reason", "winner", "plies", "learner", "illegal_action"):
                assert infos[i][key] == info["final_info"][key][i], key  # the ended game's
                assert venv.reset_infos[i][key] == info[key][i], key  # the new game's
            assert infos[i]["TimeLimit.truncated"] is False
            assert infos[i]["end_reason"] != 0  # "not_over": this would be the new game
    assert endings >= 2 * n


def test_seed_seeds_the_next_reset_once():
    venv = BatchedSB3VecEnv(make_batched(4))
    venv.seed(5)
    first = venv.reset()
    assert np.array_equal(first, make_batched(4).reset(seed=5)[0])
    assert not np.array_equal(venv.reset(), first)  # a seed is used once, as SB3's envs do
    venv.seed(5)
    assert np.array_equal(venv.reset(), first)


def test_attributes_and_the_opponent_reach_the_batched_env():
    venv = BatchedSB3VecEnv(make_batched(4, seed=0))
    assert venv.has_attr("action_masks") and not venv.has_attr("no_such_thing")
    assert venv.get_attr("noop_action") == [venv.action_space.n - 1] * 4
    assert venv.get_attr("noop_action", indices=[1, 3]) == [venv.action_space.n - 1] * 2
    assert venv.env_is_wrapped(gymnasium.Wrapper) == [False] * 4
    venv.reset()
    calls = []

    def first_legal(observations, masks):
        calls.append(len(masks))
        return masks.argmax(axis=1)

    assert venv.env_method("set_opponent", first_legal) == [None] * 4
    venv.step(sample_legal(venv.action_masks(), np.random.default_rng(0)))
    assert calls and sum(calls) >= 1  # the new opponent answered the learner's moves


def test_bad_use_is_refused_by_name():
    with pytest.raises(ValueError, match=r"autoreset_mode='same_step'.*got 'next_step'"):
        BatchedSB3VecEnv(make_batched(2, autoreset_mode="next_step"))
    with pytest.raises(ValueError, match="without mask_in_obs=True"):
        BatchedSB3VecEnv(make_batched(2, mask_in_obs=True))
    looped = gymnasium.vector.SyncVectorEnv([lambda: gymnasium.make(JUNQI_ID)] * 2)
    with pytest.raises(TypeError, match="needs the batched single-agent env.*got SyncVectorEnv"):
        BatchedSB3VecEnv(looped)
    venv = BatchedSB3VecEnv(make_batched(2, seed=0))
    with pytest.raises(RuntimeError, match="call reset"):
        venv.action_masks()
    with pytest.raises(AttributeError, match="reaches 'action_masks'.*not 'render_all'"):
        venv.env_method("render_all")
    with pytest.raises(AttributeError, match="not 'step'"):  # stepping goes through the adapter
        venv.env_method("step", np.zeros(2, np.int64))
    with pytest.raises(ValueError, match=r"'set_opponent' acts on the whole batched env.*\[1\]"):
        venv.env_method("set_opponent", "random", indices=[1])
    with pytest.raises(AttributeError, match="has no attribute '_rng'"):
        venv.get_attr("_rng")
    with pytest.raises(AttributeError, match="cannot set 'illegal_reward' per row"):
        venv.set_attr("illegal_reward", -2.0)
    with pytest.raises(IndexError, match=r"rows 0 to 1, got \[2\]"):
        venv.get_attr("noop_action", indices=[0, 2])
    with pytest.raises(RuntimeError, match="without step_async"):
        venv.step_wait()
