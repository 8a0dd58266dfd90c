"""Junqi rules of play (``JunqiState``, ``tbw_envs.junqi.state``): moves, combat, camps,
headquarters, flag, end of game, variants, bad input, and constructors that keep their layouts and
rules."""


import numpy as np
import pytest

from tbw_envs.junqi import (
    ATTACKER_LOST,
    ATTACKER_WON,
    BOTH_REMOVED,
    MOVED,
    PIECE_NAMES,
    JunqiState,
    encode_action,
    load_rules,
    parse_post,
    post_name,
)
from tbw_envs.junqi.observation import OBSERVATION_PLANES, observation_planes
from tests.helpers.junqi_games import FIRST, FIVE_QUIET, SECOND, deploy_both_armies, quiet_action
from tests.helpers.junqi_hand import NAMES, quiet_position

# A quiet corner for the side that is not under test, so positions never end at once.
P1_HOME = {"A0": (1, "flag"), "B0": (1, "captain")}
P0_HOME = {"L4": (0, "flag"), "K4": (0, "captain")}


def make(pieces, to_move=0, rules="ccgc", homes=True):
    position = {**P1_HOME, **P0_HOME, **pieces} if homes else dict(pieces)
    return JunqiState.from_pieces(position, to_move=to_move, rules=rules)


def dests(state, post):
    return {post_name(p) for p in state.destinations(post)}


def move(state, from_post, to_post):
    return state.apply(encode_action(from_post, to_post))


def snapshot(state):
    return (
        state.pieces(), list(state.history), state.current_player, state.ply, state.quiet_plies,
        state.legal_actions(), [m[:] for m in state.possible], list(state.moved),
        list(state.flag_revealed), state.winner, state.end_reason, state.phase,
    )  # fmt: skip


# ---------------------------------------------------------------- combat
@pytest.mark.parametrize(
    "attacker, defender, result, on_post",
    [
        ("marshal", "general", ATTACKER_WON, (0, "marshal")),
        ("captain", "lieutenant", ATTACKER_WON, (0, "captain")),
        ("lieutenant", "captain", ATTACKER_LOST, (1, "captain")),
        ("engineer", "lieutenant", ATTACKER_LOST, (1, "lieutenant")),
        ("major", "major", BOTH_REMOVED, None),
        ("marshal", "marshal", BOTH_REMOVED, None),
        ("bomb", "marshal", BOTH_REMOVED, None),
        ("engineer", "bomb", BOTH_REMOVED, None),
        ("marshal", "bomb", BOTH_REMOVED, None),
        ("bomb", "bomb", BOTH_REMOVED, None),
        ("bomb", "mine", BOTH_REMOVED, None),
        ("engineer", "mine", ATTACKER_WON, (0, "engineer")),
        ("marshal", "mine", ATTACKER_LOST, (1, "mine")),
        ("captain", "mine", ATTACKER_LOST, (1, "mine")),
    ],
)
def test_combat_outcomes(attacker, defender, result, on_post):
    state = make({"H0": (0, attacker), "G0": (1, defender)})
    assert move(state, "H0", "G0") == result
    assert state.piece_at("G0") == on_post
    assert state.piece_at("H0") is None
    assert state.history[-1].result == result
    assert state.quiet_plies == 0


@pytest.mark.parametrize("attacker", ["engineer", "lieutenant", "marshal", "bomb"])
def test_any_piece_takes_the_flag_and_wins(attacker):
    state = make({"H0": (0, attacker), "G0": (1, "flag"), "K3": (1, "general")})
    move(state, "H0", "G0")
    assert state.is_terminal() and state.end_reason == "flag_captured"
    assert state.returns() == [1, -1] and state.legal_actions() == []


def test_immobile_pieces_and_no_move_onto_own_piece():
    state = make({"H0": (0, "mine"), "H2": (0, "flag"), "G0": (0, "major"), "I0": (0, "bomb")})
    assert dests(state, "H0") == set() and dests(state, "H2") == set()
    assert "G0" not in dests(state, "I0")
    assert "H0" not in dests(state, "G0")


