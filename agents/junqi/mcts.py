"""Monte Carlo tree search agents for Junqi, all over determinizations drawn from a belief.

Every iteration draws one full state consistent with the agent's view from its belief tracker
(``agents.junqi.belief``), so no agent ever reads the true state. The three searches differ in
the tree and in how they look at a leaf (choices the Junqi paper leaves open are marked *open*;
``docs/junqi_agents.md`` lists them all):

``MCTSAgent`` (the paper's baseline, plain UCT)
    One tree over action sequences, every legal move a child, children tried in random order,
    UCB1 (eq. 3 with ``cof = 1``) over win rates, a uniformly random rollout to the end of the
    game (or ``rollout_limit`` plies, scored as a draw), reward 1 / 0.5 / 0.

``UCBMCTSAgent`` (the paper's UCB&MCTS)
    One tree over action sequences, cut at ``max_depth`` = 4 plies (the paper's limit). A node's
    children are only the ``expand_k`` moves the move evaluation ranks highest for the side to
    move (*open*: the paper says "top ranked"; 8 by default), ranked once when the node is first
    reached. Selection by eq. 3 with ``cof = 10``. *Open*: the paper's ``w_c`` ("winning
    times") is read as the leaf score in piece-value units (its Table 2), which is the scale on
    which ``cof = 10`` balances exploration against a tenth of a marshal. Below the tree, the
    simulation plays evaluation-guided moves (the best of ``sample_k`` random legal moves by
    the evaluation) down to the depth limit. A leaf is scored by the evaluation: the change of
    material (piece values, flag excluded) since the root in the determinized world, plus the
    positional features (flag defence, progress, no-collision) of the moves on the path, ours
    added and the opponent's subtracted; a finished game scores +/-``WIN_VALUE``. The move
    played is the root child visited most (ties: higher mean).

``ISMCTSAgent`` (beyond the paper: single-observer information-set MCTS, Cowling, Powley and
Whitehouse 2012)
    One tree over the searching player's information sets: a node is reached by a move *and*
    the referee's public result of it, so a node never merges worlds the player could tell
    apart. Selection uses availability counts (a move's ``n'`` counts the visits in which it was
    legal). Children are widened progressively in evaluation order (``widen_base`` +
    sqrt(visits) moves), the tree has no depth cap, and leaves are scored like UCB&MCTS's after
    an evaluation-guided simulation to an even horizon of at least ``horizon`` plies. Every
    edge starts with ``prior_visits`` (5) virtual visits worth the evaluation's score of its
    move: the search starts from the one-ply choice, which alone beats a 4-ply search over
    sampled worlds, and leaves it only on evidence (docs/results.md: 0.625 against UCB&MCTS at
    equal time over 200 games, 0.52 without the prior).

Budgets: ``iterations=N`` (deterministic under a seed) or ``seconds=S`` per move (checked after
every iteration, so a move overruns by at most one iteration); the belief is built inside it.
``iterations`` is at most ``agents.params.MAX_ITERATIONS`` (1,000,000) and ``seconds`` finite,
> 0 and at most ``MAX_SECONDS`` (3600); every parameter is checked when the agent is built.
"""

from __future__ import annotations

import math
import time

from agents.junqi.deployment import BASE_PARAMS, BELIEF, WEIGHTS, JunqiAgentBase
from agents.junqi.evaluation import FEATURE_NAMES, JunqiEvaluation, material
from agents.params import (
    MAX_COUNT,
    MAX_ITERATIONS,
    OPTIONAL_SECONDS,
    Choice,
    Float,
    Int,
    check_params,
)

WIN_VALUE = 1000.0
# Features whose effect a leaf's material change does not already show.
POSITIONAL_FEATURES = ("flag_defence", "progress", "no_collision")
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

    def more(self, done: int, started: float) -> bool:
        if self.iterations is not None and done >= self.iterations:
            return False
        return self.seconds is None or time.perf_counter() - started < self.seconds

    def __repr__(self) -> str:
        return f"SearchBudget(iterations={self.iterations}, seconds={self.seconds})"


