"""Agent parameters: one set of small declarative checks, shared by every agent and the registry.

Each agent class declares its parameters once, as ``PARAMS = {name: Param, ...}``, and its
constructor checks what it is given against them (``check_params``). The registry
(``agents.registry``) reads the same declarations to cast the text of a spec string by the type
each parameter wants (``Param.parse``), never by guessing: ``ppo:path=007`` stays the string
``"007"``, ``iterations=2.5`` is refused rather than truncated.

The checks follow the project's input contract (docs/input_contract.md): a bad value raises an
error naming the agent, the parameter and the value (cut to a bounded length by
``tbw_envs.core.contract.short_repr``) when the agent is built, never at its first move, and never
rests on ``assert``. A value of the wrong type raises ``ParameterTypeError``, which is a
``TypeError`` and also a ``ValueError`` (agents raised ``ValueError`` for these before, and code
that catches that keeps working); a value of the right type out of range raises ``ValueError``.

Kinds of parameter:

* ``Int(low, high)``: a Python or numpy integer (never a bool, never a float such as 2.5) in
  ``[low, high]``; spec text in decimal (``200``).
* ``Float(low, high, low_open=..., high_open=...)``: a finite real number (int or float, Python
  or numpy; never a bool, NaN or infinity) within the bounds.
* ``Bool()``: ``True``/``False`` (also 0/1); spec text ``true``/``false``, ``yes``/``no``,
  ``1``/``0``.
* ``Choice(names)``: one of the names (strings).
* ``PathText()``: a path string (or ``os.PathLike``), kept as given: never cast to a number.
* ``Text()``: a name or other string, kept as given.
* ``Seed()``: None or a non-negative integer of any integer type (a negative seed would play
  the stream of its absolute value under ``random.Random``; bools, floats and strings are
  refused). Not a spec parameter: ``make_agent(spec, seed=...)`` gives it.
* ``CallableParam()``: None or a callable (``evaluate=``); Python only.
* ``AnyOf(...)``: the first of several kinds that accepts the value (a TBW search ``budget`` is
  an integer number of nodes or a number of seconds).
* ``Custom(func)``: checked by ``func`` (tree recipes).

Caps, so that a typo cannot hang or exhaust the machine (values above them are refused, with the
cap in the message):

* ``MAX_SECONDS`` (3600): any time budget per move or turn, seconds > 0 and finite;
* ``MAX_ITERATIONS`` (1,000,000): Junqi search iterations per move (a search tree grows by a
  node per iteration);
* ``MAX_NODES`` (10**12): TBW single-turn search nodes (ops1) per turn or per solve;
* ``MAX_COUNT`` (1,000,000): sizes such as widths, samples, horizons, rollout limits, OEP
  generations;
* ``MAX_POPULATION`` (10,000): OEP population;
* ``MAX_TREE_DEPTH`` (100): turns searched by the TBW tree agent (a recursion per turn);
* ``MAX_THREADS`` (256): torch threads of a PPO agent (``threads=100000`` ran out of memory);
* ``MAX_PATH_CHARS`` (4,096) and ``MAX_TEXT_CHARS`` (1,000): path and name lengths.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from tbw_envs.core.contract import is_integer, is_real_number, kind_of, short_repr

__all__ = [
    "MAX_COUNT", "MAX_ITERATIONS", "MAX_NODES", "MAX_PATH_CHARS", "MAX_POPULATION",
    "MAX_SECONDS", "MAX_TEXT_CHARS", "MAX_THREADS", "MAX_TREE_DEPTH", "OPTIONAL_SECONDS",
    "SECONDS", "SEED", "AnyOf", "Bool", "CallableParam", "Choice", "Custom", "Float", "Instance",
    "Int", "Param", "ParameterTypeError", "PathText", "Seed", "Text", "check_params",
    "check_seed",
]  # fmt: skip

MAX_SECONDS = 3600.0
MAX_ITERATIONS = 1_000_000
MAX_NODES = 10**12
MAX_COUNT = 1_000_000
MAX_POPULATION = 10_000
MAX_TREE_DEPTH = 100
MAX_THREADS = 256
MAX_PATH_CHARS = 4096
MAX_TEXT_CHARS = 1000
# Spec text longer than this cannot be a number, whatever the parameter.
_MAX_NUMBER_CHARS = 40


class ParameterTypeError(TypeError, ValueError):
    """A parameter of the wrong type. A TypeError; also a ValueError, because the agents raised
    ValueError for these before and code written against that should keep catching it."""


class _Unparsable(Exception):
    """Spec text that is not of a parameter's kind (``AnyOf`` then tries the next kind)."""


