"""Move generation from precomputed board tables over flat ``owner`` / ``kind`` lists.

Only the mover's own piece types are read, never the opponent's: the same generator serves the
true state and a player's view, which is why a view can list its legal moves.

Searches generate moves millions of times, so the hot entry points (``legal_moves``,
``has_legal_move``, ``is_legal_move``, ``non_engineer_can_reach``) are written as single loops
over the tables; each has a plain twin built on ``_append_destinations``
(``legal_moves_reference``, ``non_engineer_can_reach_reference``; ``is_legal_move`` and
``has_legal_move`` against the reference list) that the tests hold them equal to, move for move
and in order.
"""

from __future__ import annotations

from tbw_envs.junqi.board import NUM_POSTS, board_graph
from tbw_envs.junqi.pieces import ENGINEER, FLAG, MINE, NUM_PIECE_TYPES
from tbw_envs.junqi.variant import JunqiRules

EMPTY = -1


class MoveGenerator:
    """Legal moves of one rule set. Actions are ``from_post * 60 + to_post``."""

    def __init__(self, rules: JunqiRules):
        graph = board_graph()
        self.rules = rules
        self._road_only = graph.road_only_neighbors
        self._rail_neighbors = graph.rail_neighbors
        self._is_camp = graph.is_camp
        self._is_rail = graph.is_rail
        self._stuck_in_headquarters = (
            graph.is_headquarters if rules.headquarters_lock else (False,) * NUM_POSTS
        )
        steps = rules.non_engineer_rail_steps
        if rules.non_engineer_rail_turns:
            self._straight_rays = None
            self._turn_depth = steps if steps is not None else NUM_POSTS
        else:
            # A step limit on straight slides is just shorter rays, cut once here.
            self._straight_rays = tuple(
                tuple(ray[:steps] if steps is not None else ray for ray in rays)
                for rays in graph.rail_rays
            )
            self._turn_depth = 0
        # Per post, the straight runs a non-engineer slides along (empty off the railroad, and
        # under turning rules, where ``_append_rail_routes`` serves instead).
        self._slides = (
            tuple(rays if graph.is_rail[post] else () for post, rays in
                  enumerate(self._straight_rays))
            if self._straight_rays is not None else ((),) * NUM_POSTS
        )  # fmt: skip
        self._road_sets = tuple(frozenset(targets) for targets in self._road_only)
        # Per piece type: whether it may move at all (mines and the flag never do).
        self._mobile_kind = tuple(kind not in (MINE, FLAG) for kind in range(NUM_PIECE_TYPES))
        # Per player, the posts from its front row backwards (then the enemy half): where a
        # piece with a move is met soonest, for ``has_legal_move``.
        half = NUM_POSTS // 2
        self._scan_order = (
            tuple(range(half, NUM_POSTS)) + tuple(range(half)),
            tuple(range(half - 1, -1, -1)) + tuple(range(NUM_POSTS - 1, half - 1, -1)),
        )

    def is_mobile(self, owner: list[int], kind: list[int], post: int) -> bool:
        piece = kind[post]
        return (
            owner[post] != EMPTY
            and piece != MINE
            and piece != FLAG
            and not self._stuck_in_headquarters[post]
        )

    def legal_moves(self, owner: list[int], kind: list[int], player: int) -> list[int]:
        """The legal moves of ``player``: posts in increasing order, each piece's road moves
        first, then its railroad moves (the order of ``legal_moves_reference``)."""
        moves: list[int] = []
        append = moves.append
        stuck, road_only, is_camp = self._stuck_in_headquarters, self._road_only, self._is_camp
        is_rail, slides, mobile = self._is_rail, self._slides, self._mobile_kind
        rail_neighbors = self._rail_neighbors
        routes = self._straight_rays is None
        for post in range(NUM_POSTS):
            if owner[post] != player:
                continue
            piece = kind[post]
            if not mobile[piece] or stuck[post]:
                continue
            base = post * NUM_POSTS
            for target in road_only[post]:
                holder = owner[target]
                if holder == EMPTY or (holder != player and not is_camp[target]):
                    append(base + target)
            if piece == ENGINEER:
                if is_rail[post]:
                    # ``_append_rail_routes`` without a depth limit, inlined.
                    seen = {post}
                    frontier = [post]
                    while frontier:
                        reached = []
                        for here in frontier:
                            for target in rail_neighbors[here]:
                                if target in seen:
                                    continue
                                seen.add(target)
                                holder = owner[target]
                                if holder == EMPTY:
                                    append(base + target)
                                    reached.append(target)
                                elif holder != player:
                                    append(base + target)
                        frontier = reached
            elif routes:
                if is_rail[post]:
                    self._append_rail_routes(owner, post, player, base, self._turn_depth, moves)
            else:
                for ray in slides[post]:
                    for target in ray:
                        holder = owner[target]
                        if holder == EMPTY:
                            append(base + target)
                            continue
                        if holder != player:
                            append(base + target)
                        break
        return moves

    def legal_moves_reference(self, owner: list[int], kind: list[int], player: int) -> list[int]:
        """``legal_moves`` written plainly: the specification the fast loop is tested against."""
        moves: list[int] = []
        for post in range(NUM_POSTS):
            if owner[post] == player:
                piece = kind[post]
                if piece != MINE and piece != FLAG and not self._stuck_in_headquarters[post]:
                    self._append_destinations(owner, post, player, piece == ENGINEER, moves)
        return moves

    def has_legal_move(self, owner: list[int], kind: list[int], player: int) -> bool:
        """``bool(legal_moves(owner, kind, player))``, stopping at the first move found."""
        stuck, road_only, is_camp = self._stuck_in_headquarters, self._road_only, self._is_camp
        is_rail, rail_neighbors, mobile = self._is_rail, self._rail_neighbors, self._mobile_kind
        for post in self._scan_order[player]:
            if owner[post] != player:
                continue
            if not mobile[kind[post]] or stuck[post]:
                continue
            for target in road_only[post]:
                holder = owner[target]
                if holder == EMPTY or (holder != player and not is_camp[target]):
                    return True
            # A railroad move exists exactly when some first railroad step is open: every kind
            # of piece may take one step along the railroad (an engineer, any route; a slide,
            # its first post; a turning piece, depth at least 1 since the step limit is >= 1).
            if is_rail[post]:
                for target in rail_neighbors[post]:
                    if owner[target] != player:
                        return True
        return False

    def is_legal_move(self, owner: list[int], kind: list[int], player: int, action: int) -> bool:
        """``action in legal_moves(owner, kind, player)`` for a move action (0-3599), from the
        moving piece's destinations alone."""
        from_post, to_post = divmod(action, NUM_POSTS)
        if owner[from_post] != player:
            return False
        piece = kind[from_post]
        if piece in (MINE, FLAG) or self._stuck_in_headquarters[from_post]:
            return False
        moves: list[int] = []
        self._append_destinations(owner, from_post, player, piece == ENGINEER, moves)
        return action in moves

    def destinations(self, owner: list[int], kind: list[int], post: int) -> list[int]:
        """Posts the piece on ``post`` may move to (empty when it cannot move)."""
        if not self.is_mobile(owner, kind, post):
            return []
        moves: list[int] = []
        self._append_destinations(owner, post, owner[post], kind[post] == ENGINEER, moves)
        return [move % NUM_POSTS for move in moves]

    def non_engineer_can_reach(self, owner: list[int], from_post: int, to_post: int) -> bool:
        """Whether any mobile non-engineer on ``from_post`` could move to ``to_post``; a move
        that only an engineer can make identifies the mover (public deduction)."""
        player = owner[from_post]
        if to_post in self._road_sets[from_post]:
            holder = owner[to_post]
            if holder == EMPTY or (holder != player and not self._is_camp[to_post]):
                return True
        if self._straight_rays is None:
            return self.non_engineer_can_reach_reference(owner, from_post, to_post)
        # Off the railroad ``_slides`` is empty; a railroad post is never a road-only neighbour
        # of a railroad post, so the two cases above and below never both hold.
        for ray in self._slides[from_post]:
            for target in ray:
                holder = owner[target]
                if target == to_post:
                    return holder != player
                if holder != EMPTY:
                    break
        return False

    def non_engineer_can_reach_reference(
        self, owner: list[int], from_post: int, to_post: int
    ) -> bool:
        """``non_engineer_can_reach`` from the full destination list (its specification)."""
        moves: list[int] = []
        self._append_destinations(owner, from_post, owner[from_post], False, moves)
        return from_post * NUM_POSTS + to_post in moves

    def _append_destinations(
        self, owner: list[int], post: int, player: int, engineer: bool, moves: list[int]
    ) -> None:
        is_camp = self._is_camp
        base = post * NUM_POSTS
        for target in self._road_only[post]:
            holder = owner[target]
            if holder == EMPTY or (holder != player and not is_camp[target]):
                moves.append(base + target)
        if not self._is_rail[post]:
            return
        # Railroad destinations never coincide with road-only neighbours (no two railroad posts
        # share a non-railroad link), so no de-duplication is needed. Camps are never on rail.
        if engineer:
            self._append_rail_routes(owner, post, player, base, NUM_POSTS, moves)
        elif self._straight_rays is None:
            self._append_rail_routes(owner, post, player, base, self._turn_depth, moves)
        else:
            for ray in self._straight_rays[post]:
                for target in ray:
                    holder = owner[target]
                    if holder == EMPTY:
                        moves.append(base + target)
                        continue
                    if holder != player:
                        moves.append(base + target)
                    break

    def _append_rail_routes(
        self, owner: list[int], start: int, player: int, base: int, max_depth: int, moves: list
    ) -> None:
        """Breadth-first over railroad links through empty posts, turning freely; a route may
        end on an enemy piece but never passes one."""
        rail_neighbors = self._rail_neighbors
        seen = {start}
        frontier = [start]
        depth = 0
        while frontier and depth < max_depth:
            depth += 1
            next_frontier = []
            for here in frontier:
                for target in rail_neighbors[here]:
                    if target in seen:
                        continue
                    seen.add(target)
                    holder = owner[target]
                    if holder == EMPTY:
                        moves.append(base + target)
                        next_frontier.append(target)
                    elif holder != player:
                        moves.append(base + target)
            frontier = next_frontier
