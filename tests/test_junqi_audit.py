"""Independent audit of the Junqi core and env against the rules in docs/junqi_rules.md.

Every expectation here is written by hand from the rules text (the ASCII board, the combat rules,
the end-of-game order, the information section), not read back from the code under test.
"""

import random

import numpy as np
import pytest

from tbw_envs import junqi_v0
from tbw_envs.junqi import (
    ATTACKER_LOST,
    ATTACKER_WON,
    BOTH_REMOVED,
    MOVED,
    JunqiRules,
    JunqiState,
    board_graph,
    encode_action,
    load_rules,
    parse_post,
    random_layout,
)
from tbw_envs.junqi.encoding import OBSERVATION_PLANES, observation_planes
from tbw_envs.junqi.layout import DEPLOY_CELLS

ROWS = "ABCDEFGHIJKL"
NAMES = (
    "marshal", "general", "major_general", "brigadier", "colonel", "major", "captain",
    "lieutenant", "engineer", "mine", "bomb", "flag",
)  # fmt: skip
CAMP_NAMES = ("C1", "C3", "D2", "E1", "E3", "H1", "H3", "I2", "J1", "J3")
HQ_NAMES = ("A1", "A3", "L1", "L3")


def p(name):
    return parse_post(name)


def move(state, a, b):
    return state.apply(encode_action(a, b))


# ---------------------------------------------------------------- the board, listed by hand
def _hand_links():
    """Links read off the diagram: rows B, F, G, K rail across; columns 0 and 4 rail from B to K
    (A-B and K-L are road); F2-G2 rail; F1-G1 and F3-G3 absent; camp diagonals."""
    links = {}
    for r, row in enumerate(ROWS):
        for c in range(4):
            links[frozenset((f"{row}{c}", f"{row}{c + 1}"))] = "rail" if row in "BFGK" else "road"
        if r == 11:
            continue
        below = ROWS[r + 1]
        for c in range(5):
            if row == "F" and c in (1, 3):
                continue  # mountains
            rail = (c in (0, 4) and row in "BCDEFGHIJ") or (row == "F" and c == 2)
            links[frozenset((f"{row}{c}", f"{below}{c}"))] = "rail" if rail else "road"
    for camp in CAMP_NAMES:
        r, c = ROWS.index(camp[0]), int(camp[1])
        for dr in (-1, 1):
            for dc in (-1, 1):
                links[frozenset((camp, f"{ROWS[r + dr]}{c + dc}"))] = "diagonal"
    return links


HAND_LINKS = _hand_links()


def test_audit_board_links_match_the_diagram():
    graph = board_graph()
    got = {
        frozenset((f"{ROWS[a // 5]}{a % 5}", f"{ROWS[b // 5]}{b % 5}")): kind
        for a, b, kind in graph.links
    }
    assert got == HAND_LINKS
    kinds = list(HAND_LINKS.values())
    assert (len(kinds), kinds.count("rail"), kinds.count("road"), kinds.count("diagonal")) == (
        133, 35, 66, 32,
    )  # fmt: skip
    kind = graph.link_kind
    assert kind(p("B0"), p("A0")) == "road" and kind(p("K4"), p("L4")) == "road"
    assert kind(p("F0"), p("G0")) == kind(p("F2"), p("G2")) == kind(p("F4"), p("G4")) == "rail"
    assert kind(p("F1"), p("G1")) is None and kind(p("F3"), p("G3")) is None
    assert kind(p("B1"), p("C2")) is None  # no diagonal between two non-camp posts
    assert sum(graph.is_rail) == 32 and sum(graph.is_camp) == 10 and sum(graph.is_headquarters) == 4


# ---------------------------------------------------------------- moves, against a reference
_RAIL = {}
_ANY = {}
for _pair, _kind in HAND_LINKS.items():
    _a, _b = (p(x) for x in _pair)
    for _x, _y in ((_a, _b), (_b, _a)):
        _ANY.setdefault(_x, set()).add(_y)
        if _kind == "rail":
            _RAIL.setdefault(_x, set()).add(_y)
_CAMPS = {p(x) for x in CAMP_NAMES}
_HQS = {p(x) for x in HQ_NAMES}


