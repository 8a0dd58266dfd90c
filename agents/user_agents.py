"""Your own agent, named in a spec like a registry agent: ``path/to/file.py:Name`` or
``package.module:Name``, with ``,key=value`` arguments (``my.py:MyAgent,depth=3,temperature=0.5``).

Which specs these are. The part before the first ':' names a file when it ends in ``.py`` or
holds a '/' (or '\\'), and a module when it holds a '.' otherwise; a bare word is a registry name
(``agents.registry``). A file is read relative to the working directory of the process that
builds the agent; spawned worker processes share it, while on Ray the file must exist at the
same path on every worker (an absolute path is safest). A file is imported once per process, by
its resolved path, as the private module ``_user_agent_<stem>_<hash of the path>``; a module is
imported from ``sys.path`` as usual. Loading runs the file's code: it is your agent. Records
keep the spec; replaying a record never loads it.

What ``Name`` may be, decided by inspection:

* a class with ``act`` is a **view agent** (like the built-in ones, ``agents.base.Agent``): it
  needs ``reset(seed)`` and ``act(view) -> action`` too, and is built for every game as
  ``Name(seed=seed, **arguments)``;
* a class whose instances are callable is an **observation policy** class, built as
  ``Name(seed=seed, **arguments)`` if its constructor takes ``seed``, else ``Name(**arguments)``;
* a function with a parameter named ``seed`` is a **factory**, called as
  ``Name(seed=seed, **arguments)``; it returns a view agent or an observation policy;
* any other function taking two positional arguments is an **observation policy**,
  ``Name(observation, action_mask, **arguments) -> action``.

An observation policy sees exactly what the env gives its player (``env.observe(agent)``): the
observation planes and the int8 legal-action mask in the mover's frame, built by the game's
frame (``tbw_envs.games.get_game(game).frame(variant)``); the action it returns is in that frame
too, and one that is not legal raises ``IllegalActionError`` naming the agent. A policy that
also has ``reset(seed)`` is reset before every game. It plays as a view agent wrapped in
``agents.observation_policy.ObservationPolicyAgent``.

Its game. An agent made for one game says so: a ``game`` attribute on ``Name`` (a class
attribute, as ``agents.junqi.base.JunqiAgent`` and the TBW searches have), else ``GAME = "junqi"``
at the top level of its file or module. Built for another game it is refused, naming the agent,
its game and the game played; ``scripts/arena.py`` without ``--game`` plays the agents' game.
Without either it may play any game.

Arguments. If ``Name`` declares ``PARAMS`` (``agents.common.params``), each value is cast by its
declared type and checked, as for registry agents. Otherwise a value is read by its form: ``true``
or ``false`` (any case) is a bool, an optionally signed run of digits an int (``007`` is 7), a
decimal number with a point or an exponent a float (``0.5``, ``1e-3``), a lone word a true flag,
and anything else, or any quoted value (``tag="42"``), a string. Keywords the callable does not
take are refused, with its signature; ``seed`` is the arena's.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import inspect
import re
import sys
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from agents.common.params import Param, check_seed
from agents.common.spec_syntax import (
    cast_spec_values,
    check_spec_text,
    spec_error,
    split_items,
)
from agents.observation_policy import ObservationPolicyAgent
from tbw_envs.core.contract import kind_of, short_repr
from tbw_envs.games import game_names

MODULE_PREFIX = "_user_agent_"
MAX_MESSAGE_CHARS = 500
REFUSED_KEYS = {"seed": "the seed is make_agent's seed= argument, which the arena sets for "
                        "every game"}
EXPECTED = ("a view agent class (with reset(seed) and act(view)), an observation policy "
            "policy(observation, action_mask) -> action (a function, or a class whose instances "
            "are such callables), or a factory(seed) returning either")
_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]+)?")
_MAX_NUMBER_CHARS = 40


class UserAgentError(ValueError):
    """A user agent spec that cannot be loaded or built: the message names the spec, the file
    or module, the name and what is wrong."""


def bounded(text: str) -> str:
    """``text`` cut to ``MAX_MESSAGE_CHARS``."""
    if len(text) <= MAX_MESSAGE_CHARS:
        return text
    return text[: MAX_MESSAGE_CHARS - 3] + "..."


def is_user_spec(spec: Any) -> bool:
    """Whether ``spec`` names a file or a module (the part before its first ':' ends in
    ``.py`` or holds '/', '\\' or '.') rather than a registry agent (a bare word)."""
    if not isinstance(spec, str):
        return False
    target = spec.partition(":")[0].strip()
    return target.endswith(".py") or any(char in target for char in "/\\.")


@dataclass(frozen=True)
class UserSpec:
    """A user agent spec, split: where the agent is, its name there, and its arguments."""

    spec: str
    target: str  # a file path or a dotted module name
    name: str
    texts: dict[str, str | None]
    quoted: frozenset[str]

    @property
    def is_file(self) -> bool:
        return self.target.endswith(".py") or "/" in self.target or "\\" in self.target

    @property
    def label(self) -> str:
        return f"{self.target}:{self.name}"

    def error(self, problem: str) -> UserAgentError:
        return UserAgentError(str(spec_error(self.spec, bounded(problem))))


def split_user_spec(spec: str) -> UserSpec:
    """``path.py:Name,key=value,...`` or ``package.module:Name,...`` split (the syntax only)."""
    check_spec_text(spec)
    target, colon, rest = spec.partition(":")
    target = target.strip()
    name, _, body = rest.partition(",")
    name = name.strip()
    if not colon or not name:
        raise UserAgentError(str(spec_error(
            spec, f"name the agent in {short_repr(target)} after a ':', as in "
                  f"{target}:MyAgent (a class, a factory(seed) or a policy function)")))
    if not name.isidentifier():
        raise UserAgentError(str(spec_error(
            spec, f"expected the name of a class or function after ':', got {short_repr(name)}")))
    texts, quoted = split_items(spec, body)
    return UserSpec(spec, target, name, texts, quoted)


# ---------------------------------------------------------------------------- loading
def module_name_for(path: Path) -> str:
    """The private module name of the file at resolved ``path``: the same in every process."""
    stem = re.sub(r"\W", "_", path.stem)
    digest = hashlib.sha256(str(path).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{MODULE_PREFIX}{stem}_{digest}"


def where_it_failed(exc: BaseException, filename: str | None = None) -> str:
    """`` (line N)`` of the deepest frame of ``filename`` in ``exc``'s traceback (None: the
    deepest frame outside the import machinery, `` (file, line N)``), or ''."""
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__)
              if (frame.filename == filename if filename is not None
                  else not frame.filename.startswith("<frozen"))]
    if not frames:
        return ""
    if filename is not None:
        return f" (line {frames[-1].lineno})"
    return f" ({frames[-1].filename}, line {frames[-1].lineno})"


def load_file(user: UserSpec) -> ModuleType:
    """The module of ``user``'s file, imported once per process under ``module_name_for``."""
    given = Path(user.target).expanduser()
    path = given if given.is_absolute() else Path.cwd() / given
    if given.suffix != ".py":
        raise user.error(f"{short_repr(user.target)} is not a .py file (a file agent is "
                         f"path/to/file.py:Name; a module one is package.module:Name)")
    if not path.is_file():
        where = ("" if given.is_absolute() else
                 f"; a relative path is read from the working directory {Path.cwd()}")
        what = "is a folder, not a file" if path.is_dir() else "not found"
        raise user.error(f"file {short_repr(str(path))} {what}{where} (with Ray the file must "
                         f"exist at the same path on every worker)")
    path = path.resolve()
    name = module_name_for(path)
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before it runs: dataclasses and pickle look it up there
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:
        del sys.modules[name]
        raise user.error(f"importing {path} failed{where_it_failed(exc, str(path))}: "
                         f"{type(exc).__name__}: {exc}") from exc
    return module


