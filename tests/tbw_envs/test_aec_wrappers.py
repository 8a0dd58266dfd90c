"""What both PettingZoo envs share (``tbw_envs.aec_wrappers``).

``env()``'s single ``StandardWrapper`` keeps every check of PettingZoo's default wrapper stack:
it behaves step for step like ``raw_env`` under PettingZoo's own ``OrderEnforcingWrapper`` and
``TerminateIllegalWrapper(illegal_reward=-1)``, illegal moves included, and enforces the
reset/step order the same way. ``parallel_env()`` holds to the input contract
(docs/input_contract.md): a bad ``step`` gets an error that names the problem and changes
nothing; a seeded reset replays the game and the samplers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.utils import wrappers

from tbw_envs import junqi_v0, tbw_v0
from tbw_envs.aec_wrappers import CheckedPlay, StandardWrapper
from tbw_envs.core.contract import GameOverError
from tbw_envs.core.errors import IllegalActionError
from tests.helpers.minigame.env import raw_env as NimEnv
from tests.helpers.quick_games import QUICK_JUNQI

SHORT = {
    "tbw": (tbw_v0, {"scenario": "paper_figure3"}),
    "junqi": (junqi_v0, {"rules": {"total_ply_limit": 80}}),
}


def pettingzoo_stack(module, kwargs):
    """The wrappers PettingZoo's own classic envs use, around our raw env."""
    raw = module.raw_env(**kwargs)
    return wrappers.OrderEnforcingWrapper(wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1))


def snapshot(env) -> tuple:
    agent = env.agent_selection
    obs, reward, terminated, truncated, info = env.last()
    return (
        list(env.agents), agent, dict(env.rewards), dict(env._cumulative_rewards),
        dict(env.terminations), dict(env.truncations),
        {a: dict(i) for a, i in env.infos.items()}, reward, terminated, truncated, dict(info),
        obs["observation"].tobytes(), obs["action_mask"].tobytes(),
    )


def snapshot_without_illegal_end(env) -> tuple:
    """``snapshot(env)`` with the infos PettingZoo's ``TerminateIllegalWrapper`` does not
    write: after an illegal move ours name it as the end reason and the other agent as winner
    (checked for the reward in ``test_illegal_moves_end_with_the_other_agent_as_winner``), where
    the wrapper leaves the infos of the position before the move."""
    illegal = env.unwrapped.metadata["end_reasons"].index("illegal_action")
    infos = env.infos
    if not infos or next(iter(infos.values()))["end_reason"] != illegal:
        return snapshot(env)
    winners = {i["winner"] for i in infos.values()}
    assert len(winners) == 1 and winners <= {0, 1}
    state = env.unwrapped.core_state
    running = {"end_reason": 0, "winner": -1}
    assert not state.is_terminal()
    saved = {a: dict(i) for a, i in infos.items()}
    for info in infos.values():
        info.update(running)
    try:
        return snapshot(env)
    finally:
        for a, info in infos.items():
            info.update(saved[a])


@pytest.mark.parametrize("game", SHORT)
def test_env_matches_pettingzoos_wrapper_stack_step_for_step_with_illegal_moves(game):
    module, kwargs = SHORT[game]
    ours, reference = module.env(**kwargs), pettingzoo_stack(module, kwargs)
    rng = np.random.default_rng(5)
    illegal_endings = steps = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's illegal-move warning
        for game_index in range(12):
            for env in (ours, reference):
                env.reset(seed=game_index)
            while ours.agents:
                assert snapshot_without_illegal_end(ours) == snapshot(reference)
                _, _, terminated, truncated, _ = ours.last()
                if terminated or truncated:
                    action = None
                else:
                    mask = ours.observe(ours.agent_selection)["action_mask"]
                    # Now and then an illegal move (every fifth game ends with one).
                    pool = np.flatnonzero(mask == 0) if (
                        game_index % 5 == 4 and rng.random() < 0.05) else np.flatnonzero(mask)
                    action = int(rng.choice(pool))
                    illegal_endings += int(mask[action] == 0)
                for env in (ours, reference):
                    env.step(action)
                steps += 1
            assert reference.agents == []
    assert illegal_endings >= 1 and steps > 200