def _reference_moves(owner, kind, player, house=False):
    """Legal moves under CCGC (or the house rules: pieces may leave a headquarters, and
    non-engineers may turn on the railroad but move at most 3 posts), from the rules text."""
    moves = set()

    def open_to(target):
        return owner[target] is None or (owner[target] != player and target not in _CAMPS)

    for post in range(60):
        if owner[post] != player or kind[post] in ("mine", "flag") or post in _HQS and not house:
            continue
        for target in _ANY.get(post, ()):
            if open_to(target):
                moves.add((post, target))
        if kind[post] == "engineer" or house:
            # Every rail route through empty posts (at most 3 links for a house non-engineer).
            limit = 60 if kind[post] == "engineer" else 3
            frontier, depth = {post}, 0
            while frontier and depth < limit:
                depth += 1
                reached = set()
                for here in frontier:
                    for target in _RAIL.get(here, ()):
                        if target == post or owner[target] == player:
                            continue
                        moves.add((post, target))
                        if owner[target] is None:
                            reached.add(target)
                frontier = reached
        else:
            r0, c0 = divmod(post, 5)
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                here = post
                while True:
                    r, c = divmod(here, 5)
                    r, c = r + dr, c + dc
                    if not (0 <= r < 12 and 0 <= c < 5) or r * 5 + c not in _RAIL.get(here, ()):
                        break
                    here = r * 5 + c
                    if owner[here] is None:
                        moves.add((post, here))
                        continue
                    if owner[here] != player:
                        moves.add((post, here))
                    break
    return moves


@pytest.mark.parametrize("rules", ["ccgc", "house"])
def test_audit_move_generation_matches_an_independent_reference(rules):
    rand = random.Random(2024)
    mobile = ["marshal", "captain", "engineer", "engineer", "bomb", "lieutenant"]
    for _ in range(300):
        pieces = {}
        for post in rand.sample(range(60), rand.randrange(4, 30)):
            kind = rand.choice(mobile + ["mine", "flag"])
            pieces[post] = (rand.randrange(2), kind)
        state = JunqiState.from_pieces(pieces, to_move=rand.randrange(2), rules=rules)
        owner = [pieces[q][0] if q in pieces else None for q in range(60)]
        kinds = [pieces[q][1] if q in pieces else None for q in range(60)]
        for player in (0, 1):
            got = {divmod(a, 60) for a in state._moves.legal_moves(state.owner, state.kind, player)}
            assert got == _reference_moves(owner, kinds, player, rules == "house"), (pieces, player)


def test_audit_straight_slides_never_turn_and_cross_the_front():
    home = {"L1": (0, "flag"), "A1": (1, "flag")}

    def dests(post, piece):
        state = JunqiState.from_pieces({**home, post: (0, piece)})
        return {f"{ROWS[d // 5]}{d % 5}" for d in state.destinations(post)}

    # Along row B and on down column 0 would be a turn at B0: not for a colonel.
    assert dests("B1", "colonel") == {"A1", "B0", "B2", "B3", "B4", "C1"}
    # G0 straight up column 0 through F0 to B0 (the front crossing in column 0 is railroad).
    assert {"F0", "E0", "D0", "C0", "B0"} <= dests("G0", "colonel")
    assert "A0" not in dests("G0", "colonel")  # B0-A0 is road
    assert dests("F2", "colonel") == {"E1", "E2", "E3", "F0", "F1", "F3", "F4", "G2"}
    assert dests("G1", "colonel") == {"G0", "G2", "G3", "G4", "H1"}  # mountain above G1
    # An engineer turns: from G1 it reaches F1 through G2-F2.
    assert "F1" in dests("G1", "engineer") and "B1" in dests("G1", "engineer")


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
    assert state.flag_revealed == [None if r is None else p(r) for r in revealed]
    for side, post in enumerate(revealed):
        if post is not None:
            assert state.view(1 - side).possible[p(post)] == 1 << NAMES.index("flag")


# ---------------------------------------------------------------- end of game
def _quiet(state, plies):
    for _ in range(plies):
        if state.current_player == 0:
            move(state, *(("K4", "K3") if state.piece_at("K4") else ("K3", "K4")))
        else:
            move(state, *(("B4", "B3") if state.piece_at("B4") else ("B3", "B4")))