def _shown(value) -> str:
    """A value in a range error: numpy scalars as plain numbers (``-4``, not ``np.int64(-4)``)."""
    if is_integer(value):
        value = int(value)
    elif isinstance(value, np.floating):
        value = float(value)
    return short_repr(value)


def _number(x) -> str:
    return repr(float(x)) if isinstance(x, float) else str(x)


@dataclass(frozen=True, kw_only=True)
class Param:
    """One parameter's kind. ``optional``: None is accepted (from Python; spec text never gives
    None). ``spec``: a spec string may set it. ``required``: a spec must set it."""

    optional: bool = False
    spec: bool = True
    required: bool = False

    def check(self, value, name: str, agent: str):
        """``value`` checked and normalised (numpy scalars become Python ones); raises
        ``ParameterTypeError`` or ``ValueError`` naming ``agent``, ``name`` and the value."""
        if value is None and self.optional:
            return None
        return self._check(value, name, agent)

    def parse(self, text: str, name: str, agent: str):
        """The value of spec text ``text``, cast by this kind and checked."""
        try:
            raw = self._from_text(text)
        except _Unparsable:
            raise ValueError(
                f"{agent}: {name} must be {self.describe()}, got {short_repr(text)}"
            ) from None
        return self.check(raw, name, agent)

    def describe(self) -> str:  # pragma: no cover - every kind overrides it
        raise NotImplementedError

    # -- for subclasses
    def _check(self, value, name: str, agent: str):  # pragma: no cover - interface
        raise NotImplementedError

    def _from_text(self, text: str):
        return text

    def _type_error(self, value, name: str, agent: str) -> ParameterTypeError:
        none = " or None" if self.optional else ""
        return ParameterTypeError(
            f"{agent}: {name} must be {self.describe()}{none}, got {kind_of(value)} "
            f"{short_repr(value)}"
        )


@dataclass(frozen=True, kw_only=True)
class Int(Param):
    low: int = 0
    high: int | None = None

    def bounds(self) -> str:
        text = f">= {self.low}"
        return text if self.high is None else f"{text} and <= {self.high}"

    def describe(self) -> str:
        return f"an integer {self.bounds()}"

    def _check(self, value, name, agent):
        if not is_integer(value):
            raise self._type_error(value, name, agent)
        if value < self.low or (self.high is not None and value > self.high):
            raise ValueError(f"{agent}: {name} must be {self.bounds()}, got {_shown(value)}")
        return int(value)

    def _from_text(self, text):
        if len(text) > _MAX_NUMBER_CHARS or not re.fullmatch(r"\s*[+-]?[0-9]+\s*", text):
            raise _Unparsable
        return int(text)