def load_module(user: UserSpec) -> ModuleType:
    """The module ``user`` names (``package.module``), imported from ``sys.path``."""
    if not all(part.isidentifier() for part in user.target.split(".")):
        raise user.error(f"{short_repr(user.target)} is neither a module name "
                         f"(package.module) nor a .py file")
    try:
        return importlib.import_module(user.target)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing and (user.target == missing or user.target.startswith(missing + ".")):
            raise user.error(f"no module named {short_repr(missing)} on sys.path (for a file, "
                             f"give its path ending in .py)") from exc
        raise user.error(f"importing module {user.target} failed: {type(exc).__name__}: "
                         f"{exc}") from exc
    except (Exception, SystemExit) as exc:
        raise user.error(f"importing module {user.target} failed{where_it_failed(exc)}: "
                         f"{type(exc).__name__}: {exc}") from exc


def public_names(module: ModuleType) -> list[str]:
    """The module's public classes and functions, by name."""
    return sorted(name for name, value in vars(module).items()
                  if not name.startswith("_") and (isinstance(value, type)
                                                   or inspect.isroutine(value)))


def find_object(user: UserSpec) -> tuple[ModuleType, Any]:
    """The file's or module's module, and the object the spec names in it."""
    module = load_file(user) if user.is_file else load_module(user)
    where = user.target if user.is_file else f"module {user.target}"
    try:
        return module, getattr(module, user.name)
    except AttributeError:
        names = public_names(module)
        listed = ", ".join(names) if names else "none"
        raise user.error(f"{where} has no {short_repr(user.name)}; its public classes and "
                         f"functions: {listed}") from None