@pytest.mark.parametrize("game", SHORT)
def test_an_illegal_move_ends_the_game_with_minus_one_for_the_mover(game):
    module, kwargs = SHORT[game]
    env = module.env(**kwargs)
    env.reset(seed=0)
    mover = env.agent_selection
    other = next(a for a in env.agents if a != mover)
    illegal = int(np.flatnonzero(env.observe(mover)["action_mask"] == 0)[0])
    raw = module.raw_env(**kwargs)
    raw.reset(seed=0)
    with pytest.raises(IllegalActionError, match=f"illegal action {illegal}"):
        raw.step(illegal)  # a ValueError, as before; env() turns it into the end of the game
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(illegal)
    assert env.rewards == {mover: -1.0, other: 0}
    assert all(env.terminations.values()) and all(env.truncations.values())
    assert env._cumulative_rewards[mover] == -1.0


class CountingNim(NimEnv):
    """The minigame's raw env (no ``play_checked``), counting the moves ``step`` plays."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.steps = 0

    def step(self, action):
        self.steps += action is not None
        super().step(action)


class CheckedNim(CountingNim):
    """A new game's raw env that implements ``play_checked`` (the raw-env contract)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.checked = []

    def play_checked(self, agent, action):
        self.checked.append((agent, action))
        NimEnv.step(self, action)


@pytest.mark.parametrize("game", SHORT)
def test_env_plays_the_bundled_raw_envs_through_play_checked(game, monkeypatch):
    module, kwargs = SHORT[game]
    env = module.env(**kwargs)
    assert isinstance(env.unwrapped, CheckedPlay)
    env.reset(seed=0)

    def refused(action):
        raise AssertionError("env() re-checked a move through raw_env.step")

    monkeypatch.setattr(env.unwrapped, "step", refused)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))


def test_a_raw_env_with_play_checked_is_played_through_it_and_one_without_through_step():
    checked = StandardWrapper(CheckedNim(heap="small"))
    checked.reset(seed=0)
    checked.step(1)
    assert (checked.unwrapped.checked, checked.unwrapped.steps) == ([("player_0", 1)], 0)
    plain = StandardWrapper(CountingNim(heap="small"))
    assert not isinstance(plain.unwrapped, CheckedPlay)
    plain.reset(seed=0)
    plain.step(1)
    assert plain.unwrapped.steps == 1
    for env in (checked, plain):  # the same game either way, an illegal move's end included
        assert env.unwrapped.core_state.stones == 5
        env.step(2)  # 3 stones: 2 are left
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            env.step(2)  # 3 stones of 2: illegal, the game ends with -1 for the mover
        assert env.rewards == {"player_0": -1.0, "player_1": 0}
        assert all(env.terminations.values()) and env.unwrapped.core_state.stones == 2


@pytest.mark.parametrize("game", SHORT)
def test_out_of_space_actions_raise_and_change_nothing(game):
    module, kwargs = SHORT[game]
    env = module.env(**kwargs)
    env.reset(seed=0)
    before = snapshot(env)
    n = env.action_space(env.agent_selection).n
    for bad in (n, -1, 2.0, True, None, "1"):
        with pytest.raises(ValueError, match="action"):
            env.step(bad)
    assert snapshot(env) == before


@pytest.mark.parametrize("game", SHORT)
def test_order_is_enforced_before_the_first_reset(game):
    module, kwargs = SHORT[game]
    env = module.env(**kwargs)
    with pytest.raises(AssertionError, match="reset\\(\\) needs to be called before step"):
        env.step(0)
    with pytest.raises(AssertionError, match="before observe"):
        env.observe("player_0")
    for name in ("agents", "agent_selection", "rewards", "terminations", "truncations",
                 "infos", "num_agents"):
        with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
            getattr(env, name)
    with pytest.raises(AttributeError, match="cannot be accessed before reset"):
        env.last()
    with pytest.raises(AssertionError, match="before agent_iter"):
        env.agent_iter()
    # A reset that raises does not count as one.
    with pytest.raises(ValueError, match="seed must be non-negative"):
        env.reset(seed=-1)
    with pytest.raises(AttributeError, match="agents cannot be accessed before reset"):
        _ = env.agents
    env.reset(seed=0)
    assert env.num_agents == 2 and env.agents == ["player_0", "player_1"]


@pytest.mark.parametrize("game", SHORT)
def test_one_layer_that_is_still_pettingzoos_order_enforcing_wrapper(game):
    module, kwargs = SHORT[game]
    env = module.env(**kwargs)
    assert isinstance(env, StandardWrapper)
    assert isinstance(env, wrappers.OrderEnforcingWrapper)
    assert isinstance(env.env, module.raw_env) and env.unwrapped is env.env
    assert str(env) == module.raw_env.metadata["name"]
    env.reset(seed=0)
    # Writes go to the raw env, as reads come from it.
    env.infos = {agent: {"note": 1} for agent in env.agents}
    assert env.unwrapped.infos == env.infos == {"player_0": {"note": 1}, "player_1": {"note": 1}}