# The parameters every search shares (``agents.params``); each search adds its own.
SEARCH_PARAMS = {
    **BASE_PARAMS, **BUDGET_PARAMS, "belief": BELIEF, "weights": WEIGHTS,
    "leaf": Choice(names=("material", "evaluation")),
}
COF = Float(low=0.0)  # the exploration constant: finite, >= 0
COUNT = Int(low=1, high=MAX_COUNT)


class _DeterminizedSearch(JunqiAgentBase):
    """What the three searches share: budget, belief, evaluation, statistics."""

    name = "mcts"

    def __init__(self, iterations: int | None = None, seconds: float | None = None,
                 belief: str | None = None, weights="default", seed: int | None = None,
                 layout: str = "random", leaf: str = "material"):
        super().__init__(seed=seed, layout=layout)
        from agents.junqi.belief import DEFAULT_BELIEF

        who = type(self).__name__
        check_params(SEARCH_PARAMS, who, belief=belief, weights=weights, leaf=leaf)
        self.leaf = leaf
        self.budget = SearchBudget(iterations, seconds, who)
        self.belief_name = DEFAULT_BELIEF if belief is None else belief
        self.evaluation = JunqiEvaluation(weights)
        values = self.evaluation.config.piece_values
        self._values = values
        self._positional_weights = [
            w if name in POSITIONAL_FEATURES else 0.0
            for name, w in zip(FEATURE_NAMES, self.evaluation.config.weights, strict=True)
        ]
        self.last_stats: dict = {}

    def choose(self, view, actions: list[int]) -> int:
        from agents.junqi.belief import make_belief

        started = time.perf_counter()
        belief = make_belief(self.belief_name, view)
        action, iterations = self._search(view, actions, belief, started)
        self.last_stats = {
            "iterations": iterations, "seconds": time.perf_counter() - started,
        }  # fmt: skip
        return action

    def _search(self, view, actions, belief, started) -> tuple[int, int]:  # pragma: no cover
        raise NotImplementedError

    # -- shared pieces
    def _positional(self, features) -> float:
        return sum(w * f for w, f in zip(self._positional_weights, features, strict=True))

    def _balance(self, state, player: int) -> float:
        values = self._values
        return material(state.owner, state.kind, player, values) - material(
            state.owner, state.kind, 1 - player, values
        )

    def _leaf_value(self, state, player: int, root_balance: float) -> float:
        if state.is_terminal():
            return state.returns()[player] * WIN_VALUE
        if self.leaf == "evaluation":
            return 0.0
        return self._balance(state, player) - root_balance

    def _guided_move(self, state, sample_k: int) -> tuple[int, float]:
        """Simulation policy: the best of ``sample_k`` random legal moves by the evaluation
        (with the mover's public deductions); returns the move and its leaf credit."""
        legal = state.legal_actions()
        if len(legal) > sample_k:
            legal = self._rng.sample(legal, sample_k)
        context = self.evaluation.state_context(state)
        best, best_score, best_features = legal[0], -math.inf, None
        for action in legal:
            features = context.features(action)
            score = context.weighted(features)
            if score > best_score:
                best, best_score, best_features = action, score, features
        return best, self._credit(best_score, best_features)

    def _simulate(self, state, player: int, root_balance: float, positional: float, depth: int,
                  horizon: int, sample_k: int, even: bool = False) -> float:
        """Below the tree: evaluation-guided moves until ``horizon`` plies (then on to an even
        depth when ``even``) or the end; returns the leaf's value, with the positional credit of
        the whole path unless the game ended."""
        while (depth < horizon or (even and depth % 2)) and not state.is_terminal():
            mover = state.current_player
            action, credit = self._guided_move(state, sample_k)
            state.apply(action)
            positional += credit if mover == player else -credit
            depth += 1
        value = self._leaf_value(state, player, root_balance)
        return value if state.is_terminal() else value + positional

    def _credit(self, score: float, features) -> float:
        """What a move adds to a leaf's value: its whole score when leaves are scored by the
        evaluation (``leaf="evaluation"``), its positional part when by material."""
        return score if self.leaf == "evaluation" else self._positional(features)

    def _ranked(self, context, legal: list[int]) -> list[tuple[int, float]]:
        """``(action, leaf credit)`` in decreasing order of the evaluation's score."""
        return [(action, credit) for action, credit, _ in self._scored(context, legal)]

    def _scored(self, context, legal: list[int]) -> list[tuple[int, float, float]]:
        """``(action, leaf credit, score)`` in decreasing order of the evaluation's score."""
        scored = []
        for action in legal:
            features = context.features(action)
            score = context.weighted(features)
            scored.append((-score, action, self._credit(score, features)))
        scored.sort()
        return [(action, credit, -negative) for negative, action, credit in scored]


