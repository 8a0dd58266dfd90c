"""A tiny game the project has never heard of, for tests that a layer works for any registered
game: one-heap Nim (``state``: the core; ``env``: its raw AEC env; ``game``: its description,
``MINIGAME``, game ``"nim"`` with the variant flag ``heap``).

Tests take the pytest fixture ``registered_minigame`` (``tests/conftest.py``), which registers
it for the test and unregisters it after; ``minigame_registered()`` does the same as a context
manager.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from tbw_envs.games import register, unregister

from .game import MINIGAME, NimGame
from .state import HEAPS, Heap, NimState

__all__ = ["HEAPS", "MINIGAME", "Heap", "NimGame", "NimState", "minigame_registered"]


@contextmanager
def minigame_registered() -> Iterator[NimGame]:
    """The minigame registered inside the block (its env ids too), unregistered after."""
    register(MINIGAME)
    try:
        yield MINIGAME
    finally:
        unregister(MINIGAME.name)
