"""Junqi's rules compiled with numba over a batch of games held in arrays.

The twin of ``JunqiState._apply_move`` / ``_start_turn`` (``tbw_envs.junqi.state``), of the
``MoveGenerator`` (``tbw_envs.junqi.rules``) and of ``observation_planes``
(``tbw_envs.junqi.observation``), written over flat arrays so a whole batch steps in one call.
Each game is its own iteration of the loop, so a batch cut into slices for threads gives the
same arrays however it is cut. ``tests/tbw_envs/test_vector.py`` holds them equal to the
reference core.

Importing this module imports numba (the ``fast`` extra); ``tbw_envs.junqi.batched`` imports it
only for ``backend="numba"``.

Per game: ``owner`` / ``kind`` (int8, -1 empty), ``moved`` (uint8), ``possible`` (int16, per
observer), the two announced flag posts and the plies that announced them (-1 for none), the
ply and quiet-ply counters, the mover, and the ply history packed one uint16 a ply: bits 0-5
from, 6-11 to, 12-13 result, 14 engineer-only, 15 player.
"""

from __future__ import annotations

import numba
import numpy as np

from tbw_envs.junqi.actions import (
    END_REASONS,
    FLAG_CAPTURED,
    NO_COLLISION_LIMIT,
    NO_LEGAL_MOVE,
    NO_LEGAL_MOVE_BOTH,
    NUM_MOVE_ACTIONS,
    PLY_CAP,
    TOTAL_PLY_LIMIT,
)
from tbw_envs.junqi.board import NUM_POSTS, board_graph
from tbw_envs.junqi.observation import OBSERVATION_PLANES
from tbw_envs.junqi.pieces import (
    ATTACKER_LOST,
    ATTACKER_WON,
    ENGINEER,
    FLAG,
    MARSHAL,
    MINE,
    MOBILE_MASK,
    MOVED,
    NUM_PIECE_TYPES,
    combat_table,
)

# End-reason codes as the batched core stores them (1 + index into END_REASONS).
_CODE = {reason: index + 1 for index, reason in enumerate(END_REASONS)}
CODE_FLAG_CAPTURED = _CODE[FLAG_CAPTURED]
CODE_NO_LEGAL_MOVE = _CODE[NO_LEGAL_MOVE]
CODE_NO_LEGAL_MOVE_BOTH = _CODE[NO_LEGAL_MOVE_BOTH]
CODE_NO_COLLISION_LIMIT = _CODE[NO_COLLISION_LIMIT]
CODE_TOTAL_PLY_LIMIT = _CODE[TOTAL_PLY_LIMIT]
CODE_PLY_CAP = _CODE[PLY_CAP]

EMPTY = -1
NO_PIECE = -1
FLAG_BIT = 1 << FLAG
MARSHAL_BIT = 1 << MARSHAL
ENGINEER_BIT = 1 << ENGINEER

# Observation plane indices, by name.
P_OPPONENT_PRESENT = OBSERVATION_PLANES.index("opponent_present")
P_OPPONENT_MOVED = OBSERVATION_PLANES.index("opponent_moved")
P_OPPONENT_FLAG = OBSERVATION_PLANES.index("opponent_flag_revealed")
P_OWN_FLAG = OBSERVATION_PLANES.index("own_flag_revealed")
P_MAY_BE = OBSERVATION_PLANES.index("opponent_may_be_marshal")  # then one per type, in order
P_RANK_LOWER = OBSERVATION_PLANES.index("opponent_rank_lower_bound")
P_RANK_UPPER = OBSERVATION_PLANES.index("opponent_rank_upper_bound")
P_TERRAIN = OBSERVATION_PLANES.index("railroad")  # railroad, camp, headquarters
P_LAST_FROM = OBSERVATION_PLANES.index("last_move_from")
P_LAST_TO = OBSERVATION_PLANES.index("last_move_to")
P_PLY = OBSERVATION_PLANES.index("ply_fraction")
P_QUIET = OBSERVATION_PLANES.index("quiet_ply_fraction")


