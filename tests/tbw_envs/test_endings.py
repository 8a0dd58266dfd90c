"""Rewards and end-of-game infos at decisive endings, in every layer a user plays through:
``raw_env``, ``env()``, ``parallel_env()`` and the single-agent wrappers of both games.

Each case is a position one or two moves from an ending (built in the game core and handed to
the env with ``reset(options={"state": ...})``), the moves that end it, and the returns the
rules give: wins for each seat (by the winner's own move and by the loser's), draws, and losses
by an illegal move. Zeroing or flipping any reward, in any layer, fails one of these tests.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pytest

from tbw_envs import junqi_v0, tbw_v0
from tbw_envs.core.errors import IllegalActionError
from tbw_envs.junqi import JunqiState, parse_post
from tbw_envs.junqi.env.single import make_junqi_single
from tbw_envs.tbw import TBWState, load_scenario
from tbw_envs.tbw.env.single import make_tbw_single

SEATS = ("player_0", "player_1")


@dataclass(frozen=True)
class Ending:
    name: str
    start: object  # a core state, not over
    plays: tuple[int, ...]  # core actions, each by the player to move at that point
    returns: tuple[float, float]
    end_reason: str
    winner: int  # -1: draw


# ---------------------------------------------------------------- TBW positions

def tbw_scenario(first_side: int, ranges: tuple[int, int], max_turns: int = 3):
    """Two units side by side on a 1 x 4 strip, 1 Hp and 1 ATK each, unable to move; a unit
    with range 1 kills its neighbour, one with range 3 reaches nobody."""
    return load_scenario({
        "name": f"ending_{first_side}_{ranges[0]}{ranges[1]}",
        "board": {"topology": "square4", "terrain": ["...."], "legend": {".": "plain"}},
        "terrain": {"plain": {"cost": 1}},
        "unit_types": {
            "near": {"hp": 1, "atk": 1, "move": 0, "range": [1, 1]},
            "far": {"hp": 1, "atk": 1, "move": 0, "range": [3, 3]},
        },
        "units": [
            {"side": 0, "type": "near" if ranges[0] == 1 else "far", "pos": [0, 1]},
            {"side": 1, "type": "near" if ranges[1] == 1 else "far", "pos": [0, 2]},
        ],
        "first_side": first_side,
        "max_turns": max_turns,
        "win": "annihilation",
    })


def tbw_endings() -> list[Ending]:
    cases = []
    for side in (0, 1):
        state = TBWState.initial(tbw_scenario(side, (1, 1)))
        me, foe = state.scenario.side_units[side][0], state.scenario.side_units[1 - side][0]
        pos = state.units[me].pos
        kill = state.encode_action(me, pos, foe)
        returns = (1.0, -1.0) if side == 0 else (-1.0, 1.0)
        cases.append(Ending(f"tbw_player_{side}_kills", state, (kill,), returns,
                            "annihilation", side))
        # The mover cannot reach; it ends its turn and the other side kills it.
        ranges = (3, 1) if side == 0 else (1, 3)
        state = TBWState.initial(tbw_scenario(side, ranges))
        me, foe = state.scenario.side_units[side][0], state.scenario.side_units[1 - side][0]
        end_turn = state.scenario.end_turn_action
        after = state.clone()
        after.apply(end_turn)
        kill = after.encode_action(foe, after.units[foe].pos, me)
        cases.append(Ending(f"tbw_player_{side}_ends_turn_and_is_killed", state,
                            (end_turn, kill), tuple(-r for r in returns), "annihilation",
                            1 - side))
    # Nobody reaches anybody: the last turn of the last round ends in a draw.
    state = TBWState.initial(tbw_scenario(0, (3, 3), max_turns=1))
    end_turn = state.scenario.end_turn_action
    cases.append(Ending("tbw_turn_limit_draw", state, (end_turn, end_turn), (0.0, 0.0),
                        "turn_limit_draw", -1))
    return cases


# ---------------------------------------------------------------- Junqi positions

def move(a: str, b: str) -> int:
    return parse_post(a) * 60 + parse_post(b)


# Both flags in a headquarters (A1: player 1's, L1: player 0's), and each side a spare piece
# far away so that nobody runs out of moves.
FLAGS = {"A1": (1, "flag"), "L1": (0, "flag"), "J4": (0, "engineer"), "C4": (1, "engineer")}


def junqi_endings() -> list[Ending]:
    cases = []
    for side in (0, 1):
        mine, theirs = ("B1", "A1") if side == 0 else ("K1", "L1")
        returns = (1.0, -1.0) if side == 0 else (-1.0, 1.0)
        state = JunqiState.from_pieces({**FLAGS, mine: (side, "captain")}, to_move=side)
        cases.append(Ending(f"junqi_player_{side}_takes_the_flag", state,
                            (move(mine, theirs),), returns, "flag_captured", side))
        # The mover makes a quiet move; the other side takes its flag.
        state = JunqiState.from_pieces({**FLAGS, mine: (side, "captain")}, to_move=1 - side)
        spare = ("C4", "C3") if side == 0 else ("J4", "J3")
        cases.append(Ending(f"junqi_player_{1 - side}_moves_and_loses_its_flag", state,
                            (move(*spare), move(mine, theirs)), returns, "flag_captured", side))
    # CCGC: after no_collision_limit quiet plies the side to move loses, so a quiet move wins.
    state = JunqiState.from_pieces(FLAGS, to_move=1, rules={"no_collision_limit": 1})
    cases.append(Ending("junqi_quiet_move_wins_at_the_no_collision_limit", state,
                        (move("C4", "C3"),), (-1.0, 1.0), "no_collision_limit", 1))
    state = JunqiState.from_pieces(FLAGS, to_move=0, rules={"total_ply_limit": 2})
    cases.append(Ending("junqi_total_ply_limit_draw", state,
                        (move("J4", "J3"), move("C4", "C3")), (0.0, 0.0), "total_ply_limit", -1))
    return cases


ENDINGS = tbw_endings() + junqi_endings()
MODULES = {"tbw": tbw_v0, "junqi": junqi_v0}


def game_of(case: Ending) -> str:
    return case.name.split("_")[0]


def make_raw(case: Ending):
    if game_of(case) == "tbw":
        return tbw_v0.raw_env(scenario=case.start.scenario)
    return junqi_v0.raw_env(rules=case.start.rules)


def make_env(case: Ending):
    if game_of(case) == "tbw":
        return tbw_v0.env(scenario=case.start.scenario)
    return junqi_v0.env(rules=case.start.rules)


def make_parallel(case: Ending):
    if game_of(case) == "tbw":
        return tbw_v0.parallel_env(scenario=case.start.scenario)
    return junqi_v0.parallel_env(rules=case.start.rules)


def test_the_cases_hold_in_the_game_cores():
    """The positions mean what their names say: the core's own returns after the plays."""
    assert {c.returns for c in ENDINGS} >= {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}
    for case in ENDINGS:
        state = case.start.clone()
        assert not state.is_terminal()
        for action in case.plays:
            assert not state.is_terminal()
            state.apply(action)
        assert state.is_terminal() and tuple(state.returns()) == case.returns, case.name
        reason = state.end_reason
        assert reason == case.end_reason, case.name


