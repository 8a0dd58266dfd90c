"""The batched single-agent env (``tbw_envs.single_vector``, built by ``gymnasium.make_vec(...,
vectorization_mode="vector_entry_point")``) equals Gymnasium's ``SyncVectorEnv`` over the
single-agent env, for a deterministic opponent: the same observations, rewards, endings, masks
and infos, step for step, autoresets included."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import tbw_envs  # noqa: F401 (registers the ids)
from tbw_envs.games import get_game
from tbw_envs.vector import sample_legal

pytest.importorskip("numba", reason="numba not installed (the fast extra)")

JUNQI_ID = "tbw_envs/JunqiSingle-v0"
# (env id, keywords): the games with a batched core.
CASES = [(JUNQI_ID, {"rules": "ccgc"}), (JUNQI_ID, {"rules": "house"})]


def first_legal_batch(observations, masks):
    return masks.argmax(axis=1)


def first_legal(observation, mask):
    return int(np.argmax(mask))


def make_batched(env_id, n, **kwargs):
    return gymnasium.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point",
                              **kwargs)


def make_looped(env_id, n, **kwargs):
    return gymnasium.vector.SyncVectorEnv(
        [lambda: gymnasium.make(env_id, **kwargs).unwrapped for _ in range(n)])


# Every seat option on the compiled backend; the reference backend (held to the compiled one
# over 10^6 plies by the slow run) and the other rule set once each.
EQUALITY_RUNS = [(CASES[0], "numba", 0), (CASES[0], "numba", 1), (CASES[0], "numba", "alternate"),
                 (CASES[0], "reference", "alternate"), (CASES[1], "numba", "alternate")]


@pytest.mark.parametrize("case, backend, seat", EQUALITY_RUNS,
                         ids=lambda value: "-".join(map(str, value[1].values()))
                         if isinstance(value, tuple) else str(value))
def test_batched_single_agent_env_equals_sync_vector_env(case, backend, seat):
    env_id, kwargs = case
    n = 4
    batched = make_batched(env_id, n, opponent=first_legal_batch, learner_seat=seat,
                           backend=backend, **kwargs)
    looped = make_looped(env_id, n, opponent=first_legal, learner_seat=seat, **kwargs)
    obs_b, info_b = batched.reset(seed=30)
    obs_l, info_l = looped.reset(seed=30)
    assert np.array_equal(obs_b, obs_l)
    rng = np.random.default_rng(1)
    episodes = 0
    for step in range(400):
        for key in ("action_mask", "learner", "end_reason", "winner", "plies",
                    "illegal_action"):
            assert np.array_equal(info_b[key], info_l[key]), (step, key)
        actions = sample_legal(info_b["action_mask"], rng)
        obs_b, rew_b, term_b, trunc_b, info_b = batched.step(actions)
        obs_l, rew_l, term_l, trunc_l, info_l = looped.step(actions)
        assert np.array_equal(obs_b, obs_l), step
        assert np.array_equal(rew_b, rew_l.astype(np.float32)), step
        assert np.array_equal(term_b, term_l) and np.array_equal(trunc_b, trunc_l), step
        episodes += term_b.sum()
    assert episodes >= n


def test_illegal_actions_lose_or_raise():
    envs = make_batched(JUNQI_ID, 3, seed=0, illegal_reward=-2.5)
    obs, info = envs.reset()
    actions = sample_legal(info["action_mask"], np.random.default_rng(0))
    actions[1] = int(np.flatnonzero(~info["action_mask"][1])[0])
    obs, rewards, terminated, truncated, info = envs.step(actions)
    assert terminated.tolist() == [False, True, False] and rewards[1] == -2.5
    assert info["illegal_action"].tolist() == [False, True, False]
    assert envs.end_reasons[info["end_reason"][1]] == "illegal_action"
    assert info["action_mask"][1].tolist() == [False] * 3611 + [True]  # noop_action only
    strict = make_batched(JUNQI_ID, 3, seed=0, illegal_action="raise")
    obs, info = strict.reset()
    before = [strict.state(i).pieces() for i in range(3)]
    with pytest.raises(ValueError, match=r"illegal action\(s\) in slots \[1\]"):
        strict.step(actions)
    assert [strict.state(i).pieces() for i in range(3)] == before


def test_a_league_draws_an_opponent_per_game_and_set_opponent_swaps_it():
    calls = {"a": 0, "b": 0}

    def opponent(name):
        def play(observations, masks):
            calls[name] += len(masks)
            return masks.argmax(axis=1)
        return play

    envs = make_batched(JUNQI_ID, 16, seed=0, opponent=[opponent("a"), opponent("b")],
                        learner_seat=1)
    envs.reset()
    assert calls["a"] > 0 and calls["b"] > 0 and calls["a"] + calls["b"] == 16
    envs.unwrapped.set_opponent(opponent("a"))
    before = dict(calls)
    obs, info = envs.step(sample_legal(envs.unwrapped.action_masks(),
                                       np.random.default_rng(0)))[0::4]
    assert calls["b"] == before["b"] and calls["a"] > before["a"]


def test_opponents_that_break_the_contract_are_named():
    with pytest.raises(TypeError, match="opponent must be 'random', a callable"):
        make_batched(JUNQI_ID, 2, opponent=3)
    wrong_shape = make_batched(JUNQI_ID, 2, learner_seat=1,
                               opponent=lambda obs, masks: np.zeros(5, np.int64))
    with pytest.raises(ValueError, match="one integer action per game"):
        wrong_shape.reset(seed=0)
    illegal = make_batched(JUNQI_ID, 2, learner_seat=1,
                           opponent=lambda obs, masks: (~masks).argmax(axis=1))
    with pytest.raises(ValueError, match="opponent played illegal actions in slots"):
        illegal.reset(seed=0)


@pytest.mark.input_contract
def test_bad_keywords_are_refused():
    with pytest.raises(ValueError, match="does not render"):
        make_batched(JUNQI_ID, 2, render_mode="ansi")
    with pytest.raises(ValueError, match="string_infos=False"):
        make_batched(JUNQI_ID, 2, string_infos=True)
    with pytest.raises(ValueError, match="num_envs must be an integer"):
        make_batched(JUNQI_ID, 0)
    with pytest.raises(ValueError, match="learner_seat must be"):
        make_batched(JUNQI_ID, 2, learner_seat=2)
    with pytest.raises(ValueError, match="opening_plies 1,000 is more than the cap"):
        make_batched(JUNQI_ID, 2, opening_plies=1000)
    with pytest.raises(ValueError, match="not colour"):
        make_batched(JUNQI_ID, 2, colour="red")
    envs = make_batched(JUNQI_ID, 2)
    with pytest.raises(RuntimeError, match="before reset"):
        envs.step(np.zeros(2, np.int64))
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="2 integer action ids"):
        envs.step(np.zeros(2))


def test_same_step_autoreset_gives_the_final_observation():
    envs = make_batched(JUNQI_ID, 8, seed=3,
                        autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP)
    obs, info = envs.reset()
    rng = np.random.default_rng(0)
    for _ in range(500):
        obs, rewards, terminated, _, info = envs.step(sample_legal(info["action_mask"], rng))
        if terminated.any():
            break
    ended = np.flatnonzero(terminated)
    assert ended.size and info["_final_obs"][ended].all()
    final = info["final_info"]  # Gymnasium's layout: each key beside its "_key"
    assert info["_final_info"][ended].all() and final["_action_mask"][ended].all()
    assert (final["action_mask"][ended, -1]).all()  # the finished games: noop only
    assert (info["plies"][ended] <= 1).all()  # the slots already play a new game
    assert info["action_mask"][ended, :-1].any(axis=1).all()


def test_the_learner_sees_only_its_own_view_at_a_games_end():
    """When the opponent would move next in a finished game, the learner's final planes are its
    own view (never the opponent's, which shows the opponent's hidden pieces)."""
    envs = make_batched(JUNQI_ID, 8, seed=5, learner_seat=0)
    obs, info = envs.reset()
    rng = np.random.default_rng(2)
    checked = 0
    for _ in range(600):
        obs, rewards, terminated, _, info = envs.step(sample_legal(info["action_mask"], rng))
        for i in np.flatnonzero(terminated & ~info["illegal_action"]):
            state = envs.unwrapped.state(int(i))
            want = get_game("junqi").frame().encode(state.view(0))[0]
            assert np.array_equal(obs[i], want)
            checked += 1
    assert checked >= 3


@pytest.mark.parametrize("autoreset_mode", ["next_step", "same_step"])
@pytest.mark.parametrize(("env_id", "kwargs"), [
    (JUNQI_ID, {"rules": "ccgc"}), ("tbw_envs/TBWSingle-v0", {"scenario": "duel_5v5_8x8"})])
def test_returned_planes_and_masks_are_never_written_again(env_id, kwargs, autoreset_mode):
    """The env lends the core's planes (the learner's view written into finished games' rows)
    and moves the core off them before it writes again: every array handed out keeps its
    values, the learner's end-of-game views included."""
    envs = make_batched(env_id, 5, autoreset_mode=autoreset_mode, **kwargs)
    rng = np.random.default_rng(4)
    handed: list[tuple[np.ndarray, np.ndarray]] = []

    def keep(*arrays):
        handed.extend((array, array.copy()) for array in arrays)

    obs, info = envs.reset(seed=4)
    keep(obs, info["action_mask"], envs.unwrapped.action_masks())
    endings = 0
    for _ in range(300):
        obs, _, terminated, _, info = envs.step(sample_legal(info["action_mask"], rng))
        keep(obs, info["action_mask"], envs.unwrapped.action_masks())
        if terminated.any():
            endings += 1
            if autoreset_mode == "same_step":
                keep(info["final_obs"])
    assert endings > 0
    for array, values in handed:
        assert np.array_equal(array, values)