# ---------------------------------------------------------------------------------- plain UCT
class _UCTNode:
    __slots__ = ("children", "visits", "wins")

    def __init__(self):
        self.children: dict[int, _UCTNode] = {}
        self.visits = 0
        self.wins = 0.0  # from the point of view of the player who moved into this node


class MCTSAgent(_DeterminizedSearch):
    """Plain UCT with uniformly random rollouts (the Junqi paper's baseline)."""

    name = "mcts"
    PARAMS = {
        **{k: p for k, p in SEARCH_PARAMS.items() if k not in ("weights", "leaf")},
        "cof": COF, "rollout_limit": Int(low=0, high=MAX_COUNT),
    }

    def __init__(self, iterations: int | None = None, seconds: float | None = None,
                 cof: float = 1.0, rollout_limit: int = 200, belief: str | None = None,
                 seed: int | None = None, layout: str = "random"):
        super().__init__(iterations, seconds, belief=belief, seed=seed, layout=layout)
        checked = check_params(self.PARAMS, type(self).__name__, cof=cof,
                               rollout_limit=rollout_limit)
        self.cof = checked["cof"]
        self.rollout_limit = checked["rollout_limit"]

    def _search(self, view, actions, belief, started):
        rng = self._rng
        player = view.player
        root = _UCTNode()
        done = 0
        while self.budget.more(done, started):
            state = belief.sample_state(rng)
            node, path = root, [root]
            movers = []
            # Selection and expansion.
            while not state.is_terminal():
                legal = state.legal_actions()
                untried = [a for a in legal if a not in node.children]
                mover = state.current_player
                if untried:
                    action = untried[rng.randrange(len(untried))]
                    child = node.children[action] = _UCTNode()
                    state.apply(action)
                    path.append(child)
                    movers.append(mover)
                    break
                log_n = math.log(node.visits)
                action = max(legal, key=lambda a: _ucb(node.children[a], log_n, self.cof))
                node = node.children[action]
                state.apply(action)
                path.append(node)
                movers.append(mover)
            # Uniform random rollout.
            plies = 0
            while not state.is_terminal() and plies < self.rollout_limit:
                legal = state.legal_actions()
                state.apply(legal[rng.randrange(len(legal))])
                plies += 1
            reward = (state.returns()[player] + 1.0) / 2.0  # draw or cut rollout: 0.5
            root.visits += 1
            for node, mover in zip(path[1:], movers, strict=True):
                node.visits += 1
                node.wins += reward if mover == player else 1.0 - reward
            done += 1
        if not root.children:
            return actions[rng.randrange(len(actions))], done
        best = max(root.children.items(), key=lambda item: (item[1].visits, item[1].wins))
        return best[0], done


def _ucb(node: _UCTNode, log_parent: float, cof: float) -> float:
    return node.wins / node.visits + cof * math.sqrt(2.0 * log_parent / node.visits)


# ---------------------------------------------------------------------------------- UCB&MCTS
class _Node:
    __slots__ = ("mover", "candidates", "children", "visits", "total")

    def __init__(self, mover: int):
        self.mover = mover
        self.candidates: list[tuple[int, float]] | None = None
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.total = 0.0  # sum of leaf values, from the searching player's point of view


