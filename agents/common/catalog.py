"""What an agent catalog is: how the registry (``agents.registry``) builds an agent named in a
spec. Each game names its own agents' catalog in its description (``Game.agent_catalog``, e.g.
``agents.tbw.catalog``), a module whose ``AGENTS`` maps agent name -> ``AgentEntry``; the
agents every game shares (``random``, ``ppo``) are the registry's own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from agents.common.params import Param

__all__ = ["AgentEntry", "declared", "entry_of"]


@dataclass(frozen=True)
class AgentEntry:
    """How to build one agent from a spec: ``build(seed=..., **spec values)``, and what a spec
    may set (``params()``). ``takes_game``: ``build`` is also told the game and variant."""

    build: Callable[..., Any]
    params: Callable[[], dict[str, Param]]
    takes_game: bool = False


def declared(cls: type, drop: tuple[str, ...] = (),
             extra: Mapping[str, Param] | None = None) -> dict[str, Param]:
    """The parameters of agent class ``cls`` (its ``PARAMS``) without ``drop``, plus ``extra``
    (what a catalog's factory itself turns into arguments, such as TBW's ``weights=``)."""
    return {**{k: p for k, p in cls.PARAMS.items() if k not in drop}, **(extra or {})}


def entry_of(cls: type) -> AgentEntry:
    """The entry of an agent class built as it is, with the parameters it declares."""
    return AgentEntry(cls, lambda: declared(cls))
