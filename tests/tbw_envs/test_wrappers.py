"""The single-agent Gymnasium wrappers (``tbw_envs.wrappers``) on both games: check_env, masks,
agent and callable opponents, illegal-action modes, learner seats and full episodes; each bad input
is named and changes nothing, and the episode goes on."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import tbw_envs  # noqa: F401 - registers the envs  # noqa: F401 - registers the envs
from agents import RandomAgent
from tbw_envs import tbw_v0
from tbw_envs.core.contract import GameOverError
from tbw_envs.junqi import (
    NUM_POSTS,
    load_rules,
)
from tbw_envs.junqi.env.single import make_junqi_single
from tbw_envs.tbw import ScenarioError
from tbw_envs.tbw.env.single import make_tbw_single
from tbw_envs.wrappers import SingleAgentEnv
from tests.helpers.junqi_games import FIVE_QUIET
from tests.helpers.quick_games import QUICK_JUNQI, SHORT_JUNQI, SHORT_TBW, SKIRMISH, TBW_SCENARIO


@pytest.mark.parametrize("learner_seat", [0, 1, "alternate", "random"])
def test_junqi_single_agent_wrapper_passes_check_env(learner_seat):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(make_junqi_single(learner_seat=learner_seat), skip_render_check=True)


def test_junqi_single_agent_episodes_with_agent_opponent_and_masks():
    env = gymnasium.make(
        "tbw_envs/JunqiSingle-v0", opponent=RandomAgent(), learner_seat="alternate"
    )
    rng = np.random.default_rng(0)
    seats = set()
    for episode in range(3):
        _, info = env.reset(seed=episode)
        seats.add(info["learner"])
        done = False
        while not done:
            mask = env.unwrapped.action_masks()
            assert mask.any()
            _, reward, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = terminated or truncated
        assert reward in (-1.0, 0.0, 1.0)
    assert seats == {0, 1}


@pytest.mark.parametrize("learner_seat", [0, 1, "alternate", "random"])
def test_single_agent_wrapper_passes_check_env(learner_seat):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(make_tbw_single(learner_seat=learner_seat), skip_render_check=True)


def test_wrapper_with_agent_opponent_and_illegal_modes():
    env = SingleAgentEnv(tbw_v0.raw_env(scenario="duel_5v5_8x8"), opponent=RandomAgent(),
                         learner_seat=1, illegal_action="raise")
    obs, info = env.reset(seed=5)
    assert info["learner"] == 1 and env.learner == "player_1"
    mask = env.action_masks()
    assert mask.dtype == bool and mask.any()
    with pytest.raises(ValueError, match="illegal action"):
        env.step(int(np.flatnonzero(~mask)[0]))
    lose = make_tbw_single(illegal_action="lose")
    lose.reset(seed=0)
    _, reward, terminated, _, info = lose.step(int(np.flatnonzero(~lose.action_masks())[0]))
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    ends = lose.metadata["end_reasons"]
    assert ends[info["end_reason"]] == "illegal_action" and info["winner"] == 1
    with pytest.raises(RuntimeError, match="reset"):
        lose.step(0)


def test_wrapper_plays_full_games_with_masked_random_learner():
    env = make_tbw_single(scenario="paper_figure3", learner_seat="alternate",
                          opponent=lambda obs, mask: int(np.flatnonzero(mask)[-1]))
    rng = np.random.default_rng(0)
    seats = set()
    for episode in range(4):
        obs, info = env.reset(seed=episode)
        seats.add(info["learner"])
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        assert reward in (-1.0, 0.0, 1.0)
    assert seats == {0, 1}


def test_maskable_ppo_smoke():
    """MaskablePPO runs on the wrapper without ActionMasker (when the train extra is there)."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    env = make_tbw_single(scenario="paper_figure3")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0,
                        device="cpu")
    model.learn(128)
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


ANY = ("tbw", "junqi")

# ============================================================================ bad input


WRAPPER_FACTORIES = {
    "tbw": lambda: make_tbw_single(scenario=SHORT_TBW, learner_seat="random"),
    "junqi": lambda: make_junqi_single(learner_seat="random", rules=SHORT_JUNQI),
}

WRAPPER_CASES = [
    (ANY, "step bool", lambda w: w.step(True), ValueError, "got bool True"),
    (ANY, "step bool array", lambda w: w.step(np.array([True])), ValueError, "got ndarray"),
    (ANY, "step float", lambda w: w.step(2.5), ValueError, r"got float 2\.5"),
    (ANY, "step float array", lambda w: w.step(np.array([2.0])), ValueError, "got ndarray"),
    (ANY, "step string", lambda w: w.step("1"), ValueError, "got str '1'"),
    (ANY, "step None", lambda w: w.step(None), ValueError, "got NoneType"),
    (ANY, "step negative", lambda w: w.step(-1), ValueError, "-1 is out of range"),
    (ANY, "step too large", lambda w: w.step(10**6), ValueError, "1000000 is out of range"),
    (ANY, "seed bool", lambda w: w.reset(seed=True), TypeError, "got bool True"),
    (ANY, "seed negative", lambda w: w.reset(seed=-2), ValueError, "non-negative, got -2"),
    (ANY, "options string", lambda w: w.reset(options="x"), TypeError,
     "options must be a dict or None"),
    (("tbw",), "unknown scenario", lambda w: w.reset(seed=3, options={"scenario": "nope"}),
     ScenarioError, "unknown scenario 'nope'"),
    (("junqi",), "unknown rules", lambda w: w.reset(seed=3, options={"rules": "nope"}),
     ValueError, "unknown Junqi rule set 'nope'"),
]

