"""The agent protocol (``agents.base``): the scripted baselines and agents built by the registry
follow it."""

from __future__ import annotations

from agents import Agent, RandomAgent
from agents.registry import make_agent
from agents.tbw.greedy import GreedyAgent


def test_agents_follow_the_protocol():
    for agent in (RandomAgent(0), GreedyAgent(0), make_agent("greedy")):
        assert isinstance(agent, Agent)
