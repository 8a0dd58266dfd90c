"""The plain first versions of the Junqi state's hot paths, kept as the specification the fast
paths in ``tbw_envs.junqi.state`` are tested against (``tests/tbw_envs/junqi/test_fast_paths.py``):
``apply_move_reference`` plays a ply with the reference move generator and builds the legal-move
list at once, ``determinize_reference`` builds a determinization field by field through the
constructor. Written as functions over a state or view (the module's line budget keeps them out
of ``state.py``); they read its private fields on purpose."""

from __future__ import annotations

from tbw_envs.junqi.actions import (
    FLAG_CAPTURED,
    NO_COLLISION_LIMIT,
    NO_LEGAL_MOVE,
    NO_LEGAL_MOVE_BOTH,
    PLAY,
    PLY_CAP,
    TOTAL_PLY_LIMIT,
    PlyRecord,
)
from tbw_envs.junqi.board import NUM_POSTS
from tbw_envs.junqi.moves import EMPTY
from tbw_envs.junqi.pieces import (
    ALL_TYPES_MASK,
    ATTACKER_LOST,
    ATTACKER_WON,
    ENGINEER,
    FLAG,
    MARSHAL,
    MOBILE_MASK,
    MOVED,
    NO_PIECE,
)
from tbw_envs.junqi.state import JunqiState, _beats_mask, _stops_mask


def apply_move_reference(state, action: int) -> int:
    """``JunqiState._apply_move`` as first written, with the reference move generation and an
    eager legal-move list (``start_turn_reference``)."""
    owner, kind = state.owner, state.kind
    mover = state.current_player
    opponent = 1 - mover
    from_post, to_post = divmod(action, NUM_POSTS)
    attacker = kind[from_post]
    defender = kind[to_post]
    engineer_only = attacker == ENGINEER and not state._moves.non_engineer_can_reach_reference(
        owner, from_post, to_post
    )
    # What the mover's opponent knows of the moving piece, before it leaves its post.
    seen_attacker = state.possible[opponent][from_post] & MOBILE_MASK
    if engineer_only:
        seen_attacker &= 1 << ENGINEER
    state.possible[opponent][from_post] = 0
    state.moved[from_post] = False
    owner[from_post] = EMPTY
    kind[from_post] = NO_PIECE

    if defender == NO_PIECE:
        result = MOVED
        owner[to_post] = mover
        kind[to_post] = attacker
        state.moved[to_post] = True
        state.possible[opponent][to_post] = seen_attacker
    else:
        result = state._combat[attacker][defender]
        combat = state._combat
        if result == ATTACKER_WON:
            owner[to_post] = mover
            kind[to_post] = attacker
            state.moved[to_post] = True
            # The opponent knows its own defender, so it learns which types beat it.
            state.possible[opponent][to_post] = seen_attacker & _beats_mask(combat, defender)
            state.possible[mover][to_post] = 0
        elif result == ATTACKER_LOST:
            # The mover knows its attacker, so it learns which types stop it.
            state.possible[mover][to_post] &= _stops_mask(combat, attacker)
        else:
            owner[to_post] = EMPTY
            kind[to_post] = NO_PIECE
            state.moved[to_post] = False
            state.possible[mover][to_post] = 0
        if state.rules.flag_revealed_on_marshal_death:
            if attacker == MARSHAL and result != ATTACKER_WON:
                state._marshal_removed(mover)
            if defender == MARSHAL and result != ATTACKER_LOST:
                state._marshal_removed(opponent)

    state.history.append(PlyRecord(mover, from_post, to_post, result, engineer_only))
    state.ply += 1
    state.quiet_plies = state.quiet_plies + 1 if result == MOVED else 0
    state.current_player = opponent
    flag_taken = defender == FLAG and result != ATTACKER_LOST
    start_turn_reference(state, previous_mover=mover, flag_taken=flag_taken)
    return result


def start_turn_reference(state, previous_mover: int, flag_taken: bool) -> None:
    """``JunqiState._start_turn`` as first written: the legal moves generated at once, by the
    reference generator."""
    state._legal = []
    rules = state.rules
    if flag_taken:
        state._end(previous_mover, FLAG_CAPTURED)
        return
    legal = state._moves.legal_moves_reference(state.owner, state.kind, state.current_player)
    if not legal:
        if state._moves.legal_moves_reference(state.owner, state.kind, previous_mover):
            state._end(previous_mover, NO_LEGAL_MOVE)
        else:
            state._end(None, NO_LEGAL_MOVE_BOTH)
        return
    if rules.no_collision_limit is not None and state.quiet_plies >= rules.no_collision_limit:
        loser_moves_next = rules.no_collision_result == "side_to_move_loses"
        state._end(1 - state.current_player if loser_moves_next else None, NO_COLLISION_LIMIT)
        return
    if rules.total_ply_limit is not None and state.ply >= rules.total_ply_limit:
        state._end(None, TOTAL_PLY_LIMIT)
        return
    if state.ply >= rules.ply_cap:
        state._end(None, PLY_CAP)
        return
    state._legal = legal


def determinize_reference(view, opponent_kinds: dict[int, int]) -> JunqiState:
    """``JunqiView.determinize`` as first written: a new state through the constructor, filled
    field by field, its legal moves generated at once by the reference generator."""
    if view.phase != PLAY:
        raise ValueError("determinize works in the play phase only")
    posts = view.opponent_posts()
    if sorted(opponent_kinds) != posts:
        raise ValueError(f"opponent_kinds must give a type for exactly the posts {posts}")
    state = JunqiState(view.rules)
    state.owner = list(view.owner)
    state.kind = list(view.kind)
    for post, kind in opponent_kinds.items():
        state.kind[post] = kind
    state.moved = list(view.moved)
    state.possible[view.player] = list(view.possible)
    state.possible[view.opponent] = [
        (MOBILE_MASK if view.moved[p] else ALL_TYPES_MASK) if view.owner[p] == view.player
        else 0
        for p in range(NUM_POSTS)
    ]  # fmt: skip
    state.flag_revealed = list(view.flag_revealed)
    state.flag_revealed_ply = list(view.flag_revealed_ply)
    state.history = list(view.history)
    state.current_player = view.current_player
    state.ply = view.ply
    state.quiet_plies = view.quiet_plies
    state.phase = PLAY
    if view.end_reason is not None:
        state._end(view.winner, view.end_reason)
    else:
        state._legal = state._moves.legal_moves_reference(state.owner, state.kind,
                                                          state.current_player)
    return state
