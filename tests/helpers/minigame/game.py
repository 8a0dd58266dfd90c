"""The minigame described for the layers above its core: only what ``tbw_envs.description.Game``
cannot guess (names, variants, states, ``raw_env``); ``env``, ``parallel_env``,
``single_agent_env``, ``describe_action``, ``render_text`` and the views are the defaults, and
it declares no frame, so its one agent is ``random``."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from tbw_envs.core.canonical import canonical_json
from tbw_envs.description import Game

from .env import raw_env
from .state import END_REASONS, HEAPS, Heap, NimState, load_heap


class NimGame(Game):
    name = "nim"
    title = "Nim"
    variant_flag = "heap"
    variant_noun = "heap"
    default_variant = "small"
    end_reasons = END_REASONS
    agents = ("random",)
    arena_games = 4

    def variants(self) -> list[str]:
        return list(HEAPS)

    def load_variant(self, variant: Any) -> Heap:
        return load_heap(variant)

    def variant_context(self, variant: Any) -> dict[str, Any]:
        return asdict(self.load_variant(variant))

    def longest_game(self, variant: Any) -> tuple[int, str]:
        return self.load_variant(variant).longest_game()

    def new_state(self, variant: Any, seed: int | None = None, layouts=None) -> NimState:
        if layouts is not None:
            raise ValueError("a Nim game has no layouts")
        return NimState(self.load_variant(variant))

    def state_encoding(self, state: NimState) -> bytes:
        return canonical_json(["nim/1", state.variant.name, state.stones, state.current_player,
                               state.winner, state.ply])

    def raw_env(self, **kwargs) -> raw_env:
        return raw_env(**kwargs)


MINIGAME = NimGame()