def _quiet_position(extra=(), rules="ccgc"):
    pieces = {"L1": (0, "flag"), "K4": (0, "major"), "A1": (1, "flag"), "B4": (1, "major")}
    pieces.update(dict(extra))
    return JunqiState.from_pieces(pieces, rules=rules)


def test_audit_no_collision_rule_counts_exactly_31_plies():
    state = _quiet_position({"H0": (0, "general"), "D0": (1, "engineer")})
    _quiet(state, 4)
    assert move(state, "H0", "D0") == ATTACKER_WON and state.quiet_plies == 0
    _quiet(state, 30)  # quiet plies 1..30: player 1 makes the odd ones, player 0 the even ones
    assert state.quiet_plies == 30 and not state.is_terminal() and state.current_player == 1
    _quiet(state, 1)  # quiet ply 31, made by player 1: player 0 is to move and loses
    assert state.end_reason == "no_collision_limit" and state.winner == 1
    assert state.current_player == 0 and state.returns() == [-1, 1]


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


def test_audit_ply_cap_is_exact():
    state = _quiet_position(rules={"no_collision_limit": None, "ply_cap": 7})
    _quiet(state, 6)
    assert not state.is_terminal()
    _quiet(state, 1)
    assert state.end_reason == "ply_cap" and state.returns() == [0, 0] and state.ply == 7


# ---------------------------------------------------------------- information boundary
MAY_BE = OBSERVATION_PLANES.index("opponent_may_be_marshal")
LOWER = OBSERVATION_PLANES.index("opponent_rank_lower_bound")
UPPER = OBSERVATION_PLANES.index("opponent_rank_upper_bound")


def _bits(*names):
    return sum(1 << NAMES.index(n) for n in names)


def test_audit_evidence_after_a_lost_captain_attack():
    # Our captain attacks an unmoved piece and loses: the defender outranks a captain or is a
    # mine. A bomb would have removed both, so a bomb is ruled out.
    for defender in ("major", "marshal", "mine"):
        state = _quiet_position({"H0": (0, "captain"), "G0": (1, defender)})
        assert move(state, "H0", "G0") == ATTACKER_LOST
        view = state.view(0)
        expected = _bits("marshal", "general", "major_general", "brigadier", "colonel", "major",
                         "mine")  # fmt: skip
        assert view.possible[p("G0")] == expected
        obs = observation_planes(view)
        r, c = 6, 0
        bits = [float(expected >> k & 1) for k in range(12)]
        assert list(obs[MAY_BE : MAY_BE + 12, r, c]) == bits
        assert obs[LOWER, r, c] == pytest.approx(0.5) and obs[UPPER, r, c] == pytest.approx(1.0)


def test_audit_both_removed_leaves_no_evidence_and_hides_bomb_from_equal_trade():
    # A bomb trade and an equal trade look the same: both pieces gone, nothing else changes.
    observations = []
    for defender in ("bomb", "captain"):
        state = _quiet_position({"H0": (0, "captain"), "G0": (1, defender), "F0": (1, "major")})
        assert move(state, "H0", "G0") == BOTH_REMOVED
        view = state.view(0)
        assert view.owner[p("G0")] == -1 and view.possible[p("G0")] == 0
        observations.append(observation_planes(view))
    assert np.array_equal(*observations)


def test_audit_winner_of_a_defence_is_known_only_to_outrank_the_attacker():
    # The opponent's piece attacks our lieutenant and wins: it outranks a lieutenant.
    state = _quiet_position({"H0": (0, "lieutenant"), "G0": (1, "colonel")}, rules="ccgc")
    state = JunqiState.from_pieces(state.pieces(), to_move=1)
    assert move(state, "G0", "H0") == ATTACKER_WON
    assert state.view(0).possible[p("H0")] == _bits(
        "marshal", "general", "major_general", "brigadier", "colonel", "major", "captain"
    )


def test_audit_views_hide_identities_under_swaps_consistent_with_history():
    # Two deals that differ only in the identities of two unmoved opponent pieces of the same
    # deployment class give identical views, observations and legal actions to the observer.
    for a, b in (("marshal", "engineer"), ("bomb", "captain"), ("mine", "flag")):
        views = []
        for x, y in ((a, b), (b, a)):
            pieces = {
                "K4": (0, "major"),
                "L1": (0, "flag"),
                "A1": (1, x),
                "A3": (1, y),
                "B4": (1, "major"),
                "A0": (1, "flag" if "flag" not in (a, b) else "mine"),
            }
            state = JunqiState.from_pieces(pieces)
            move(state, "K4", "K3")
            views.append(state.view(0))
        assert views[0] == views[1]
        assert np.array_equal(observation_planes(views[0]), observation_planes(views[1]))
        assert views[0].legal_actions() == views[1].legal_actions()


