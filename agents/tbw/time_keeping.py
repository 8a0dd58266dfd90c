"""Time keeping of the TBW turn planners: how long each turn takes against its budget, and how
often the single-turn search is cut short.

A *turn* is all of one side's unit actions; its time is the sum of the agent's ``act`` calls in
it (the first call plans the whole turn). ``play_timed`` plays one game and adds each turn to
``TurnTimes`` of its agent: the turn's time, whether its single-turn search was cut short
(``cut_short`` reads the plan of the turn's first call, ``last_result``), and whether a tree
search looked at the opponent's reply (depth 2 or more):

* ``exact`` / ``alg5`` / ``alg2`` (``TBWSearchAgent``): the turn's search did not finish
  (``SearchResult.complete`` is False; the agent plays the best plan found so far);
* ``tree``: the root's single-turn solve did not finish (``TreeResult.root_complete`` False;
  the tree then plays that solve's best plan so far and searches no deeper);
* ``oep``: the evolution stopped on the clock (``OEPResult.stopped == "time"``) rather than by
  converging.

``time_keeping_table`` writes the table; ``scripts/research/tbw_time_keeping.py`` is the
command line (it builds the agents and the openings).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from agents.base import Agent
from tbw_envs.tbw import TBWState

TREE_AGENT = "tree"  # the spec prefix of the planner whose depth the table counts


@dataclass
class TurnTimes:
    """One agent's turns: the seconds of each, how many had their search cut short, and how
    many searched to depth 2 or more."""

    turns: list[float] = field(default_factory=list)
    cut: int = 0
    deep: int = 0


def cut_short(result) -> bool | None:
    """Whether the turn's single-turn search (or evolution) was stopped by its budget; None for
    a planner that reports no search (greedy, random) or no plan."""
    if result is None:
        return None
    if hasattr(result, "root_complete"):
        return not result.root_complete
    if hasattr(result, "complete"):
        return not result.complete
    if hasattr(result, "stopped"):
        return result.stopped == "time"
    return None


def play_timed(state: TBWState, agents: Sequence[Agent], labels: Sequence[str],
               stats: dict[str, TurnTimes]) -> int | None:
    """Play ``state`` to its end with ``agents[side]`` moving for each side, adding every turn
    to ``stats[labels[side]]`` (created when missing); returns the winner (None: a draw)."""
    while not state.is_terminal():
        side, spent, first = state.current_player, 0.0, None
        while not state.is_terminal() and state.current_player == side:
            started = time.perf_counter()
            action = agents[side].act(state.clone())
            spent += time.perf_counter() - started
            if first is None:
                first = getattr(agents[side], "last_result", None)
            state.apply(action)
        row = stats.setdefault(labels[side], TurnTimes())
        row.turns.append(spent)
        row.cut += bool(cut_short(first))
        row.deep += getattr(first, "depth", 0) >= 2
    return state.winner


def time_keeping_table(stats: dict[str, TurnTimes], labels: Sequence[str],
                       budget: float) -> list[str]:
    """The markdown lines of the table, one row per label that played a turn: its turns, the
    mean and longest turn, the turns over ``budget`` seconds, those cut short, and (tree
    agents only) those that searched to depth 2 or more."""
    lines = [f"| agent | turns | mean turn | longest turn | turns over {budget:g} s "
             "| search cut short | tree turns at depth >= 2 |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for label in labels:
        row = stats.get(label, TurnTimes())
        turns = row.turns
        if not turns:
            continue
        over = sum(t > budget for t in turns)
        deep = str(row.deep) if label.startswith(TREE_AGENT) else "-"
        lines.append(f"| `{label}` | {len(turns)} | {1000 * sum(turns) / len(turns):.0f} ms "
                     f"| {1000 * max(turns):.0f} ms | {over} | {row.cut} | {deep} |")
    return lines
