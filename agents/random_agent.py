"""Uniform random play over the legal actions: the floor every other agent must beat."""

from __future__ import annotations

import random
from typing import Any

from agents.common.params import SEED, check_seed


class RandomAgent:
    name = "random"
    PARAMS = {"seed": SEED}

    def __init__(self, seed: int | None = None):
        self._rng = random.Random(check_seed(seed, "RandomAgent"))

    def reset(self, seed: int | None = None) -> None:
        seed = check_seed(seed, "RandomAgent.reset")
        if seed is not None:
            self._rng.seed(seed)

    def act(self, view: Any) -> int:
        actions = view.legal_actions()
        if not actions:
            raise ValueError("RandomAgent.act: the view has no legal action (is the game over?)")
        return actions[self._rng.randrange(len(actions))]
