"""Training opponents for the single-agent envs: a self-play pool of frozen snapshots of the
learner, and a mix of opponents drawn per episode (``scripts/train_ppo.py --opponent``).

Each opponent is an agent (``reset(seed)`` / ``act(view)``): the wrapper hands it the game-core
view of its seat, as the arena does.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

from agents.policy.agent import PPOAgent
from agents.registry import make_agent

__all__ = ["SELF_PLAY", "MixedOpponent", "PoolOpponent", "SnapshotPool", "build_opponent"]

SELF_PLAY = "self"  # the opponent spec of the learner's own snapshots


class SnapshotPool:
    """Frozen copies of the learner's policy, shared by every env of a run.

    Each env plays through its own ``PoolOpponent`` (``pool.opponent(seed)``), which draws one
    snapshot per episode: envs reset at different times, so one shared choice would switch an
    env's opponent in the middle of its episode.
    """

    def __init__(self, game: str, pool_size: int = 10, latest_prob: float = 0.5):
        if pool_size < 1:
            raise ValueError(f"--pool-size must be at least 1, got {pool_size}")
        if not 0.0 <= latest_prob <= 1.0:
            raise ValueError(f"--latest-prob must be in [0, 1], got {latest_prob}")
        self.game = game
        self.pool_size = pool_size
        self.latest_prob = latest_prob
        self.policies: list[Any] = []  # frozen policies, oldest first
        self.steps: list[int] = []  # learner timesteps at which each snapshot was taken
        self.games_against: Counter[int] = Counter()

    def add(self, policy: Any, timesteps: int) -> None:
        frozen = copy.deepcopy(policy)
        frozen.set_training_mode(False)
        for parameter in frozen.parameters():
            parameter.requires_grad_(False)
        self.policies.append(frozen)
        self.steps.append(timesteps)
        if len(self.policies) > self.pool_size:
            self.policies.pop(0)
            self.steps.pop(0)

    def opponent(self, seed: int | None = None) -> PoolOpponent:
        return PoolOpponent(self, seed)


class PoolOpponent:
    """One env's opponent from a ``SnapshotPool``: an agent (``reset`` / ``act(view)``), so the
    wrapper hands it the game-core view and the snapshot sees exactly what the learner would in
    that seat (``PPOAgent``); it plays by sampling from the snapshot's policy."""

    name = SELF_PLAY

    def __init__(self, pool: SnapshotPool, seed: int | None = None):
        self.pool = pool
        self._rng = random.Random(seed)
        self._agents: dict[int, Any] = {}  # id(policy) -> PPOAgent, so frames are built once
        self._current: Any = None

    def reset(self, seed: int | None = None) -> None:
        pool = self.pool
        if not pool.policies:
            raise RuntimeError("self-play pool is empty: add a snapshot before the first episode")
        if seed is not None:
            self._rng.seed(seed)
        if self._rng.random() < pool.latest_prob:
            index = len(pool.policies) - 1
        else:
            index = self._rng.randrange(len(pool.policies))
        policy = pool.policies[index]
        live = {id(p) for p in pool.policies}
        self._agents = {k: a for k, a in self._agents.items() if k in live}
        if id(policy) not in self._agents:
            self._agents[id(policy)] = PPOAgent.from_policy(policy, pool.game,
                                                            deterministic=False, threads=0)
        self._current = self._agents[id(policy)]
        self._current.reset(self._rng.randrange(2**31))
        pool.games_against[pool.steps[index]] += 1

    def act(self, view) -> int:
        if self._current is None:
            raise RuntimeError("self-play opponent: reset() before act()")
        return self._current.act(view)


class MixedOpponent:
    """One of several opponents per episode, drawn with the given weights."""

    def __init__(self, opponents: list[Any], weights: list[float], seed: int | None = None):
        self.opponents = opponents
        self.weights = weights
        self.name = "+".join(getattr(o, "name", "?") for o in opponents)
        self._rng = random.Random(seed)
        self._current = opponents[0]

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)
        self._current = self._rng.choices(self.opponents, weights=self.weights)[0]
        self._current.reset(self._rng.randrange(2**31))

    def act(self, view) -> int:
        return self._current.act(view)


def build_opponent(specs: list[str], weights: list[float] | None, game: str, seed: int,
                   pool: SnapshotPool | None):
    """One env's opponent: agent specs of ``agents.registry`` and/or ``"self"`` (a
    ``PoolOpponent`` of ``pool``); with several, a ``MixedOpponent`` drawing one per episode."""
    members = []
    for i, spec in enumerate(specs):
        if spec == SELF_PLAY:
            members.append(pool.opponent(seed * 1000 + i))
        else:
            members.append(make_agent(spec, seed=seed * 1000 + i, game=game))
    if len(members) == 1:
        return members[0]
    return MixedOpponent(members, weights or [1.0] * len(members), seed=seed)
