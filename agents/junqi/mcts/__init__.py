"""Monte Carlo tree search agents for Junqi, all over determinizations drawn from a belief.

Every iteration draws one full state consistent with the agent's view from its belief tracker
(``agents.junqi.belief``), so no agent ever reads the true state. The three searches run the
same loop (``search.run_search``) and differ in the tree policy (``policies``) and in how they
look at a leaf (``leaf``); choices the Junqi paper leaves open are marked *open*
(``docs/junqi_agents.md`` lists them all):

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
    edge starts with ``prior_visits`` (2) virtual visits worth the evaluation's score of its
    move: the search starts from the one-ply choice and leaves it only on evidence
    (docs/results.md compares it with and without the prior).

Budgets: ``iterations=N`` (deterministic under a seed) or ``seconds=S`` per move (checked after
every iteration, so a move overruns by at most one iteration); the belief is built inside it.
``iterations`` is at most ``agents.common.params.MAX_ITERATIONS`` and ``seconds`` finite, > 0
and at most ``MAX_SECONDS``; every parameter is checked when the agent is built.
"""

from agents.junqi.mcts.agents import (
    COF,
    COUNT,
    SEARCH_PARAMS,
    DeterminizedSearchAgent,
    ISMCTSAgent,
    MCTSAgent,
    UCBMCTSAgent,
)
from agents.junqi.mcts.leaf import (
    GUIDED_LEAVES,
    POSITIONAL_FEATURES,
    WIN_VALUE,
    EvaluationLeaf,
    GuidedLeaf,
    MaterialLeaf,
    RandomRollout,
)
from agents.junqi.mcts.policies import (
    InformationSetPolicy,
    TopRankedPolicy,
    TreePolicy,
    UCTPolicy,
)
from agents.junqi.mcts.search import BUDGET_PARAMS, DEFAULT_ITERATIONS, SearchBudget, run_search
from agents.junqi.mcts.tree import (
    Candidate,
    Edge,
    Node,
    availability_ucb,
    mean_ucb,
    most_visited,
    rank_moves,
)

__all__ = [
    "BUDGET_PARAMS", "COF", "COUNT", "DEFAULT_ITERATIONS", "GUIDED_LEAVES", "POSITIONAL_FEATURES",
    "SEARCH_PARAMS", "WIN_VALUE", "Candidate", "DeterminizedSearchAgent", "Edge",
    "EvaluationLeaf", "GuidedLeaf", "ISMCTSAgent", "InformationSetPolicy", "MCTSAgent",
    "MaterialLeaf", "Node", "RandomRollout", "SearchBudget", "TopRankedPolicy", "TreePolicy",
    "UCBMCTSAgent", "UCTPolicy", "availability_ucb", "mean_ucb", "most_visited", "rank_moves",
    "run_search",
]