MAKE = {"tbw": lambda: tbw_v0.parallel_env(scenario="paper_figure3"),
        "junqi": lambda: junqi_v0.parallel_env()}

BAD_STEPS = [
    # (actions given the agent to move `a`, the waiting agent `w` and a legal action `ok`,
    #  error type, what the message must say)
    (lambda a, w, ok: {a: ok, "player_9": 0}, ValueError, "player_9"),
    (lambda a, w, ok: {w: ok}, ValueError, "no action for"),
    (lambda a, w, ok: {}, ValueError, "no action for"),
    (lambda a, w, ok: {a: None}, ValueError, "no action for"),
    (lambda a, w, ok: {a: "0"}, ValueError, "integer"),
    (lambda a, w, ok: {a: 1.0}, ValueError, "integer"),
    (lambda a, w, ok: {a: True}, ValueError, "integer"),
    (lambda a, w, ok: {a: -1}, ValueError, "out of range"),
    (lambda a, w, ok: {a: ok, w: "x"}, ValueError, "integer"),
    (lambda a, w, ok: [ok], TypeError, "dict"),
    (lambda a, w, ok: ok, TypeError, "dict"),
]


@pytest.mark.parametrize("game", MAKE)
@pytest.mark.parametrize("case", range(len(BAD_STEPS)))
def test_bad_steps_are_refused_and_change_nothing(game, case):
    make_actions, error, words = BAD_STEPS[case]
    env = MAKE[game]()
    observations, infos = env.reset(seed=1)
    active = env.possible_agents[infos["player_0"]["active_agent"]]
    waiting = next(a for a in env.possible_agents if a != active)
    ok = int(np.flatnonzero(observations[active]["action_mask"])[0])
    before = env.state().copy()
    with pytest.raises(error, match=words):
        env.step(make_actions(active, waiting, ok))
    assert np.array_equal(env.state(), before) and env.agents == list(env.possible_agents)
    # The env plays on as if nothing happened.
    _, rewards, _, _, _ = env.step({active: ok})
    assert set(rewards) == set(env.possible_agents)


@pytest.mark.parametrize("game", MAKE)
def test_step_before_reset_and_after_the_end(game):
    env = MAKE[game]()
    with pytest.raises(RuntimeError, match="before reset"):
        env.step({"player_0": 0})
    observations, infos = env.reset(seed=2)
    active = env.possible_agents[infos["player_0"]["active_agent"]]
    illegal = int(np.flatnonzero(observations[active]["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's illegal-move warning
        _, rewards, terminations, _, _ = env.step({active: illegal})
    assert all(terminations.values()) and rewards[active] == -1 and not env.agents
    with pytest.raises(GameOverError, match="reset"):
        env.step({active: 0})
    env.reset(seed=2)
    assert env.agents == list(env.possible_agents)


SEATS = ("player_0", "player_1")


# ---------------------------------------------------------------- seeding

def _parallel_run(env, seed):
    """The first observations, the Junqi pieces (None for TBW) and 20 samples of the active
    agent's action space with its mask."""
    observations, infos = env.reset(seed=seed)
    active = SEATS[infos["player_0"]["active_agent"]]
    space = env.action_space(active)
    samples = [int(space.sample(observations[active]["action_mask"])) for _ in range(20)]
    state = env.unwrapped.core_state
    return observations, state.pieces() if hasattr(state, "pieces") else None, samples


@pytest.mark.mutation
@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_parallel_reset_with_a_seed_replays_the_game_and_the_samplers(game):
    """aec_wrappers ``TurnBasedParallelEnv.reset`` 2 and 4 (the seed never reached the AEC
    env)."""
    make = {"tbw": lambda: tbw_v0.parallel_env(scenario="duel_5v5_8x8"),
            "junqi": lambda: junqi_v0.parallel_env(rules=QUICK_JUNQI)}[game]
    env, twin = make(), make()
    first = _parallel_run(env, 5)
    for again in (_parallel_run(env, 5), _parallel_run(twin, 5)):
        assert all(np.array_equal(first[0][a][k], again[0][a][k])
                   for a in SEATS for k in ("observation", "action_mask"))
        assert again[1:] == first[1:]
    other = _parallel_run(env, 6)
    assert other[2] != first[2]
    if game == "junqi":
        assert other[1] != first[1]