# ---------------------------------------------------------------- camps and headquarters
def test_piece_in_camp_cannot_be_attacked_but_empty_camp_can_be_entered():
    state = make({"I2": (1, "lieutenant"), "H2": (0, "marshal"), "I1": (0, "colonel")})
    assert "I2" not in dests(state, "H2")  # occupied enemy camp
    assert "H1" in dests(state, "H2") and "H3" in dests(state, "H2")  # empty camps
    # Camps link diagonally: from H1 a piece reaches G0, G2, I0 and I2's neighbours diagonally.
    move(state, "I1", "H1")
    state.apply(state.legal_actions()[0])
    assert {"G0", "G2", "I0", "I2"} & dests(state, "H1") == {"G0", "G2", "I0"}


def test_headquarters_lock():
    state = make({"K1": (0, "colonel")})
    move(state, "K1", "L1")
    state.apply(encode_action("B0", "B1"))
    assert dests(state, "L1") == set()
    assert not any(a // 60 == parse_post("L1") for a in state.legal_actions())


def test_variant_pieces_may_leave_headquarters():
    state = make({"L1": (0, "colonel")}, rules={"headquarters_lock": False})
    assert dests(state, "L1") == {"L0", "L2", "K1"}
    locked = make({"L1": (0, "colonel")})
    assert dests(locked, "L1") == set()


# ---------------------------------------------------------------- railroad
def test_non_engineer_slides_straight_until_blocked():
    state = make({"K0": (0, "colonel"), "F0": (0, "major"), "K3": (1, "captain")})
    reach = dests(state, "K0")
    assert {"J0", "I0", "H0", "G0"} <= reach and "F0" not in reach and "E0" not in reach
    assert {"K1", "K2", "K3"} <= reach and "K4" not in reach  # attacks K3, cannot pass it
    assert "L0" in reach  # road step
    assert not reach & {"G1", "B4", "F1", "H4", "J2"}  # no turning


def test_engineer_turns_through_the_rail_network():
    state = make({"K0": (0, "engineer"), "L4": (0, "flag"), "A0": (1, "flag")}, homes=False)
    reach = dests(state, "K0")
    assert {"G2", "F2", "B4", "K4", "C4", "G4"} <= reach
    assert "D2" not in reach and "C2" not in reach


def test_engineer_cannot_route_through_road_only_posts():
    # The flood-fill bug: an engineer on the railroad must not continue through road posts.
    state = make({"B2": (0, "engineer"), "L4": (0, "flag"), "L0": (1, "flag")}, homes=False)
    reach = dests(state, "B2")
    assert "C2" in reach and "A2" in reach  # road steps
    assert "C1" in reach and "C3" in reach  # diagonal steps into camps
    assert not reach & {"D2", "E2", "A0", "A1", "A3", "A4", "D1", "D3", "H2"}
    for name in reach - {"A2", "C1", "C2", "C3"}:
        assert state._moves._is_rail[parse_post(name)]


def test_engineer_route_blocked_by_pieces_and_no_jumping():
    state = JunqiState.from_pieces(
        {"K0": (0, "engineer"), "J0": (0, "major"), "K1": (1, "captain"), "L4": (0, "flag"),
         "A0": (1, "flag")}
    )  # fmt: skip
    assert dests(state, "K0") == {"K1", "L0", "J1"}  # J1: camp diagonal


def test_variant_non_engineer_turns_with_step_limit():
    rules = {"non_engineer_rail_turns": True, "non_engineer_rail_steps": 3}
    state = make({"K0": (0, "colonel")}, rules=rules)
    reach = dests(state, "K0")
    assert {"H0", "K3", "J0", "K1"} <= reach
    assert "G0" not in reach and "K4" not in reach  # 4 steps away
    straight_limited = make({"K0": (0, "colonel")}, rules={"non_engineer_rail_steps": 2})
    assert dests(straight_limited, "K0") == {"J0", "I0", "K1", "K2", "L0", "J1"}


def test_engineer_only_move_is_public():
    state = make({"K0": (0, "engineer"), "K2": (0, "colonel")})
    move(state, "K0", "G2")
    assert state.history[-1].engineer_only
    view = state.view(1)
    assert view.possible[parse_post("G2")] == 1 << 8  # the opponent knows it is an engineer
    state.apply(encode_action("B0", "B1"))
    move(state, "K2", "K3")
    assert not state.history[-1].engineer_only


# ---------------------------------------------------------------- mines, bombs, flag
def test_mine_stays_after_killing_and_engineer_clears_it():
    state = make({"H0": (0, "general"), "I0": (0, "engineer"), "G0": (1, "mine")})
    move(state, "H0", "G0")
    assert state.piece_at("G0") == (1, "mine")
    state.apply(encode_action("B0", "B1"))
    move(state, "I0", "H0")
    state.apply(encode_action("B1", "B0"))
    move(state, "H0", "G0")
    assert state.piece_at("G0") == (0, "engineer")


def test_variant_mine_dies_with_attacker():
    state = make(
        {"H0": (0, "general"), "G0": (1, "mine")}, rules={"mine_vs_attacker": "both_removed"}
    )
    assert move(state, "H0", "G0") == BOTH_REMOVED
    assert state.piece_at("G0") is None


def test_variant_bomb_may_not_destroy_the_flag():
    state = JunqiState.from_pieces(
        {"H0": (0, "bomb"), "G0": (1, "flag"), "L4": (0, "flag"), "K4": (0, "captain"),
         "B0": (1, "captain")},
        rules={"bomb_vs_flag": "bomb_removed"},
    )  # fmt: skip
    assert move(state, "H0", "G0") == ATTACKER_LOST
    assert state.piece_at("G0") == (1, "flag") and not state.is_terminal()


def test_variant_marshal_may_not_take_the_flag():
    pieces = {"H0": (0, "marshal"), "G0": (1, "flag"), "L4": (0, "flag"), "K4": (0, "captain"),
              "B0": (1, "captain")}  # fmt: skip
    state = JunqiState.from_pieces(pieces, rules={"marshal_takes_flag": False})
    assert move(state, "H0", "G0") == ATTACKER_LOST and not state.is_terminal()
    state = JunqiState.from_pieces(pieces)
    assert move(state, "H0", "G0") == ATTACKER_WON and state.winner == 0


def test_flag_reveal_marks_the_true_flag_post():
    pieces = {
        "A1": (1, "mine"), "A3": (1, "flag"), "G0": (1, "marshal"), "B0": (1, "captain"),
        "H0": (0, "bomb"), "L1": (0, "flag"), "K4": (0, "captain"), "L3": (0, "mine"),
    }  # fmt: skip
    state = JunqiState.from_pieces(pieces)
    assert state.flag_revealed == [None, None]
    assert move(state, "H0", "G0") == BOTH_REMOVED
    a3 = parse_post("A3")
    assert state.flag_revealed == [None, a3]
    view = state.view(0)
    assert view.flag_revealed[1] == a3
    assert view.possible[a3] == 1 << 11
    assert view.possible[parse_post("A1")] & (1 << 11) == 0
    plane = OBSERVATION_PLANES.index("opponent_flag_revealed")
    obs = observation_planes(view)
    assert obs[plane].sum() == 1 and obs[plane, 0, 3] == 1  # A3 = row 0, column 3
    own = observation_planes(state.view(1))
    # Player 1 sees its board turned half a turn: A3 appears at row 11, column 1.
    assert own[OBSERVATION_PLANES.index("own_flag_revealed"), 11, 1] == 1


def test_marshal_losing_an_attack_reveals_its_own_flag():
    pieces = {"H0": (0, "marshal"), "G0": (1, "bomb"), "L3": (0, "flag"), "K4": (0, "captain"),
              "A1": (1, "flag"), "B0": (1, "captain")}  # fmt: skip
    state = JunqiState.from_pieces(pieces)
    move(state, "H0", "G0")
    assert state.flag_revealed == [parse_post("L3"), None]
    assert state.view(1).possible[parse_post("L3")] == 1 << 11


# ---------------------------------------------------------------- end of game
def test_side_without_legal_move_loses():
    state = JunqiState.from_pieces(
        {"H0": (0, "captain"), "G0": (1, "lieutenant"), "A1": (1, "flag"), "A0": (1, "mine"),
         "L1": (0, "flag")}
    )  # fmt: skip
    move(state, "H0", "G0")
    assert state.is_terminal() and state.end_reason == "no_legal_move"
    assert state.returns() == [1, -1]


def test_neither_side_can_move_is_a_draw():
    state = JunqiState.from_pieces(
        {"H0": (0, "captain"), "G0": (1, "captain"), "A1": (1, "flag"), "L1": (0, "flag")}
    )
    move(state, "H0", "G0")
    assert state.end_reason == "no_legal_move_both" and state.returns() == [0, 0]


def test_position_with_no_move_for_side_to_move_is_over_at_once():
    state = JunqiState.from_pieces({"L1": (0, "flag"), "A1": (1, "flag"), "B0": (1, "major")})
    assert state.is_terminal() and state.winner == 1 and state.legal_actions() == []


def shuffle_quietly(state, plies):
    """Quiet plies: each side moves its home captain back and forth."""
    for _ in range(plies):
        if state.current_player == 0:
            move(state, *(("K4", "K3") if state.piece_at("K4") else ("K3", "K4")))
        else:
            move(state, *(("B0", "B1") if state.piece_at("B0") else ("B1", "B0")))


def test_31_quiet_plies_and_the_side_to_move_loses():
    state = make({})
    shuffle_quietly(state, 30)
    assert not state.is_terminal() and state.quiet_plies == 30
    shuffle_quietly(state, 1)  # player 0 makes the 31st quiet ply; player 1 is to move
    assert state.is_terminal() and state.end_reason == "no_collision_limit"
    assert state.current_player == 1 and state.returns() == [1, -1]


def test_collision_resets_the_quiet_count():
    state = make({"H0": (0, "marshal"), "E0": (1, "lieutenant")})
    shuffle_quietly(state, 20)
    assert state.quiet_plies == 20 and state.current_player == 0
    move(state, "H0", "E0")
    assert state.quiet_plies == 0 and state.history[-1].result == ATTACKER_WON


def test_jj_draws_after_70_quiet_plies():
    state = make({}, rules="jj")
    shuffle_quietly(state, 69)
    assert not state.is_terminal()
    shuffle_quietly(state, 1)
    assert state.end_reason == "no_collision_limit" and state.returns() == [0, 0]


def test_qq_draws_after_400_plies_in_all():
    state = make({}, rules="qq")
    assert state.rules.total_ply_limit == 400 and state.rules.no_collision_limit == 100
    # Fast-forward the clock (the limit reads only the ply count) instead of staging collisions.
    state.ply = 399
    move(state, "K4", "K3")
    assert state.end_reason == "total_ply_limit" and state.returns() == [0, 0]


def test_hard_ply_cap_draws():
    state = make({}, rules={"no_collision_limit": None, "ply_cap": 10})
    shuffle_quietly(state, 9)
    assert not state.is_terminal()
    shuffle_quietly(state, 1)
    assert state.end_reason == "ply_cap" and state.returns() == [0, 0]


def test_moved_flag_and_history_are_public_results():
    state = make({"K0": (0, "colonel")})
    move(state, "K0", "G0")
    assert state.moved[parse_post("G0")] and not state.moved[parse_post("K0")]
    assert state.history[-1] == (0, parse_post("K0"), parse_post("G0"), MOVED, False)


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("bad", [1.0, "12", None, True, np.float32(3), [1], -1, 3612, 10**9])
def test_bad_action_types_and_ranges(bad):
    state = JunqiState.random_initial(0)
    before = snapshot(state)
    with pytest.raises(ValueError, match="action"):
        state.apply(bad)
    assert snapshot(state) == before


def test_illegal_move_names_action_and_legal_count_and_leaves_state_unchanged():
    state = JunqiState.random_initial(1)
    before = snapshot(state)
    illegal = next(a for a in range(3600) if a not in state.legal_actions())
    with pytest.raises(
        ValueError, match=rf"illegal action {illegal} .*{len(state.legal_actions())} legal"
    ):
        state.apply(illegal)
    with pytest.raises(ValueError, match="illegal action 3602"):
        state.apply(3602)  # a deployment action in the play phase
    assert snapshot(state) == before


def test_numpy_integer_actions_are_accepted():
    state = JunqiState.random_initial(2)
    state.apply(np.int64(state.legal_actions()[0]))
    assert state.ply == 1


def test_apply_after_game_over_raises():
    state = JunqiState.from_pieces({"L1": (0, "flag"), "A1": (1, "flag"), "B0": (1, "major")})
    with pytest.raises(ValueError, match="game is over"):
        state.apply(0)


@pytest.mark.parametrize(
    "pieces, message",
    [
        ({"K0": (0, "knight")}, "unknown piece name 'knight'"),
        ({"Z9": (0, "engineer")}, "bad post name"),
        ({"K0": (2, "engineer")}, "player must be 0 or 1"),
        ({"K0": "engineer"}, r"must be \(player, piece name\)"),
        ({"K0": (0, "engineer"), 50: (1, "mine")}, "given twice"),
    ],
)
def test_from_pieces_errors(pieces, message):
    with pytest.raises(ValueError, match=message):
        JunqiState.from_pieces(pieces)


def test_unknown_rule_set():
    with pytest.raises(ValueError, match="unknown Junqi rule set 'nope'.*ccgc"):
        JunqiState.from_pieces({"K0": (0, "engineer")}, rules="nope")


def test_clone_is_independent():
    state = JunqiState.random_initial(5)
    copy = state.clone()
    copy.apply(copy.legal_actions()[0])
    assert state.ply == 0 and copy.ply == 1
    assert state.pieces() != copy.pieces()
    assert snapshot(state.clone()) == snapshot(state)


# -------------------------------------------------------- constructors keep their layouts and rules

@pytest.mark.mutation
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


def _ends_at_the_fifth_quiet_ply(game: JunqiState) -> bool:
    for _ in range(4):
        game.apply(quiet_action(game))
        if game.is_terminal():
            return False
    game.apply(quiet_action(game))
    return game.end_reason == "no_collision_limit"


@pytest.mark.mutation
def test_junqi_core_constructors_keep_custom_rules():
    """junqi.state ``initial`` 6, ``random_initial`` 6 and 8, ``new_deployment`` 4 (the rules
    given were dropped for CCGC's)."""
    rules = load_rules(FIVE_QUIET)
    deploying = JunqiState.new_deployment(rules=FIVE_QUIET)
    assert deploying.rules == rules
    deploy_both_armies(deploying.apply, deploying)
    for game in (JunqiState.initial((FIRST, SECOND), rules=FIVE_QUIET),
                 JunqiState.random_initial(0, rules=FIVE_QUIET), deploying):
        assert game.rules == rules
        assert _ends_at_the_fifth_quiet_ply(game)
    # The control: under CCGC five quiet plies are nothing.
    assert not _ends_at_the_fifth_quiet_ply(JunqiState.initial((FIRST, SECOND)))


# ---------------------------------------------------------------- flag announcement and positions

@pytest.mark.mutation
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


@pytest.mark.mutation
def test_from_pieces_refuses_a_player_2_to_move():
    """junqi.state ``from_pieces`` 7 (``or`` turned into ``and``: any int was taken)."""
    pieces = {"A1": (1, "flag"), "L1": (0, "flag"), "J4": (0, "engineer"),
              "C4": (1, "engineer")}
    for to_move in (2, -1):
        with pytest.raises(ValueError, match="to_move must be 0 or 1"):
            JunqiState.from_pieces(pieces, to_move=to_move)


# ---------------------------------------------------------------- combat, by hand
RANK = dict(zip(NAMES[:9], range(10, 1, -1), strict=True))


def _hand_result(attacker, defender):
    if attacker == "bomb" or defender == "bomb":
        return BOTH_REMOVED
    if defender == "flag":
        return ATTACKER_WON
    if defender == "mine":
        return ATTACKER_WON if attacker == "engineer" else ATTACKER_LOST
    if RANK[attacker] == RANK[defender]:
        return BOTH_REMOVED
    return ATTACKER_WON if RANK[attacker] > RANK[defender] else ATTACKER_LOST


@pytest.mark.audit
@pytest.mark.parametrize("attacker", [n for n in NAMES if n not in ("mine", "flag")])
def test_audit_combat_of_every_pair(attacker):
    for defender in NAMES:
        pieces = {"G2": (0, attacker), "F2": (1, defender), "L4": (0, "flag"), "K4": (0, "major"),
                  "A4": (1, "flag"), "B4": (1, "major")}  # fmt: skip
        if defender == "flag":
            del pieces["A4"]
        state = JunqiState.from_pieces(pieces)
        result = move(state, "G2", "F2")
        expected = _hand_result(attacker, defender)
        assert result == expected, (attacker, defender)
        on_post = {
            ATTACKER_WON: (0, attacker), ATTACKER_LOST: (1, defender), BOTH_REMOVED: None
        }[expected]  # fmt: skip
        assert state.piece_at("F2") == on_post and state.piece_at("G2") is None
        assert (state.end_reason == "flag_captured") == (defender == "flag")
        if defender == "flag":
            assert state.winner == 0


@pytest.mark.audit
@pytest.mark.parametrize(
    "attacker, defender, revealed",
    [
        ("marshal", "marshal", ["L1", "A3"]),  # equal trade: both marshals gone, both flags
        ("marshal", "bomb", ["L1", None]),
        ("bomb", "marshal", [None, "A3"]),
        ("marshal", "mine", ["L1", None]),
        ("marshal", "general", [None, None]),
        ("general", "marshal", [None, None]),
    ],
)
def test_audit_marshal_removal_reveals_that_sides_flag(attacker, defender, revealed):
    state = JunqiState.from_pieces(
        {"H0": (0, attacker), "G0": (1, defender), "L1": (0, "flag"), "K4": (0, "major"),
         "A3": (1, "flag"), "B4": (1, "major")}
    )  # fmt: skip
    move(state, "H0", "G0")
    assert state.flag_revealed == [None if r is None else parse_post(r) for r in revealed]
    for side, post in enumerate(revealed):
        if post is not None:
            assert state.view(1 - side).possible[parse_post(post)] == 1 << NAMES.index("flag")


# ---------------------------------------------------------------- end of game, by hand
def play_quiet_plies(state, plies):
    for _ in range(plies):
        if state.current_player == 0:
            move(state, *(("K4", "K3") if state.piece_at("K4") else ("K3", "K4")))
        else:
            move(state, *(("B4", "B3") if state.piece_at("B4") else ("B3", "B4")))


@pytest.mark.audit
def test_audit_no_collision_rule_counts_exactly_31_plies():
    state = quiet_position({"H0": (0, "general"), "D0": (1, "engineer")})
    play_quiet_plies(state, 4)
    assert move(state, "H0", "D0") == ATTACKER_WON and state.quiet_plies == 0
    # Quiet plies 1..30: player 1 makes the odd ones, player 0 the even ones.
    play_quiet_plies(state, 30)
    assert state.quiet_plies == 30 and not state.is_terminal() and state.current_player == 1
    play_quiet_plies(state, 1)  # quiet ply 31, made by player 1: player 0 is to move and loses
    assert state.end_reason == "no_collision_limit" and state.winner == 1
    assert state.current_player == 0 and state.returns() == [-1, 1]


@pytest.mark.audit
@pytest.mark.parametrize("result", ["side_to_move_loses", "draw"])
def test_audit_no_legal_move_is_settled_before_the_no_collision_limit(result):
    # Player 1's only mobile piece shuffles C1-B0; on quiet ply 31 player 0 steps into the empty
    # camp C1, leaving the piece on B0 boxed in by its own mines and an unattackable camp.
    pieces = {
        "A1": (1, "flag"),
        "A0": (1, "mine"),
        "B1": (1, "mine"),
        "C0": (1, "mine"),
        "C1": (1, "major"),
        "L1": (0, "flag"),
        "K4": (0, "major"),
        "D1": (0, "captain"),
    }
    state = JunqiState.from_pieces(pieces, rules={"no_collision_result": result})
    for _ in range(15):
        move(state, *(("K4", "K3") if state.piece_at("K4") else ("K3", "K4")))
        move(state, *(("C1", "B0") if state.piece_at("C1") else ("B0", "C1")))
    assert state.quiet_plies == 30 and state.piece_at("B0") == (1, "major")
    move(state, "D1", "C1")
    assert state.quiet_plies == 31
    assert state.end_reason == "no_legal_move" and state.winner == 0


@pytest.mark.audit
def test_audit_ply_cap_is_exact():
    state = quiet_position(rules={"no_collision_limit": None, "ply_cap": 7})
    play_quiet_plies(state, 6)
    assert not state.is_terminal()
    play_quiet_plies(state, 1)
    assert state.end_reason == "ply_cap" and state.returns() == [0, 0] and state.ply == 7


@pytest.mark.audit
def test_audit_quiet_moves_are_moved_results():
    state = quiet_position()
    assert move(state, "K4", "K3") == MOVED and state.quiet_plies == 1
