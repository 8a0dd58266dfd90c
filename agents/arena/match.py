"""A seat-swapped match between two agent objects, in process (``run_match``): the games of a
round robin of the two (``scheduling.match_tasks``: the same seeds, starts and records), played
by ``play.play_seated`` with the agents given."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.arena.checks import (
    MAX_GAMES,
    ArenaInputError,
    ArenaTypeError,
    check_flag,
    check_int,
)
from agents.arena.play import GameSetup, check_setup, play_in_process
from agents.arena.records import ArenaGame
from agents.arena.scheduling import match_tasks
from agents.arena.stats import wilson_interval
from tbw_envs.core.contract import MAX_SEED, kind_of, short_repr


@dataclass
class MatchResult:
    agents: tuple[str, str]
    games: list[ArenaGame]  # in order; game k's labels say who sat where

    def score(self, name: str) -> dict[str, float]:
        seats = [g.labels.index(name) if name in g.labels else None for g in self.games]
        wins = sum(1 for g, seat in zip(self.games, seats, strict=True)
                   if seat is not None and g.winner_seat == seat)
        losses = sum(1 for g, seat in zip(self.games, seats, strict=True)
                     if g.winner_seat is not None and g.winner_seat != seat)
        draws = len(self.games) - wins - losses
        n = max(len(self.games), 1)
        points = (wins + 0.5 * draws) / n
        ci_low, ci_high = wilson_interval(points * n, n)
        secs = sum(g.move_seconds[seat] for g, seat in zip(self.games, seats, strict=True)
                   if seat is not None)
        moves = sum(g.moves[seat] for g, seat in zip(self.games, seats, strict=True)
                    if seat is not None)
        return {
            "wins": wins, "losses": losses, "draws": draws, "score": points,
            "ci_low": ci_low, "ci_high": ci_high,
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


def run_match(new_state: GameSetup, agent_a: Any, agent_b: Any, games: int,
              seed: int = 0, progress: bool = False) -> MatchResult:
    """``games`` games of ``new_state`` (a ``GameSetup``: ``game_factory``), alternating seats:
    even games put ``agent_a`` on player 0, and games 2k and 2k+1 start alike. They are the
    first ``games`` games of a round robin of the two agents with base seed ``seed``
    (``scheduling.match_tasks``). Every argument is checked before the first game (``games``
    at most ``MAX_GAMES``); an agent's error is raised as it is."""
    setup = check_setup(new_state)
    for which, agent in (("agent_a", agent_a), ("agent_b", agent_b)):
        for method in ("act", "reset"):
            if not callable(getattr(agent, method, None)):
                raise ArenaTypeError(f"{which} must be an agent with act() and reset(), got "
                                     f"{kind_of(agent)} {short_repr(agent)}")
        if not isinstance(getattr(agent, "name", None), str):
            raise ArenaTypeError(f"{which} must have a string name, got "
                                 f"{short_repr(getattr(agent, 'name', None))}")
    if agent_a is agent_b:
        raise ArenaInputError("agent_a and agent_b are the same object: pass two agents (a "
                              "match against itself needs a second copy)")
    games = check_int(games, "games", 1, MAX_GAMES)
    seed = check_int(seed, "seed", 0, MAX_SEED)
    progress = check_flag(progress, "progress")
    if agent_a.name == agent_b.name:
        agent_b.name = f"{agent_b.name} (2)"
    tasks: Any = match_tasks(setup.game, setup.variant, (agent_a.name, agent_b.name), games,
                             seed, setup.opening_plies)
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(tasks, desc=f"{agent_a.name} v {agent_b.name}", unit="game",
                       total=games)
            tasks = bar
        except ImportError:  # the progress bar is a nicety, never a requirement
            pass
    records = []
    for task in tasks:
        seats = (agent_b, agent_a) if task.swapped else (agent_a, agent_b)
        records.append(play_in_process(task, seats))
        if bar is not None:
            result = MatchResult((agent_a.name, agent_b.name), records)
            bar.set_postfix({agent_a.name[:12]: f"{result.score(agent_a.name)['score']:.2f}"})
    return MatchResult((agent_a.name, agent_b.name), records)
