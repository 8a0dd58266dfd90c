"""The three Junqi searches as agents: their parameters, and what each plugs into the search
loop (``search.run_search``): a tree policy and a leaf evaluator."""

from __future__ import annotations

from agents.common.params import MAX_COUNT, CallableParam, Choice, Float, Int, check_params
from agents.junqi.base import BASE_PARAMS, BELIEF, WEIGHTS, JunqiAgentBase
from agents.junqi.belief import DEFAULT_BELIEF, make_belief
from agents.junqi.evaluation import JunqiEvaluation
from agents.junqi.mcts.leaf import GUIDED_LEAVES, RandomRollout
from agents.junqi.mcts.policies import InformationSetPolicy, TopRankedPolicy, UCTPolicy
from agents.junqi.mcts.search import BUDGET_PARAMS, SearchBudget, SearchResult, run_search

# The parameters every search shares (``agents.common.params``); each search adds its own.
SEARCH_PARAMS = {
    **BASE_PARAMS, **BUDGET_PARAMS, "belief": BELIEF, "weights": WEIGHTS,
    "leaf": Choice(names=tuple(GUIDED_LEAVES)),
}
COF = Float(low=0.0)  # the exploration constant: finite, >= 0
COUNT = Int(low=1, high=MAX_COUNT)


class DeterminizedSearchAgent(JunqiAgentBase):
    """What the three searches share: budget, belief, evaluation, statistics. A subclass builds
    its ``tree_policy`` and ``leaf_evaluator`` once its parameters are checked."""

    name = "mcts"

    def __init__(self, iterations: int | None = None, seconds: float | None = None,
                 belief: str | None = None, weights="default", seed: int | None = None,
                 layout: str = "random", leaf: str = "material"):
        super().__init__(seed=seed, layout=layout)
        who = type(self).__name__
        check_params(SEARCH_PARAMS, who, belief=belief, weights=weights, leaf=leaf)
        self.leaf = leaf
        self.budget = SearchBudget(iterations, seconds, who)
        self.belief_name = DEFAULT_BELIEF if belief is None else belief
        self.evaluation = JunqiEvaluation(weights)
        self.last_stats: dict = {}
        self._last_search: tuple | None = None

    def act(self, view) -> int:
        self._last_search = None  # a deployment action searches nothing
        return super().act(view)

    def choose(self, view, actions: list[int]) -> int:
        clock = self.budget.start()  # the belief is built inside the budget
        belief = self.belief_of(view)
        result = self._search(view, actions, belief, clock)
        self.last_stats = {"iterations": result.iterations, "seconds": clock.elapsed()}
        self._last_search = (view, belief, result)
        return result.action

    def belief_of(self, view):
        """The belief tracker this move's determinizations come from (``belief``, by name). An
        experiment may replace it on an instance (``agents.junqi.mcts.belief_gap``)."""
        return make_belief(self.belief_name, view)

    def thinking(self, top: int = 5) -> dict | None:
        """What the last search thought, as JSON-ready data (the arena's
        ``--record-thinking``, the web viewer's overlay): its iterations; the ``top`` root
        moves by visits, each ``[action, visits, mean value]`` (the mean leaf value to this
        player, in the leaf evaluation's units; visits count a tree policy's prior visits);
        and the belief it drew determinizations from, per opponent piece's post the
        probability of each type in ``PIECE_CODES`` order. None before the first search."""
        if self._last_search is None:
            return None
        view, belief, result = self._last_search
        # most_visited's order: visits, then mean value, then the first in the tree's order.
        edges = sorted(((edge.visits, action, edge) for action, edge in result.root.edges.items()
                        if edge.visits > 0), key=lambda item: (-item[0], -item[2].total / item[0]))
        return {
            "iterations": result.iterations,
            "moves": [[action, int(visits), round(edge.total / visits, 4)]
                      for visits, action, edge in edges[:top]],
            "belief": {str(post): [round(float(p), 4) for p in belief.probs(post)]
                       for post in view.opponent_posts()},
        }

    def _search(self, view, actions, belief, clock) -> SearchResult:
        return run_search(self.tree_policy, self.leaf_evaluator, view, actions, belief,
                          self._rng, self.budget, clock)


class MCTSAgent(DeterminizedSearchAgent):
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
        self.tree_policy = UCTPolicy(self._rng, self.cof)
        self.leaf_evaluator = RandomRollout(self._rng, self.rollout_limit)


class UCBMCTSAgent(DeterminizedSearchAgent):
    """The Junqi paper's UCB&MCTS with move evaluation (see ``agents.junqi.mcts``)."""

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
        self.leaf_evaluator = GUIDED_LEAVES[leaf](self.evaluation, self._rng, self.sample_k,
                                                  horizon=self.max_depth, even=False)
        self.tree_policy = TopRankedPolicy(self.evaluation, self.leaf_evaluator, self.cof,
                                           self.max_depth, self.expand_k)


