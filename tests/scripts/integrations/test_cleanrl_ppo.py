"""``scripts/integrations/cleanrl_ppo.py``: a CleanRL-style PPO trains over a SyncVectorEnv of
either game and over the batched env (``--batched``), timing the env part; ``--compare`` runs
both in one process; skipped when torch (the train extra) is not installed (CI's
``--require-integrations`` fails it instead)."""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import pytest

from tests.helpers.quick_games import QUICK_JUNQI, SKIRMISH
from tests.helpers.recipes import assert_trained

# Each game's batched env (--batched) on a variant whose games end in a few moves.
QUICK_VARIANTS = {"junqi": {"rules": QUICK_JUNQI}, "tbw": {"scenario": SKIRMISH}}


@pytest.fixture
def cleanrl_ppo():
    pytest.importorskip("torch", reason="torch is not installed (the train extra)")
    from scripts.integrations import cleanrl_ppo

    return cleanrl_ppo


@pytest.mark.parametrize("game, dict_obs", [("tbw", False), ("junqi", True)])
def test_cleanrl_style_ppo_trains_over_a_sync_vector_env(cleanrl_ppo, game, dict_obs):
    args = cleanrl_ppo.Args(game=game, iterations=2, num_envs=2, num_steps=32,
                            dict_obs=dict_obs)
    result = cleanrl_ppo.run(args)
    assert_trained(result)
    assert result["steps"] == 2 * 2 * 32 and math.isfinite(result["final_loss"])
    assert 0 < result["env_seconds"] < result["seconds"]


@pytest.mark.parametrize("dict_obs", [False, True])
@pytest.mark.parametrize("game", sorted(QUICK_VARIANTS))
def test_cleanrl_style_ppo_trains_over_the_batched_env(cleanrl_ppo, game, dict_obs):
    pytest.importorskip("numba", reason="numba not installed (the fast extra)")
    args = cleanrl_ppo.Args(game=game, **QUICK_VARIANTS[game], iterations=2, num_envs=16,
                            num_steps=8, batched=True, dict_obs=dict_obs)
    envs = cleanrl_ppo.make_envs(args)
    assert type(envs).__name__ == "SingleAgentVectorEnv" and envs.num_envs == 16
    result = cleanrl_ppo.run(args)
    assert_trained(result)
    assert result["steps"] == 2 * 16 * 8 and math.isfinite(result["final_loss"])
    assert result["episodes"] >= 1  # the batched env's same-step autoreset ran
    assert result["env_steps_per_second"] == pytest.approx(result["steps"]
                                                           / result["env_seconds"])


def test_the_env_clock_runs_inside_reset_and_step_only(cleanrl_ppo, monkeypatch):
    """On a clock that ticks once per reading, the env time is one tick per reset and per step:
    nothing else (the network, the update) is on it."""
    pytest.importorskip("numba", reason="numba not installed (the fast extra)")
    ticks = iter(range(10**6))

    class TickingClock:
        @staticmethod
        def perf_counter():
            return float(next(ticks))

    monkeypatch.setattr(cleanrl_ppo, "time", TickingClock)
    args = cleanrl_ppo.Args(game="junqi", iterations=2, num_envs=2, num_steps=4, batched=True)
    result = cleanrl_ppo.run(args)
    assert result["env_seconds"] == 1 + 2 * 4  # the reset, then 2 iterations x 4 steps
    assert result["env_steps_per_second"] == 2 * 4 * 2 / 9


@pytest.mark.parametrize("batched", [False, True])
def test_illegal_endings_are_counted_on_both_envs(cleanrl_ppo, batched):
    """An illegal learner action ends its episode; the count reads the ended episodes' infos,
    which both envs nest in final_info."""
    pytest.importorskip("numba", reason="numba not installed (the fast extra)")
    envs = cleanrl_ppo.make_envs(cleanrl_ppo.Args(game="junqi", num_envs=3, batched=batched))
    _, infos = envs.reset(seed=0)
    actions = np.argmax(infos["action_mask"], axis=1)
    actions[[0, 2]] = np.argmin(infos["action_mask"][[0, 2]], axis=1)  # illegal in rows 0, 2
    _, _, terminated, _, infos = envs.step(actions)
    assert terminated.tolist() == [True, False, True]
    assert cleanrl_ppo.illegal_endings(infos) == 2
    envs.close()


def test_compare_times_both_envs_in_one_process(cleanrl_ppo):
    pytest.importorskip("numba", reason="numba not installed (the fast extra)")
    rows = cleanrl_ppo.compare(cleanrl_ppo.Args(game="junqi", iterations=1, num_steps=4), [2, 4])
    assert [row["num_envs"] for row in rows] == [2, 4]
    for row in rows:
        sync, batched = row["sync_env_steps_per_second"], row["batched_env_steps_per_second"]
        assert sync > 0 and batched > 0
        assert row["ratio"] == pytest.approx(batched / sync, abs=0.1)


def test_the_batched_env_resets_in_the_same_step_and_alternates_seats(cleanrl_ppo):
    """As the SyncVectorEnv path: glue 1, and the learner on both seats."""
    pytest.importorskip("numba", reason="numba not installed (the fast extra)")
    envs = cleanrl_ppo.make_envs(cleanrl_ppo.Args(game="junqi", num_envs=2, batched=True))
    assert envs.autoreset_mode == gymnasium.vector.AutoresetMode.SAME_STEP
    assert envs.learner_seat_option == "alternate"