def _deploy_trace(opponent_layout, own_layout, observer="player_0"):
    env = junqi_v0.raw_env(deployment="agents")
    env.reset(seed=5)
    layouts = {"player_0": own_layout, "player_1": opponent_layout}
    if observer == "player_1":
        layouts = {"player_0": opponent_layout, "player_1": own_layout}
    counts = {"player_0": 0, "player_1": 0}
    trace = []
    while env.game.phase == "deploy":
        agent = env.agent_selection
        kind = layouts[agent].cells[DEPLOY_CELLS[counts[agent]]]
        counts[agent] += 1
        env.step(3600 + kind)
        obs = env.observe(observer)
        trace.append((
            env.agent_selection, obs["observation"].copy(), obs["action_mask"].copy(),
            dict(env.infos[observer]), env.rewards[observer], env.terminations[observer],
            env.view(observer),
        ))  # fmt: skip
    return trace


@pytest.mark.parametrize("observer", ["player_0", "player_1"])
def test_audit_agent_deployment_leaks_nothing(observer):
    rand = random.Random(11)
    own = random_layout(rand)
    first = _deploy_trace(random_layout(rand), own, observer)
    second = _deploy_trace(random_layout(rand), own, observer)
    assert len(first) == len(second) == 50
    for one, two in zip(first, second, strict=True):
        assert one[0] == two[0]
        assert np.array_equal(one[1], two[1]) and np.array_equal(one[2], two[2])
        assert one[3:6] == two[3:6]
        # Views compare equal except the possible masks after play begins, which are public.
        assert one[6] == two[6]


# ---------------------------------------------------------------- env API
def test_audit_player_1_actions_are_the_half_turned_absolute_moves():
    env = junqi_v0.raw_env()
    env.reset(seed=2)
    for a in range(60):
        for b in range(60):
            action = env.encode_action(a, b, "player_1")
            assert action == (59 - a) * 60 + (59 - b)
            assert env.decode_action(action, "player_1") == (a, b)
            assert env.decode_action(env.encode_action(a, b, "player_0"), "player_0") == (a, b)
    env.step(env.game.legal_actions()[0])
    mask = env.observe("player_1")["action_mask"]
    expected = np.zeros(3612, dtype=np.int8)
    for action in env.game.legal_actions():
        f, t = divmod(action, 60)
        expected[(59 - f) * 60 + (59 - t)] = 1
    assert np.array_equal(mask, expected)


def test_audit_error_messages():
    env = junqi_v0.raw_env()
    env.reset(seed=0)
    legal = env.game.legal_actions()
    bad = next(a for a in range(3600) if a not in legal)
    with pytest.raises(ValueError, match=rf"illegal action {bad} .*{len(legal)} legal actions"):
        env.step(bad)
    with pytest.raises(ValueError, match="available: ccgc, house, jj, qq"):
        load_rules("nope")
    with pytest.raises(ValueError, match="player 1.*unknown layout 'no_such_layout'"):
        env.reset(options={"layouts": {"player_0": "flag_left_mined",
                                       "player_1": "no_such_layout"}})  # fmt: skip


def test_audit_failed_reset_keeps_the_previous_rules():
    env = junqi_v0.raw_env(rules="ccgc")
    env.reset(seed=0)
    with pytest.raises(ValueError):
        env.reset(options={"rules": "jj", "layouts": {"player_0": "x", "player_1": "y"}})
    assert env.rules.name == "ccgc" and env.game.rules.name == "ccgc"


def test_audit_rule_objects_are_validated_when_built_directly():
    with pytest.raises(ValueError, match="no_collision_limit"):
        JunqiRules(no_collision_limit=0)
    with pytest.raises(ValueError, match="mine_vs_attacker"):
        JunqiRules(mine_vs_attacker="explode")


def test_audit_quiet_moves_are_moved_results():
    state = _quiet_position()
    assert move(state, "K4", "K3") == MOVED and state.quiet_plies == 1
