"""The one search loop every Junqi MCTS runs, and its budget.

Each iteration draws one full state consistent with the searching player's view from its belief
tracker, descends the tree by the tree policy's choices (expanding one node), values the world
reached with the leaf evaluator and backs the value up the path. The move played is the root
move visited most (ties: the higher mean).
"""

from __future__ import annotations

from typing import NamedTuple

from agents.common.budget import Deadline
from agents.common.params import MAX_ITERATIONS, OPTIONAL_SECONDS, Int, check_params
from agents.junqi.mcts.leaf import LeafEvaluator
from agents.junqi.mcts.policies import TreePolicy
from agents.junqi.mcts.tree import Node, most_visited

DEFAULT_ITERATIONS = 300

BUDGET_PARAMS = {
    "iterations": Int(low=1, high=MAX_ITERATIONS, optional=True),
    "seconds": OPTIONAL_SECONDS,  # finite, > 0, at most MAX_SECONDS
}


class SearchBudget:
    """Iterations or seconds per move (at least one of them; iterations in
    [1, MAX_ITERATIONS], seconds finite in (0, MAX_SECONDS])."""

    def __init__(self, iterations: int | None = None, seconds: float | None = None,
                 who: str = "SearchBudget"):
        if iterations is None and seconds is None:
            iterations = DEFAULT_ITERATIONS
        checked = check_params(BUDGET_PARAMS, who, iterations=iterations, seconds=seconds)
        self.iterations = checked["iterations"]
        self.seconds = checked["seconds"]

    def start(self) -> Deadline:
        """The clock of one move, started now."""
        return Deadline(self.seconds)

    def more(self, done: int, clock: Deadline) -> bool:
        """Whether another iteration starts after ``done`` of them on ``clock``: the time is
        checked between iterations, so a move overruns by at most one. A stop asked from
        outside (``agents.common.budget.stop_when``) ends the search the same way."""
        if self.iterations is not None and done >= self.iterations:
            return False
        if clock.passed():
            return False
        return self.seconds is None or clock.elapsed() < self.seconds

    def __repr__(self) -> str:
        return f"SearchBudget(iterations={self.iterations}, seconds={self.seconds})"


class SearchResult(NamedTuple):
    action: int
    iterations: int
    root: Node  # the root's edges hold what the search found for each move


def run_search(tree: TreePolicy, leaf: LeafEvaluator, view, actions: list[int], belief, rng,
               budget: SearchBudget, clock: Deadline) -> SearchResult:
    """Search the move for the player of ``view`` among ``actions``: the move, the number of
    iterations run and the root of the tree."""
    player = view.player
    root = tree.new_root(view, actions, belief)
    forced = tree.forced_move(root)
    if forced is not None:
        return SearchResult(forced, 0, root)
    max_depth, counts_reached, mover_totals = tree.max_depth, tree.counts_reached, tree.mover_totals
    select, child_key = tree.select, tree.child_key
    done = 0
    while budget.more(done, clock):
        state = belief.sample_state(rng)
        origin = leaf.origin(state, player)
        node: Node = root
        path_credit, depth = 0.0, 0
        trail: list[tuple[Node, int]] = []
        # Selection and expansion: stop below the first new node.
        while depth < max_depth and not state.is_terminal():
            sign = 1.0 if node.mover == player else -1.0
            choice = select(node, state, sign)
            if choice is None:
                break
            action = choice[0]
            result = state.apply(action)
            path_credit += sign * choice[1]
            trail.append((node, action))
            depth += 1
            key = child_key(action, result)
            child = node.children.get(key)
            if child is None:
                child = node.children[key] = Node(state.current_player)
                node = child
                break
            node = child
        value = leaf.value(state, player, origin, path_credit, depth)
        for visited, action in trail:
            visited.visits += 1
            edge = visited.edges[action]
            edge.visits += 1
            if mover_totals and visited.mover != player:
                edge.total += 1.0 - value
            else:
                edge.total += value
        if counts_reached:
            node.visits += 1
        done += 1
    best = most_visited(root)
    return SearchResult(tree.fallback(root, actions) if best is None else best, done, root)