WRAPPER_PARAMS = [
    pytest.param(game, bad, error, match, id=f"{game}: {name}")
    for games, name, bad, error, match in WRAPPER_CASES
    for game in games
]


def _play_episode(wrapper, seed: int, max_steps: int | None = None):
    """Masked random learner; returns its actions and the last reward."""
    rng = np.random.default_rng(seed)
    actions, reward = [], None
    while not wrapper._done and (max_steps is None or len(actions) < max_steps):
        actions.append(int(rng.choice(np.flatnonzero(wrapper.action_masks()))))
        _, reward, terminated, truncated, _ = wrapper.step(actions[-1])
    return actions, reward


@pytest.mark.input_contract
@pytest.mark.parametrize("game, bad, error, match", WRAPPER_PARAMS)
def test_wrapper_bad_input_is_named_changes_nothing_and_the_episode_goes_on(
    game, bad, error, match
):
    wrapper, twin = WRAPPER_FACTORIES[game](), WRAPPER_FACTORIES[game]()
    for w in (wrapper, twin):
        w.reset(seed=0)
        _play_episode(w, 0, max_steps=3)
    with pytest.raises(error, match=match):
        bad(wrapper)
    actions, reward = _play_episode(wrapper, 1)
    assert (actions, reward) == _play_episode(twin, 1)
    assert reward in (-1.0, 0.0, 1.0)
    # The wrapper's own generator (seat draw, random opponent) is untouched too.
    info, twin_info = wrapper.reset()[1], twin.reset()[1]
    # info["action_mask"] is an array, so the dicts are compared key by key.
    assert info.keys() == twin_info.keys()
    assert all(np.array_equal(info[key], twin_info[key]) for key in info)
    assert _play_episode(wrapper, 2) == _play_episode(twin, 2)


@pytest.mark.input_contract
@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_wrapper_step_after_the_episode_ended(game):
    wrapper = WRAPPER_FACTORIES[game]()
    wrapper.reset(seed=0)
    _play_episode(wrapper, 0)
    with pytest.raises(GameOverError, match=r"finished episode; call reset\(\) first"):
        wrapper.step(0)
    wrapper.reset(seed=1)
    assert _play_episode(wrapper, 1)[1] in (-1.0, 0.0, 1.0)


@pytest.mark.input_contract
@pytest.mark.parametrize("wrap", [np.int64, lambda a: np.array(a), lambda a: np.array([a])])
def test_wrapper_accepts_numpy_integers_and_arrays_as_policies_return_them(wrap):
    wrapper, plain = WRAPPER_FACTORIES["tbw"](), WRAPPER_FACTORIES["tbw"]()
    wrapper.reset(seed=0)
    plain.reset(seed=0)
    legal = int(np.flatnonzero(wrapper.action_masks())[0])
    # np.array([a]) is what SB3's predict() hands over for one env.
    obs, reward, *_ = wrapper.step(wrap(legal))
    expected, expected_reward, *_ = plain.step(legal)
    assert np.array_equal(obs, expected) and reward == expected_reward


@pytest.mark.input_contract
def test_wrapper_rejects_a_float_from_a_callable_opponent():
    wrapper = make_tbw_single(scenario=TBW_SCENARIO, learner_seat=1,
                              opponent=lambda obs, mask: float(np.flatnonzero(mask)[0]))
    with pytest.raises(ValueError, match="action must be an integer .*got float"):
        wrapper.reset(seed=0)


@pytest.mark.input_contract
@pytest.mark.parametrize("seat", [True, 1.0, "1", [0]])
def test_wrapper_learner_seat_is_checked(seat):
    with pytest.raises(ValueError, match="learner_seat must be 0, 1, 'alternate' or 'random'"):
        make_tbw_single(scenario=TBW_SCENARIO, learner_seat=seat)
    assert make_tbw_single(scenario=TBW_SCENARIO, learner_seat=np.int64(1)).learner == "player_1"


@pytest.mark.mutation
def test_a_mid_game_single_agent_step_is_neither_over_nor_rewarded():
    env = make_tbw_single(scenario="duel_5v5_8x8")
    env.reset(seed=0)
    _, reward, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert (reward, terminated, truncated) == (0.0, False, False)


SEATS = ("player_0", "player_1")


# ---------------------------------------------------------------- opponents, seats and pass-through

class LastLegalOpponent:
    """A callable opponent that records what it is given and always plays its last legal
    action."""

    def __init__(self):
        self.calls: list[tuple[np.ndarray, np.ndarray]] = []
        self.actions: list[int] = []

    def __call__(self, observation, action_mask):
        self.calls.append((observation, action_mask))
        self.actions.append(int(np.flatnonzero(action_mask)[-1]))
        return self.actions[-1]


