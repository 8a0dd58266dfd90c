"""What other RL libraries read: masks in info / observations / through gymnasium.make and vector
envs, the turn-based parallel API, and the end-of-game infos both games share."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import parallel_api_test

import tbw_envs  # noqa: F401 - registers the envs
from tbw_envs import junqi_v0, tbw_v0
from tbw_envs.core.configs_path import configs_dir
from tbw_envs.core.yaml_loader import load_yaml
from tbw_envs.junqi.env.single import make_junqi_single
from tbw_envs.junqi.state import END_REASONS as JUNQI_END_REASONS
from tbw_envs.tbw.env.single import make_tbw_single
from tbw_envs.tbw.state import END_REASONS as TBW_END_REASONS

SHORT_TBW = {**load_yaml(configs_dir() / "tbw" / "duel_5v5_8x8.yaml"), "max_turns": 4}
SHORT_JUNQI = {"total_ply_limit": 40}
SINGLE = {
    "tbw": ("tbw_envs/TBWSingle-v0", {"scenario": SHORT_TBW}),
    "junqi": ("tbw_envs/JunqiSingle-v0", {"rules": SHORT_JUNQI}),
}
PARALLEL = {
    "tbw": lambda: tbw_v0.parallel_env(scenario=SHORT_TBW),
    "junqi": lambda: junqi_v0.parallel_env(rules=SHORT_JUNQI),
}


def _one_hot_last(n: int) -> np.ndarray:
    mask = np.zeros(n, bool)
    mask[-1] = True
    return mask


# ---------------------------------------------------------------- single-agent wrappers


@pytest.mark.parametrize("game", ["tbw", "junqi"])
@pytest.mark.parametrize("mask_in_obs", [False, True])
def test_every_reset_and_step_carries_the_mask_and_the_end_allows_only_the_noop(game, mask_in_obs):
    env_id, kwargs = SINGLE[game]
    env = gymnasium.make(env_id, mask_in_obs=mask_in_obs, learner_seat="alternate", **kwargs)
    n = env.action_space.n
    rng = np.random.default_rng(0)
    for episode in range(2):
        obs, info = env.reset(seed=episode)
        done = False
        while True:
            mask = info["action_mask"]
            assert mask.dtype == bool and mask.shape == (n,) and mask.any()
            # The same mask through both documented routes past gymnasium.make's wrappers.
            assert np.array_equal(env.get_wrapper_attr("action_masks")(), mask)
            assert np.array_equal(env.unwrapped.action_masks(), mask)
            if mask_in_obs:
                assert env.observation_space.contains(obs)
                assert np.array_equal(obs["action_mask"].astype(bool), mask)
            else:
                assert isinstance(obs, np.ndarray) and env.observation_space.contains(obs)
            if done:
                break
            obs, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = terminated or truncated
        assert np.array_equal(info["action_mask"], _one_hot_last(n))
        assert env.unwrapped.noop_action == n - 1
        with pytest.raises(RuntimeError, match="finished episode"):
            env.step(n - 1)  # the placeholder is never played


def test_illegal_action_end_also_gives_the_noop_mask():
    env = make_tbw_single(scenario=SHORT_TBW, mask_in_obs=True)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    expected = _one_hot_last(env.action_space.n)
    assert np.array_equal(info["action_mask"], expected)
    assert np.array_equal(obs["action_mask"], expected.astype(np.int8))
    assert np.array_equal(env.action_masks(), expected)


@pytest.mark.parametrize("make", [make_tbw_single, make_junqi_single])
def test_dict_observation_wrapper_passes_check_env(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = make(mask_in_obs=True)
        check_env(env, skip_render_check=True)
    assert isinstance(env.observation_space, gymnasium.spaces.Dict)
    assert set(env.observation_space.spaces) == {"observation", "action_mask"}


def test_opening_plies_vary_the_start_and_replay_under_a_seed():
    fixed = make_tbw_single()
    start, _ = fixed.reset(seed=0)
    env = make_tbw_single(opening_plies=8)
    first, info = env.reset(seed=3)
    again, _ = env.reset(seed=3)
    other, _ = env.reset(seed=4)
    assert np.array_equal(first, again) and not np.array_equal(first, other)
    assert not np.array_equal(first, start)
    assert info["action_mask"].any() and not env._done
    # The learner plays on from there: a full random episode ends normally.
    obs, info = env.reset(seed=5)
    terminated = truncated = False
    while not (terminated or truncated):
        action = int(env.np_random.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
    assert reward in (-1.0, 0.0, 1.0)


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True])
def test_opening_plies_must_be_a_non_negative_integer(bad):
    with pytest.raises(ValueError, match="opening_plies must be a non-negative integer"):
        make_tbw_single(opening_plies=bad)


def test_mask_in_obs_must_be_a_bool():
    with pytest.raises(TypeError, match="mask_in_obs must be True or False, got 'yes'"):
        make_tbw_single(mask_in_obs="yes")


def test_sync_vector_env_stacks_masks_with_no_all_false_row_across_autoresets():
    env_id, kwargs = SINGLE["tbw"]
    envs = gymnasium.make_vec(env_id, num_envs=2, vectorization_mode="sync", **kwargs)
    rng = np.random.default_rng(1)
    _, infos = envs.reset(seed=0)
    episodes_ended = 0
    for _ in range(400):
        masks = infos["action_mask"]
        assert masks.shape == (2, envs.single_action_space.n)
        assert masks.any(axis=1).all(), "a sub-env returned an all-False mask"
        # The documented one-liner agrees with the stacked info.
        assert np.array_equal(np.stack(envs.call("action_masks")), masks)
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        _, _, terminated, truncated, infos = envs.step(actions)
        episodes_ended += int(np.sum(terminated | truncated))
        if episodes_ended >= 2:
            break
    assert episodes_ended >= 2  # the loop crossed autoresets
    envs.close()


# ---------------------------------------------------------------- parallel API


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_parallel_api_test(game):
    parallel_api_test(PARALLEL[game](), num_cycles=300)


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_parallel_turns_mask_the_waiting_agent_and_ignore_its_action(game):
    env = PARALLEL[game]()
    observations, infos = env.reset(seed=3)
    rng = np.random.default_rng(3)
    n = env.action_space("player_0").n
    steps = 0
    while env.agents:
        active = env.possible_agents[infos["player_0"]["active_agent"]]
        assert infos["player_1"]["active_agent"] == infos["player_0"]["active_agent"]
        aec = env.unwrapped
        assert aec.agent_selection == active
        for agent, obs in observations.items():
            mask = obs["action_mask"].astype(bool)
            if agent == active:
                assert np.array_equal(mask, aec.action_mask(agent).astype(bool))
            else:
                assert np.array_equal(mask, _one_hot_last(n))
        actions = {agent: int(rng.choice(np.flatnonzero(obs["action_mask"])))
                   for agent, obs in observations.items()}
        observations, rewards, terminations, truncations, infos = env.step(actions)
        steps += 1
        if all(terminations.values()):
            # Final observations: nobody can act, so both get the placeholder mask.
            for obs in observations.values():
                assert np.array_equal(obs["action_mask"].astype(bool), _one_hot_last(n))
            assert set(infos["player_0"]) >= {"end_reason", "winner", "plies"}
            assert infos["player_0"]["plies"] == steps
            assert infos["player_0"]["active_agent"] == -1
    assert steps > 1


def test_parallel_step_needs_only_the_active_agents_action():
    env = tbw_v0.parallel_env(scenario=SHORT_TBW)
    observations, infos = env.reset(seed=0)
    active = env.possible_agents[infos["player_0"]["active_agent"]]
    legal = int(np.flatnonzero(observations[active]["action_mask"])[0])
    twin = tbw_v0.raw_env(scenario=SHORT_TBW)
    twin.reset(seed=0)
    twin.step(legal)
    env.step({active: legal})
    assert np.array_equal(env.unwrapped.state(), twin.state())


# ---------------------------------------------------------------- end-of-game infos


def _play_aec(env, seed):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    played = 0
    final = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            final[agent] = reward
            env.step(None)
            continue
        assert info["plies"] == played
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        played += 1
    return info, played, [final["player_0"], final["player_1"]]


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_both_games_end_with_the_same_info_keys(game):
    make = {"tbw": lambda: tbw_v0.env(scenario=SHORT_TBW),
            "junqi": lambda: junqi_v0.env(rules=SHORT_JUNQI)}[game]
    reasons = TBW_END_REASONS if game == "tbw" else JUNQI_END_REASONS
    env = make()
    names = env.metadata["end_reasons"]
    assert names[0] == "not_over" and names[-1] == "illegal_action"
    assert tuple(names[1:-1]) == tuple(reasons)
    for seed in range(3):
        info, played, returns = _play_aec(env, seed)
        assert {"end_reason", "winner", "plies"} <= set(info)
        assert info["plies"] == played
        assert names[info["end_reason"]] in reasons
        expected_winner = -1 if returns[0] == returns[1] else int(returns[1] > returns[0])
        assert info["winner"] == expected_winner


def test_tbw_end_reason_agrees_with_the_board():
    env = tbw_v0.raw_env(scenario=SHORT_TBW)
    seen = set()
    for seed in range(6):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not env._state.terminal:
            env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
        state = env._state
        reason = env.metadata["end_reasons"][env.infos["player_0"]["end_reason"]]
        assert reason == state.end_reason
        dead = [all(state.hp[u] <= 0 for u in state.scenario.side_units[s]) for s in (0, 1)]
        if reason == "annihilation":
            assert dead[1 - state.winner]
        elif reason == "turn_limit_draw":
            assert state.winner is None and not any(dead)
        elif reason == "turn_limit_hp":
            assert state.winner is not None and not any(dead)
        seen.add(reason)
    assert seen
    env.reset()
    assert env._state.end_reason is None
    assert (env.infos["player_0"]["end_reason"], env.infos["player_0"]["winner"]) == (0, -1)


# ---------------------------------------------------------------- mask_dtype

MASK_DTYPE_LAYERS = {
    "raw_env": lambda module, kw, dtype: module.raw_env(mask_dtype=dtype, **kw),
    "env": lambda module, kw, dtype: module.env(mask_dtype=dtype, **kw),
    "parallel_env": lambda module, kw, dtype: module.parallel_env(mask_dtype=dtype, **kw),
}
GAMES = {"tbw": (tbw_v0, {"scenario": SHORT_TBW}), "junqi": (junqi_v0, {"rules": SHORT_JUNQI})}


def _masked_choice(rng, mask) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("dtype", [np.int8, bool])
@pytest.mark.parametrize("layer", list(MASK_DTYPE_LAYERS))
@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_mask_dtype_sets_the_mask_and_its_space_in_every_pettingzoo_layer(game, layer, dtype):
    """Every observed mask (the mover's, the waiting agent's, the terminal one) has the asked
    dtype, and so has the space it must belong to."""
    module, kwargs = GAMES[game]
    env = MASK_DTYPE_LAYERS[layer](module, kwargs, dtype)
    rng = np.random.default_rng(0)
    space = env.observation_space("player_0")
    assert space["action_mask"].dtype == np.dtype(dtype)
    seen = 0
    if layer == "parallel_env":
        observations, _ = env.reset(seed=0)
        while env.agents:
            for obs in observations.values():
                assert obs["action_mask"].dtype == np.dtype(dtype) and space.contains(obs)
                seen += 1
            actions = {a: _masked_choice(rng, observations[a]["action_mask"]) for a in env.agents}
            observations, *_ = env.step(actions)
    else:
        env.reset(seed=0)
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            for who in env.agents:
                assert env.observe(who)["action_mask"].dtype == np.dtype(dtype)
            assert obs["action_mask"].dtype == np.dtype(dtype) and space.contains(obs)
            seen += 1
            done = terminated or truncated
            env.step(None if done else _masked_choice(rng, obs["action_mask"]))
    assert seen > 2


@pytest.mark.parametrize("dtype", [np.int8, bool, "bool", np.bool_, "int8"])
@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_mask_dtype_reaches_the_single_agent_dict_observation(game, dtype):
    env_id, kwargs = SINGLE[game]
    env = gymnasium.make(env_id, mask_in_obs=True, mask_dtype=dtype, **kwargs)
    assert env.observation_space["action_mask"].dtype == np.dtype(dtype)
    rng = np.random.default_rng(1)
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        assert obs["action_mask"].dtype == np.dtype(dtype) and env.observation_space.contains(obs)
        assert info["action_mask"].dtype == bool  # the info mask stays bool whatever the option
        obs, _, terminated, truncated, info = env.step(_masked_choice(rng, obs["action_mask"]))
        done = terminated or truncated
    assert obs["action_mask"].dtype == np.dtype(dtype) and env.observation_space.contains(obs)


@pytest.mark.parametrize("bad", [None, True, "float32", np.float32, int, "mask"])
def test_mask_dtype_other_than_int8_or_bool_is_refused(bad):
    for make in (lambda: tbw_v0.raw_env(mask_dtype=bad), lambda: junqi_v0.env(mask_dtype=bad),
                 lambda: make_tbw_single(mask_dtype=bad),
                 lambda: make_junqi_single(mask_in_obs=True, mask_dtype=bad)):
        with pytest.raises(ValueError, match="mask_dtype must be int8 or bool.*got"):
            make()


def test_torchrl_masked_categorical_takes_the_bool_mask():
    """TorchRL's masked distribution refuses int8 masks (``masked_fill_ only supports boolean
    masks``); ``mask_dtype=bool`` hands it the observation's mask as it is."""
    pytest.importorskip("torchrl", reason="torchrl is not installed (the integrations extra)")
    import torch
    from torchrl.envs import GymWrapper
    from torchrl.modules import MaskedCategorical

    env = GymWrapper(make_tbw_single(scenario=SHORT_TBW, mask_in_obs=True, mask_dtype=bool))
    td = env.reset()
    mask = td["action_mask"]
    assert mask.dtype == torch.bool
    logits = torch.zeros(mask.shape)
    sampled = MaskedCategorical(logits=logits, mask=mask).sample((64,))
    assert mask[sampled].all()
    int8_env = GymWrapper(make_tbw_single(scenario=SHORT_TBW, mask_in_obs=True))
    with pytest.raises(RuntimeError, match="boolean"):
        MaskedCategorical(logits=logits, mask=int8_env.reset()["action_mask"]).sample()


