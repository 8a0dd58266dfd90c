"""What a game is to the rest of the project: one ``Game`` description per game.

The envs, the agent registry, the arena, the learning code and the scripts ask a game's
description for what differs between games, instead of comparing game names. A description is
found by name through ``tbw_envs.games.get_game``; adding a game means a new folder with its
core and its raw AEC env, a description (a subclass of ``Game``), and one
``tbw_envs.games.register`` call or an entry point (docs/adding_a_game.md).

A minimal description declares its names, its variants (``variants``, ``load_variant``,
``variant_context``, ``longest_game``), its states (``new_state``, ``state_encoding``) and its
``raw_env``; everything else has a default that works for any game: ``env``, ``parallel_env``
and ``single_agent_env`` wrap ``raw_env`` with the project's wrappers, the text render is the
state's ``str``, and a game without a ``frame`` is one learned agents cannot play.

Although it sits beside the core's interface, this module is of the env layer
(tests/test_architecture.py): its defaults build envs.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import Any, Protocol

import numpy as np

from tbw_envs.aec_wrappers import standard_wrappers, turn_based_parallel
from tbw_envs.core.batched import check_num_envs
from tbw_envs.core.contract import short_list, short_repr
from tbw_envs.core.interface import GameState, GameView
from tbw_envs.single_vector import SingleAgentVectorEnv
from tbw_envs.wrappers import SingleAgentEnv

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
    """One game, described for every layer above its core (module docstring)."""

    name: str  # "tbw": the --game value, the record's "game", the env id's stem
    title: str  # "TBW": for people
    variant_flag: str  # "scenario": the env keyword, the command-line flag, the record key
    variant_noun: str  # "scenario" / "rule set": for messages
    default_variant: str
    end_reasons: tuple[str, ...]  # every reason the core can give, in the envs' code order
    agents: tuple[str, ...]  # the registry names that play this game
    # The keyword of ``raw_env`` that selects the variant, if not ``variant_flag`` (TBW's env
    # takes ``scenario=``): a subclass may then rename its flag and still build its envs.
    env_variant_keyword: str | None = None
    # Whether each seat sets up its own pieces before play (``GameStart.layouts``, the "layouts"
    # of a record's start), rather than every game of a variant starting alike.
    has_layouts: bool = False
    # Whether the variant decides the frame's sizes (TBW's board); False where every variant
    # plays on the same planes and actions (Junqi's rule sets), so a learned policy is checked
    # against the variant only where it matters.
    frame_depends_on_variant: bool = True
    # How the frame's action ids are built, for a network head that scores them by their parts:
    # "tile_pairs" (ids 0 .. T*T-1 are (from tile, to tile) over the planes' T tiles, the rest
    # anything), "unit_tile_target" (``(slot * T + tile) * (U + 1) + target``, then one last
    # id), or None (no structure a head may rely on).
    action_structure: str | None = None
    # Where the layers above find this game's own parts, as dotted module paths that they import
    # when they need them (so the description imports nothing above the envs). None: the game
    # has none, and the layer falls back to what works for every game.
    agent_catalog: str | None = None  # a module whose ``AGENTS`` maps name -> AgentEntry
    web_board: str | None = None  # the web app's board for this game (else a generic one)
    drawing: str | None = None  # the GIF's board drawing (else the text render, drawn)
    # The arena's defaults for this game: its entrants, games per pairing, random opening plies.
    arena_agents: tuple[str, ...] = ("random",)
    arena_games: int = 12
    arena_opening_plies: int = 0

    # ------------------------------------------------------------------ env ids
    @property
    def aec_env_id(self) -> str:
        """The id of ``env()`` in PettingZoo's registry (``pettingzoo.make("aec", id)``)."""
        return f"tbw_envs/{self.name}-v0"

    @property
    def single_env_id(self) -> str:
        """The id of ``single_agent_env()`` in Gymnasium's registry (``gymnasium.make``)."""
        return f"tbw_envs/{self._own_title()}Single-v0"

    def _own_title(self) -> str:
        """The title, unless it is inherited from another game's description (a subclass that
        renames the game but keeps its parent's title would take its parent's Gymnasium id):
        then the name, capitalised."""
        holders = (self, *type(self).__mro__)
        name_at = next(i for i, holder in enumerate(holders) if "name" in vars(holder))
        title_at = next(i for i, holder in enumerate(holders) if "title" in vars(holder))
        return self.title if title_at <= name_at else self.name.capitalize()

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

    def env_kwargs(self, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """``kwargs`` for ``raw_env`` with the variant under ``env_variant_keyword``: how a
        description whose ``variant_flag`` differs from its env's keyword (a subclass that
        renamed it) passes ``env(**{game.variant_flag: v})`` on."""
        kwargs = dict(kwargs)
        own = self.env_variant_keyword
        if own is None or own == self.variant_flag or self.variant_flag not in kwargs:
            return kwargs
        if own in kwargs:
            raise ValueError(f"{self.name}: give {self.variant_flag}= or {own}=, not both "
                             f"(both name the {self.variant_noun})")
        kwargs[own] = kwargs.pop(self.variant_flag)
        return kwargs

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

    def describe_action(self, state: GameState, action: int) -> str:
        """``action`` in words, in ``state``; a ValueError if it is not an action there. By
        default its number, once the state's legal actions hold it."""
        if action not in state.legal_actions():
            raise ValueError(f"{self.name}: action {short_repr(action)} is not legal here; "
                             f"legal: {short_list(state.legal_actions())}")
        return f"action {int(action)}"

    def render_text(self, state: GameState) -> str:
        """A text render of a core state (or a view) for people: the replay's and the GIF's
        fallback board. By default the state's ``str``."""
        return str(state)

    # ------------------------------------------------------------------ envs
    @abstractmethod
    def raw_env(self, **kwargs) -> Any:
        """The game's PettingZoo AEC env without wrappers, the variant given by
        ``variant_flag``. ``single_agent_env`` needs the methods ``SingleAgentEnv`` lists
        (``tbw_envs.wrappers``)."""

    def env(self, **kwargs) -> Any:
        """The PettingZoo AEC env with the standard wrappers (``tbw_envs.aec_wrappers``)."""
        return standard_wrappers(self.raw_env(**kwargs))

    def parallel_env(self, **kwargs) -> Any:
        """``env()`` under the turn-based parallel conversion (``tbw_envs.aec_wrappers``)."""
        return turn_based_parallel(self.env(**kwargs))

    def single_agent_env(self, **kwargs) -> Any:
        """The Gymnasium single-agent env (one seat learns, an opponent plays the other):
        ``SingleAgentEnv``'s keywords go to it, the others to ``raw_env``."""
        own = SINGLE_AGENT_KEYWORDS & kwargs.keys()
        aec = self.raw_env(**{k: v for k, v in kwargs.items() if k not in own})
        return SingleAgentEnv(aec, **{k: kwargs[k] for k in own})

    def batched_core(self, num_envs: int, backend: str = "auto", threads: int | None = None,
                     **env_kwargs) -> Any:
        """``num_envs`` games of the variant in ``env_kwargs`` (the AEC env's keywords) as a
        ``tbw_envs.core.batched.BatchedCore``, what ``tbw_envs.vector.make`` steps, on
        ``threads`` threads (None: one per core). A game without one says so."""
        raise NotImplementedError(
            f"game {self.name} has no batched core: tbw_envs.vector cannot batch it (loop over "
            f"its env with gymnasium's SyncVectorEnv instead)")

    @property
    def has_batched_core(self) -> bool:
        """Whether this game brings a batched core (``batched_core``)."""
        return type(self).batched_core is not Game.batched_core

    def single_vector_env(self, num_envs: int, **kwargs) -> Any:
        """The batched single-agent env (``tbw_envs.single_vector``): what
        ``gymnasium.make_vec(single_env_id, num_envs, vectorization_mode="vector_entry_point")``
        builds. It takes the single-agent env's keywords (the defaults come from the spec),
        ``seed``, ``backend`` and ``autoreset_mode``; the rest go to ``batched_core``."""
        kwargs = dict(kwargs)
        if kwargs.pop("render_mode", None) is not None:
            raise ValueError(f"{self.name}: the batched env does not render; state(i) gives a "
                             f"game to render")
        if kwargs.pop("string_infos", False):
            raise ValueError(f"{self.name}: the batched env's infos are arrays of codes "
                             f"(string_infos=False); env.end_reasons names them")
        kwargs.pop("render_perspective", None)  # only renders read it
        own = {key: kwargs.pop(key) for key in (*SINGLE_AGENT_KEYWORDS, *VECTOR_KEYWORDS,
                                                "mask_dtype") if key in kwargs}
        backend = own.pop("backend", "auto")
        threads = own.pop("threads", None)
        core = self.batched_core(check_num_envs(num_envs), backend=backend, threads=threads,
                                 **kwargs)
        return SingleAgentVectorEnv(core, **own)

    @property
    def single_env_kwargs(self) -> dict[str, Any]:
        """The keywords of ``single_agent_env`` with their defaults, the variant first: what
        Gymnasium registers as ``gymnasium.spec(single_env_id).kwargs``, so the spec shows how
        ``gymnasium.make(single_env_id)`` builds the env. By default the variant and
        ``SingleAgentEnv``'s keywords; a description whose single-agent env takes more keywords
        returns ``self.keyword_defaults(its_maker)``."""
        return self.keyword_defaults(SingleAgentEnv)

    def keyword_defaults(self, maker: Callable[..., Any]) -> dict[str, Any]:
        """``{variant_flag: default_variant}``, then each keyword of ``maker`` that has a
        default, with it. The env's own variant keyword (``env_variant_keyword``) is left out:
        the variant goes under ``variant_flag``, which ``env_kwargs`` passes on, so a subclass
        that renames its flag lists the flag it takes."""
        variant_keywords = {self.variant_flag, self.env_variant_keyword}
        defaults = {
            name: parameter.default
            for name, parameter in inspect.signature(maker).parameters.items()
            if parameter.default is not inspect.Parameter.empty and name not in variant_keywords
        }
        return {self.variant_flag: self.default_variant, **defaults}

    # ------------------------------------------------------------------ frames
    @property
    def has_frame(self) -> bool:
        """Whether this game declares a ``frame``: what learned agents need to play it."""
        return type(self).frame is not Game.frame

    def frame(self, variant: Any, flip: bool = True) -> Frame:
        """Observation builder and board rotation for ``variant``."""
        raise NotImplementedError(
            f"game {self.name} declares no frame: learned agents cannot play it")

    def frame_size_error(self, shape: Sequence[int], num_actions: int) -> str | None:
        """None if some variant of this game gives observation planes of ``shape`` (planes,
        rows, cols) and ``num_actions`` actions, else what rules them out (to check a stored
        policy's sizes before anything is built for it). By default the bundled variants'
        frames are compared."""
        if not self.has_frame:
            return f"game {self.name} declares no frame: learned agents cannot play it"
        sizes = {(tuple(frame.shape), frame.num_actions)
                 for frame in (self.frame(variant) for variant in self.variants())}
        if (tuple(shape), num_actions) in sizes:
            return None
        return (f"no {self.variant_noun} of {self.name} gives observation planes "
                f"{list(shape)} and {num_actions} actions; its "
                f"{self.variant_noun}s give {short_list(sorted(sizes))}")

    # ------------------------------------------------------------------ views
    def is_view(self, view: Any) -> bool:
        """Whether ``view`` is a player's view of this game: how code that is handed a bare
        view (a learned agent) tells the games apart. By default: of the type of this game's
        views."""
        return isinstance(view, self._view_type)

    @cached_property
    def _view_type(self) -> type:
        state = self.new_state(self.default_variant, seed=0)
        return type(state.view(state.current_player))

    def view_variant(self, view: GameView) -> Any:
        """The loaded scenario or rule set ``view`` is played under; by default the view's
        ``variant``."""
        variant = getattr(view, "variant", None)
        if variant is None:
            raise TypeError(f"game {self.name}: a {type(view).__name__} has no .variant; the "
                            f"description must say how to read a view's {self.variant_noun} "
                            f"(view_variant)")
        return variant

    # ------------------------------------------------------------------ helpers
    def __repr__(self) -> str:
        return f"<Game {self.name}>"


# ``SingleAgentEnv``'s own keywords; ``single_agent_env`` hands the rest to ``raw_env``.
SINGLE_AGENT_KEYWORDS = frozenset(inspect.signature(SingleAgentEnv).parameters) - {"aec_env"}
# What the batched single-agent env takes beyond the single-agent env's keywords.
VECTOR_KEYWORDS = ("seed", "backend", "autoreset_mode", "threads")
