"""Observation planes (one player's view, that player's frame) and full-state planes.

Observations are built from a ``JunqiView`` only, so they cannot carry what the view hides. The
top player's planes are turned half a turn (post ``p`` -> ``59 - p``) so that every player sees
its own side at the bottom and one policy can play both seats.
"""

from __future__ import annotations

import numpy as np

from tbw_envs.junqi.board import COLS, NUM_POSTS, ROWS, board_graph
from tbw_envs.junqi.pieces import NO_PIECE, NUM_PIECE_TYPES, RANKED_MASK, RANKS
from tbw_envs.junqi.rules import EMPTY
from tbw_envs.junqi.state import DEPLOY, NUM_ACTIONS, NUM_MOVE_ACTIONS

OBSERVATION_PLANES = (
    *[f"own_{name}" for name in (
        "marshal", "general", "major_general", "brigadier", "colonel", "major", "captain",
        "lieutenant", "engineer", "mine", "bomb", "flag",
    )],
    "opponent_present", "opponent_moved", "opponent_flag_revealed", "own_flag_revealed",
    *[f"opponent_may_be_{name}" for name in (
        "marshal", "general", "major_general", "brigadier", "colonel", "major", "captain",
        "lieutenant", "engineer", "mine", "bomb", "flag",
    )],
    "opponent_rank_lower_bound", "opponent_rank_upper_bound",
    "railroad", "camp", "headquarters", "last_move_from", "last_move_to",
    "ply_fraction", "quiet_ply_fraction", "deployment_phase", "next_deployment_post",
)  # fmt: skip
NUM_OBSERVATION_PLANES = len(OBSERVATION_PLANES)  # 39
OBSERVATION_SHAPE = (NUM_OBSERVATION_PLANES, ROWS, COLS)

STATE_PLANES = (
    *[f"player_0_{i}" for i in range(NUM_PIECE_TYPES)],
    *[f"player_1_{i}" for i in range(NUM_PIECE_TYPES)],
    "moved", "player_0_flag_revealed", "player_1_flag_revealed", "railroad", "camp",
    "headquarters", "player_1_to_move", "ply_fraction", "quiet_ply_fraction", "deployment_phase",
)  # fmt: skip
STATE_SHAPE = (len(STATE_PLANES), ROWS, COLS)

_P = {name: index for index, name in enumerate(OBSERVATION_PLANES)}
_MASK_BITS = ((np.arange(1 << NUM_PIECE_TYPES)[:, None] >> np.arange(NUM_PIECE_TYPES)) & 1).astype(
    np.float32
)


def _rank_bounds() -> tuple[np.ndarray, np.ndarray]:
    lower = np.zeros(1 << NUM_PIECE_TYPES, dtype=np.float32)
    upper = np.zeros(1 << NUM_PIECE_TYPES, dtype=np.float32)
    for mask in range(1 << NUM_PIECE_TYPES):
        ranks = [RANKS[k] for k in range(NUM_PIECE_TYPES) if (mask & RANKED_MASK) >> k & 1]
        if ranks:
            lower[mask], upper[mask] = min(ranks) / 10.0, max(ranks) / 10.0
    return lower, upper


# Per type mask, the lowest and highest rank it allows (over 10; 0 with no ranked type).
RANK_LOWER_BOUNDS, RANK_UPPER_BOUNDS = _rank_bounds()


def _terrain() -> np.ndarray:
    graph = board_graph()
    return np.array([graph.is_rail, graph.is_camp, graph.is_headquarters], dtype=np.float32)


TERRAIN_PLANES = _terrain()  # symmetric under the half turn, so valid in both frames
_EYE = np.eye(NUM_PIECE_TYPES + 1, dtype=np.float32)[:, :NUM_PIECE_TYPES]  # row 12 = no piece