class UCBMCTSAgent(_DeterminizedSearch):
    """The Junqi paper's UCB&MCTS with move evaluation (see the module docstring)."""

    name = "ucbmcts"
    PARAMS = {**SEARCH_PARAMS, "cof": COF, "max_depth": COUNT, "expand_k": COUNT,
              "sample_k": COUNT}

    def __init__(self, iterations: int | None = None, seconds: float | None = None,
                 cof: float = 10.0, max_depth: int = 4, expand_k: int = 8, sample_k: int = 4,
                 belief: str | None = None, weights="default", seed: int | None = None,
                 layout: str = "random", leaf: str = "material"):
        super().__init__(iterations, seconds, belief=belief, weights=weights, seed=seed,
                         layout=layout, leaf=leaf)
        checked = check_params(self.PARAMS, type(self).__name__, cof=cof, max_depth=max_depth,
                               expand_k=expand_k, sample_k=sample_k)
        self.cof = checked["cof"]
        self.max_depth = checked["max_depth"]
        self.expand_k = checked["expand_k"]
        self.sample_k = checked["sample_k"]

    def _search(self, view, actions, belief, started):
        rng = self._rng
        player = view.player
        root = _Node(player)
        root.candidates = self._ranked(self.evaluation.context(view, belief), actions)[
            : self.expand_k
        ]
        if len(root.candidates) == 1:
            return root.candidates[0][0], 0
        done = 0
        while self.budget.more(done, started):
            state = belief.sample_state(rng)
            root_balance = self._balance(state, player)
            node, path, positional, depth = root, [root], 0.0, 0
            expanded = False
            while not expanded and depth < self.max_depth and not state.is_terminal():
                if node.candidates is None:
                    context = self.evaluation.state_context(state)
                    node.candidates = self._ranked(context, state.legal_actions())[
                        : self.expand_k
                    ]
                legal = set(state.legal_actions())
                available = [c for c in node.candidates if c[0] in legal]
                if not available:
                    break
                sign = 1.0 if node.mover == player else -1.0
                fresh = next((c for c in available if c[0] not in node.children), None)
                if fresh is not None:
                    action, move_positional = fresh
                    child = node.children[action] = _Node(1 - node.mover)
                    expanded = True
                else:
                    log_n = math.log(node.visits)
                    action, move_positional = max(
                        available,
                        key=lambda c: _mean_ucb(node.children[c[0]], sign, log_n, self.cof),
                    )
                    child = node.children[action]
                state.apply(action)
                positional += sign * move_positional
                node = child
                path.append(node)
                depth += 1
            value = self._simulate(state, player, root_balance, positional, depth,
                                   self.max_depth, self.sample_k)
            for visited in path:
                visited.visits += 1
                visited.total += value
            done += 1
        if not root.children:
            return root.candidates[0][0], done
        best = max(
            root.children.items(), key=lambda item: (item[1].visits, item[1].total / item[1].visits)
        )
        return best[0], done


def _mean_ucb(node: _Node, sign: float, log_parent: float, cof: float) -> float:
    return sign * node.total / node.visits + cof * math.sqrt(2.0 * log_parent / node.visits)


# ---------------------------------------------------------------------------------- ISMCTS
class _InfoSetNode:
    __slots__ = ("mover", "ranked", "edges", "children", "visits")

    def __init__(self, mover: int):
        self.mover = mover
        self.ranked: list[tuple[int, float]] | None = None
        self.edges: dict[int, list[float]] = {}  # action -> [visits, total, availability]
        self.children: dict[tuple[int, int], _InfoSetNode] = {}  # (action, result) -> node
        self.visits = 0


