"""Play agents against each other on game cores and tabulate the results.

Seats are swapped every game, so each agent plays both sides equally often. Games run on the
game core (``state.view(player)`` -> ``agent.act`` -> ``state.apply``), the same forward model
the environments wrap, so a match between two search agents pays no env overhead.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class GameRecord:
    seats: tuple[str, str]  # agent names in seat order (player 0, player 1)
    returns: tuple[float, float]
    plies: int
    seconds_per_agent: dict[str, float]
    moves_per_agent: dict[str, int]
    final_state: Any = field(repr=False, default=None)

    def winner(self) -> str | None:
        if self.returns[0] == self.returns[1]:
            return None
        return self.seats[0] if self.returns[0] > self.returns[1] else self.seats[1]


def tbw_game(scenario: Any = "duel_5v5_8x8") -> Callable[[int], Any]:
    """A new-game factory for TBW: the scenario's initial state (TBW has no chance)."""
    from tbw_envs.tbw import load_scenario

    loaded = load_scenario(scenario)
    return lambda seed: loaded.initial_state()


def junqi_game(rules: Any = "ccgc") -> Callable[[int], Any]:
    """A new-game factory for Junqi: both layouts drawn uniformly at random from ``seed``."""
    import random as _random

    from tbw_envs.junqi import JunqiState, load_rules

    loaded = load_rules(rules)
    return lambda seed: JunqiState.random_initial(_random.Random(seed), rules=loaded)


def play_game(new_state: Callable[[int], Any], agents: Sequence[Any], seed: int,
              max_plies: int = 100_000) -> GameRecord:
    """One game: ``agents[i]`` plays player ``i``."""
    state = new_state(seed)
    for i, agent in enumerate(agents):
        agent.reset(seed * 2 + i)
    names = tuple(a.name for a in agents)
    seconds = {n: 0.0 for n in names}
    moves = {n: 0 for n in names}
    plies = 0
    while not state.is_terminal():
        if plies >= max_plies:
            raise RuntimeError(f"game did not end within {max_plies} plies")
        player = state.current_player
        agent = agents[player]
        start = time.perf_counter()
        action = agent.act(state.view(player))
        seconds[agent.name] += time.perf_counter() - start
        moves[agent.name] += 1
        state.apply(action)
        plies += 1
    returns = state.returns()
    return GameRecord(names, (returns[0], returns[1]), plies, seconds, moves, state)


@dataclass
class MatchResult:
    agents: tuple[str, str]
    games: list[GameRecord]

    def score(self, name: str) -> dict[str, float]:
        wins = sum(1 for g in self.games if g.winner() == name)
        losses = sum(1 for g in self.games if g.winner() not in (None, name))
        draws = len(self.games) - wins - losses
        n = max(len(self.games), 1)
        points = (wins + 0.5 * draws) / n
        # Wilson 95% interval on the score, counting a draw as half a win.
        z = 1.96
        centre = (points + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(points * (1 - points) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        secs = sum(g.seconds_per_agent.get(name, 0.0) for g in self.games)
        moves = sum(g.moves_per_agent.get(name, 0) for g in self.games)
        return {
            "wins": wins, "losses": losses, "draws": draws, "score": points,
            "ci_low": max(0.0, centre - half), "ci_high": min(1.0, centre + half),
            "ms_per_move": 1000.0 * secs / max(moves, 1),
        }

    def table(self) -> str:
        header = f"{'agent':<28}{'games':>6}{'wins':>6}{'losses':>8}{'draws':>7}" \
                 f"{'score':>8}{'95% CI':>15}{'ms/move':>10}"
        lines = [header, "-" * len(header)]
        for name in self.agents:
            s = self.score(name)
            ci = f"[{s['ci_low']:.2f}, {s['ci_high']:.2f}]"
            lines.append(
                f"{name:<28}{len(self.games):>6}{s['wins']:>6}{s['losses']:>8}{s['draws']:>7}"
                f"{s['score']:>8.3f}{ci:>15}{s['ms_per_move']:>10.2f}"
            )
        plies = [g.plies for g in self.games]
        lines.append(
            f"plies per game: mean {sum(plies) / max(len(plies), 1):.1f}, "
            f"min {min(plies, default=0)}, max {max(plies, default=0)}"
        )
        return "\n".join(lines)


def run_match(new_state: Callable[[int], Any], agent_a: Any, agent_b: Any, games: int,
              seed: int = 0, progress: bool = False) -> MatchResult:
    """``games`` games, alternating seats: even games put ``agent_a`` on player 0."""
    if agent_a.name == agent_b.name:
        agent_b.name = f"{agent_b.name} (2)"
    iterator = range(games)
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(iterator, desc=f"{agent_a.name} v {agent_b.name}", unit="game")
            iterator = bar
        except ImportError:  # the progress bar is a nicety, never a requirement
            pass
    records = []
    for g in iterator:
        seats = (agent_a, agent_b) if g % 2 == 0 else (agent_b, agent_a)
        records.append(play_game(new_state, seats, seed=seed + g))
        if bar is not None:
            result = MatchResult((agent_a.name, agent_b.name), records)
            bar.set_postfix({agent_a.name[:12]: f"{result.score(agent_a.name)['score']:.2f}"})
    return MatchResult((agent_a.name, agent_b.name), records)