class Tables:
    """One rule set's lookup tables as arrays, in the order the kernels take them."""

    def __init__(self, rules) -> None:
        graph = board_graph()
        road = np.full((NUM_POSTS, 8), -1, np.int64)
        road_count = np.zeros(NUM_POSTS, np.int64)
        for post, targets in enumerate(graph.road_only_neighbors):
            road[post, : len(targets)] = targets
            road_count[post] = len(targets)
        rail = np.full((NUM_POSTS, 4), -1, np.int64)
        rail_count = np.zeros(NUM_POSTS, np.int64)
        for post, targets in enumerate(graph.rail_neighbors):
            rail[post, : len(targets)] = targets
            rail_count[post] = len(targets)
        steps = rules.non_engineer_rail_steps
        rays = np.full((NUM_POSTS, 4, NUM_POSTS), -1, np.int64)
        ray_length = np.zeros((NUM_POSTS, 4), np.int64)
        for post, post_rays in enumerate(graph.rail_rays):
            for r, ray in enumerate(post_rays):
                cut = ray[:steps] if steps is not None else ray
                rays[post, r, : len(cut)] = cut
                ray_length[post, r] = len(cut)
        combat = np.array(combat_table(rules), np.int64)
        beats = np.zeros(NUM_PIECE_TYPES, np.int64)
        stops = np.zeros(NUM_PIECE_TYPES, np.int64)
        for a in range(NUM_PIECE_TYPES):
            for d in range(NUM_PIECE_TYPES):
                if combat[a, d] == ATTACKER_WON:
                    beats[d] |= 1 << a
                if combat[a, d] == ATTACKER_LOST:
                    stops[a] |= 1 << d
        stuck = np.array(graph.is_headquarters if rules.headquarters_lock
                         else (False,) * NUM_POSTS, np.bool_)
        self.road, self.road_count = road, road_count
        self.rail, self.rail_count = rail, rail_count
        self.rays, self.ray_length = rays, ray_length
        self.is_rail = np.array(graph.is_rail, np.bool_)
        self.is_camp = np.array(graph.is_camp, np.bool_)
        self.stuck = stuck
        self.combat, self.beats, self.stops = combat, beats, stops
        self.mobile_kind = np.array([k not in (MINE, FLAG) for k in range(NUM_PIECE_TYPES)],
                                    np.bool_)
        # -1 for a limit that is off; rail turns: the depth of a non-engineer's route search.
        self.routes = bool(rules.non_engineer_rail_turns)
        self.turn_depth = (steps if steps is not None else NUM_POSTS) if self.routes else 0
        self.no_collision_limit = (-1 if rules.no_collision_limit is None
                                   else rules.no_collision_limit)
        self.loser_moves_next = rules.no_collision_result == "side_to_move_loses"
        self.total_ply_limit = -1 if rules.total_ply_limit is None else rules.total_ply_limit
        self.ply_cap = rules.ply_cap
        self.flag_on_marshal_death = bool(rules.flag_revealed_on_marshal_death)

    def as_tuple(self) -> tuple:
        return (self.road, self.road_count, self.rail, self.rail_count, self.rays,
                self.ray_length, self.is_rail, self.is_camp, self.stuck, self.combat,
                self.beats, self.stops, self.mobile_kind, self.routes, self.turn_depth,
                self.no_collision_limit, self.loser_moves_next, self.total_ply_limit,
                self.ply_cap, self.flag_on_marshal_death)


# ---------------------------------------------------------------------- move generation
@numba.njit(cache=True)
def _route_search(owner, start, player, depth_limit, rail, rail_count, frontier, reached,
                  mask_row, flip, target):
    """Breadth first over railroad links through empty posts, turning freely; a route may end
    on an enemy piece but never passes one (``MoveGenerator._append_rail_routes``). Marks each
    destination in ``mask_row`` unless it is empty (size 0); returns how many destinations
    there are and whether ``target`` (-2: none) is one of them."""
    seen = np.int64(1) << np.int64(start)
    frontier[0] = start
    count = 1
    depth = 0
    found = False
    destinations = 0
    base = start * NUM_POSTS
    while count > 0 and depth < depth_limit:
        depth += 1
        next_count = 0
        for f in range(count):
            here = frontier[f]
            for r in range(rail_count[here]):
                nxt = rail[here, r]
                bit = np.int64(1) << np.int64(nxt)
                if seen & bit:
                    continue
                seen |= bit
                holder = owner[nxt]
                if holder == EMPTY:
                    reached[next_count] = nxt
                    next_count += 1
                elif holder == player:
                    continue
                destinations += 1
                if nxt == target:
                    found = True
                if mask_row.shape[0] > 0:
                    action = base + nxt
                    mask_row[NUM_MOVE_ACTIONS - 1 - action if flip else action] = True
        for f in range(next_count):
            frontier[f] = reached[f]
        count = next_count
    return destinations, found


