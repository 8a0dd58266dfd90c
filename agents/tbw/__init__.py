"""TBW agents: the single-turn searches (Algorithms 2 and 5 of the TBW paper, our exact solver),
their evaluation, the compiled kernel, the scripted greedy baseline and Online Evolutionary
Planning (``agents.tbw.oep``)."""

from agents.tbw.evaluation import DefaultEvaluation, load_weights
from agents.tbw.greedy import GreedyAgent
from agents.tbw.oep import OEPAgent, OEPResult, evolve_turn
from agents.tbw.search import Budget, SearchResult, TBWSearchAgent, plan_turn
from agents.tbw.tree import TBWTreeAgent, TreeResult, TurnTreeSearch

__all__ = [
    "Budget", "DefaultEvaluation", "GreedyAgent", "SearchResult", "TBWSearchAgent", "plan_turn",
    "OEPAgent", "OEPResult", "evolve_turn", "TBWTreeAgent", "TreeResult", "TurnTreeSearch",
    "load_weights",
]
