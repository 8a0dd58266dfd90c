"""TBW's own agents for the registry (``TBWGame.agent_catalog``): the scripted greedy, the
single-turn searches (``search`` and its short names ``exact``, ``alg5``, ``alg2``), Online
Evolutionary Planning (``oep``) and the search across turns (``tree``). Each search takes
``weights=`` (a name such as ``tuned``, or a YAML path: ``agents.tbw.evaluation``), turned here
into its ``evaluate`` argument.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.common.catalog import AgentEntry, declared, entry_of
from agents.common.params import Text
from agents.tbw.evaluation import load_weights
from agents.tbw.greedy import GreedyAgent
from agents.tbw.oep import OEPAgent
from agents.tbw.search import TBWSearchAgent
from agents.tbw.tree import TBWTreeAgent

__all__ = ["AGENTS"]

WEIGHTS = {"weights": Text(max_chars=4096)}


def _with_weights(kw: dict, who: str) -> dict:
    """``weights=tuned`` (or a path): the TBW evaluation from configs/agents/tbw_eval_*.yaml."""
    if "weights" in kw:
        if "evaluate" in kw:
            raise ValueError(f"give the {who} weights= or evaluate=, not both")
        kw["evaluate"] = load_weights(kw.pop("weights"))
    return kw


def _search(algorithm: str | None = None) -> Callable[..., Any]:
    def build(**kw):
        kw.pop("seed", None)
        if algorithm is not None:
            kw["algorithm"] = algorithm
        return TBWSearchAgent(**_with_weights(kw, "search agent"))

    return build


def _oep(**kw):
    return OEPAgent(**_with_weights(kw, "OEP agent"))


def _tree(**kw):
    return TBWTreeAgent(**_with_weights(kw, "tree agent"))


_SEARCH_PARAMS = declared(TBWSearchAgent, ("algorithm",), WEIGHTS)

AGENTS: dict[str, AgentEntry] = {
    "greedy": entry_of(GreedyAgent),
    "search": AgentEntry(_search(), lambda: declared(TBWSearchAgent, extra=WEIGHTS)),
    # Short names for the single-turn searches of the TBW paper and ours.
    **{name: AgentEntry(_search(name), lambda: _SEARCH_PARAMS)
       for name in ("exact", "alg5", "alg2")},
    # Online Evolutionary Planning: oep:seconds=1 (anytime) or oep:generations=50 (reproducible)
    "oep": AgentEntry(_oep, lambda: declared(OEPAgent, extra=WEIGHTS)),
    # Search across turns on whole-turn plans: tree:seconds=1 (anytime) or tree:solves=200
    "tree": AgentEntry(_tree, lambda: declared(TBWTreeAgent, extra=WEIGHTS)),
}
