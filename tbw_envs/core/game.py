"""What a game is to the rest of the project: one ``Game`` description per game.

The envs, the agent registry, the arena, the learning code and the scripts ask a game's
description for what differs between games, instead of comparing game names. A description is
found by name through ``tbw_envs.games.get_game``; adding a game means a new folder with its
core and its env, a description (a subclass of ``Game``), and one line in ``tbw_envs.games``
(docs/adding_a_game.md).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from tbw_envs.core.interface import GameState, GameView

__all__ = ["Frame", "Game", "GameStart"]


class Frame(Protocol):
    """How a learned policy sees a position: observation planes and legal-action mask in the
    frame of the player to move, and the way back from a frame action to the core's action
    (the envs build observations with the same code, so a policy plays the same anywhere)."""

    shape: tuple[int, ...]  # the observation planes' shape
    num_actions: int

    def encode(self, view: GameView) -> tuple[np.ndarray, np.ndarray]:
        """``(planes, boolean legal mask)`` of the player to move, in its frame."""

    def to_core(self, view: GameView, action: int) -> int:
        """The core's (absolute) action for the player to move's frame action."""


class GameStart:
    """A game's first position and how it came about (for the arena's records)."""

    __slots__ = ("state", "record", "layouts", "layout_sources")

    def __init__(self, state: GameState, record: dict[str, Any],
                 layouts: tuple[str, str] | None = None,
                 layout_sources: tuple[str, str] | None = None):
        self.state = state
        self.record = record  # the "start" entry of a games.jsonl record, opening aside
        self.layouts = layouts
        self.layout_sources = layout_sources


class Game(ABC):
    """One game, described for every layer above its core."""

    name: str  # "tbw": the --game value, the record's "game", the env id's stem
    title: str  # "TBW": for people
    variant_flag: str  # "scenario": the env keyword, the command-line flag, the record key
    variant_noun: str  # "scenario" / "rule set": for messages
    default_variant: str
    end_reasons: tuple[str, ...]  # every reason the core can give, in the envs' code order
    agents: tuple[str, ...]  # the registry names that play this game
    # Whether each seat sets up its own pieces before play (``GameStart.layouts``, the "layouts"
    # of a record's start), rather than every game of a variant starting alike.
    has_layouts: bool = False

    # ------------------------------------------------------------------ variants
    @abstractmethod
    def variants(self) -> list[str]:
        """The bundled variant names."""

    @abstractmethod
    def load_variant(self, variant: Any) -> Any:
        """The scenario or rule set from a name, a path, a dict or a loaded one; raises a
        ValueError naming the problem."""

    def variant_kwargs(self, variant: Any) -> dict[str, Any]:
        """The env keyword that selects ``variant``: ``{"scenario": variant}`` for TBW."""
        return {self.variant_flag: variant}

    @abstractmethod
    def variant_context(self, variant: Any) -> dict[str, Any]:
        """Everything of the variant that decides play, as JSON-ready data (for digests)."""

    @abstractmethod
    def longest_game(self, variant: Any) -> tuple[int, str]:
        """The most plies a game can last, and how that number comes about."""

    # ------------------------------------------------------------------ states
    @abstractmethod
    def new_state(self, variant: Any, seed: int | None = None,
                  layouts: Sequence[Any] | None = None) -> GameState:
        """A game's first position of play: what ``seed`` draws where the game has chance at
        the start (Junqi's two random layouts), or the given ``layouts``."""

    def start(self, variant: Any, seed: int, agents: Sequence[Any],
              labels: Sequence[str]) -> GameStart:
        """The arena's first position, where agents may choose what the rules let them choose
        before play (Junqi's layouts); by default ``new_state(variant, seed)``."""
        return GameStart(self.new_state(variant, seed), {self.variant_flag: variant})

    def start_from_record(self, variant: Any, start: dict[str, Any]) -> GameState:
        """The first position a record's ``start`` entry describes."""
        return self.new_state(variant)

    @abstractmethod
    def state_encoding(self, state: GameState) -> bytes:
        """The whole state as canonical bytes, the same in every process (for digests)."""

    @abstractmethod
    def describe_action(self, state: GameState, action: int) -> str:
        """``action`` in words, in ``state``; a ValueError if it is not an action there."""

    # ------------------------------------------------------------------ envs
    @abstractmethod
    def env(self, **kwargs) -> Any:
        """The PettingZoo AEC env with the standard wrappers."""

    @abstractmethod
    def raw_env(self, **kwargs) -> Any: ...

    @abstractmethod
    def parallel_env(self, **kwargs) -> Any: ...

    @abstractmethod
    def single_agent_env(self, **kwargs) -> Any:
        """The Gymnasium single-agent env (one seat learns, an opponent plays the other)."""

    @abstractmethod
    def frame(self, variant: Any, flip: bool = True) -> Frame:
        """Observation builder and board rotation for ``variant``."""

    @abstractmethod
    def frame_size_error(self, shape: Sequence[int], num_actions: int) -> str | None:
        """None if some variant of this game gives observation planes of ``shape`` (planes,
        rows, cols) and ``num_actions`` actions, else what rules them out (to check a stored
        policy's sizes before anything is built for it)."""

    # ------------------------------------------------------------------ views
    @abstractmethod
    def is_view(self, view: Any) -> bool:
        """Whether ``view`` is a player's view of this game: how code that is handed a bare
        view (a learned agent) tells the games apart."""

    @abstractmethod
    def view_variant(self, view: GameView) -> Any:
        """The loaded scenario or rule set ``view`` is played under."""

    # ------------------------------------------------------------------ helpers
    def __repr__(self) -> str:
        return f"<Game {self.name}>"

