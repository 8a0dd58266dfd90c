"""The minigame's core: Nim with one heap. Two players take turns taking 1 to ``max_take``
stones; whoever takes the last stone wins. Action ``k`` takes ``k + 1`` stones.

Plain Python and numpy, following ``tbw_envs.core.interface`` (a perfect-information game: a
player's view is a copy of the state).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tbw_envs.core.contract import check_action, short_repr
from tbw_envs.core.errors import IllegalActionError

END_REASONS = ("last_stone",)


@dataclass(frozen=True)
class Heap:
    """A variant: the heap's size and the most stones a ply may take."""

    name: str
    stones: int
    max_take: int

    @property
    def num_actions(self) -> int:
        return self.max_take

    def longest_game(self) -> tuple[int, str]:
        return self.stones, f"{self.stones} plies: one stone a ply from a heap of {self.stones}"


HEAPS = {heap.name: heap for heap in (Heap("small", 7, 3), Heap("tiny", 4, 2),
                                      Heap("large", 21, 4))}


def load_heap(variant: Any) -> Heap:
    """A bundled heap by name, a ``Heap``, or a dict of its fields; a ValueError otherwise."""
    if isinstance(variant, Heap):
        return variant
    if isinstance(variant, str):
        if variant not in HEAPS:
            raise ValueError(f"unknown heap {short_repr(variant)}; heaps: {', '.join(HEAPS)}")
        return HEAPS[variant]
    if isinstance(variant, dict):
        try:
            heap = Heap(str(variant["name"]), int(variant["stones"]), int(variant["max_take"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"a heap dict needs name, stones and max_take: {exc}") from None
        if heap.stones < 1 or heap.max_take < 1:
            raise ValueError(f"a heap needs stones >= 1 and max_take >= 1, got {heap}")
        return heap
    raise ValueError(f"a heap is a name, a Heap or a dict, got {short_repr(variant)}")


class NimState:
    """The whole position (``tbw_envs.core.interface.GameState``)."""

    def __init__(self, variant: Heap, stones: int | None = None, current_player: int = 0,
                 winner: int | None = None, ply: int = 0):
        self.variant = variant
        self.stones = variant.stones if stones is None else stones
        self.current_player = current_player
        self.winner = winner
        self.ply = ply

    @property
    def end_reason(self) -> str | None:
        return END_REASONS[0] if self.is_terminal() else None

    def is_terminal(self) -> bool:
        return self.stones == 0

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0 if seat == self.winner else -1.0 for seat in (0, 1)]

    def legal_actions(self) -> list[int]:
        return list(range(min(self.variant.max_take, self.stones)))

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(self.variant.num_actions, np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def clone(self) -> NimState:
        return NimState(self.variant, self.stones, self.current_player, self.winner, self.ply)

    def view(self, player: int) -> NimState:
        return self.clone()

    def apply(self, action: int) -> None:
        if self.is_terminal():
            raise IllegalActionError("the game is over: no stone is left")
        action = check_action(action, self.variant.num_actions, error=IllegalActionError)
        if action not in self.legal_actions():
            raise IllegalActionError(f"action {action} takes {action + 1} stones; "
                                     f"{self.stones} are left")
        self.stones -= action + 1
        self.ply += 1
        if self.stones == 0:
            self.winner = self.current_player
        self.current_player = 1 - self.current_player

    def __str__(self) -> str:
        if self.is_terminal():
            return f"heap {self.variant.name}: empty, player {self.winner} took the last stone"
        return (f"heap {self.variant.name}: {self.stones} of {self.variant.stones} stones "
                f"left, player {self.current_player} to take 1 to {self.variant.max_take}")