# ---------------------------------------------------------------------------- kinds
def signature_of(user: UserSpec, obj: Any) -> inspect.Signature:
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError) as exc:
        raise user.error(f"{user.name}: cannot read its signature ({exc}); expected "
                         f"{EXPECTED}") from None


def takes_keyword(signature: inspect.Signature, name: str) -> bool:
    """Whether a call may pass ``name=`` (a named parameter or ``**kwargs``)."""
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            return True
        if parameter.name == name and parameter.kind in (
                inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            return True
    return False


def takes_two_positional(signature: inspect.Signature) -> bool:
    positional = 0
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            return True
        if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY,
                              inspect.Parameter.POSITIONAL_OR_KEYWORD):
            positional += 1
    return positional >= 2


def has_call(cls: type) -> bool:
    """Whether instances of ``cls`` are callable (``getattr(cls, "__call__")`` is always true:
    it finds ``type.__call__``)."""
    return any("__call__" in vars(klass) for klass in cls.__mro__ if klass is not object)


def is_view_agent(obj: Any) -> bool:
    return callable(getattr(obj, "act", None)) and callable(getattr(obj, "reset", None))


@dataclass(frozen=True)
class UserEntry:
    """A loaded user agent: what ``Name`` is (``kind``), how it is called, its arguments."""

    user: UserSpec
    obj: Any
    kind: str  # "view agent", "policy class", "factory" or "policy"
    signature: inspect.Signature
    kwargs: dict[str, Any]
    game: str | None = None  # the game it says it plays (``declared_game``); None: any

    def build(self, seed: int | None, game: str | None, variant: str | None) -> Any:
        """A fresh agent for one game (a view agent, or a policy wrapped as one)."""
        made = self.call(seed)
        if self.kind == "view agent":
            return made
        if self.kind == "factory":
            if is_view_agent(made):
                return made
            if not callable(made) or isinstance(made, type):
                raise self.user.error(f"factory {self.user.name}(seed) returned "
                                      f"{kind_of(made)} {short_repr(made)}; expected {EXPECTED}")
            if callable(getattr(made, "act", None)):
                raise self.user.error(f"factory {self.user.name}(seed) returned an agent "
                                      f"with act() but no reset(seed)")
            if not takes_two_positional(signature_of(self.user, made)):
                raise self.user.error(f"factory {self.user.name}(seed) returned "
                                      f"{short_repr(made)}, which does not take "
                                      f"(observation, action_mask); expected {EXPECTED}")
        return ObservationPolicyAgent(made, self.user.spec, game, variant)

    def call(self, seed: int | None) -> Any:
        if self.kind == "policy":
            return (self.obj if not self.kwargs else
                    _KeywordPolicy(self.obj, self.kwargs))
        seeded = self.kind != "policy class" or takes_keyword(self.signature, "seed")
        try:
            return self.obj(seed=seed, **self.kwargs) if seeded else self.obj(**self.kwargs)
        except Exception as exc:
            raise self.user.error(f"{self.user.name}(seed={seed!r}, ...) raised "
                                  f"{type(exc).__name__}: {exc}") from exc