@pytest.mark.mutation
def test_a_callable_opponent_is_called_with_its_observation_and_its_moves_are_played():
    """wrappers ``_opponent_action`` 48 (the callable got None for the observation) and 37
    (it was replaced by random play)."""
    opponent = LastLegalOpponent()
    env = make_junqi_single(opponent=opponent, rules=QUICK_JUNQI)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(
            env.action_masks()))))
        done = terminated or truncated
    assert opponent.calls
    shape = env.aec.observation_space("player_1")["observation"].shape
    for observation, mask in opponent.calls:
        assert isinstance(observation, np.ndarray) and observation.shape == shape
        assert mask.shape == (env.action_space.n,) and mask.any()
    history = env.aec.core_state.history
    played = [r.from_post * NUM_POSTS + r.to_post for r in history if r.player == 1]
    assert played == [env.aec.to_core_action("player_1", a) for a in opponent.actions]


@pytest.mark.mutation
def test_learner_seat_alternate_takes_turns_from_player_0():
    """wrappers ``SingleAgentEnv.__init__`` 143 (started with player_1) and ``reset`` 35
    (stuck on player_1)."""
    env = make_tbw_single(scenario=SKIRMISH, learner_seat="alternate")
    seats = []
    for episode in range(4):
        info = env.reset(seed=episode)[1]
        seats.append(info["learner"])
        assert env.learner == SEATS[info["learner"]]
    assert seats == [0, 1, 0, 1]


@pytest.mark.mutation
def test_single_agent_step_before_reset_is_refused():
    """wrappers ``SingleAgentEnv.__init__`` 154 and 155 (``_done`` None or False let the step
    through to the raw env)."""
    env = SingleAgentEnv(tbw_v0.raw_env(scenario=SKIRMISH))
    with pytest.raises(GameOverError, match=r"call reset\(\) first"):
        env.step(env.noop_action)
    with pytest.raises(GameOverError, match=r"call reset\(\) first"):
        env.step(0)


@pytest.mark.mutation
def test_make_single_passes_render_mode_rules_and_illegal_action_through():
    """wrappers ``make_tbw_single`` 14, 18, 31; ``make_junqi_single`` 9, 10, 11, 22;
    ``SingleAgentEnv.__init__`` 105 (render_mode, the Junqi env keywords and
    ``illegal_action="raise"`` were dropped)."""
    tbw = make_tbw_single(scenario=SKIRMISH, render_mode="ansi", illegal_action="raise")
    junqi = make_junqi_single(render_mode="ansi", illegal_action="raise", rules=FIVE_QUIET)
    assert junqi.aec.rules == load_rules(FIVE_QUIET)
    for env in (tbw, junqi):
        env.reset(seed=0)
        assert env.render_mode == env.aec.render_mode == "ansi"
        assert isinstance(env.render(), str)
        illegal = int(np.flatnonzero(~env.action_masks())[0])
        with pytest.raises(ValueError, match=f"illegal action {illegal}"):
            env.step(illegal)




@pytest.mark.parametrize(
    "make", [lambda: make_tbw_single(scenario=SKIRMISH, learner_seat="alternate"),
             lambda: make_junqi_single(learner_seat="alternate")], ids=["tbw", "junqi"])
def test_learner_seat_alternate_follows_the_seed_and_alternates_unseeded(make):
    """A seeded reset's seat is the seed's parity whatever came before, and the episode replays
    (the seat used to follow the episode count); unseeded resets take turns."""
    env = make()

    def first_steps(seed):
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        observations = [obs]
        for _ in range(3):
            mask = env.action_masks()
            obs, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            observations.append(obs)
            if terminated or truncated:
                break
        return info["learner"], observations

    seat, episode = first_steps(7)
    env.reset()  # an unseeded episode in between must not shift the next seeded seat
    for _ in range(2):
        again_seat, again = first_steps(7)
        assert again_seat == seat == 1
        assert len(again) == len(episode)
        assert all(np.array_equal(a, b) for a, b in zip(again, episode, strict=True))
    assert first_steps(4)[0] == 0
    unseeded = [env.reset()[1]["learner"] for _ in range(4)]
    assert unseeded == [1, 0, 1, 0]


def test_an_opponent_of_any_registered_game_is_refused_by_another_games_env(
        registered_minigame):
    """The opponent's declared ``game`` is checked against the registered games, so one built
    for a game registered later (the minigame) is refused by TBW's env, and a Nim opponent is
    taken by Nim's."""

    class NimOpponent:
        game = "nim"

        def act(self, view):
            return view.legal_actions()[0]

    with pytest.raises(ValueError, match="plays nim, but this env is tbw"):
        make_tbw_single(scenario=SKIRMISH, opponent=NimOpponent())
    env = registered_minigame.single_agent_env(opponent=NimOpponent(), learner_seat=1)
    env.reset(seed=0)
    assert env.core_state.stones == registered_minigame.load_variant("small").stones - 1
