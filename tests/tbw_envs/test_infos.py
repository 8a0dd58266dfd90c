"""The end-of-game infos (``tbw_envs.infos``) through Gymnasium's vector envs over the single-agent
wrappers, the way RL clients run them: many envs, both autoreset modes, Sync and Async, over runs in
which wins, losses, draws and illegal moves end episodes in the same vector step. Every info must
stack into a numeric array with the same keys every step (a draw's winner once was None, which
crashed Gymnasium's info stacking). With ``string_infos=True`` the infos name the end reason, the
learner and the active agent instead."""

from __future__ import annotations

import functools
import threading

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import tbw_envs  # noqa: F401 - registers the env ids
from tbw_envs import tbw_v0
from tbw_envs.tbw.env.single import make_tbw_single
from tests.helpers.quick_games import QUICK_JUNQI, SKIRMISH

NUM_ENVS = 8
MAKERS = {
    "tbw": functools.partial(gymnasium.make, "tbw_envs/TBWSingle-v0", scenario=SKIRMISH,
                             learner_seat="random"),
    "junqi": functools.partial(gymnasium.make, "tbw_envs/JunqiSingle-v0", rules=QUICK_JUNQI,
                               learner_seat="random"),
}


def numeric(infos: dict, where: str) -> None:
    for key, value in infos.items():
        if key == "final_obs":
            continue
        if isinstance(value, dict):
            numeric(value, f"{where}.{key}")
            continue
        assert isinstance(value, np.ndarray) and value.dtype.kind in "biuf", (
            f"{where}[{key!r}] stacked as {getattr(value, 'dtype', type(value))}"
        )


def run(vector_cls, mode, game, steps, seed=0, illegal_rate=0.03):
    """Masked random play (an unmasked action now and then); the outcomes of each step's
    ended episodes."""
    envs = vector_cls([MAKERS[game]] * NUM_ENVS, autoreset_mode=mode)
    rng = np.random.default_rng(seed)
    keys = None
    mixed_steps, seen = 0, set()
    try:
        _, infos = envs.reset(seed=seed)
        numeric(infos, "reset")
        keys = {k for k in infos if not k.startswith("_")}
        ends = np.zeros(NUM_ENVS, bool)
        for _ in range(steps):
            masks = infos["action_mask"]
            assert masks.shape == (NUM_ENVS, envs.single_action_space.n) and masks.any(axis=1).all()
            actions = np.array([
                int(rng.choice(np.flatnonzero(~m))) if rng.random() < illegal_rate and (~m).any()
                else int(rng.choice(np.flatnonzero(m)))
                for m in masks
            ])
            _, rewards, terminated, truncated, infos = envs.step(actions)
            numeric(infos, "step")
            step_keys = {k for k in infos if not k.startswith("_")} - {"final_obs", "final_info"}
            assert step_keys == keys
            done = terminated | truncated
            if mode == AutoresetMode.NEXT_STEP:
                # The step after an ending is the autoreset: its reward is 0, not an outcome.
                done &= ~ends
                ends = terminated | truncated
            final = infos.get("final_info", infos) if mode == AutoresetMode.SAME_STEP else infos
            outcomes = set()
            for i in np.flatnonzero(done):
                if final["illegal_action"][i]:
                    outcomes.add("illegal")
                    assert rewards[i] == -1.0
                    continue
                outcomes.add({1.0: "win", -1.0: "loss", 0.0: "draw"}[float(rewards[i])])
                winner, learner = final["winner"][i], final["learner"][i]
                assert winner == (-1 if rewards[i] == 0 else (learner if rewards[i] > 0
                                                              else 1 - learner))
                assert final["end_reason"][i] > 0
            seen |= outcomes
            mixed_steps += len(outcomes & {"win", "loss", "draw"}) >= 2
    finally:
        envs.close()
    return seen, mixed_steps


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP],
                         ids=["next_step", "same_step"])
@pytest.mark.parametrize("vector", ["sync", "async"])
@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_vector_envs_stack_infos_through_mixed_endings(game, vector, mode):
    cls = {"sync": gymnasium.vector.SyncVectorEnv, "async": gymnasium.vector.AsyncVectorEnv}
    seen, mixed_steps = run(cls[vector], mode, game, steps=150 if game == "tbw" else 200)
    assert seen == {"win", "loss", "draw", "illegal"}
    assert mixed_steps >= 3  # steps in which at least two kinds of ending happened together


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sync_vector_env_over_several_seeds(seed):
    seen, mixed = run(gymnasium.vector.SyncVectorEnv, AutoresetMode.SAME_STEP, "tbw",
                      steps=100, seed=seed)
    assert {"win", "loss", "draw"} <= seen and mixed >= 1


def test_async_close_after_a_worker_error_does_not_hang():
    raising = functools.partial(gymnasium.make, "tbw_envs/TBWSingle-v0", scenario=SKIRMISH,
                                illegal_action="raise")
    envs = gymnasium.vector.AsyncVectorEnv([raising] * 4)
    _, infos = envs.reset(seed=0)
    masks = infos["action_mask"]
    actions = [int(np.flatnonzero(m)[0]) for m in masks]
    actions[2] = int(np.flatnonzero(~masks[2])[0])  # one worker raises, the others step
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="illegal action"):
        envs.step(np.array(actions))
    closer = threading.Thread(target=envs.close, daemon=True)
    closer.start()
    closer.join(timeout=30)
    assert not closer.is_alive(), "AsyncVectorEnv.close() hung after a worker's error"


SEATS = ("player_0", "player_1")


@pytest.mark.mutation
def test_string_infos_name_the_end_reason_the_learner_and_the_active_agent():
    env = tbw_v0.parallel_env(scenario=SKIRMISH, string_infos=True)
    observations, infos = env.reset(seed=0)
    assert infos["player_0"]["end_reason"] == "not_over"
    assert infos["player_0"]["active_agent"] == "player_0"
    rng = np.random.default_rng(0)
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"])))
                   for a in env.agents}
        observations, _, _, _, infos = env.step(actions)
    names = env.unwrapped.metadata["end_reasons"]
    for agent in SEATS:
        assert infos[agent]["end_reason"] in names[1:]
        assert infos[agent]["active_agent"] == ""
    single = make_tbw_single(scenario=SKIRMISH, learner_seat=1, string_infos=True)
    assert single.reset(seed=0)[1]["learner"] == "player_1"


@pytest.mark.mutation
def test_a_bad_string_infos_is_named_in_the_error():
    with pytest.raises(TypeError, match="got 'yes'"):
        tbw_v0.raw_env(scenario=SKIRMISH, string_infos="yes")
