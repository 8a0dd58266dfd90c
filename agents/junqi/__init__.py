"""Junqi agents: opponent beliefs, move evaluation, the paper's UCB&MCTS and plain MCTS,
information-set MCTS, the evaluation's greedy one-ply choice, and deployment policies.

Every agent sees only ``state.view(player)``; searches sample full states from a belief.
See ``docs/junqi_agents.md``.
"""

from agents.junqi.deployment import LAYOUT_POLICIES, heuristic_layout
from agents.junqi.evaluation import FEATURE_NAMES, EvalConfig, JunqiEvaluation, load_weights
from agents.junqi.greedy import GreedyAgent
from agents.junqi.mcts import ISMCTSAgent, MCTSAgent, SearchBudget, UCBMCTSAgent

__all__ = [
    "FEATURE_NAMES", "LAYOUT_POLICIES", "EvalConfig", "GreedyAgent", "ISMCTSAgent",
    "JunqiEvaluation", "MCTSAgent", "SearchBudget", "UCBMCTSAgent", "heuristic_layout",
    "load_weights",
]
