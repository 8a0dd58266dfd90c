"""Random openings: the plies both games of a pair play before the agents take over."""

from __future__ import annotations

import random
from typing import Any

from tbw_envs.core.seeding import derive_seed


def random_opening(state: Any, plies: int, seed: int,
                   stop_before_end: bool = False) -> list[int]:
    """Play up to ``plies`` uniformly random legal actions on ``state`` (fewer if the game ends)
    and return them. Seeded by the pair's seed alone, so both seatings of a pair start from the
    same position: this is what makes paired games of deterministic agents on a fixed TBW
    scenario differ from pair to pair. With ``stop_before_end`` (the arena) the opening stops
    before a drawn action that would end the game, so the agents always get to play; the
    actions it does play are the same as without."""
    rng = random.Random(derive_seed("opening", seed))
    played = []
    for _ in range(plies):
        if state.is_terminal():
            break
        action = rng.choice(list(state.legal_actions()))
        if stop_before_end:
            trial = state.clone()
            trial.apply(action)
            if trial.is_terminal():
                break
        state.apply(action)
        played.append(int(action))
    return played
