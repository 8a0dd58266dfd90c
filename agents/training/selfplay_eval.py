"""Batched matches of a policy-value network against random play or another network, for the
learning curves of a run: ``games`` games on one vector env, the net in seat 0 of the even
slots and seat 1 of the odd ones, each slot's first game counted (a win 1, a draw 0.5).

A network plays its most likely legal action (one forward pass a move, no search), as the
shipped agent does. The ratings that are published come from the arena's seat-swapped matches
on the game cores instead; these are the run's own quick gauge.

This module imports torch (the ``train`` extra).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from agents.arena.stats import wilson_interval
from agents.learned.net import PolicyValueNet, greedy_actions
from tbw_envs import vector


@dataclasses.dataclass(frozen=True)
class MatchScore:
    games: int
    wins: int
    draws: int
    losses: int

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins + 0.5 * self.draws, self.games)


def play_match(net: PolicyValueNet, opponent: Any, game: str, variant: dict[str, Any],
               games: int, seed: int, backend: str = "auto") -> MatchScore:
    """``net`` against ``opponent`` (``"random"`` or another ``PolicyValueNet``) over ``games``
    seat-swapped games (an even number)."""
    if games < 2 or games % 2:
        raise ValueError(f"play_match: games must be an even number of at least 2, got {games}")
    envs = vector.make(game, games, seed=seed, backend=backend, autoreset_mode="same_step",
                       **variant)
    obs, info = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    net_seat = np.arange(games) % 2
    done = np.zeros(games, bool)
    winner = np.full(games, -1)
    net.eval()
    while not done.all():
        # A slot whose first game is over plays on (its next games are not counted), so the
        # batch keeps one shape; its moves are random, to cost next to nothing.
        mask, mover = info["action_mask"], info["current_player"]
        actions = vector.sample_legal(mask, rng)
        ours = ~done & (mover == net_seat)
        theirs = ~done & ~ours
        if ours.any():
            actions[ours] = greedy_actions(net, obs[ours], mask[ours])
        if theirs.any() and isinstance(opponent, PolicyValueNet):
            actions[theirs] = greedy_actions(opponent, obs[theirs], mask[theirs])
        obs, _, terminated, _, info = envs.step(actions)
        ended = ~done & terminated
        if ended.any():
            winner[ended] = info["final_info"]["winner"][ended]
            done |= ended
    wins = int(((winner == net_seat) & (winner >= 0)).sum())
    draws = int((winner < 0).sum())
    return MatchScore(games=games, wins=wins, draws=draws, losses=games - wins - draws)