class ISMCTSAgent(_DeterminizedSearch):
    """Single-observer information-set MCTS over the belief's determinizations.

    ``prior_visits`` (default 5; 0 turns it off) starts every edge with that many virtual visits
    worth the evaluation's score of the move (from the mover's side), so the search begins from
    the one-ply choice and leaves it only on evidence.

    ``opponent="evaluation"`` models the opponent inside the tree as a player of the move
    evaluation with its own public deductions: at its nodes it plays, among the widened
    candidates legal in the determinization, the one its evaluation scores highest there. The
    default, ``"search"``, lets it choose by UCB on our leaf values; since every determinization
    holds our true pieces, that opponent plays as if it could see them (it never attacks our
    marshal with a lieutenant, never runs into our mines), which no real opponent can.
    """

    name = "ismcts"
    PARAMS = {**SEARCH_PARAMS, "cof": COF, "widen_base": COUNT, "horizon": COUNT,
              "sample_k": COUNT, "prior_visits": Float(low=0.0),
              "opponent": Choice(names=("search", "evaluation"))}

    def __init__(self, iterations: int | None = None, seconds: float | None = None,
                 cof: float = 10.0, widen_base: int = 3, horizon: int = 4, sample_k: int = 4,
                 prior_visits: float = 5.0, opponent: str = "search",
                 belief: str | None = "count", weights="default", seed: int | None = None,
                 layout: str = "random", leaf: str = "material"):
        super().__init__(iterations, seconds, belief=belief, weights=weights, seed=seed,
                         layout=layout, leaf=leaf)
        checked = check_params(self.PARAMS, type(self).__name__, cof=cof,
                               widen_base=widen_base, horizon=horizon, sample_k=sample_k,
                               prior_visits=prior_visits, opponent=opponent)
        self.cof = checked["cof"]
        self.widen_base = checked["widen_base"]
        self.horizon = checked["horizon"]
        self.sample_k = checked["sample_k"]
        self.prior_visits = checked["prior_visits"]
        self.opponent_model = opponent

    def _search(self, view, actions, belief, started):
        rng = self._rng
        player = view.player
        prior_visits = self.prior_visits
        modelled = self.opponent_model == "evaluation"
        root = _InfoSetNode(player)
        root.ranked = self._scored(self.evaluation.context(view, belief), actions)
        done = 0
        while self.budget.more(done, started):
            state = belief.sample_state(rng)
            root_balance = self._balance(state, player)
            node, positional, depth = root, 0.0, 0
            trail: list[tuple[_InfoSetNode, int]] = []
            while not state.is_terminal():
                if node.ranked is None:
                    context = self.evaluation.state_context(state)
                    node.ranked = self._scored(context, state.legal_actions())
                width = self.widen_base + int(math.sqrt(node.visits))
                legal = set(state.legal_actions())
                available = [c for c in node.ranked[:width] if c[0] in legal]
                if not available:
                    available = [c for c in node.ranked if c[0] in legal][:1]
                    if not available:
                        break
                edges = node.edges
                sign = 1.0 if node.mover == player else -1.0
                for action, _, score in available:
                    edge = edges.get(action)
                    if edge is None:
                        edges[action] = [prior_visits, sign * score * prior_visits, 1]
                    else:
                        edge[2] += 1
                fresh = next((c for c in available if edges[c[0]][0] == 0), None)
                if modelled and node.mover != player:
                    action, move_positional = self._modelled_reply(state, available)
                elif fresh is not None:
                    action, move_positional, _ = fresh
                else:
                    cof = self.cof
                    action, move_positional, _ = max(
                        available, key=lambda c: _edge_ucb(edges[c[0]], sign, cof)
                    )
                result = state.apply(action)
                positional += sign * move_positional
                trail.append((node, action))
                depth += 1
                key = (action, result)
                child = node.children.get(key)
                if child is None:
                    node.children[key] = _InfoSetNode(state.current_player)
                    break
                node = child
            # To an even horizon: the opponent has answered our last move.
            value = self._simulate(state, player, root_balance, positional, depth,
                                   self.horizon, self.sample_k, even=True)
            for visited, action in trail:
                visited.visits += 1
                edge = visited.edges[action]
                edge[0] += 1
                edge[1] += value
            done += 1
        tried = [(a, e) for a, e in root.edges.items() if e[0] > 0]
        if not tried:
            return root.ranked[0][0], done
        best = max(tried, key=lambda item: (item[1][0], item[1][1] / item[1][0]))
        return best[0], done


    def _modelled_reply(self, state, candidates) -> tuple[int, float]:
        """The opponent model's move: the candidate its evaluation scores highest in this
        determinization (with its public deductions only), and its leaf credit."""
        context = self.evaluation.state_context(state)
        best_action, best_score, best_features = None, -math.inf, None
        for action, _, _ in candidates:
            features = context.features(action)
            score = context.weighted(features)
            if score > best_score:
                best_action, best_score, best_features = action, score, features
        return best_action, self._credit(best_score, best_features)


def _edge_ucb(edge: list[float], sign: float, cof: float) -> float:
    visits, total, available = edge
    return sign * total / visits + cof * math.sqrt(math.log(available) / visits)
