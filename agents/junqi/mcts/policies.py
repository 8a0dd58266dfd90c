"""Tree policies: how each Junqi search builds its tree, chooses a move at a node and counts
what it saw. ``search.run_search`` runs the same loop over any of them.

A policy says which moves a node offers and how it selects among them (``select``), whether the
referee's public result of a move leads to a node of its own (``child_key``), how deep the tree
grows (``max_depth``), and what ``Node.visits`` counts (``counts_reached``: the iterations that
reached the node, or only those that chose a move there) and from whose side an edge's total
is kept (``mover_totals``: the mover's, or the searching player's)."""

from __future__ import annotations

import math
import random

from agents.junqi.evaluation import JunqiEvaluation
from agents.junqi.mcts.leaf import GuidedLeaf
from agents.junqi.mcts.reveal import reveal_entropy
from agents.junqi.mcts.tree import Candidate, Edge, Node, availability_ucb, mean_ucb, rank_moves


class TreePolicy:
    """The defaults: no depth cap, one child per move, ``Node.visits`` counting the iterations
    that reached the node, totals from the searching player's side, no forced move."""

    max_depth: float = math.inf
    counts_reached = True
    mover_totals = False

    def new_root(self, view, actions: list[int], belief) -> Node:
        return Node(view.player)

    def forced_move(self, root: Node) -> int | None:
        """A move to play without searching, if the root leaves no choice."""
        return None

    def select(self, node: Node, state, sign: float) -> tuple | None:  # pragma: no cover
        """``(action, leaf credit, ...)`` for the mover of ``node`` in ``state``, or None when the
        node offers no legal move there. ``sign`` is 1 at the searching player's nodes, else -1.
        The policy creates a move's ``Edge`` when it first offers or picks the move."""
        raise NotImplementedError

    def child_key(self, action: int, result: int):
        return action

    def fallback(self, root: Node, actions: list[int]) -> int:  # pragma: no cover - interface
        """The move when no root edge was visited (no iteration fit in the budget)."""
        raise NotImplementedError


class UCTPolicy(TreePolicy):
    """The paper's baseline: every legal move a child, untried children first in random order,
    then UCB1 over win rates kept from the mover's side."""

    mover_totals = True

    def __init__(self, rng: random.Random, cof: float):
        self.rng = rng
        self.cof = cof

    def select(self, node: Node, state, sign: float) -> tuple[int, float]:
        legal = state.legal_actions()
        edges = node.edges
        untried = [a for a in legal if a not in edges]
        if untried:
            action = untried[self.rng.randrange(len(untried))]
            edges[action] = Edge()
            return action, 0.0  # no credit: the rollout's reward alone values the leaf
        log_n = math.log(node.visits)
        cof = self.cof
        return max(legal, key=lambda a: mean_ucb(edges[a], 1.0, log_n, cof)), 0.0

    def fallback(self, root: Node, actions: list[int]) -> int:
        return actions[self.rng.randrange(len(actions))]


class TopRankedPolicy(TreePolicy):
    """UCB&MCTS: a node's children are the ``expand_k`` moves the evaluation ranks highest for
    its mover, ranked once when the node is first reached; unvisited ones first, then eq. 3 over
    mean leaf values; the tree stops at ``max_depth`` plies."""

    def __init__(self, evaluation: JunqiEvaluation, leaf: GuidedLeaf, cof: float,
                 max_depth: int, expand_k: int):
        self.evaluation = evaluation
        self.leaf = leaf
        self.cof = cof
        self.max_depth = max_depth
        self.expand_k = expand_k

    def new_root(self, view, actions: list[int], belief) -> Node:
        root = Node(view.player)
        context = self.evaluation.context(view, belief)
        root.candidates = rank_moves(context, actions, self.leaf.credit)[: self.expand_k]
        return root

    def forced_move(self, root: Node) -> int | None:
        return root.candidates[0][0] if len(root.candidates) == 1 else None

    def select(self, node: Node, state, sign: float) -> Candidate | None:
        if node.candidates is None:
            context = self.evaluation.state_context(state)
            node.candidates = rank_moves(context, state.legal_actions(), self.leaf.credit)[
                : self.expand_k
            ]
        legal = set(state.legal_actions())
        available = [c for c in node.candidates if c[0] in legal]
        if not available:
            return None
        edges = node.edges
        fresh = next((c for c in available if c[0] not in edges), None)
        if fresh is not None:
            edges[fresh[0]] = Edge()
            return fresh
        log_n = math.log(node.visits)
        cof = self.cof
        return max(available, key=lambda c: mean_ucb(edges[c[0]], sign, log_n, cof))

    def fallback(self, root: Node, actions: list[int]) -> int:
        return root.candidates[0][0]


