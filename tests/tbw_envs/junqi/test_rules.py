"""Move generation (``tbw_envs.junqi.rules``) against independent references built from the
rules: the naive search of ``tests/helpers/junqi_reference.py`` and a hand-listed board."""

from __future__ import annotations

import random

import pytest

from tbw_envs.junqi import (
    JunqiState,
    parse_post,
)
from tests.helpers.junqi_hand import CAMP_NAMES, HAND_LINKS, HQ_NAMES, ROWS
from tests.helpers.junqi_reference import reference_destinations


# ---------------------------------------------------------------- against the naive reference
def _random_sparse_position(rand):
    import random as _random  # noqa: F401  (rand is a random.Random)

    from tbw_envs.junqi import JunqiState

    posts = rand.sample(range(60), rand.randint(4, 40))
    pieces = {}
    for post in posts:
        pieces[post] = (rand.randrange(2), rand.randrange(12))
    return JunqiState.from_pieces(pieces, to_move=rand.randrange(2))


def test_move_generation_matches_reference_on_random_positions():
    import random

    from tbw_envs.junqi import JunqiState

    rand = random.Random(2024)
    states = [_random_sparse_position(rand) for _ in range(300)]
    for seed in range(40):
        state = JunqiState.random_initial(seed)
        for _ in range(rand.randrange(0, 150)):
            if state.is_terminal():
                break
            actions = state.legal_actions()
            state.apply(actions[rand.randrange(len(actions))])
        states.append(state)
    checked = 0
    for state in states:
        for post in range(60):
            expected = reference_destinations(state.owner, state.kind, post)
            assert set(state.destinations(post)) == expected, (post, state.pieces())
            checked += bool(expected)
        if not state.is_terminal():
            player = state.current_player
            expected_actions = {
                post * 60 + target
                for post in range(60)
                if state.owner[post] == player
                for target in reference_destinations(state.owner, state.kind, post)
            }
            assert set(state.legal_actions()) == expected_actions
            assert len(state.legal_actions()) == len(expected_actions)  # no duplicates
    assert checked > 2000


# -------------------------------------------------------- against the rules text, listed by hand
_RAIL = {}
_ANY = {}


for _pair, _kind in HAND_LINKS.items():
    _a, _b = (parse_post(x) for x in _pair)
    for _x, _y in ((_a, _b), (_b, _a)):
        _ANY.setdefault(_x, set()).add(_y)
        if _kind == "rail":
            _RAIL.setdefault(_x, set()).add(_y)


_CAMPS = {parse_post(x) for x in CAMP_NAMES}
_HQS = {parse_post(x) for x in HQ_NAMES}


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


@pytest.mark.audit
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


@pytest.mark.audit
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
