"""TBW agents: the single-turn searches (Algorithms 2 and 5 of the TBW paper, our exact solver),
their evaluation, the compiled kernel and the scripted greedy baseline."""

from agents.tbw.evaluation import DefaultEvaluation
from agents.tbw.greedy import GreedyAgent
from agents.tbw.search import Budget, SearchResult, TBWSearchAgent, plan_turn

__all__ = [
    "Budget", "DefaultEvaluation", "GreedyAgent", "SearchResult", "TBWSearchAgent", "plan_turn",
]