@numba.njit(cache=True)
def _legal_mask(owner, kind, player, mask_row, frontier, reached, road, road_count, rail,
                rail_count, rays, ray_length, is_rail, is_camp, stuck, mobile_kind, routes,
                turn_depth):
    """Mark ``player``'s legal moves in ``mask_row`` (its frame: player 1's move ``a`` at
    ``3599 - a``); returns how many there are."""
    flip = player == 1
    count = 0
    for post in range(NUM_POSTS):
        if owner[post] != player:
            continue
        piece = kind[post]
        if not mobile_kind[piece] or stuck[post]:
            continue
        base = post * NUM_POSTS
        for r in range(road_count[post]):
            target = road[post, r]
            holder = owner[target]
            if holder == EMPTY or (holder != player and not is_camp[target]):
                action = base + target
                mask_row[NUM_MOVE_ACTIONS - 1 - action if flip else action] = True
                count += 1
        if not is_rail[post]:
            continue
        if piece == ENGINEER or routes:
            depth = NUM_POSTS if piece == ENGINEER else turn_depth
            destinations, _ = _route_search(owner, post, player, depth, rail, rail_count,
                                            frontier, reached, mask_row, flip, -2)
            count += destinations
        else:
            for r in range(4):
                for s in range(ray_length[post, r]):
                    target = rays[post, r, s]
                    holder = owner[target]
                    if holder == EMPTY:
                        action = base + target
                        mask_row[NUM_MOVE_ACTIONS - 1 - action if flip else action] = True
                        count += 1
                        continue
                    if holder != player:
                        action = base + target
                        mask_row[NUM_MOVE_ACTIONS - 1 - action if flip else action] = True
                        count += 1
                    break
    return count


@numba.njit(cache=True)
def _has_move(owner, kind, player, road, road_count, rail, rail_count, is_rail, is_camp, stuck,
              mobile_kind):
    """``MoveGenerator.has_legal_move``: some piece of ``player`` has a first step open."""
    for post in range(NUM_POSTS):
        if owner[post] != player:
            continue
        if not mobile_kind[kind[post]] or stuck[post]:
            continue
        for r in range(road_count[post]):
            target = road[post, r]
            holder = owner[target]
            if holder == EMPTY or (holder != player and not is_camp[target]):
                return True
        if is_rail[post]:
            for r in range(rail_count[post]):
                if owner[rail[post, r]] != player:
                    return True
    return False


@numba.njit(cache=True)
def _non_engineer_can_reach(owner, from_post, to_post, frontier, reached, road, road_count,
                            rail, rail_count, rays, ray_length, is_rail, is_camp, routes,
                            turn_depth):
    player = owner[from_post]
    for r in range(road_count[from_post]):
        if road[from_post, r] == to_post:
            holder = owner[to_post]
            if holder == EMPTY or (holder != player and not is_camp[to_post]):
                return True
    if not is_rail[from_post]:
        return False
    if routes:
        empty_row = np.zeros(0, np.bool_)
        _, found = _route_search(owner, from_post, player, turn_depth, rail, rail_count,
                                 frontier, reached, empty_row, False, to_post)
        return found
    for r in range(4):
        for s in range(ray_length[from_post, r]):
            target = rays[from_post, r, s]
            holder = owner[target]
            if target == to_post:
                return holder != player
            if holder != EMPTY:
                break
    return False


# ---------------------------------------------------------------------- apply
@numba.njit(cache=True)
def _reveal_flag(owner, kind, possible, flag_revealed, flag_revealed_ply, side, ply):
    flag_post = -1
    for post in range(NUM_POSTS):
        if owner[post] == side and kind[post] == FLAG:
            flag_post = post
            break
    observer = 1 - side
    for post in range(NUM_POSTS):
        if possible[observer, post]:
            possible[observer, post] &= ~(FLAG_BIT | MARSHAL_BIT)
    if flag_post >= 0:
        flag_revealed[side] = flag_post
        flag_revealed_ply[side] = ply
        possible[observer, flag_post] = FLAG_BIT


@numba.njit(cache=True)
def _marshal_removed(owner, kind, possible, flag_revealed, flag_revealed_ply, side, ply):
    for post in range(NUM_POSTS):
        if owner[post] == side and kind[post] == MARSHAL:
            return
    _reveal_flag(owner, kind, possible, flag_revealed, flag_revealed_ply, side, ply)


