"""The search tree the Junqi searches share: nodes, the move edges out of them, and the
selection formulas over an edge's statistics."""

from __future__ import annotations

import math

# A move as the tree policies rank it: ``(action, leaf credit, evaluation score)``.
Candidate = tuple[int, float, float]


class Edge:
    """One move out of a node: how often the search took it (``visits``), the sum of the leaf
    values it led to (``total``) and, for ISMCTS, in how many visits of its node it was
    legal (``available``)."""

    __slots__ = ("visits", "total", "available")

    def __init__(self, visits: float = 0, total: float = 0.0, available: int = 1):
        self.visits = visits
        self.total = total
        self.available = available


class Node:
    """A tree node: the player to move there (``mover``), its ranked moves once computed
    (``candidates``), its edges by action, its children by the tree policy's key, and its
    ``visits`` (what they count is the tree policy's choice, see ``TreePolicy``)."""

    __slots__ = ("mover", "candidates", "edges", "children", "visits")

    def __init__(self, mover: int):
        self.mover = mover
        self.candidates: list[Candidate] | None = None
        self.edges: dict[int, Edge] = {}
        self.children: dict = {}
        self.visits = 0


def mean_ucb(edge: Edge, sign: float, log_parent: float, cof: float) -> float:
    """The Junqi paper's eq. 3, ``w_c / n_c + cof x sqrt(2 log n_p / n_c)``, with the edge's mean
    seen from the mover's side (``sign`` -1 turns a total kept for the searching player into the
    opponent's)."""
    return sign * edge.total / edge.visits + cof * math.sqrt(2.0 * log_parent / edge.visits)


def availability_ucb(edge: Edge, sign: float, cof: float) -> float:
    """ISMCTS selection: the parent's visit count replaced by the times the move was legal."""
    return sign * edge.total / edge.visits + cof * math.sqrt(math.log(edge.available) / edge.visits)


def most_visited(root: Node) -> int | None:
    """The root move visited most (ties: the higher mean), or None when no edge has a visit."""
    tried = [(action, edge) for action, edge in root.edges.items() if edge.visits > 0]
    if not tried:
        return None
    return max(tried, key=lambda item: (item[1].visits, item[1].total / item[1].visits))[0]


def rank_moves(context, legal: list[int], credit) -> list[Candidate]:
    """``legal`` as candidates in decreasing order of the evaluation's score (ties: the lower
    action), each with its leaf credit ``credit(score, features)``."""
    scored = []
    for action in legal:
        features = context.features(action)
        score = context.weighted(features)
        scored.append((-score, action, credit(score, features)))
    scored.sort()
    return [(action, leaf_credit, -negative) for negative, action, leaf_credit in scored]
