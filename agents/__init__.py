"""Agents that play tbw-envs games through game-core views (never through env internals).

The package itself exports only what every game shares: the agent protocol (``Agent``) and the
random agent. Each game's agents live in its own package, ``agents.tbw`` and ``agents.junqi``
(``from agents.tbw import GreedyAgent``), agents by spec string in ``agents.registry``
(``make_agent``), the round robin in ``agents.arena``. ``make_agent`` is not re-exported here:
the registry builds every game's agents, learned ones included, so importing it from this
package would load them all and put the registry below the agents it builds.
"""

from agents.base import Agent
from agents.random_agent import RandomAgent

__all__ = ["Agent", "RandomAgent"]
