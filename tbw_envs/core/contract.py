"""The input contract shared by both games and every layer (core, ``raw_env``, ``env()``,
the single-agent wrappers); see docs/input_contract.md.

Plain Python and numpy only, so the game cores can use it too. Each check raises an error
that names the value at fault, and none rests on ``assert``, so ``python -O`` behaves the same.
"""

from __future__ import annotations

import reprlib
from collections.abc import Iterable, Mapping

import numpy as np

__all__ = [
    "MAX_SEED", "OPENING_FRACTION", "GameOverError", "check_action", "check_agent",
    "check_options", "check_seed", "check_text", "is_integer", "opening_plies_cap",
    "opening_plies_problem", "short_list", "short_repr",
]  # fmt: skip

# Random opening plies (the arena's, the single-agent envs' and train_ppo.py's) are capped at
# 1 / OPENING_FRACTION of the longest game the scenario or rule set allows, so the agents
# always get to play: duel_5v5_8x8 (40 turns x 10 units = 400 plies) takes at most 100.
OPENING_FRACTION = 4

# The largest seed the arena, the web app and the weight tuners accept: the largest signed 64-bit
# integer. ``check_seed`` (the envs' reset) sets no upper bound: numpy's generators take any
# non-negative int.
MAX_SEED = 2**63 - 1


class GameOverError(RuntimeError, ValueError):
    """A non-None action stepped after the game is over.

    A RuntimeError because the call is wrong for the env's state; also a ValueError because
    PettingZoo raises ValueError when a terminated agent is stepped with anything but None, and
    code written against that convention should keep catching it.
    """


class _ShortRepr(reprlib.Repr):
    """``reprlib`` with bounded output for every value: nested containers are cut at a few
    levels and items, so even a structure that shares references a billion times over (a
    "billion laughs" built in Python) prints in microseconds."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 2
        self.maxlist = self.maxtuple = self.maxset = self.maxfrozenset = self.maxdeque = 5
        self.maxdict = 5
        self.maxstring = 60
        self.maxother = 60
        self.maxlong = 40

    def repr_int(self, x, level):
        # repr() of an int past 4300 digits raises ValueError in Python >= 3.11, and an
        # error message must never fail to build.
        if x.bit_length() > 128:
            return f"<int of about {int(x.bit_length() * 0.30103) + 1} digits>"
        return super().repr_int(x, level)


_SHORT = _ShortRepr()


_MAX_REPR_CHARS = 100


def short_repr(value) -> str:
    """A repr of ``value`` that is short and cheap whatever the value, for error messages."""
    try:
        text = _SHORT.repr(value)
    except Exception:  # a hostile __repr__ must not replace the error being reported
        return f"<{type(value).__name__} object>"
    if len(text) > _MAX_REPR_CHARS:
        text = text[: _MAX_REPR_CHARS - 3] + "..."
    return text


def short_list(values, limit: int = 8) -> str:
    """``[a, b, ...]`` of short reprs, sorted, at most ``limit`` shown."""
    shown = sorted(short_repr(v) for v in values)
    more = f", ... ({len(shown) - limit} more)" if len(shown) > limit else ""
    return "[" + ", ".join(shown[:limit]) + more + "]"


def is_integer(value) -> bool:
    """A Python or numpy integer, never a bool (``True`` is an int to Python, not to us)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def kind_of(value) -> str:
    """The type name an error message shows: ``bool`` for numpy bools too."""
    return "bool" if isinstance(value, (bool, np.bool_)) else type(value).__name__


def is_real_number(value) -> bool:
    """A Python or numpy real number (int or float), never a bool."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )


def check_action(action, num_actions: int, error: type[Exception] = ValueError) -> int:
    """``action`` as a plain int in ``[0, num_actions)``.

    Accepted: a Python or numpy integer, or a 0-d integer array (what ``np.argmax`` and some
    policies hand back). Rejected with ``error`` naming the value: bools (``True`` would
    silently mean action 1), floats (6.5 would be truncated), strings, None and anything out
    of range.
    """
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = action.item()
    if not is_integer(action):
        kind = "bool" if isinstance(action, (bool, np.bool_)) else type(action).__name__
        raise error(
            f"action must be an integer in [0, {num_actions}), got {kind} {short_repr(action)}"
        )
    if not 0 <= action < num_actions:
        raise error(f"action {int(action)} is out of range [0, {num_actions})")
    return int(action)


def check_seed(seed, where: str = "reset") -> int | None:
    """None, or a non-negative integer of any integer type, as a plain int."""
    if seed is None:
        return None
    if not is_integer(seed):
        raise TypeError(
            f"{where}: seed must be an int >= 0 (Python or numpy) or None, got "
            f"{type(seed).__name__} {short_repr(seed)}"
        )
    if seed < 0:
        raise ValueError(f"{where}: seed must be non-negative, got {int(seed)}")
    return int(seed)


def check_options(options, where: str = "reset") -> dict:
    """Reset options: a mapping or None (returned as a new dict, so callers may pop keys)."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(
            f"{where}: options must be a dict or None, got "
            f"{type(options).__name__} {short_repr(options)}"
        )
    return dict(options)


MASK_DTYPES = (np.dtype(np.int8), np.dtype(np.bool_))


def check_mask_dtype(mask_dtype) -> np.dtype:
    """The dtype of ``action_mask`` observations: int8 (PettingZoo's convention, the default) or
    bool (TorchRL's masked distributions take only boolean masks), as a type, dtype or name."""
    dtype = None
    if mask_dtype is not None and not isinstance(mask_dtype, (bool, np.bool_)):
        try:
            dtype = np.dtype(mask_dtype)
        except TypeError:
            dtype = None
    if dtype is None or dtype not in MASK_DTYPES:
        raise ValueError(f"mask_dtype must be int8 or bool (np.int8, 'int8', bool, np.bool_ or "
                         f"'bool'), got {short_repr(mask_dtype)}")
    return dtype


def check_agent(agent, agents: Iterable[str]) -> str:
    """``agent`` if it names one of ``agents``; otherwise a ValueError listing them."""
    agents = tuple(agents)
    # The type test comes first: an unhashable or array-like "agent" must not reach ``in``.
    if not isinstance(agent, str) or agent not in agents:
        raise ValueError(f"unknown agent {short_repr(agent)}; agents are {list(agents)}")
    return agent


def check_text(value, max_chars: int, field: str, error: type[Exception] = ValueError) -> str:
    """A string of at most ``max_chars`` characters (names, descriptions in config files)."""
    if not isinstance(value, str):
        raise error(f"{field}: expected a string, got {type(value).__name__} {short_repr(value)}")
    if len(value) > max_chars:
        raise error(f"{field}: at most {max_chars} characters, got {len(value)}")
    return value


def opening_plies_cap(longest_game_plies: int) -> int:
    """The most random opening plies a variant whose longest game lasts ``longest_game_plies``
    takes: ``1 / OPENING_FRACTION`` of it, at least 1."""
    return max(1, int(longest_game_plies) // OPENING_FRACTION)


def opening_plies_problem(plies: int, longest_game: tuple[int, str], where: str) -> str | None:
    """None if ``plies`` is within the cap (``opening_plies_cap``), else the problem, to follow
    the argument's name: ``"1,000 is more than the cap of 100 for <where>: 1/4 of its longest
    game (...)"``. ``longest_game`` is ``(plies, how that number comes about)``."""
    cap = opening_plies_cap(longest_game[0])
    if plies <= cap:
        return None
    return (f"{int(plies):,} is more than the cap of {cap:,} for {where}: "
            f"1/{OPENING_FRACTION} of its longest game ({longest_game[1]})")
