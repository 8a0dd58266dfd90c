"""Move generation from precomputed board tables over flat ``owner`` / ``kind`` lists.

Only the mover's own piece types are read, never the opponent's: the same generator serves the
true state and a player's view, which is why a view can list its legal moves.
"""

from __future__ import annotations

from tbw_envs.junqi.board import NUM_POSTS, board_graph
from tbw_envs.junqi.pieces import ENGINEER, FLAG, MINE
from tbw_envs.junqi.rules import JunqiRules

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

    def is_mobile(self, owner: list[int], kind: list[int], post: int) -> bool:
        piece = kind[post]
        return (
            owner[post] != EMPTY
            and piece != MINE
            and piece != FLAG
            and not self._stuck_in_headquarters[post]
        )

    def legal_moves(self, owner: list[int], kind: list[int], player: int) -> list[int]:
        moves: list[int] = []
        for post in range(NUM_POSTS):
            if owner[post] == player:
                piece = kind[post]
                if piece != MINE and piece != FLAG and not self._stuck_in_headquarters[post]:
                    self._append_destinations(owner, post, player, piece == ENGINEER, moves)
        return moves

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
