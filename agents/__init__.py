"""Agents that play tbw-envs games through game-core views (never through env internals)."""

from agents.base import Agent
from agents.random_agent import RandomAgent

__all__ = ["Agent", "RandomAgent"]
