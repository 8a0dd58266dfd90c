"""More behaviours that mutation testing (scripts/mutation_check.py) found untested, as
tests/test_mutation_gaps.py: each test here fails on a mutant that survived the rest of the
suite (the mutants are named in each docstring, as ``mutmut show`` names them)."""

from __future__ import annotations

import numpy as np
import pytest
from quick_games import QUICK_JUNQI, SKIRMISH

from tbw_envs import junqi_v0, tbw_v0
from tbw_envs.core.contract import GameOverError
from tbw_envs.junqi import (
    BOTH_REMOVED,
    MOVED,
    NUM_POSTS,
    PIECE_NAMES,
    JunqiState,
    deploy_action,
    load_layout,
    load_rules,
    parse_post,
    post_name,
)
from tbw_envs.junqi.layout import DEPLOY_CELLS
from tbw_envs.tbw import END_TURN
from tbw_envs.tbw.observation import ObservationEncoder
from tbw_envs.wrappers import SingleAgentEnv, make_junqi_single, make_tbw_single

SEATS = ("player_0", "player_1")
FIRST, SECOND = load_layout("flag_left_mined"), load_layout("bombs_forward")


# ---------------------------------------------------------------- Junqi layouts and rules

def test_junqi_initial_gives_player_0_the_first_layout_in_every_form():
    """junqi.state ``_layout_pair`` 31 (player 0 got player 1's layout), 3 and 4 (a dict keyed
    by 0/1 refused), 24 (a triple taken for a pair)."""
    expected = {
        post_name(post): (player, PIECE_NAMES[kind])
        for player, layout in enumerate((FIRST, SECOND))
        for post, kind in layout.pieces(player).items()
    }
    for layouts in ((FIRST, SECOND), [FIRST, SECOND], {0: FIRST, 1: SECOND},
                    {"player_0": FIRST, "player_1": SECOND}):
        assert JunqiState.initial(layouts).pieces() == expected, type(layouts)
    with pytest.raises(ValueError, match="layouts must be a pair"):
        JunqiState.initial((FIRST, SECOND, SECOND))


# The side to move loses at the 5th ply in a row without a collision (CCGC: the 31st).
FIVE_QUIET = {"no_collision_limit": 5}


def _quiet_action(game: JunqiState) -> int:
    """A legal move onto an empty post (no collision)."""
    return next(a for a in game.legal_actions() if game.piece_at(a % NUM_POSTS) is None)


def _deploy(step, game: JunqiState) -> None:
    """Fill both armies (FIRST for player 0, SECOND for player 1) with ``step(action)``."""
    orders = [[layout.cells[c] for c in DEPLOY_CELLS] for layout in (FIRST, SECOND)]
    while game.phase == "deploy":
        player = game.current_player
        index = sum(owner == player for owner, _ in game.pieces().values())
        step(deploy_action(orders[player][index]))


def _ends_at_the_fifth_quiet_ply(game: JunqiState) -> bool:
    for _ in range(4):
        game.apply(_quiet_action(game))
        if game.is_terminal():
            return False
    game.apply(_quiet_action(game))
    return game.end_reason == "no_collision_limit"


def test_junqi_core_constructors_keep_custom_rules():
    """junqi.state ``initial`` 6, ``random_initial`` 6 and 8, ``new_deployment`` 4 (the rules
    given were dropped for CCGC's)."""
    rules = load_rules(FIVE_QUIET)
    deploying = JunqiState.new_deployment(rules=FIVE_QUIET)
    assert deploying.rules == rules
    _deploy(deploying.apply, deploying)
    for game in (JunqiState.initial((FIRST, SECOND), rules=FIVE_QUIET),
                 JunqiState.random_initial(0, rules=FIVE_QUIET), deploying):
        assert game.rules == rules
        assert _ends_at_the_fifth_quiet_ply(game)
    # The control: under CCGC five quiet plies are nothing.
    assert not _ends_at_the_fifth_quiet_ply(JunqiState.initial((FIRST, SECOND)))


def _env_ends_at_the_fifth_quiet_ply(env) -> bool:
    for _ in range(5):
        if any(env.terminations.values()):
            return False
        game = env.game
        env.step(env.to_env_action(env.agent_selection, _quiet_action(game)))
    return all(env.terminations.values()) and env.game.end_reason == "no_collision_limit"


def test_junqi_env_plays_under_its_rules_in_every_reset_path():
    """junqi_v0 ``__init__`` 37 and 38, ``reset`` 68, 70 and 77: ``raw_env(rules=...)`` fell
    back to CCGC (at construction, or in the reset with layouts, or with agent deployment)."""
    rules = load_rules(FIVE_QUIET)
    env = junqi_v0.raw_env(rules=FIVE_QUIET)
    resets = [{}, {"seed": 3}, {"options": {"layouts": {"player_0": FIRST, "player_1": SECOND}}},
              {}]
    for kwargs in resets:
        env.reset(**kwargs)
        assert env.rules == rules and env.game.rules == rules, kwargs
        assert _env_ends_at_the_fifth_quiet_ply(env), kwargs
    deploying = junqi_v0.raw_env(rules=FIVE_QUIET, deployment="agents")
    for seed in (0, None):
        deploying.reset(seed=seed)
        assert deploying.game.phase == "deploy" and deploying.game.rules == rules
        _deploy(deploying.step, deploying.game)
        assert deploying.rules == rules and deploying.game.rules == rules
        assert _env_ends_at_the_fifth_quiet_ply(deploying)
    control = junqi_v0.raw_env()
    control.reset(options={"layouts": {"player_0": FIRST, "player_1": SECOND}})
    assert not _env_ends_at_the_fifth_quiet_ply(control)


