"""``tbw_envs.vector``: the batched self-play env equals N AEC envs stepped the same way
(``tests/helpers/vector_reference.LoopedAEC``), for both backends, every autoreset mode and the
illegal-action rules; bad input is refused by name and changes nothing.

The long run (10^6 plies per game, every variant, fresh and mid-game starts) is
``test_vector_long.py``'s, marked slow."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from tbw_envs import vector
from tbw_envs.games import get_game
from tests.helpers.vector_reference import LoopedAEC, same_state

numba = pytest.importorskip("numba", reason="numba not installed (the fast extra)")

BACKENDS = ("numba", "reference")
# (game, env keywords, steps): each run long enough that a game ends in every slot and some
# slot plays on past its autoreset to the end of a second game.
CASES = [
    ("junqi", {"rules": "ccgc"}, 600),
    ("junqi", {"rules": "house"}, 500),
    ("junqi", {"rules": "qq"}, 600),
    ("junqi", {"rules": "jj"}, 700),
    ("tbw", {"scenario": "duel_5v5_8x8"}, 700),
    ("tbw", {"scenario": "duel_5v5_8x8", "flip_perspective": False}, 700),
    ("tbw", {"scenario": "hex_skirmish"}, 500),
    ("tbw", {"scenario": "open_solo_4"}, 150),
]


def _case_id(case):
    game, kwargs, _ = case
    return f"{game}-" + "-".join(str(v) for v in kwargs.values())


def _assert_same(got, want, where):
    names = ("obs", "rewards", "terminated", "truncated", "info")
    for name, a, b in zip(names, got, want, strict=True):
        if name == "info":
            for key, value in b.items():
                assert key in a, f"{where}: info lacks {key}"
                mismatch = np.flatnonzero(
                    (np.asarray(a[key]) != np.asarray(value)).reshape(len(value), -1).any(1))
                assert mismatch.size == 0, f"{where}: info[{key!r}] differs in slots {mismatch}"
        else:
            mismatch = np.flatnonzero((a != b).reshape(len(b), -1).any(1))
            assert mismatch.size == 0, f"{where}: {name} differs in slots {mismatch}"


def _assert_same_reset(got, want):
    empty = np.zeros(len(want[0]))
    _assert_same((got[0], empty, empty, empty, got[1]), (want[0], empty, empty, empty, want[1]),
                 "reset")


# Every case on the compiled backend; the reference backend (held to the compiled one over 10^6
# plies per game by the slow run) on one case per game.
REPLAY_RUNS = [(case, "numba") for case in CASES] + [(CASES[0], "reference"),
                                                     (CASES[4], "reference")]


@pytest.mark.parametrize("case, backend", REPLAY_RUNS,
                         ids=[f"{_case_id(case)}-{backend}" for case, backend in REPLAY_RUNS])
def test_batched_env_replays_aec_envs(case, backend):
    game, kwargs, steps = case
    n, seed = 6, 123
    envs = vector.make(game, n, seed=seed, backend=backend, **kwargs)
    twin = LoopedAEC(game, n, **kwargs)
    rng = np.random.default_rng(7)
    got, want = envs.reset(), twin.reset(seed)
    _assert_same_reset(got, want)
    ends = np.zeros(n, int)
    for step in range(steps):
        info = got[1] if step == 0 else got[4]
        actions = vector.sample_legal(info["action_mask"], rng)
        got = envs.step(actions)
        want = twin.step(actions)
        _assert_same(got, want, f"step {step}")
        ends += got[2]
        if step % 97 == 0:
            for i in range(n):
                assert same_state(envs.state(i), twin.envs[i].core_state) == [], (step, i)
    assert ends.min() >= 1 and ends.max() >= 2, ends


@pytest.mark.parametrize("backend", BACKENDS)
def test_mid_game_states_continue_exactly(backend):
    """``reset(options={"states": ...})`` starts slots from given positions (None: a new game)
    and plays on as the AEC env started from the same position."""
    game, n, seed = "junqi", 5, 4
    source = LoopedAEC(game, n)
    source.reset(seed=50)
    rng = np.random.default_rng(3)
    for _ in range(60):
        obs, info = source._arrays()
        source.step(vector.sample_legal(info["action_mask"], rng))
    states = [env.core_state.clone() if not env.core_state.is_terminal() else None
              for env in source.envs]
    states[2] = None
    envs = vector.make(game, n, seed=seed, backend=backend)
    twin = LoopedAEC(game, n)
    got = envs.reset(options={"states": states})
    want = twin.reset(seed, states=states)
    _assert_same_reset(got, want)
    for i in range(n):
        assert same_state(envs.state(i), twin.envs[i].core_state) == []
    info = got[1]
    for step in range(150):
        actions = vector.sample_legal(info["action_mask"], rng)
        got, want = envs.step(actions), twin.step(actions)
        _assert_same(got, want, f"step {step}")
        info = got[4]


def test_backends_agree_on_a_wider_batch():
    n = 48
    runs = []
    for backend in BACKENDS:
        envs = vector.make("junqi", n, seed=9, backend=backend, rules="house")
        rng = np.random.default_rng(1)
        obs, info = envs.reset()
        trace = [obs]
        for _ in range(250):
            obs, rewards, terminated, _, info = envs.step(
                vector.sample_legal(info["action_mask"], rng))
            trace += [obs, rewards, terminated, info["action_mask"], info["end_reason"]]
        runs.append(trace)
    for a, b in zip(*runs, strict=True):
        assert np.array_equal(a, b)
    # Autoresets of several slots in one step happened, and were equal too.
    assert max(int(terminated.sum()) for terminated in runs[0][3::5]) >= 2


@pytest.mark.parametrize("game", ["junqi", "tbw"])
def test_seeded_runs_are_identical_across_runs_and_thread_counts(game):
    # The runs go in lockstep, each drawing from its own generator, and are compared after every
    # step: traces of the four runs' planes and masks would take 0.6 GB.
    runs = [vector.make(game, 192, seed=2, backend="numba", threads=t) for t in (2, 2, 1, 3)]
    rngs = [np.random.default_rng(5) for _ in runs]
    results = [envs.reset() for envs in runs]
    for step in range(61):
        (*arrays, info), *others = results
        for *other_arrays, other_info in others:
            assert all(np.array_equal(a, b)
                       for a, b in zip(arrays, other_arrays, strict=True)), step
            assert np.array_equal(info["action_mask"], other_info["action_mask"]), step
        if step < 60:
            results = [envs.step(vector.sample_legal(result[-1]["action_mask"], rng))
                       for envs, rng, result in zip(runs, rngs, results, strict=True)]


def test_unseeded_first_reset_uses_makes_seed_and_a_reset_seed_wins():
    a = vector.make("junqi", 3, seed=11)
    b = vector.make("junqi", 3)
    assert np.array_equal(a.reset()[0], b.reset(seed=11)[0])
    assert not np.array_equal(a.reset()[0], b.reset(seed=12)[0])
    seeds = vector.make("junqi", 3).reset(seed=[11, 12, 13])[0]
    assert np.array_equal(seeds, b.reset(seed=11)[0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_same_step_autoreset_reports_the_final_position(backend):
    n = 4
    envs = vector.make("junqi", n, seed=3, backend=backend, autoreset_mode="same_step")
    rng = np.random.default_rng(0)
    _, info = envs.reset()
    finals = 0
    for _ in range(600):
        obs, rewards, terminated, _, info = envs.step(
            vector.sample_legal(info["action_mask"], rng))
        if terminated.any():
            finals += 1
            assert info["_final_obs"].tolist() == terminated.tolist()
            assert info["_final_info"].tolist() == terminated.tolist()
            final = info["final_info"]  # Gymnasium's layout: each key beside its "_key"
            assert final["_end_reason"].tolist() == terminated.tolist()
            ended = np.flatnonzero(terminated)
            assert not final["action_mask"][ended].any()
            assert (final["end_reason"][ended] > 0).all()
            # The slots already play their next game: fresh masks, no end reason.
            assert info["action_mask"][ended].any(axis=1).all()
            assert (info["end_reason"][ended] == 0).all()
            assert (info["plies"][ended] == 0).all()
        else:
            assert "final_obs" not in info
    assert finals >= 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_same_step_equals_next_step_without_its_reset_steps(backend):
    """One slot in both modes: the same games, the same rewards and ends; the same-step env's
    final position is the one the next-step env shows at the end, and its new game the one the
    next-step env starts a step later."""
    same = vector.make("junqi", 1, seed=21, backend=backend,
                       autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP)
    nxt = vector.make("junqi", 1, seed=21, backend=backend)
    obs_s, info_s = same.reset()
    obs_n, info_n = nxt.reset()
    rng = np.random.default_rng(4)
    games = 0
    for _ in range(700):
        assert np.array_equal(obs_s, obs_n)
        actions = vector.sample_legal(info_s["action_mask"], rng)
        obs_s, rew_s, term_s, _, info_s = same.step(actions)
        obs_n, rew_n, term_n, _, info_n = nxt.step(actions)
        assert np.array_equal(rew_s, rew_n) and np.array_equal(term_s, term_n)
        if term_n[0]:
            games += 1
            assert np.array_equal(info_s["final_obs"], obs_n)
            assert np.array_equal(info_s["final_info"]["end_reason"], info_n["end_reason"])
            obs_n, rew_n, term_n, _, info_n = nxt.step(np.zeros(1, np.int64))
            assert not rew_n.any() and not term_n.any()
    assert games >= 2


def test_disabled_autoreset_needs_an_explicit_reset():
    envs = vector.make("junqi", 2, seed=1, autoreset_mode="disabled")
    obs, info = envs.reset()
    rng = np.random.default_rng(2)
    for _ in range(3000):
        obs, rewards, terminated, _, info = envs.step(
            vector.sample_legal(info["action_mask"], rng))
        if terminated.any():
            break
    assert terminated.any()
    with pytest.raises(ValueError, match="autoreset is disabled"):
        envs.step(np.zeros(2, np.int64))
    obs, info = envs.reset(options={"reset_mask": terminated})
    assert info["action_mask"].any(axis=1).all()
    assert (info["plies"][terminated] == 0).all()
    envs.step(vector.sample_legal(info["action_mask"], rng))


# ---------------------------------------------------------------------- illegal actions
def _an_illegal_action(mask_row):
    return int(np.flatnonzero(~mask_row)[0])


def test_an_illegal_action_is_refused_by_slot_and_nothing_changes():
    envs = vector.make("junqi", 4, seed=5)
    obs, info = envs.reset()
    rng = np.random.default_rng(0)
    actions = vector.sample_legal(info["action_mask"], rng)
    actions[2] = _an_illegal_action(info["action_mask"][2])
    before = [envs.state(i) for i in range(4)]
    with pytest.raises(ValueError, match=r"illegal action\(s\) in slots \[2\]"):
        envs.step(actions)
    for i in range(4):
        assert same_state(envs.state(i), before[i]) == []
    # And the env plays on as if the bad call never happened.
    twin = vector.make("junqi", 4, seed=5)
    twin.reset()
    actions[2] = vector.sample_legal(info["action_mask"][2:3], rng)[0]
    assert np.array_equal(envs.step(actions)[0], twin.step(actions)[0])


def test_lose_rule_ends_only_the_offenders_game():
    envs = vector.make("junqi", 3, seed=8, illegal_action="lose")
    obs, info = envs.reset()
    rng = np.random.default_rng(0)
    actions = vector.sample_legal(info["action_mask"], rng)
    offender = int(info["current_player"][1])
    actions[1] = _an_illegal_action(info["action_mask"][1])
    obs, rewards, terminated, truncated, info = envs.step(actions)
    assert terminated.tolist() == [False, True, False] and not truncated.any()
    assert rewards[1, offender] == -1.0 and rewards[1, 1 - offender] == 0.0
    assert not rewards[[0, 2]].any()
    assert envs.end_reasons[info["end_reason"][1]] == "illegal_action"
    assert info["winner"][1] == 1 - offender
    assert not info["action_mask"][1].any()
    assert info["plies"][1] == 0  # the illegal action was not played
    # Next step: a new game in slot 1.
    obs, rewards, terminated, _, info = envs.step(vector.sample_legal(info["action_mask"], rng))
    assert info["end_reason"][1] == 0 and info["action_mask"][1].any()
    assert not rewards[1].any()


# ---------------------------------------------------------------------- bad input
@pytest.mark.input_contract
@pytest.mark.parametrize("num_envs", [0, -3, True, 2.0, "8", 1 << 40])
def test_bad_num_envs_is_refused(num_envs):
    with pytest.raises(ValueError, match="num_envs must be an integer from 1"):
        vector.make("junqi", num_envs)


@pytest.mark.input_contract
def test_bad_make_arguments_are_named():
    with pytest.raises(ValueError, match="unknown game"):
        vector.make("chess", 4)
    with pytest.raises(ValueError, match="unknown Junqi rule set"):
        vector.make("junqi", 4, rules="nope")
    with pytest.raises(ValueError, match="not render_mode"):
        vector.make("junqi", 4, render_mode="ansi")
    with pytest.raises(ValueError, match="deployment"):
        vector.make("junqi", 4, deployment="agents")
    with pytest.raises(ValueError, match="backend must be one of"):
        vector.make("junqi", 4, backend="gpu")
    with pytest.raises(ValueError, match="autoreset_mode must be one of"):
        vector.make("junqi", 4, autoreset_mode="sometimes")
    with pytest.raises(ValueError, match="illegal_action must be"):
        vector.make("junqi", 4, illegal_action="ignore")
    with pytest.raises(TypeError, match="seed must be an int"):
        vector.make("junqi", 4, seed="1")


@pytest.mark.input_contract
@pytest.mark.parametrize("bad, message", [
    (np.zeros(3, np.int64), r"shape \(4,\)"),
    (np.zeros((4, 1), np.int64), r"shape \(4,\)"),
    (np.zeros(4, np.float32), "must be integers"),
    (np.zeros(4, bool), "must be integers"),
    (np.array([0, 0, 3612, 0]), "action ids run from 0 to 3611"),
    (np.array([0, -1, 0, 0]), "action ids run from 0 to 3611"),
    ("0000", r"shape \(4,\)"),
])
def test_bad_actions_are_refused_and_change_nothing(bad, message):
    envs = vector.make("junqi", 4, seed=0)
    envs.reset()
    before = [envs.state(i) for i in range(4)]
    with pytest.raises(ValueError, match=message):
        envs.step(bad)
    assert all(same_state(envs.state(i), before[i]) == [] for i in range(4))


@pytest.mark.input_contract
def test_bad_reset_arguments_change_nothing():
    envs = vector.make("junqi", 2, seed=0)
    obs, _ = envs.reset()
    other_rules = get_game("junqi").new_state("house", seed=1)
    cases = [
        ({"seed": -1}, ValueError, "non-negative"),
        ({"seed": [1, 2, 3]}, ValueError, "2 ints"),
        ({"seed": 1.5}, TypeError, "seed must be None"),
        ({"options": {"states": [None]}}, ValueError, "list of 2"),
        ({"options": {"states": [other_rules, None]}}, ValueError, "rule set 'house'"),
        ({"options": {"states": ["K0", None]}}, ValueError, "JunqiState"),
        ({"options": {"reset_mask": [1, 0]}}, ValueError, "bool array"),
        ({"options": {"layouts": 1}}, ValueError, "unknown option"),
        ({"options": 3}, TypeError, "options must be a dict"),
    ]
    before = [envs.state(i) for i in range(2)]
    for kwargs, error, message in cases:
        with pytest.raises(error, match=message):
            envs.reset(**kwargs)
        assert all(same_state(envs.state(i), before[i]) == [] for i in range(2)), kwargs
    # Nor the generators: the next unseeded game is the one it would have been.
    twin = vector.make("junqi", 2, seed=0)
    twin.reset()
    assert np.array_equal(envs.reset()[0], twin.reset()[0])
    # A finished game cannot be set in.
    state = get_game("junqi").new_state("ccgc", seed=1)
    state._end(0, "flag_captured")
    with pytest.raises(ValueError, match="already over"):
        envs.reset(options={"states": [state, None]})


def test_step_before_reset_and_state_out_of_range():
    envs = vector.make("junqi", 2)
    with pytest.raises(RuntimeError, match="call reset"):
        envs.step(np.zeros(2, np.int64))
    envs.reset(seed=0)
    with pytest.raises(IndexError, match="below 2"):
        envs.state(2)
    assert envs.state(-1).ply == 0


def test_spaces_and_copy_semantics():
    envs = vector.make("junqi", 3, seed=0)
    assert envs.single_observation_space.shape == (39, 12, 5)
    assert envs.single_action_space.n == 3612
    assert envs.observation_space.shape == (3, 39, 12, 5)
    obs, info = envs.reset()
    assert obs in envs.observation_space
    shared = vector.make("junqi", 3, seed=0, copy=False)
    live, _ = shared.reset()
    kept = live.copy()
    shared.step(vector.sample_legal(shared.core.action_mask, np.random.default_rng(0)))
    assert not np.array_equal(live, kept)  # the env's own buffer, overwritten by the step
    copied = obs.copy()
    envs.step(vector.sample_legal(info["action_mask"], np.random.default_rng(0)))
    assert np.array_equal(obs, copied)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("game", "variant"), [("junqi", {}),
                                               ("tbw", {"scenario": "duel_5v5_8x8"})])
def test_returned_arrays_are_never_written_again(game, variant, backend):
    """copy=True lends the core's planes and has the core move off them before it writes
    again: every array handed out (reset, step, same-step finals, a reset from states)
    keeps its values however long the env runs on."""
    envs = vector.make(game, 6, seed=3, backend=backend, autoreset_mode="same_step", **variant)
    rng = np.random.default_rng(3)
    handed: list[tuple[np.ndarray, np.ndarray]] = []

    def keep(*arrays):
        handed.extend((array, array.copy()) for array in arrays)

    obs, info = envs.reset()
    keep(obs, info["action_mask"])
    finals = 0
    for ply in range(400):
        if ply == 150:
            obs, info = envs.reset(options={"states": [envs.state(i) for i in range(6)]})
            keep(obs, info["action_mask"])
        obs, _, terminated, _, info = envs.step(vector.sample_legal(info["action_mask"], rng))
        keep(obs, info["action_mask"])
        if terminated.any():
            finals += 1
            keep(info["final_obs"], info["final_info"]["action_mask"])
    assert finals > 0
    ids = [id(array) for array, _ in handed]
    assert len(set(ids)) == len(ids)  # no array handed out twice
    for array, values in handed:
        assert np.array_equal(array, values)
    core = envs.core
    assert not any(core.action_mask is array for array, _ in handed)
    assert not any(core.observation is array for array, _ in handed[:-2])


def test_batch_spaces_are_built_on_demand():
    envs = vector.make("tbw", 4, scenario="duel_5v5_8x8")
    assert envs.observation_space == gymnasium.vector.utils.batch_space(
        envs.single_observation_space, 4)
    assert envs.action_space == gymnasium.spaces.MultiDiscrete([envs.single_action_space.n] * 4)
    replacement = gymnasium.spaces.Box(0, 1, (4, 1))
    envs.observation_space = replacement
    assert envs.observation_space is replacement


def test_sample_legal_is_uniform_and_legal():
    rng = np.random.default_rng(0)
    mask = np.zeros((30000, 6), bool)
    mask[:, [1, 3, 4]] = True
    mask[7] = False
    picks = vector.sample_legal(mask, rng)
    assert picks[7] == 0
    counts = np.bincount(np.delete(picks, 7), minlength=6)
    assert counts[[0, 2, 5]].sum() == 0
    assert (np.abs(counts[[1, 3, 4]] / counts.sum() - 1 / 3) < 0.02).all()
    with pytest.raises(ValueError, match=r"\(N, A\)"):
        vector.sample_legal(np.zeros(5, bool), rng)
