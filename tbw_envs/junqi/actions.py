"""Junqi's action ids, phases, end reasons and the public record of a ply.

Actions 0-3599 are moves ``from_post * 60 + to_post`` in absolute post numbers; actions
3600-3611 deploy a piece type on the next post of the deploying player's layout order.
"""

from __future__ import annotations

from typing import NamedTuple

from tbw_envs.core.contract import check_action
from tbw_envs.core.errors import IllegalActionError
from tbw_envs.junqi.board import NUM_POSTS, parse_post, post_name
from tbw_envs.junqi.pieces import NUM_PIECE_TYPES, PIECE_NAMES, RESULT_NAMES, piece_kind

NUM_MOVE_ACTIONS = NUM_POSTS * NUM_POSTS  # 3600
DEPLOY_ACTION_BASE = NUM_MOVE_ACTIONS
NUM_ACTIONS = NUM_MOVE_ACTIONS + NUM_PIECE_TYPES  # 3612

DEPLOY, PLAY = "deploy", "play"

# Why a game ended (``state.end_reason``).
FLAG_CAPTURED = "flag_captured"
NO_LEGAL_MOVE = "no_legal_move"
NO_LEGAL_MOVE_BOTH = "no_legal_move_both"
NO_COLLISION_LIMIT = "no_collision_limit"
TOTAL_PLY_LIMIT = "total_ply_limit"
PLY_CAP = "ply_cap"
END_REASONS = (
    FLAG_CAPTURED, NO_LEGAL_MOVE, NO_LEGAL_MOVE_BOTH, NO_COLLISION_LIMIT, TOTAL_PLY_LIMIT, PLY_CAP
)  # fmt: skip


class PlyRecord(NamedTuple):
    """One ply as the referee announces it to both players."""

    player: int
    from_post: int
    to_post: int
    result: int  # MOVED, ATTACKER_WON, ATTACKER_LOST or BOTH_REMOVED
    # The move was impossible for any piece but an engineer (a turn or route on the railroad).
    engineer_only: bool

    def describe(self) -> str:
        return (
            f"player {self.player}: {post_name(self.from_post)}-{post_name(self.to_post)} "
            f"{RESULT_NAMES[self.result]}"
        )


def as_action(action) -> int:
    """An action as a plain int in range; rejects bools, floats and other non-integers by name
    (the input contract, ``tbw_envs.core.contract.check_action``)."""
    return check_action(action, NUM_ACTIONS, error=IllegalActionError)


def encode_action(from_post, to_post) -> int:
    """Move action of ``from_post`` -> ``to_post`` (ints 0-59 or names like 'K0')."""
    return parse_post(from_post) * NUM_POSTS + parse_post(to_post)


def decode_action(action) -> tuple[int, int]:
    """``(from_post, to_post)`` of a move action; deployment actions have no posts."""
    action = as_action(action)
    if action >= DEPLOY_ACTION_BASE:
        raise ValueError(
            f"action {action} is a deployment action (piece "
            f"{PIECE_NAMES[action - DEPLOY_ACTION_BASE]}), not a move; see deploy_action_piece()"
        )
    return divmod(action, NUM_POSTS)


def deploy_action(piece) -> int:
    return DEPLOY_ACTION_BASE + piece_kind(piece)


def deploy_action_piece(action) -> int:
    action = as_action(action)
    if action < DEPLOY_ACTION_BASE:
        raise ValueError(f"action {action} is a move, not a deployment action")
    return action - DEPLOY_ACTION_BASE


def describe_action(action: int) -> str:
    if action >= DEPLOY_ACTION_BASE:
        return f"deploy {PIECE_NAMES[action - DEPLOY_ACTION_BASE]}"
    from_post, to_post = divmod(action, NUM_POSTS)
    return f"{post_name(from_post)}-{post_name(to_post)}"


def returns_for(winner: int | None) -> list[float]:
    """Both players' returns given the winner (None: draw or game not over), as in TBW."""
    if winner is None:
        return [0.0, 0.0]
    return [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