class InformationSetPolicy(TreePolicy):
    """Single-observer ISMCTS: a node is reached by a move *and* the referee's public result of
    it; children are widened progressively in evaluation order (``widen_base`` + sqrt(visits)
    moves); an edge starts with ``prior_visits`` virtual visits worth the evaluation's score of
    its move; selection counts a move's availability instead of its parent's visits.
    ``Node.visits`` counts the iterations that chose a move at the node.

    With ``models_opponent`` the opponent's nodes play the candidate its own evaluation (with
    its public deductions) scores highest in the determinization, instead of choosing by UCB
    on our leaf values.

    With a ``root_prior`` (``root_prior(view, actions)``: a probability per move, e.g. a learned
    policy's) the root offers every move at once and selects by PUCT: the mean plus
    ``puct x P(move) x sqrt(visits + 1) / (1 + the move's own visits)``.

    With ``reveal`` > 0 every root attack's leaf credit and score gain ``reveal x`` the entropy
    of its announced result under the belief (``reveal.reveal_entropy``), and the root's moves
    are ranked again with it."""

    counts_reached = False

    def __init__(self, evaluation: JunqiEvaluation, leaf: GuidedLeaf, cof: float,
                 widen_base: int, prior_visits: float, models_opponent: bool,
                 root_prior=None, puct: float = 0.0, reveal: float = 0.0):
        self.evaluation = evaluation
        self.leaf = leaf
        self.cof = cof
        self.widen_base = widen_base
        self.prior_visits = prior_visits
        self.models_opponent = models_opponent
        self.root_prior = root_prior
        self.puct = puct
        self.reveal = reveal
        self._root: Node | None = None
        self._root_probabilities: dict[int, float] = {}

    def new_root(self, view, actions: list[int], belief) -> Node:
        root = Node(view.player)
        root.candidates = rank_moves(self.evaluation.context(view, belief), actions,
                                     self.leaf.credit)
        if self.reveal > 0.0:
            root.candidates = self._with_reveal(view, belief, root.candidates)
        self._root = root
        if self.root_prior is not None:
            moves = [action for action, _, _ in root.candidates]
            self._root_probabilities = dict(
                zip(moves, (float(p) for p in self.root_prior(view, moves)), strict=True))
        return root

    def _with_reveal(self, view, belief, candidates: list[Candidate]) -> list[Candidate]:
        """The candidates with each attack's credit and score raised by ``reveal`` x its result's
        entropy, in decreasing order of the new score (ties: the lower action)."""
        raised = []
        for action, credit, score in candidates:
            bonus = self.reveal * reveal_entropy(view, belief, action)
            raised.append((action, credit + bonus, score + bonus))
        raised.sort(key=lambda candidate: (-candidate[2], candidate[0]))
        return raised

    def select(self, node: Node, state, sign: float) -> tuple | None:
        if node is self._root and self.root_prior is not None:
            return self._puct_root(node)
        if node.candidates is None:
            context = self.evaluation.state_context(state)
            node.candidates = rank_moves(context, state.legal_actions(), self.leaf.credit)
        width = self.widen_base + int(math.sqrt(node.visits))
        legal = set(state.legal_actions())
        available = [c for c in node.candidates[:width] if c[0] in legal]
        if not available:
            available = [c for c in node.candidates if c[0] in legal][:1]
            if not available:
                return None
        edges = node.edges
        prior_visits = self.prior_visits
        for action, _, score in available:
            edge = edges.get(action)
            if edge is None:
                edges[action] = Edge(prior_visits, sign * score * prior_visits, 1)
            else:
                edge.available += 1
        if self.models_opponent and sign < 0.0:
            return self.modelled_reply(state, available)
        fresh = next((c for c in available if edges[c[0]].visits == 0), None)
        if fresh is not None:
            return fresh
        cof = self.cof
        return max(available, key=lambda c: availability_ucb(edges[c[0]], sign, cof))

    def _puct_root(self, root: Node) -> Candidate:
        """Every root move (our moves are the same in every determinization), by PUCT."""
        edges, prior_visits = root.edges, self.prior_visits
        for action, _, score in root.candidates:
            edge = edges.get(action)
            if edge is None:
                edges[action] = Edge(prior_visits, score * prior_visits, 1)
            else:
                edge.available += 1
        probabilities = self._root_probabilities
        scale = self.puct * math.sqrt(root.visits + 1)

        def puct(candidate: Candidate) -> float:
            edge = edges[candidate[0]]
            bonus = probabilities[candidate[0]] / (1.0 + edge.visits - prior_visits)
            return edge.total / edge.visits + scale * bonus

        return max(root.candidates, key=puct)

    def child_key(self, action: int, result: int):
        return action, result

    def fallback(self, root: Node, actions: list[int]) -> int:
        return root.candidates[0][0]

    def modelled_reply(self, state, candidates: list[Candidate]) -> tuple[int, float]:
        """The opponent model's move: the candidate its evaluation scores highest in this
        determinization (with its public deductions only), and its leaf credit."""
        context = self.evaluation.state_context(state)
        best_action, best_score, best_features = None, -math.inf, None
        for action, _, _ in candidates:
            features = context.features(action)
            score = context.weighted(features)
            if score > best_score:
                best_action, best_score, best_features = action, score, features
        return best_action, self.leaf.credit(best_score, best_features)
