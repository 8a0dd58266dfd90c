"""The TBW game core: pure rules (no gymnasium, no pettingzoo), cheap to clone and search.

>>> from tbw_envs.tbw import TBWState
>>> state = TBWState.initial("duel_5v5_8x8")
>>> state.apply(state.legal_actions()[0])
"""

from tbw_envs.tbw.board import TOPOLOGIES, Board
from tbw_envs.tbw.state import END_TURN, IllegalActionError, TBWState, Unit
from tbw_envs.tbw.variant import (
    Scenario,
    ScenarioError,
    available_scenarios,
    load_scenario,
    parse_scenario,
)

__all__ = [
    "END_TURN", "TOPOLOGIES", "Board", "IllegalActionError", "Scenario", "ScenarioError",
    "TBWState", "Unit", "available_scenarios", "load_scenario", "parse_scenario",
]