# ---------------------------------------------------------------- core_state


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_core_state_is_the_running_games_state_behind_every_layer(game):
    """``core_state`` (``state`` is PettingZoo's global-state method, kept) is the core state of
    the game being played, through ``env.unwrapped`` of every layer, and cannot be assigned."""
    from tbw_envs.junqi import JunqiState
    from tbw_envs.tbw.state import TBWState

    module, kwargs = GAMES[game]
    kind = TBWState if game == "tbw" else JunqiState
    aec = module.env(**kwargs)
    aec.reset(seed=0)
    rng = np.random.default_rng(0)
    first = aec.unwrapped.core_state
    assert isinstance(first, kind)
    for _ in range(3):
        aec.step(_masked_choice(rng, aec.last()[0]["action_mask"]))
    raw = aec.unwrapped
    assert isinstance(raw.state(), np.ndarray)  # the global state array still works
    # The property follows the game: the action mask agrees with its legal moves.
    current = raw.core_state
    assert int(aec.last()[0]["action_mask"].sum()) == len(current.legal_actions())
    if game == "junqi":
        assert raw.core_state is current
    with pytest.raises(AttributeError):
        raw.core_state = first
    single_env_id, single_kwargs = SINGLE[game]
    single = gymnasium.make(single_env_id, **single_kwargs)
    single.reset(seed=0)
    assert single.unwrapped.core_state is single.unwrapped.aec.core_state
    assert isinstance(single.unwrapped.core_state, kind)
    parallel = module.parallel_env(**kwargs)
    parallel.reset(seed=0)
    assert isinstance(parallel.unwrapped.core_state, kind)