# ---------------------------------------------------------------- seeding

def _parallel_run(env, seed):
    """The first observations, the Junqi pieces (None for TBW) and 20 samples of the active
    agent's action space with its mask."""
    observations, infos = env.reset(seed=seed)
    active = SEATS[infos["player_0"]["active_agent"]]
    space = env.action_space(active)
    samples = [int(space.sample(observations[active]["action_mask"])) for _ in range(20)]
    game = getattr(env.unwrapped, "game", None)
    return observations, None if game is None else game.pieces(), samples


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


# ---------------------------------------------------------------- single-agent wrapper

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
    played = [r.from_post * NUM_POSTS + r.to_post for r in env.aec.game.history if r.player == 1]
    assert played == [env.aec.to_core_action("player_1", a) for a in opponent.actions]


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


def test_single_agent_step_before_reset_is_refused():
    """wrappers ``SingleAgentEnv.__init__`` 154 and 155 (``_done`` None or False let the step
    through to the raw env)."""
    env = SingleAgentEnv(tbw_v0.raw_env(scenario=SKIRMISH))
    with pytest.raises(GameOverError, match=r"call reset\(\) first"):
        env.step(env.noop_action)
    with pytest.raises(GameOverError, match=r"call reset\(\) first"):
        env.step(0)


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


# ---------------------------------------------------------------- TBW perspective and actions

def test_flip_perspective_false_leaves_player_1_unrotated():
    """tbw_v0 ``_set_scenario`` 13 (the encoder always rotated player_1's planes); wrappers
    ``make_tbw_single`` 8 and 19 (the flip_perspective default and pass-through)."""
    for flip in (False, True):
        env = tbw_v0.raw_env(scenario="duel_5v5_8x8", flip_perspective=flip)
        env.reset()
        state = env.view("player_1")
        planes = env.observe("player_1")["observation"]
        expected = ObservationEncoder(env.scenario, flip=flip).encode(state, 1)
        other = ObservationEncoder(env.scenario, flip=not flip).encode(state, 1)
        assert np.array_equal(planes, expected) and not np.array_equal(planes, other)
    for kwargs, flip in (({}, True), ({"flip_perspective": False}, False)):
        single = make_tbw_single(scenario="duel_5v5_8x8", learner_seat=1, **kwargs)
        obs = single.reset(seed=0)[0]
        assert single.aec.flip_perspective is flip
        encoder = ObservationEncoder(single.aec.scenario, flip=flip)
        assert np.array_equal(obs, encoder.encode(single.aec.view("player_1"), 1))


def test_tbw_encode_action_refuses_a_target_past_the_last_unit_and_unknown_strings():
    """tbw.state ``encode_action`` 65 (target == len(units) gave an IndexError); tbw_v0
    ``encode_action`` 6 and 7 (any string was taken for END_TURN)."""
    env = tbw_v0.raw_env(scenario="duel_5v5_8x8")
    env.reset()
    state = env.scenario.initial_state()
    uid = state.ready_units()[0]
    row, col = state.units[uid].pos
    with pytest.raises(ValueError, match="unknown target unit id"):
        state.encode_action(uid, (row, col), len(env.scenario.units))
    for bogus in ("bogus", "end_turn ", ""):
        with pytest.raises(ValueError, match="unknown unit id"):
            env.encode_action(bogus)
    assert env.encode_action(END_TURN) == env.scenario.end_turn_action


# ---------------------------------------------------------------- Junqi positions

def test_a_flag_is_announced_only_when_the_last_marshal_of_its_side_is_removed():
    """junqi.state ``_marshal_removed`` 2 (the flag was announced when any marshal fell, even
    with another of its side still standing)."""
    state = JunqiState.from_pieces({
        "L1": (0, "flag"), "K4": (0, "captain"), "H0": (0, "marshal"), "C0": (0, "bomb"),
        "A3": (1, "flag"), "B4": (1, "captain"), "G0": (1, "marshal"), "B0": (1, "marshal"),
    })  # fmt: skip
    for source, target, result in (("K4", "K3", MOVED), ("B4", "B3", MOVED),
                                   ("H0", "G0", BOTH_REMOVED)):
        assert state.apply(state.encode_action(source, target)) == result
    # Player 0 lost its only marshal on ply 2; player 1 still has the one on B0.
    assert state.flag_revealed == [parse_post("L1"), None]
    assert state.flag_revealed_ply == [2, None]
    assert state.apply(state.encode_action("B0", "C0")) == BOTH_REMOVED
    assert state.flag_revealed == [parse_post("L1"), parse_post("A3")]
    assert state.flag_revealed_ply == [2, 3]


def test_from_pieces_refuses_a_player_2_to_move():
    """junqi.state ``from_pieces`` 7 (``or`` turned into ``and``: any int was taken)."""
    pieces = {"A1": (1, "flag"), "L1": (0, "flag"), "J4": (0, "engineer"),
              "C4": (1, "engineer")}
    for to_move in (2, -1):
        with pytest.raises(ValueError, match="to_move must be 0 or 1"):
            JunqiState.from_pieces(pieces, to_move=to_move)