@dataclass(frozen=True, kw_only=True)
class Float(Param):
    """A finite real number within the bounds (``low_open``: ``> low``, else ``>= low``)."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def bounds(self) -> str:
        if self.low == 0 and not self.low_open and self.high is None:
            return "a non-negative number (finite)"
        parts = []
        if self.low is not None:
            parts.append(f"{'>' if self.low_open else '>='} {_number(self.low)}")
        if self.high is not None:
            parts.append(f"{'<' if self.high_open else '<='} {_number(self.high)}")
        return " and ".join(parts) or "a finite number"

    def describe(self) -> str:
        bounds = self.bounds()
        return bounds if bounds.startswith("a ") else f"a finite number {bounds}"

    def _check(self, value, name, agent):
        if not is_real_number(value):
            raise self._type_error(value, name, agent)
        number = float(value)
        if not math.isfinite(number):
            raise ValueError(f"{agent}: {name} must be {self.describe()}, got {_shown(value)}")
        low, high = self.low, self.high
        if (low is not None and (number <= low if self.low_open else number < low)) or (
            high is not None and (number >= high if self.high_open else number > high)
        ):
            raise ValueError(f"{agent}: {name} must be {self.bounds()}, got {_shown(value)}")
        return number

    def _from_text(self, text):
        if len(text) > _MAX_NUMBER_CHARS:
            raise _Unparsable
        try:
            return float(text)  # "nan" and "inf" parse here and are refused as not finite
        except ValueError:
            raise _Unparsable from None


_TRUE = ("true", "yes", "1")
_FALSE = ("false", "no", "0")


@dataclass(frozen=True, kw_only=True)
class Bool(Param):
    def describe(self) -> str:
        return "a bool (true/false or 1/0)"

    def _check(self, value, name, agent):
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        if is_integer(value):
            if value in (0, 1):
                return bool(value)
            raise ValueError(f"{agent}: {name} must be {self.describe()}, got {_shown(value)}")
        raise self._type_error(value, name, agent)

    def _from_text(self, text):
        word = text.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise _Unparsable


@dataclass(frozen=True, kw_only=True)
class Choice(Param):
    """One of ``names``: a tuple of strings, or a function returning them (read when a value is
    checked, so a registry of names can be imported late). ``what`` names the kind in errors
    (``unknown layout policy 'x'``)."""

    names: tuple[str, ...] | Callable[[], Iterable[str]] = ()
    what: str | None = None

    def choices(self) -> tuple[str, ...]:
        names = self.names() if callable(self.names) else self.names
        return tuple(names)

    def describe(self) -> str:
        names = [repr(n) for n in self.choices()]
        if len(names) == 1:
            return names[0]
        if len(names) == 2:
            return f"{names[0]} or {names[1]}"
        return "one of " + ", ".join(names)

    def _check(self, value, name, agent):
        if not isinstance(value, str):
            raise self._type_error(value, name, agent)
        if value not in self.choices():
            if self.what:
                raise ValueError(f"{agent}: unknown {self.what} {short_repr(value)}; {name} "
                                 f"must be {self.describe()}")
            raise ValueError(f"{agent}: {name} must be {self.describe()}, got {short_repr(value)}")
        return value

    def _from_text(self, text):
        return text.strip()


@dataclass(frozen=True, kw_only=True)
class Text(Param):
    """A string (a name such as evaluation weights, or a name-or-path), kept as given."""

    max_chars: int = MAX_TEXT_CHARS

    def describe(self) -> str:
        return f"a non-empty string of at most {self.max_chars} characters"

    def _check(self, value, name, agent):
        if not isinstance(value, str):
            raise self._type_error(value, name, agent)
        if not value or len(value) > self.max_chars:
            raise ValueError(f"{agent}: {name} must be {self.describe()}, got "
                             f"{len(value)} characters {short_repr(value)}")
        if "\0" in value:
            raise ValueError(f"{agent}: {name} must not hold a NUL character, got "
                             f"{short_repr(value)}")
        return value


@dataclass(frozen=True, kw_only=True)
class PathText(Text):
    """A file path: a string or ``os.PathLike``, kept exactly as given (never read as a
    number). Whether the file exists is the agent's business."""

    max_chars: int = MAX_PATH_CHARS

    def describe(self) -> str:
        return f"a non-empty path of at most {self.max_chars} characters"

    def _check(self, value, name, agent):
        text = value
        if isinstance(value, os.PathLike):
            text = os.fspath(value)
        if not isinstance(text, str):
            raise self._type_error(value, name, agent)
        super()._check(text, name, agent)
        return value


