"""The registered games' descriptions, and their envs in PettingZoo's and Gymnasium's registries.

``tbw_envs.games`` is the public face (``register``, ``get_game``, ``game_names``): it checks a
description before it lands here. This module only keeps the descriptions in registration
order and makes each game's envs by id: ``pettingzoo.make("aec", game.aec_env_id)`` builds
``game.env()`` and ``gymnasium.make(game.single_env_id, ...)`` ``game.single_agent_env()``,
so ``pettingzoo.make("aec", "tbw_envs/tbw-v0")`` or ``gymnasium.make("tbw_envs/TBWSingle-v0",
scenario=...)`` work once ``tbw_envs`` is imported. The Gymnasium id is registered with
``game.single_env_kwargs`` (the defaults), so ``gymnasium.spec(id).kwargs`` lists them.

It sits below the descriptions (``tbw_envs.description``) and the wrappers, which ask it for the
registered names, so it types a description by what it reads of it (``Registered``).
"""

from __future__ import annotations

import warnings
from typing import Any, Protocol

import gymnasium
import pettingzoo

__all__ = ["Registered", "forget", "registered", "registered_names", "registered_values", "store"]


class Registered(Protocol):
    """What this module reads of a ``tbw_envs.description.Game``."""

    name: str

    @property
    def aec_env_id(self) -> str: ...

    @property
    def single_env_id(self) -> str: ...

    @property
    def single_env_kwargs(self) -> dict[str, Any]: ...

    def env(self, **kwargs) -> Any: ...

    def single_agent_env(self, **kwargs) -> Any: ...

    @property
    def has_batched_core(self) -> bool: ...

    def single_vector_env(self, num_envs: int, **kwargs) -> Any: ...


_GAMES: dict[str, Registered] = {}


def registered(name: str) -> Registered | None:
    return _GAMES.get(name)


def registered_names() -> tuple[str, ...]:
    """The registered games' names, in registration order (the bundled first)."""
    return tuple(_GAMES)


def registered_values() -> tuple[Registered, ...]:
    return tuple(_GAMES.values())


def store(game: Registered) -> None:
    """Keep ``game`` (replacing a game of the same name in its place) and register its envs."""
    previous = _GAMES.get(game.name)
    if previous is not None:
        _unregister_envs(previous)
    _GAMES[game.name] = game
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a replaced game's ids are overridden on purpose
        if hasattr(pettingzoo, "register"):
            pettingzoo.register("aec", game.aec_env_id, game.env)
        # The defaults as the spec's kwargs: ``gymnasium.spec(id).kwargs`` shows them, and
        # ``gymnasium.make(id, **kw)`` lays ``kw`` over them.
        # A game with a batched core also builds its vector env itself (make_vec's
        # vectorization_mode="vector_entry_point").
        vector = game.single_vector_env if game.has_batched_core else None
        gymnasium.register(game.single_env_id, entry_point=game.single_agent_env,
                           vector_entry_point=vector, kwargs=dict(game.single_env_kwargs))


def forget(name: str) -> Registered:
    """Forget the game ``name`` and its env ids; a KeyError if it is not registered."""
    game = _GAMES.pop(name)
    _unregister_envs(game)
    return game


def _unregister_envs(game: Registered) -> None:
    getattr(pettingzoo, "aec_registry", {}).pop(game.aec_env_id, None)
    gymnasium.registry.pop(game.single_env_id, None)