def expect_outcome(env, case: Ending) -> None:
    info = env.infos[SEATS[0]]
    names = env.metadata["end_reasons"]
    for agent in SEATS:
        assert env.infos[agent] == info
    assert (names[info["end_reason"]], info["winner"]) == (case.end_reason, case.winner)


@pytest.mark.parametrize("case", ENDINGS, ids=lambda c: c.name)
def test_raw_env_rewards_both_players_at_the_end(case):
    env = make_raw(case)
    env.reset(options={"state": case.start})
    assert not any(env.terminations.values())
    for i, action in enumerate(case.plays):
        agent = env.agent_selection
        assert env.infos[agent]["end_reason"] == 0 and env.infos[agent]["winner"] == -1
        env.step(env.to_env_action(agent, action))
        if i < len(case.plays) - 1:
            assert env.rewards == {a: 0.0 for a in SEATS}
    assert all(env.terminations.values())
    assert tuple(env.rewards[a] for a in SEATS) == case.returns
    assert tuple(env._cumulative_rewards[a] for a in SEATS) == case.returns
    expect_outcome(env, case)


def play_env(env, case: Ending, illegal_at: int | None = None) -> dict:
    """Play ``case`` through ``env()``'s ``agent_iter`` loop; what each agent's ``last()``
    gave when it was done."""
    env.reset(options={"state": case.start})
    plays = list(case.plays)
    final = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            final[agent] = (reward, info)
            env.step(None)
            continue
        mask = obs["action_mask"]
        if illegal_at == len(case.plays) - len(plays):
            action = int(np.flatnonzero(mask == 0)[0])
        else:
            action = env.unwrapped.to_env_action(agent, plays[0])
            assert mask[action]
        plays.pop(0)
        env.step(action)
    return final