@dataclass(frozen=True, kw_only=True)
class Seed(Param):
    """None or a non-negative integer of any integer type, returned as a plain int."""

    optional: bool = True
    spec: bool = False

    def describe(self) -> str:
        return "None or an integer >= 0 (Python or numpy)"

    def check(self, value, name, agent):
        if value is None:
            return None
        if not is_integer(value):
            raise ParameterTypeError(f"{agent}: {name} must be {self.describe()}, got "
                                     f"{kind_of(value)} {short_repr(value)}")
        if value < 0:
            raise ValueError(f"{agent}: {name} must be >= 0, got {_shown(value)}")
        return int(value)


@dataclass(frozen=True, kw_only=True)
class CallableParam(Param):
    optional: bool = True
    spec: bool = False

    def describe(self) -> str:
        return "callable"

    def _check(self, value, name, agent):
        if not callable(value):
            raise self._type_error(value, name, agent)
        return value


@dataclass(frozen=True, kw_only=True)
class Instance(Param):
    """An instance of ``cls`` (Python only), e.g. a ``Budget`` object."""

    cls: type = object
    spec: bool = False

    def describe(self) -> str:
        return f"a {self.cls.__name__}"

    def _check(self, value, name, agent):
        if not isinstance(value, self.cls):
            raise self._type_error(value, name, agent)
        return value

    def _from_text(self, text):
        raise _Unparsable


@dataclass(frozen=True, kw_only=True)
class Custom(Param):
    """Checked by ``func(value) -> normalised value`` (raising ValueError or TypeError). Spec
    text is checked the same way and handed on as text."""

    func: Callable[[Any], Any] = lambda value: value
    what: str = "a valid value"

    def describe(self) -> str:
        return self.what

    def _check(self, value, name, agent):
        try:
            return self.func(value)
        except (TypeError, ValueError) as exc:
            text = str(exc)
            # The function's own message may name the parameter already ("recipes must ...").
            message = f"{agent}: {text}" if text.startswith(name) else f"{agent}: {name}: {text}"
            error = ParameterTypeError if isinstance(exc, TypeError) else ValueError
            raise error(message) from None

    def parse(self, text, name, agent):
        self.check(text, name, agent)
        return text


@dataclass(frozen=True, kw_only=True)
class AnyOf(Param):
    """The first of ``kinds`` that takes the value. Spec text goes to the first kind that can
    read it (``"200"`` an Int, ``"0.5"`` a Float), whose range then applies."""

    kinds: tuple[Param, ...] = ()
    what: str = ""

    def describe(self) -> str:
        return self.what or " or ".join(k.describe() for k in self.kinds)

    def _check(self, value, name, agent):
        for kind in self.kinds:
            try:
                return kind.check(value, name, agent)
            except ParameterTypeError:
                continue
            except ValueError as exc:
                if isinstance(kind, (Int, Float)):
                    # A number of the right type out of that kind's range: its own message.
                    raise exc from None
        none = " or None" if self.optional and "None" not in self.describe() else ""
        raise ParameterTypeError(f"{agent}: {name} must be {self.describe()}{none}, got "
                                 f"{kind_of(value)} {short_repr(value)}")

    def parse(self, text, name, agent):
        for kind in self.kinds:
            try:
                raw = kind._from_text(text)
            except _Unparsable:
                continue
            if isinstance(kind, Choice) and raw not in kind.choices():
                continue
            return kind.check(raw, name, agent)
        raise ValueError(f"{agent}: {name} must be {self.describe()}, got {short_repr(text)}")


SEED = Seed()
# A time budget per move or turn: finite, > 0 and at most ``MAX_SECONDS``.
SECONDS = Float(low=0.0, low_open=True, high=MAX_SECONDS)
OPTIONAL_SECONDS = Float(low=0.0, low_open=True, high=MAX_SECONDS, optional=True)


def check_seed(seed, agent: str, name: str = "seed") -> int | None:
    """None or a non-negative integer of any integer type, as a plain int."""
    return SEED.check(seed, name, agent)


def check_params(params: Mapping[str, Param], agent: str, **values) -> dict[str, Any]:
    """Each of ``values`` checked by its declaration in ``params``; returns the normalised
    values. A name missing from ``params`` is a programming error (KeyError)."""
    return {name: params[name].check(value, name, agent) for name, value in values.items()}