@numba.njit(cache=True)
def _write_planes(planes, owner, kind, moved, possible, flag_revealed, history, history_length,
                  player, ply, quiet, terrain, rank_lower, rank_upper, ply_cap,
                  no_collision_limit):
    """``observation_planes(state.view(player))`` into ``planes`` ((39, 60), zeroed here)."""
    planes[:, :] = 0.0
    opponent = 1 - player
    flip = player == 1
    ply_fraction = min(ply / ply_cap, 1.0)
    quiet_fraction = 0.0
    if no_collision_limit >= 0:
        quiet_fraction = min(quiet / no_collision_limit, 1.0)
    for post in range(NUM_POSTS):
        q = NUM_POSTS - 1 - post if flip else post
        holder = owner[post]
        if holder == player:
            planes[kind[post], q] = 1.0
        elif holder == opponent:
            planes[P_OPPONENT_PRESENT, q] = 1.0
            if moved[post]:
                planes[P_OPPONENT_MOVED, q] = 1.0
        mask = possible[player, post]
        for k in range(NUM_PIECE_TYPES):
            if (mask >> k) & 1:
                planes[P_MAY_BE + k, q] = 1.0
        planes[P_RANK_LOWER, q] = rank_lower[mask]
        planes[P_RANK_UPPER, q] = rank_upper[mask]
        for t in range(3):
            planes[P_TERRAIN + t, q] = terrain[t, post]
        planes[P_PLY, q] = ply_fraction
        planes[P_QUIET, q] = quiet_fraction
    if flag_revealed[opponent] >= 0:
        post = flag_revealed[opponent]
        planes[P_OPPONENT_FLAG, NUM_POSTS - 1 - post if flip else post] = 1.0
    if flag_revealed[player] >= 0:
        post = flag_revealed[player]
        planes[P_OWN_FLAG, NUM_POSTS - 1 - post if flip else post] = 1.0
    if history_length > 0:
        last = np.int64(history[history_length - 1])
        from_post = last & 63
        to_post = (last >> 6) & 63
        planes[P_LAST_FROM, NUM_POSTS - 1 - from_post if flip else from_post] = 1.0
        planes[P_LAST_TO, NUM_POSTS - 1 - to_post if flip else to_post] = 1.0


@numba.njit(cache=True)
def _settle(i, previous_mover, flag_taken, owner, kind, current_player, terminated, winner,
            end_reason, ply, quiet, action_mask, frontier, reached, road, road_count, rail,
            rail_count, rays, ray_length, is_rail, is_camp, stuck, mobile_kind, routes,
            turn_depth, no_collision_limit, loser_moves_next, total_ply_limit, ply_cap):
    """``JunqiState._start_turn`` for game ``i``, then its mask (all False once over)."""
    row = action_mask[i]
    row[:] = False
    player = current_player[i]
    if flag_taken:
        terminated[i] = True
        winner[i] = previous_mover
        end_reason[i] = CODE_FLAG_CAPTURED
        return
    count = _legal_mask(owner[i], kind[i], player, row, frontier, reached, road, road_count,
                        rail, rail_count, rays, ray_length, is_rail, is_camp, stuck,
                        mobile_kind, routes, turn_depth)
    code = 0
    who = -1
    if count == 0:
        if _has_move(owner[i], kind[i], previous_mover, road, road_count, rail, rail_count,
                     is_rail, is_camp, stuck, mobile_kind):
            code, who = CODE_NO_LEGAL_MOVE, previous_mover
        else:
            code = CODE_NO_LEGAL_MOVE_BOTH
    elif no_collision_limit >= 0 and quiet[i] >= no_collision_limit:
        code = CODE_NO_COLLISION_LIMIT
        if loser_moves_next:
            who = 1 - player
    elif total_ply_limit >= 0 and ply[i] >= total_ply_limit:
        code = CODE_TOTAL_PLY_LIMIT
    elif ply[i] >= ply_cap:
        code = CODE_PLY_CAP
    if code:
        terminated[i] = True
        winner[i] = who
        end_reason[i] = code
        row[:] = False