class ISMCTSAgent(DeterminizedSearchAgent):
    """Single-observer information-set MCTS over the belief's determinizations.

    Its determinizations come from ``belief="model"`` by default (the count tracker reweighted by
    how likely the opponent's moves were under a model of its choice), it evaluates moves with
    ``weights="tuned"`` (the Q-learned weights) and it scores leaves with ``leaf="net"`` (the
    value network, ``agents.junqi.value_net``) by default: the stronger choices in
    docs/research_log.md, "Junqi search against its budget" and "A value network, and a lighter
    evaluation prior".

    ``prior_visits`` (default 2; 0 turns it off) starts every edge with that many virtual visits
    worth the evaluation's score of the move (from the mover's side), so the search begins from
    the one-ply choice and leaves it only on evidence.

    ``opponent="evaluation"`` models the opponent inside the tree as a player of the move
    evaluation with its own public deductions: at its nodes it plays, among the widened
    candidates legal in the determinization, the one its evaluation scores highest there. The
    default, ``"search"``, lets it choose by UCB on our leaf values; since every determinization
    holds our true pieces, that opponent plays as if it could see them (it never attacks our
    marshal with a lieutenant, never runs into our mines), which no real opponent can.
    ``root_prior`` (a callable ``(view, moves) -> probabilities``, e.g. a learned policy's; the
    registry's ``ismcts:policy=pretrained`` passes the shipped PPO policy's) makes the root
    select by PUCT with constant ``puct`` (default 30, in piece-value units) over every move.

    ``leaf_weights`` (a name or YAML path like ``weights``; default ``default``) are the
    weights the leaf credits the path's moves with (for ``leaf`` material, value or net, their
    positional features: flag defence, progress, no-collision), while ``weights`` (default
    ``tuned``) rank the moves and give their prior. Ranking with the tuned weights and crediting
    with the default ones (flag defence 150 and progress 2 against the tuned 22 and 12) scored
    best against the shipped learned agent, which guards its flag (``docs/results.md``).

    ``reveal`` (default 0: off) credits every root attack with ``reveal`` x the entropy (nats)
    of its announced result under the belief, in piece-value units: a value for what the attack
    tells, which no determinization sees (``agents.junqi.mcts.reveal``; measured in
    docs/research_log.md, "Against the learned agent: what information would buy").
    """

    name = "ismcts"
    PARAMS = {**SEARCH_PARAMS, "cof": COF, "widen_base": COUNT, "horizon": COUNT,
              "sample_k": COUNT, "prior_visits": Float(low=0.0),
              "opponent": Choice(names=("search", "evaluation")),
              "root_prior": CallableParam(), "puct": Float(low=0.0), "reveal": Float(low=0.0),
              "leaf_weights": WEIGHTS}

    def __init__(self, iterations: int | None = None, seconds: float | None = None,
                 cof: float = 10.0, widen_base: int = 3, horizon: int = 4, sample_k: int = 4,
                 prior_visits: float = 2.0, opponent: str = "search",
                 belief: str | None = "model", weights="tuned", seed: int | None = None,
                 layout: str = "random", leaf: str = "net", root_prior=None,
                 puct: float = 30.0, reveal: float = 0.0, leaf_weights="default"):
        super().__init__(iterations, seconds, belief=belief, weights=weights, seed=seed,
                         layout=layout, leaf=leaf)
        checked = check_params(self.PARAMS, type(self).__name__, cof=cof,
                               widen_base=widen_base, horizon=horizon, sample_k=sample_k,
                               prior_visits=prior_visits, opponent=opponent,
                               root_prior=root_prior, puct=puct, reveal=reveal,
                               leaf_weights=leaf_weights)
        self.cof = checked["cof"]
        self.widen_base = checked["widen_base"]
        self.horizon = checked["horizon"]
        self.sample_k = checked["sample_k"]
        self.prior_visits = checked["prior_visits"]
        self.opponent_model = opponent
        leaf_credit = JunqiEvaluation(checked["leaf_weights"])
        self.leaf_credit = (self.evaluation if leaf_credit.config == self.evaluation.config
                            else leaf_credit)
        # To an even horizon: the opponent has answered our last move.
        self.leaf_evaluator = GUIDED_LEAVES[leaf](self.evaluation, self._rng, self.sample_k,
                                                  horizon=self.horizon, even=True,
                                                  credit_config=self.leaf_credit.config)
        self.tree_policy = InformationSetPolicy(
            self.evaluation, self.leaf_evaluator, self.cof, self.widen_base, self.prior_visits,
            models_opponent=opponent == "evaluation",
            root_prior=root_prior, puct=checked["puct"], reveal=checked["reveal"],
        )