@pytest.mark.parametrize("case", ENDINGS, ids=lambda c: c.name)
def test_env_gives_each_agent_its_return_through_last(case):
    final = play_env(make_env(case), case)
    assert tuple(final[a][0] for a in SEATS) == case.returns
    names = MODULES[game_of(case)].raw_env.metadata["end_reasons"]
    for agent in SEATS:
        info = final[agent][1]
        assert (names[info["end_reason"]], info["winner"]) == (case.end_reason, case.winner)


@pytest.mark.parametrize("case", ENDINGS, ids=lambda c: c.name)
def test_illegal_moves_end_with_the_other_agent_as_winner(case):
    """``raw_env`` refuses an illegal move and changes nothing; ``env()`` ends the game with
    -1 for the mover and 0 for the other (PettingZoo's ``TerminateIllegalWrapper``), and its
    infos name the end reason and the other agent as winner."""
    raw = make_raw(case)
    raw.reset(options={"state": case.start})
    before = raw.state().copy()
    mover = raw.agent_selection
    with pytest.raises(IllegalActionError):
        raw.step(int(np.flatnonzero(raw.action_mask(mover) == 0)[0]))
    assert np.array_equal(raw.state(), before) and raw.agent_selection == mover
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's illegal-move warning
        final = play_env(make_env(case), case, illegal_at=0)
    loser = SEATS.index(mover)
    expected = [0.0, 0.0]
    expected[loser] = -1.0
    assert [final[a][0] for a in SEATS] == expected
    names = raw.metadata["end_reasons"]
    for agent in SEATS:
        info = final[agent][1]
        assert (names[info["end_reason"]], info["winner"]) == ("illegal_action", 1 - loser)


@pytest.mark.parametrize("case", ENDINGS, ids=lambda c: c.name)
def test_parallel_env_rewards_both_players_in_the_final_step(case):
    env = make_parallel(case)
    observations, infos = env.reset(options={"state": case.start})
    for i, action in enumerate(case.plays):
        active = SEATS[infos[SEATS[0]]["active_agent"]]
        env_action = env.unwrapped.to_env_action(active, action)
        assert observations[active]["action_mask"][env_action]
        # The waiting agent's action is ignored: give it the placeholder.
        waiting = {a: int(np.flatnonzero(observations[a]["action_mask"])[-1])
                   for a in SEATS if a != active}
        observations, rewards, terminations, truncations, infos = env.step(
            {active: env_action, **waiting})
        last = i == len(case.plays) - 1
        assert all(terminations.values()) == last
        assert tuple(rewards[a] for a in SEATS) == (case.returns if last else (0.0, 0.0))
    names = env.metadata["end_reasons"]
    for agent in SEATS:
        info = infos[agent]
        assert (names[info["end_reason"]], info["winner"]) == (case.end_reason, case.winner)
        assert info["active_agent"] == -1
    assert not env.agents


class Scripted:
    """An opponent agent that plays the case's moves for its seat (core actions, from views)."""

    def __init__(self, plays):
        self.plays = list(plays)

    def reset(self, seed=None):
        pass

    def act(self, view):
        return self.plays.pop(0)


SINGLE_AGENT_INT_INFOS = ("plies", "end_reason", "winner", "learner")


def assert_numpy_info(env, info: dict) -> None:
    """Every single-agent info value is a numpy value (TorchRL's ``default_info_dict_reader``
    reads each value's ``dtype``; a Python int has none): ints ``np.int64``, the bool a 0-d bool
    array (which Gymnasium's vector envs stack as bool, unlike ``np.bool_``)."""
    ints = (*SINGLE_AGENT_INT_INFOS, "turn") if env.metadata["name"] == "tbw_v0" else (
        SINGLE_AGENT_INT_INFOS)
    assert set(info) == {*ints, "illegal_action", "action_mask"}
    for key in ints:
        assert type(info[key]) is np.int64, (key, type(info[key]))
    illegal = info["illegal_action"]
    assert isinstance(illegal, np.ndarray) and illegal.dtype == bool and illegal.shape == ()
    mask = info["action_mask"]
    assert isinstance(mask, np.ndarray) and mask.dtype == bool
    assert mask.shape == (env.action_space.n,)


def single_agent(case: Ending, seat: int, opponent):
    kwargs = {"opponent": opponent, "learner_seat": seat}
    if game_of(case) == "tbw":
        return make_tbw_single(scenario=case.start.scenario, **kwargs)
    return make_junqi_single(rules=case.start.rules, **kwargs)