# nogil: the batch is cut into one slice per thread (``CompiledJunqiBatch``), which run at once.
@numba.njit(cache=True, nogil=True)
def step_games(start, stop, actions, active, owner, kind, moved, possible, flag_revealed,
               flag_revealed_ply, history, history_length, current_player, terminated, winner,
               end_reason, ply, quiet, plies, action_mask, observation, terrain, rank_lower,
               rank_upper, road, road_count, rail, rail_count, rays, ray_length, is_rail, is_camp,
               stuck, combat, beats, stops, mobile_kind, routes, turn_depth, no_collision_limit,
               loser_moves_next, total_ply_limit, ply_cap, flag_on_marshal_death):
    """One ply in every active game (actions in the mover's frame, already checked legal),
    then each stepped game's end rules, mask and planes for the player to move; games
    ``start`` to ``stop`` only."""
    for i in range(start, stop):
        if not active[i]:
            continue
        frontier = np.empty(NUM_POSTS, np.int64)
        reached = np.empty(NUM_POSTS, np.int64)
        own = owner[i]
        kinds = kind[i]
        moves = moved[i]
        seen = possible[i]
        mover = current_player[i]
        opponent = 1 - mover
        action = actions[i]
        if mover == 1:
            action = NUM_MOVE_ACTIONS - 1 - action
        from_post = action // NUM_POSTS
        to_post = action % NUM_POSTS
        attacker = kinds[from_post]
        defender = kinds[to_post]
        engineer_only = attacker == ENGINEER and not _non_engineer_can_reach(
            own, from_post, to_post, frontier, reached, road, road_count, rail, rail_count,
            rays, ray_length, is_rail, is_camp, routes, turn_depth)
        seen_attacker = seen[opponent, from_post] & MOBILE_MASK
        if engineer_only:
            seen_attacker &= ENGINEER_BIT
        seen[opponent, from_post] = 0
        moves[from_post] = 0
        own[from_post] = EMPTY
        kinds[from_post] = NO_PIECE
        if defender == NO_PIECE:
            result = MOVED
            own[to_post] = mover
            kinds[to_post] = attacker
            moves[to_post] = 1
            seen[opponent, to_post] = seen_attacker
            quiet[i] += 1
        else:
            result = combat[attacker, defender]
            if result == ATTACKER_WON:
                own[to_post] = mover
                kinds[to_post] = attacker
                moves[to_post] = 1
                seen[opponent, to_post] = seen_attacker & beats[defender]
                seen[mover, to_post] = 0
            elif result == ATTACKER_LOST:
                seen[mover, to_post] &= stops[attacker]
            else:
                own[to_post] = EMPTY
                kinds[to_post] = NO_PIECE
                moves[to_post] = 0
                seen[mover, to_post] = 0
            if flag_on_marshal_death:
                length = history_length[i]
                if attacker == MARSHAL and result != ATTACKER_WON:
                    _marshal_removed(own, kinds, seen, flag_revealed[i], flag_revealed_ply[i],
                                     mover, length)
                if defender == MARSHAL and result != ATTACKER_LOST:
                    _marshal_removed(own, kinds, seen, flag_revealed[i], flag_revealed_ply[i],
                                     opponent, length)
            quiet[i] = 0
        history[i, history_length[i]] = (from_post | (to_post << 6) | (result << 12)
                                         | (np.int64(engineer_only) << 14) | (mover << 15))
        history_length[i] += 1
        ply[i] += 1
        plies[i] += 1
        current_player[i] = opponent
        _settle(i, mover, defender == FLAG and result != ATTACKER_LOST, owner, kind,
                current_player, terminated, winner, end_reason, ply, quiet, action_mask,
                frontier, reached, road, road_count, rail, rail_count, rays, ray_length,
                is_rail, is_camp, stuck, mobile_kind, routes, turn_depth, no_collision_limit,
                loser_moves_next, total_ply_limit, ply_cap)
        _write_planes(observation[i], own, kinds, moves, seen, flag_revealed[i], history[i],
                      history_length[i], opponent, ply[i], quiet[i], terrain, rank_lower,
                      rank_upper, ply_cap, no_collision_limit)


# One thread: a refresh follows a reset, which touches a few games at a time.
@numba.njit(cache=True)
def refresh_games(indices, owner, kind, moved, possible, flag_revealed, history,
                  history_length, current_player, terminated, ply, quiet, action_mask,
                  observation, terrain, rank_lower, rank_upper, road, road_count, rail,
                  rail_count, rays, ray_length, is_rail, is_camp, stuck, mobile_kind, routes,
                  turn_depth, ply_cap, no_collision_limit):
    """Mask and planes of the games ``indices`` after they were set (their end already
    settled by the core state they came from)."""
    for n in range(indices.shape[0]):
        i = indices[n]
        frontier = np.empty(NUM_POSTS, np.int64)
        reached = np.empty(NUM_POSTS, np.int64)
        row = action_mask[i]
        row[:] = False
        player = current_player[i]
        if not terminated[i]:
            _legal_mask(owner[i], kind[i], player, row, frontier, reached, road, road_count,
                        rail, rail_count, rays, ray_length, is_rail, is_camp, stuck,
                        mobile_kind, routes, turn_depth)
        _write_planes(observation[i], owner[i], kind[i], moved[i], possible[i],
                      flag_revealed[i], history[i], history_length[i], player, ply[i],
                      quiet[i], terrain, rank_lower, rank_upper, ply_cap, no_collision_limit)