@dataclass(frozen=True)
class _KeywordPolicy:
    """A policy function with the spec's keyword arguments bound."""

    policy: Callable[..., Any]
    kwargs: dict[str, Any]

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> Any:
        return self.policy(observation, action_mask, **self.kwargs)


def classify(user: UserSpec, obj: Any) -> tuple[str, inspect.Signature]:
    """What ``obj`` is (module docstring), and the signature a spec's arguments must fit."""
    if isinstance(obj, type):
        signature = signature_of(user, obj)
        if callable(getattr(obj, "act", None)):
            if not callable(getattr(obj, "reset", None)):
                raise user.error(f"{user.target}: class {user.name} has act() but no "
                                 f"reset(seed) method; a view agent needs both")
            if not takes_keyword(signature, "seed"):
                raise user.error(f"{user.target}: view agent class {user.name}{signature} does "
                                 f"not accept seed; it is built as {user.name}(seed=..., "
                                 f"**arguments) for every game")
            return "view agent", signature
        if has_call(obj):
            return "policy class", signature
        raise user.error(f"{user.target}: class {user.name} has neither act(view) nor "
                         f"__call__(observation, action_mask); expected {EXPECTED}")
    if callable(getattr(obj, "act", None)):
        raise user.error(f"{user.target}: {user.name} is an agent object, not a class: name "
                         f"its class, built as Class(seed=...) for every game")
    if not callable(obj):
        raise user.error(f"{user.target}: {user.name} is {kind_of(obj)} {short_repr(obj)}, not "
                         f"a class or function; expected {EXPECTED}")
    signature = signature_of(user, obj)
    seed = signature.parameters.get("seed")
    if seed is not None and seed.kind is not inspect.Parameter.POSITIONAL_ONLY:
        return "factory", signature
    if takes_two_positional(signature):
        return "policy", signature
    raise user.error(f"{user.target}: {user.name}{signature} takes neither seed (a factory) "
                     f"nor (observation, action_mask) (a policy); expected {EXPECTED}")


# ---------------------------------------------------------------------------- arguments
def literal_value(text: str | None, quoted: bool) -> Any:
    """A spec value without a declared type, by its form (module docstring)."""
    if text is None:
        return True
    if quoted or len(text) > _MAX_NUMBER_CHARS:
        return text
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    return text


def declared_params(user: UserSpec, obj: Any) -> dict[str, Param] | None:
    declared = getattr(obj, "PARAMS", None)
    if declared is None:
        return None
    if not isinstance(declared, Mapping) or not all(
            isinstance(p, Param) for p in declared.values()):
        raise user.error(f"{user.name}.PARAMS must map parameter names to "
                         f"agents.common.params kinds (Int(), Float(), ...), got "
                         f"{short_repr(declared)}")
    return {key: param for key, param in declared.items() if param.spec}