def observation_planes(view) -> np.ndarray:
    """``(39, 12, 5)`` float32 planes of ``view`` in its player's frame (see OBSERVATION_PLANES)."""
    player = view.player
    opponent = 1 - player
    planes = np.zeros((NUM_OBSERVATION_PLANES, NUM_POSTS), dtype=np.float32)
    kinds = np.array(view.kind, dtype=np.int64)
    kinds[kinds == NO_PIECE] = NUM_PIECE_TYPES
    planes[0:NUM_PIECE_TYPES] = _EYE[kinds].T
    owner = np.array(view.owner, dtype=np.int64)
    opponent_here = owner == opponent
    planes[_P["opponent_present"]] = opponent_here
    planes[_P["opponent_moved"]] = opponent_here & np.array(view.moved, dtype=bool)
    if view.flag_revealed[opponent] is not None:
        planes[_P["opponent_flag_revealed"], view.flag_revealed[opponent]] = 1.0
    if view.flag_revealed[player] is not None:
        planes[_P["own_flag_revealed"], view.flag_revealed[player]] = 1.0
    possible = np.array(view.possible, dtype=np.int64)
    first = _P["opponent_may_be_marshal"]
    planes[first : first + NUM_PIECE_TYPES] = _MASK_BITS[possible].T
    planes[_P["opponent_rank_lower_bound"]] = RANK_LOWER_BOUNDS[possible]
    planes[_P["opponent_rank_upper_bound"]] = RANK_UPPER_BOUNDS[possible]
    planes[_P["railroad"] : _P["headquarters"] + 1] = TERRAIN_PLANES
    if view.history:
        last = view.history[-1]
        planes[_P["last_move_from"], last.from_post] = 1.0
        planes[_P["last_move_to"], last.to_post] = 1.0
    rules = view.rules
    planes[_P["ply_fraction"]] = min(view.ply / rules.ply_cap, 1.0)
    if rules.no_collision_limit is not None:
        planes[_P["quiet_ply_fraction"]] = min(view.quiet_plies / rules.no_collision_limit, 1.0)
    if view.phase == DEPLOY:
        planes[_P["deployment_phase"]] = 1.0
        next_post = view.next_deploy_post()
        if next_post is not None:
            planes[_P["next_deployment_post"], next_post] = 1.0
    if player == 1:
        planes = planes[:, ::-1]
    return np.ascontiguousarray(planes).reshape(OBSERVATION_SHAPE)


def to_player_frame_mask(mask: np.ndarray, player: int) -> np.ndarray:
    """An absolute action mask in ``player``'s frame: the top player's move actions are turned
    half a turn, which maps move ``a`` to ``3599 - a``; deployment actions are unchanged."""
    if player == 0:
        return mask
    return np.concatenate([mask[:NUM_MOVE_ACTIONS][::-1], mask[NUM_MOVE_ACTIONS:]])


def legal_mask_in_frame(legal_actions: list[int], player: int) -> np.ndarray:
    """int8 mask of absolute ``legal_actions`` in ``player``'s frame."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if legal_actions:
        index = np.array(legal_actions, dtype=np.int64)
        if player == 1:
            moves = index < NUM_MOVE_ACTIONS
            index[moves] = NUM_MOVE_ACTIONS - 1 - index[moves]
        mask[index] = 1
    return mask


def action_to_absolute(action: int, player: int) -> int:
    """A ``player``-frame action as an absolute action (the map is its own inverse)."""
    if player == 0 or action >= NUM_MOVE_ACTIONS:
        return action
    return NUM_MOVE_ACTIONS - 1 - action


def state_planes(state) -> np.ndarray:
    """``(34, 12, 5)`` float32 omniscient planes in the absolute frame (see STATE_PLANES)."""
    planes = np.zeros((len(STATE_PLANES), NUM_POSTS), dtype=np.float32)
    owner = np.array(state.owner, dtype=np.int64)
    kinds = np.array(state.kind, dtype=np.int64)
    for player in (0, 1):
        own = np.where(owner == player, kinds, NUM_PIECE_TYPES)
        own[own == NO_PIECE] = NUM_PIECE_TYPES
        first = player * NUM_PIECE_TYPES
        planes[first : first + NUM_PIECE_TYPES] = _EYE[own].T
    base = 2 * NUM_PIECE_TYPES
    planes[base] = (owner != EMPTY) & np.array(state.moved, dtype=bool)
    for player in (0, 1):
        if state.flag_revealed[player] is not None:
            planes[base + 1 + player, state.flag_revealed[player]] = 1.0
    planes[base + 3 : base + 6] = TERRAIN_PLANES
    planes[base + 6] = float(state.current_player == 1)
    planes[base + 7] = min(state.ply / state.rules.ply_cap, 1.0)
    if state.rules.no_collision_limit is not None:
        planes[base + 8] = min(state.quiet_plies / state.rules.no_collision_limit, 1.0)
    planes[base + 9] = float(state.phase == DEPLOY)
    return planes.reshape(STATE_SHAPE)
