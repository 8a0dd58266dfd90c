"""Agents that play tbw-envs games through game-core views (never through env internals).

What every game shares (the agent protocol, the random agent, the registry, the arena) lives
here; each game's agents live in its own package, ``agents.tbw`` and ``agents.junqi``.
"""

from agents.base import Agent
from agents.random_agent import RandomAgent
from agents.tbw import (
    Budget,
    DefaultEvaluation,
    GreedyAgent,
    SearchResult,
    TBWSearchAgent,
    plan_turn,
)

__all__ = [
    "Agent", "Budget", "DefaultEvaluation", "GreedyAgent", "RandomAgent", "SearchResult",
    "TBWSearchAgent", "plan_turn",
]
