"""Evaluation weights: the one loader behind both games' weight files, and the name-or-path
lookup that every folder of named configs shares.

A game's evaluation weights are data, in ``configs/agents/<prefix><name>.yaml`` (TBW's
``tbw_eval_<name>.yaml``, Junqi's ``junqi_eval_<name>.yaml``). ``WeightsFiles`` loads them for
one game, given its file prefix and its check of what a file holds; each game's
``load_weights`` (``agents.tbw.evaluation``, ``agents.junqi.evaluation``) is a thin use of it.
``resolve_config`` is the lookup alone, for other named configs (the pinned ladders of
``agents.arena.ladder_config``).

The rules every loader here keeps:

- a spec is a path when it has a folder in it or ends in ``.yaml`` / ``.yml``, and otherwise the
  name of a bundled file; an unknown name is refused with the known ones and a "did you mean",
  a path that is not a file with its text;
- a file is read through the project's one YAML loader (``tbw_envs.core.yaml_loader``: its size
  limit, no aliases, no duplicate keys) and cached by what the file is now, so a re-tuned file
  is read again; its top level must be a mapping;
- a ``name`` in a file is text of at most ``MAX_WEIGHTS_NAME_CHARS`` characters
  (``check_weights_name``), and a weight a finite real number within its game's bounds
  (``check_number``: no bool, no text, no NaN);
- every problem raises ``WeightsError`` (a ``ConfigError``, so a ``ValueError``) naming the spec
  or the file, the field and the value.
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

from tbw_envs.core.configs_path import configs_dir
from tbw_envs.core.contract import check_text, is_integer, is_real_number, kind_of, short_repr
from tbw_envs.core.yaml_loader import (
    ConfigError,
    cached_by_file,
    is_file,
    load_yaml,
    number_text_hint,
)

__all__ = [
    "MAX_WEIGHTS_NAME_CHARS", "WeightsError", "WeightsFiles", "bundled_names", "check_number",
    "check_weights_name", "is_config_path", "resolve_config",
]  # fmt: skip

MAX_WEIGHTS_NAME_CHARS = 100
YAML_SUFFIXES = (".yaml", ".yml")
# A "did you mean" is only worked out for names of a plausible length: difflib's cost grows with
# the text, and no bundled name is anywhere near this long.
_MAX_GUESSED_CHARS = 100
# Parsed weights files kept per game: a run reads a handful (the default, the tuned, a tuner's).
_CACHED_FILES = 16

T = TypeVar("T")


class WeightsError(ConfigError):
    """Evaluation weights that cannot be used: an unknown name, a missing file, a file or a value
    that breaks the rules; the message names the spec or the file, the field and the value."""


def is_config_path(text: str) -> bool:
    """Whether the spec ``text`` is a path (a folder in it, or a YAML suffix) rather than the name
    of a bundled file."""
    return ("/" in text or os.sep in text or (os.altsep is not None and os.altsep in text)
            or text.endswith(YAML_SUFFIXES))


def bundled_names(folder: Path, prefix: str = "") -> list[str]:
    """The names of the files ``folder/<prefix><name>.yaml``, sorted."""
    return sorted(path.stem.removeprefix(prefix) for path in folder.glob(f"{prefix}*.yaml"))


def resolve_config(
    spec: Any,
    folder: Path,
    *,
    what: str,
    prefix: str = "",
    also: Sequence[str] = (),
    error: type[Exception] = WeightsError,
) -> Path:
    """The YAML file ``spec`` names: a name -> ``folder/<prefix><name>.yaml``, a path (a text or
    an ``os.PathLike``; see ``is_config_path``) as given. ``error`` says what is wrong, naming
    ``what`` the file holds ("TBW evaluation weights", "ladder") and the spec: a spec that is
    neither text nor a path (``also`` lists what else the caller takes, for the message), an empty
    name, an unknown name (with the known ones and a "did you mean"), a path that is no file."""
    if isinstance(spec, os.PathLike):
        spec = os.fspath(spec)
    if not isinstance(spec, str):
        known = ", ".join(bundled_names(folder, prefix)) or "none bundled"
        kinds = [f"a name ({known})", "a YAML path", *also]
        listed = kinds[0] if len(kinds) == 1 else f"{', '.join(kinds[:-1])} or {kinds[-1]}"
        raise error(f"{what} must be {listed}, got {kind_of(spec)} {short_repr(spec)}")
    if is_config_path(spec):
        path = Path(spec)
        if not is_file(path):
            raise error(f"{what} file {short_repr(spec)} does not exist")
        return path
    if not spec.strip():
        raise error(f"{what}: an empty name {short_repr(spec)}; available: "
                    f"{bundled_names(folder, prefix)}, or a path to a .yaml file")
    path = folder / f"{prefix}{spec}.yaml"
    if not is_file(path):
        known = bundled_names(folder, prefix)
        close = (difflib.get_close_matches(spec, known, n=3)
                 if len(spec) <= _MAX_GUESSED_CHARS else [])
        guess = f"did you mean {' or '.join(map(repr, close))}? " if close else ""
        raise error(f"unknown {what} {short_repr(spec)}; {guess}available: {known}, or a path "
                    f"to a .yaml file")
    return path


def check_weights_name(value: Any, source: str, error: type[Exception] = WeightsError) -> str:
    """The ``name`` of a weights file: text of at most ``MAX_WEIGHTS_NAME_CHARS`` characters."""
    return check_text(value, MAX_WEIGHTS_NAME_CHARS, f"{source}: name", error)


def check_number(value: Any, field: str, source: str, low: float, high: float,
                 error: type[Exception] = WeightsError) -> float:
    """``value`` as a float: a real number (no bool, no text), finite, in ``[low, high]``;
    ``error`` naming ``source``, ``field`` and the value otherwise."""
    if not is_real_number(value):
        raise error(f"{source}: {field} must be a number, got {kind_of(value)} "
                    f"{short_repr(value)}{number_text_hint(value)}")
    out_of_range = error(f"{source}: {field} must lie in [{low:g}, {high:g}], got "
                         f"{short_repr(value)}")
    if is_integer(value) and not low <= value <= high:  # before float(): it overflows past 1e308
        raise out_of_range
    number = float(value)
    if not math.isfinite(number):
        raise error(f"{source}: {field} must be finite, got {short_repr(value)}")
    if not low <= number <= high:
        raise out_of_range
    return number


class WeightsFiles(Generic[T]):
    """One game's weights files, ``<folder>/<prefix><name>.yaml`` (the folder: the bundled
    ``configs/agents/`` unless given): ``load(spec)`` finds the file of a name or a path
    (``resolve_config``), reads it through the YAML loader and hands its top-level mapping to
    ``parse(data, source)``, the game's check of the fields, which raises ``WeightsError`` naming
    ``source`` (the file) and the field. ``what`` names the weights in messages ("TBW evaluation
    weights"), ``also`` what else the game's ``load_weights`` takes."""

    def __init__(self, what: str, prefix: str, parse: Callable[[dict, str], T],
                 also: Sequence[str] = (), folder: Path | None = None):
        self.what = what
        self.prefix = prefix
        self.also = tuple(also)
        self._parse = parse
        self._folder = folder
        # By the file's identity and modification, so a re-tuned file is read again.
        self._read = cached_by_file(maxsize=_CACHED_FILES)(self._read_file)

    @property
    def folder(self) -> Path:
        # Looked up at use time: configs_dir() looks at the disk, not worth doing on import.
        return configs_dir() / "agents" if self._folder is None else Path(self._folder)

    def path(self, name: str) -> Path:
        """The bundled file of ``name``: ``configs/agents/<prefix><name>.yaml``."""
        return self.folder / f"{self.prefix}{name}.yaml"

    def names(self) -> list[str]:
        """The bundled weights' names, sorted."""
        return bundled_names(self.folder, self.prefix)

    def load(self, spec: Any) -> T:
        """The weights of the file ``spec`` names (a name or a path)."""
        path = resolve_config(spec, self.folder, what=self.what, prefix=self.prefix,
                              also=self.also)
        return self._read(path)

    def _read_file(self, path: str) -> T:
        data = load_yaml(path, error=WeightsError)
        if not isinstance(data, dict):
            raise WeightsError(f"{path}: the top level must be a mapping, got "
                               f"{kind_of(data)} {short_repr(data)}")
        return self._parse(data, path)