def seat_cases():
    """(case, learner seat) where the learner makes at least one of the moves."""
    pairs = []
    for case in ENDINGS:
        movers = []
        state = case.start.clone()
        for action in case.plays:
            movers.append(state.current_player if hasattr(state, "current_player")
                          else state.current_player)
            state.apply(action)
        pairs += [(case, seat, movers) for seat in (0, 1) if seat in movers]
    return pairs


SEAT_CASES = seat_cases()


@pytest.mark.parametrize("case, seat, movers", SEAT_CASES,
                         ids=[f"{c.name}-learner{s}" for c, s, _ in SEAT_CASES])
def test_single_agent_wrapper_gives_the_learner_its_return(case, seat, movers):
    mine = [a for a, m in zip(case.plays, movers, strict=True) if m == seat]
    theirs = [a for a, m in zip(case.plays, movers, strict=True) if m != seat]
    env = single_agent(case, seat, Scripted(theirs))
    obs, info = env.reset(options={"state": case.start})
    assert_numpy_info(env, info)
    assert (info["learner"], info["end_reason"], info["winner"]) == (seat, 0, -1)
    for i, action in enumerate(mine):
        env_action = env.unwrapped.aec.to_env_action(SEATS[seat], action)
        assert env.action_masks()[env_action] and info["action_mask"][env_action]
        obs, reward, terminated, truncated, info = env.step(env_action)
        assert_numpy_info(env, info)
        last = i == len(mine) - 1
        assert (terminated, truncated) == (last, False)
        assert reward == (case.returns[seat] if last else 0.0)
    names = env.metadata["end_reasons"]
    assert (names[info["end_reason"]], info["winner"]) == (case.end_reason, case.winner)
    assert not info["illegal_action"] and info["learner"] == seat


@pytest.mark.parametrize("case, seat, movers", SEAT_CASES,
                         ids=[f"{c.name}-learner{s}" for c, s, _ in SEAT_CASES])
def test_single_agent_illegal_move_loses(case, seat, movers):
    theirs = [a for a, m in zip(case.plays, movers, strict=True) if m != seat]
    env = single_agent(case, seat, Scripted(theirs))
    assert_numpy_info(env, env.reset(options={"state": case.start})[1])
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert_numpy_info(env, info)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    names = env.metadata["end_reasons"]
    assert (names[info["end_reason"]], info["winner"]) == ("illegal_action", 1 - seat)
    assert info["illegal_action"]


OPPONENT_ENDS_CASES = [(case, seat) for case in ENDINGS for seat in (0, 1)
                       if (case, seat) not in {(c, s) for c, s, _ in SEAT_CASES}]


@pytest.mark.parametrize("case, seat", OPPONENT_ENDS_CASES,
                         ids=[f"{c.name}-learner{s}" for c, s in OPPONENT_ENDS_CASES])
def test_single_agent_episode_ended_inside_reset_has_numpy_infos(case, seat):
    """The opponent's moves end the game before the learner's first move."""
    env = single_agent(case, seat, Scripted(list(case.plays)))
    _, info = env.reset(options={"state": case.start})
    assert_numpy_info(env, info)
    names = env.metadata["end_reasons"]
    assert (names[info["end_reason"]], info["winner"]) == (case.end_reason, case.winner)


def test_reset_from_a_state_checks_it():
    env = tbw_v0.raw_env(scenario="duel_5v5_8x8")
    with pytest.raises(TypeError, match="TBWState"):
        env.reset(options={"state": "duel_5v5_8x8"})
    other = TBWState.initial(load_scenario("paper_figure3"))
    with pytest.raises(ValueError, match="shapes"):
        env.reset(options={"state": other})
    over = TBWState.initial(tbw_scenario(0, (1, 1)))
    over.apply(over.encode_action(0, over.units[0].pos, 1))
    with pytest.raises(ValueError, match="already over"):
        tbw_v0.raw_env(scenario=over.scenario).reset(options={"state": over})
    jenv = junqi_v0.raw_env()
    with pytest.raises(TypeError, match="JunqiState"):
        jenv.reset(options={"state": object()})
    with pytest.raises(ValueError, match="alone"):
        jenv.reset(options={"state": JunqiState.from_pieces(FLAGS), "rules": "jj"})
    # A copy is played: the caller's state is untouched.
    start = JunqiState.from_pieces(FLAGS)
    jenv.reset(options={"state": start})
    jenv.step(jenv.to_env_action("player_0", move("J4", "J3")))
    assert start.ply == 0 and jenv.core_state.ply == 1