def spec_arguments(user: UserSpec, obj: Any, kind: str,
                   signature: inspect.Signature) -> dict[str, Any]:
    """The spec's arguments, cast (by ``PARAMS`` or by their form) and checked against the
    signature of what they are passed to."""
    params = declared_params(user, obj)
    if params is not None:
        kwargs = cast_spec_values(user.spec, user.label, user.texts, params, REFUSED_KEYS)
    else:
        kwargs = {}
        for key, text in user.texts.items():
            if key in REFUSED_KEYS:
                raise user.error(f"{key}= cannot be set ({REFUSED_KEYS[key]})")
            kwargs[key] = literal_value(text, key in user.quoted)
    shown = f"{user.name}{signature}"
    for key in kwargs:
        if not takes_keyword(signature, key):
            raise user.error(f"unknown parameter {short_repr(key)} for {user.label}; it takes "
                             f"{shown}")
    placeholders = (None, None) if kind == "policy" else ()
    seeded = {"seed": 0} if kind in ("view agent", "factory") else {}
    if kind == "policy class" and takes_keyword(signature, "seed"):
        seeded = {"seed": 0}
    try:
        signature.bind(*placeholders, **seeded, **kwargs)
    except TypeError as exc:
        raise user.error(f"{user.label}: {exc}; it takes {shown}") from None
    return kwargs


def load_user_agent(spec: str) -> UserEntry:
    """Load the file or module of a user agent spec and check what it names and the spec's
    arguments, without building the agent."""
    user = split_user_spec(spec)
    module, obj = find_object(user)
    kind, signature = classify(user, obj)
    return UserEntry(user, obj, kind, signature, spec_arguments(user, obj, kind, signature),
                     declared_game(user, module, obj))


def declared_game(user: UserSpec, module: ModuleType, obj: Any) -> str | None:
    """The game the agent says it plays: ``obj.game`` (a class attribute), else the module's
    ``GAME``; None when it says neither (any game). A value that is not a game's name is
    refused, naming where it was found."""
    where = f"{user.name}.game"
    value = getattr(obj, "game", None)
    if isinstance(value, property):  # each instance says: not known before one is built
        value = None
    if value is None:
        where, value = "GAME", getattr(module, "GAME", None)
    if value is None:
        return None
    if not isinstance(value, str) or value not in game_names():
        raise user.error(f"{user.target}: {where} is {short_repr(value)}, not a game; games "
                         f"are {', '.join(game_names())}")
    return value


def user_agent_game(spec: str) -> str | None:
    """The game a user agent spec's agent says it plays (``declared_game``; this loads its file
    or module), or None: any game."""
    return load_user_agent(spec).game


def parse_user_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``("target:Name", kwargs)`` of a user agent spec (this loads its file or module)."""
    entry = load_user_agent(spec)
    return entry.user.label, dict(entry.kwargs)


def user_agent_maker(spec: str, game: str | None = None,
                     variant: str | None = None) -> Callable[[int | None], Any]:
    """A user agent's spec in two steps: the spec is loaded and checked against ``game`` here,
    once, and the callable returned builds one agent per call, from its seed (the arena builds
    one for every game and loads the spec once per process)."""
    if game is not None and game not in game_names():
        raise ValueError(f"unknown game {short_repr(game)}; games are {list(game_names())}")
    entry = load_user_agent(spec)
    if game is not None and entry.game is not None and entry.game != game:
        declared = (f"{entry.user.name}.game = {entry.game!r}"
                    if isinstance(getattr(entry.obj, "game", None), str)
                    else f"GAME = {entry.game!r} in {entry.user.target}")
        raise entry.user.error(f"{entry.user.label} plays {entry.game} ({declared}), not "
                               f"{game}, the game being played")

    def make(seed: int | None) -> Any:
        agent = entry.build(check_seed(seed, f"make_agent({short_repr(spec)})"), game, variant)
        with contextlib.suppress(AttributeError):  # __slots__ or a read-only name: kept as is
            agent.name = spec
        return agent

    return make
