"""The fast paths of move generation and of the state against their plain reference twins, on
many random positions: the same legal moves in the same order, the same answers to the cheap
legality checks, the same states after every ply (history and deduction masks included), the
same determinizations. A search's games stay byte-identical only if all of these hold."""

from __future__ import annotations

import pickle
import random

import pytest

from tbw_envs.core.errors import IllegalActionError
from tbw_envs.junqi import JunqiState
from tbw_envs.junqi.rules import EMPTY
from tests.helpers.junqi_fast_reference import apply_move_reference, determinize_reference

RULE_SETS = ("ccgc", "house", "jj", "qq")
FIELDS = (
    "owner", "kind", "moved", "possible", "flag_revealed", "flag_revealed_ply", "history",
    "current_player", "phase", "ply", "quiet_plies", "winner", "end_reason", "_placed",
)  # fmt: skip


def _sparse_position(rand, rules):
    """Any mix of pieces (several flags or marshals, pieces in headquarters and camps)."""
    pieces = {}
    for post in rand.sample(range(60), rand.randint(2, 45)):
        pieces[post] = (rand.randrange(2), rand.randrange(12))
    revealed = tuple(side for side in (0, 1) if rand.random() < 0.1)
    return JunqiState.from_pieces(pieces, to_move=rand.randrange(2), rules=rules,
                                  revealed_flags=revealed)


def _played_positions(rand, rules, count):
    states = []
    while len(states) < count:
        state = JunqiState.random_initial(rand, rules)
        for _ in range(rand.randrange(0, 400)):
            if state.is_terminal():
                break
            state.apply(rand.choice(state.legal_actions()))
        states.append(state)
    return states


def _positions(rules, seed=7, sparse=150, played=60):
    rand = random.Random(seed)
    return [_sparse_position(rand, rules) for _ in range(sparse)] + _played_positions(
        rand, rules, played
    )


def _same_state(a: JunqiState, b: JunqiState) -> None:
    for name in FIELDS:
        assert getattr(a, name) == getattr(b, name), name
    assert a.legal_actions() == b.legal_actions()


@pytest.mark.parametrize("rules", RULE_SETS)
def test_legal_moves_match_the_reference_in_order(rules):
    for state in _positions(rules):
        moves = state._moves
        for player in (0, 1):
            expected = moves.legal_moves_reference(state.owner, state.kind, player)
            assert moves.legal_moves(state.owner, state.kind, player) == expected
            assert moves.has_legal_move(state.owner, state.kind, player) == bool(expected)


@pytest.mark.parametrize("piece", ["colonel", "engineer"])
def test_a_capture_along_the_railroad_as_the_only_move_keeps_the_game_going(piece):
    # G0's only road neighbour is the camp H1 (a diagonal); G1, H0 and H1 hold our mines, so the
    # one move left is the railroad capture G0-F0.
    state = JunqiState.from_pieces({
        "G0": (0, piece), "G1": (0, "mine"), "H0": (0, "mine"), "H1": (0, "mine"),
        "L1": (0, "flag"), "F0": (1, "major"), "A1": (1, "flag"),
    })  # fmt: skip
    assert not state.is_terminal()
    assert state.legal_actions() == [state.encode_action("G0", "F0")]
    assert state._moves.has_legal_move(state.owner, state.kind, 0)


@pytest.mark.parametrize("rules", RULE_SETS)
def test_single_move_checks_match_the_reference(rules):
    for state in _positions(rules, seed=8, sparse=40, played=20):
        moves, owner, kind = state._moves, state.owner, state.kind
        for player in (0, 1):
            legal = set(moves.legal_moves_reference(owner, kind, player))
            for action in range(3600):
                assert moves.is_legal_move(owner, kind, player, action) == (action in legal)
        for from_post in range(60):
            if owner[from_post] == EMPTY:
                continue
            for to_post in range(60):
                assert moves.non_engineer_can_reach(owner, from_post, to_post) == (
                    moves.non_engineer_can_reach_reference(owner, from_post, to_post)
                ), (from_post, to_post)


@pytest.mark.parametrize("rules", RULE_SETS)
def test_every_ply_matches_the_reference_apply(rules):
    """Random games, each ply played by ``apply`` (lazy legal list, fast checks) and by the
    reference ``apply_move_reference`` (eager list, reference generator) on a copy."""
    rand = random.Random(11)
    starts = [JunqiState.random_initial(rand, rules) for _ in range(12)]
    starts += [_sparse_position(rand, rules) for _ in range(40)]
    plies = 0
    for state in starts:
        while not state.is_terminal() and plies < 12_000:
            twin = state.clone()
            # Ask for the list on some plies only, so ``apply`` also checks moves alone.
            legal = twin.legal_actions()
            if rand.random() < 0.5:
                state.legal_actions()
            action = rand.choice(legal)
            assert state.apply(action) == apply_move_reference(twin, action)
            _same_state(state, twin)
            plies += 1
    assert plies > 2000


def test_illegal_actions_raise_the_same_errors_before_and_after_the_list_is_built():
    rand = random.Random(3)
    for state in _played_positions(rand, "ccgc", 30):
        if state.is_terminal():
            continue
        legal = set(state.legal_actions())
        for action in [a for a in range(3612) if a not in legal][::97] + [3600, 3611]:
            fresh = state.clone()
            fresh._legal = None  # as after a ply: the list not built yet
            with pytest.raises(IllegalActionError) as lazy:
                fresh.apply(action)
            with pytest.raises(IllegalActionError) as eager:
                state.clone().apply(action)
            assert str(lazy.value) == str(eager.value)
            _same_state(fresh, state)  # the state is left unchanged
        for bad in (True, 2.0, -1, 3612, "7"):
            with pytest.raises(IllegalActionError):
                state.clone().apply(bad)


@pytest.mark.parametrize("rules", ("ccgc", "house"))
def test_determinize_matches_the_reference(rules):
    rand = random.Random(5)
    for state in _played_positions(rand, rules, 40):
        for player in (0, 1):
            view = state.view(player)
            posts = view.opponent_posts()
            for _ in range(3):
                kinds = {post: rand.randrange(12) for post in posts}
                fast, reference = view.determinize(kinds), determinize_reference(view, kinds)
                _same_state(fast, reference)
                assert fast.rules is reference.rules
                # Each determinization owns its lists: playing one leaves the next untouched.
                if not fast.is_terminal():
                    fast.apply(fast.legal_actions()[0])
                    _same_state(view.determinize(kinds), reference)
            with pytest.raises(ValueError, match="exactly the posts"):
                view.determinize(dict(list(kinds.items())[1:]) | {-5: 0})
            with pytest.raises(ValueError, match="exactly the posts"):
                view.determinize({**kinds, 60: 0})


def test_a_view_pickles_and_compares_without_its_determinization_cache():
    state = next(s for s in _played_positions(random.Random(2), "ccgc", 10) if not s.is_terminal())
    view = state.view(0)
    view.determinize({post: 0 for post in view.opponent_posts()})
    assert "_determinize_template" in view.__dict__
    copy = pickle.loads(pickle.dumps(view))
    assert "_determinize_template" not in copy.__dict__
    assert copy == view and hash(copy) == hash(view)
