"""Agents that play tbw-envs games through game-core views (never through env internals)."""

from agents.base import Agent
from agents.greedy import GreedyAgent
from agents.random_agent import RandomAgent
from agents.tbw_eval import DefaultEvaluation
from agents.tbw_search import Budget, SearchResult, TBWSearchAgent, plan_turn

__all__ = [
    "Agent", "Budget", "DefaultEvaluation", "GreedyAgent", "RandomAgent", "SearchResult",
    "TBWSearchAgent", "plan_turn",
]
