"""The one YAML loader for config files, safe to point at a file downloaded from the internet.
TBW scenarios and Junqi rule sets are read through it (Junqi layout files through its
``read_text``); agent and arena configs should use it too.

On top of ``yaml.safe_load`` it:

- reads the file as UTF-8, at most ``MAX_FILE_BYTES`` of it;
- refuses aliases (``*name``): ``safe_load`` expands them without bound, so a few hundred bytes
  of nested aliases ("billion laughs") become gigabytes once the value is printed or compared;
- refuses nesting deeper than ``MAX_DEPTH`` (PyYAML's composer recurses, so deep nesting would
  otherwise end in a bare ``RecursionError``);
- refuses duplicate keys, which plain YAML loading resolves silently in favour of the last one;
- turns every failure, PyYAML's own included, into one error type whose message starts with the
  file name.

The limits on what a file may describe (board size, unit counts, text lengths) belong to each
schema: ``tbw_envs.tbw.variant`` and ``tbw_envs.junqi.variant``.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from functools import lru_cache, wraps
from pathlib import Path
from typing import Any, TypeVar

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent
from yaml.nodes import MappingNode
from yaml.resolver import Resolver

from tbw_envs.core.contract import short_repr

__all__ = [
    "MAX_DEPTH", "MAX_FILE_BYTES", "ConfigError", "is_file", "load_yaml", "parse_yaml",
    "read_text",
]  # fmt: skip

# Bundled configs are a few kilobytes and nest four levels deep; these leave ample room.
MAX_FILE_BYTES = 256 * 1024
MAX_DEPTH = 64

T = TypeVar("T")
_MERGE_TAG = "tag:yaml.org,2002:merge"


class ConfigError(ValueError):
    """A config file or value that cannot be used; the message names the source and problem."""


class _Refused(yaml.MarkedYAMLError):
    """A construct this loader refuses; carries the position for the message."""


class _StrictChecks(Composer):
    """Composer hooks: no aliases, a nesting limit, and duplicate-key errors. Mixed into a
    loader class below, with libyaml's parser when it is installed (faster on big files;
    composing stays in Python so these hooks run) and PyYAML's pure-Python parser otherwise."""

    _max_depth = MAX_DEPTH
    _depth = 0

    def compose_node(self, parent, index):
        if self.check_event(AliasEvent):
            event = self.peek_event()
            raise _Refused(
                problem=f"YAML aliases (*{event.anchor}) are not allowed in config files; "
                "write the value out in full",
                problem_mark=event.start_mark,
            )
        self._depth += 1
        try:
            if self._depth > self._max_depth:
                raise _Refused(
                    problem=f"nested deeper than {self._max_depth} levels",
                    problem_mark=self.peek_event().start_mark,
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node, deep=False):
        if isinstance(node, MappingNode):
            seen: dict[Any, int] = {}
            for key_node, _value_node in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first_line = seen.get(key)
                except TypeError:  # unhashable key: PyYAML's own check reports it below
                    continue
                line = key_node.start_mark.line + 1
                if first_line is not None:
                    raise _Refused(
                        problem=f"duplicate key {short_repr(key)} (first given on line "
                        f"{first_line}); each key may appear once",
                        problem_mark=key_node.start_mark,
                    )
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


class _PureStrictLoader(_StrictChecks, yaml.SafeLoader):
    """The checks on PyYAML's pure-Python parser."""


_StrictLoader: type = _PureStrictLoader
if getattr(yaml, "__with_libyaml__", False):
    from yaml._yaml import CParser

    class _FastStrictLoader(_StrictChecks, CParser, SafeConstructor, Resolver):
        """The checks on libyaml's parser (events come from C, composing stays in Python)."""

        def __init__(self, stream):
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

    _StrictLoader = _FastStrictLoader


def is_file(path) -> bool:
    """``Path(path).is_file()``, but False instead of an exception for names the OS cannot
    even look up (too long, embedded NUL bytes)."""
    try:
        return Path(path).is_file()
    except (OSError, ValueError):
        return False


def read_text(
    path,
    *,
    error: type[Exception] = ConfigError,
    max_bytes: int = MAX_FILE_BYTES,
    source: str | None = None,
) -> str:
    """The UTF-8 text of ``path``; ``error`` naming the file (as ``source``, default the path)
    if it is unreadable, larger than ``max_bytes`` or not UTF-8."""
    path = Path(path)
    source = str(path) if source is None else source
    try:
        with path.open("rb") as handle:
            # Read one byte past the limit rather than trusting the size the OS reports
            # (devices and /proc files report 0).
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise error(f"{source}: cannot read the file: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise error(f"{source}: file is larger than the {max_bytes}-byte limit for config files")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(
            f"{source}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "save the file as UTF-8"
        ) from None


def parse_yaml(
    text: str,
    source: str = "<string>",
    *,
    error: type[Exception] = ConfigError,
    max_depth: int = MAX_DEPTH,
) -> Any:
    """Parse YAML ``text`` with the loader's rules; failures raise ``error`` naming ``source``."""
    if not isinstance(text, str):
        raise error(f"{source}: YAML text must be a string, got {type(text).__name__}")
    stream = io.StringIO(text)
    stream.name = str(source)  # PyYAML's own messages then name the file too
    try:
        loader = _StrictLoader(stream)
    except yaml.YAMLError as exc:  # pragma: no cover - the parsers read lazily
        raise error(f"{source}: not valid YAML: {exc}") from None
    loader._max_depth = max_depth
    try:
        return loader.get_single_data()
    except _Refused as exc:
        mark = exc.problem_mark
        raise error(f"{source}: line {mark.line + 1}: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise error(f"{source}: not valid YAML: {exc}") from None
    except (ValueError, TypeError, AttributeError, OverflowError) as exc:
        # PyYAML's constructors raise plain exceptions on some malformed scalars, e.g. an int
        # past Python's 4300-digit limit or ``!!timestamp 2020-13-45``.
        raise error(f"{source}: bad YAML value: {type(exc).__name__}: {exc}") from None
    except RecursionError:  # pragma: no cover - the depth limit comes first
        raise error(f"{source}: nested too deeply") from None
    finally:
        loader.dispose()


def load_yaml(
    path,
    *,
    error: type[Exception] = ConfigError,
    max_bytes: int = MAX_FILE_BYTES,
    max_depth: int = MAX_DEPTH,
    source: str | None = None,
) -> Any:
    """Read and parse the YAML file ``path``; every failure raises ``error`` naming the file
    (as ``source``, default the path)."""
    source = str(path) if source is None else source
    text = read_text(path, error=error, max_bytes=max_bytes, source=source)
    return parse_yaml(text, source, error=error, max_depth=max_depth)


def number_text_hint(value) -> str:
    """A hint for text that Python reads as a number but YAML 1.1 does not: ``1.0e6`` (YAML
    wants the exponent's sign, ``1.0e+6``), ``1e+6`` (and a dot), a quoted ``'2'``; empty for
    anything else."""
    if not isinstance(value, str) or len(value) > 100:
        return ""
    try:
        number = float(value)
    except ValueError:
        return ""
    if not math.isfinite(number):
        return ""
    spelled = yaml.safe_dump(number).splitlines()[0]
    return f" (YAML reads it as text; write the number as {spelled})"


def cached_by_file(maxsize: int) -> Callable[[Callable[[str], T]], Callable[[Any], T]]:
    """Cache ``read(path)`` by what the file is now, not by the name it was asked for: its
    resolved path, modification time, size and inode. An edited or replaced file is read
    again; the cache is bounded, so a long job that reads many files does not grow without end.
    The cached reader raises ``OSError`` when the file cannot be looked up."""

    def decorate(read: Callable[[str], T]) -> Callable[[Any], T]:
        @lru_cache(maxsize=maxsize)
        def cached(path: str, mtime_ns: int, size: int, inode: int) -> T:
            return read(path)

        @wraps(read)
        def reader(path) -> T:
            resolved = Path(path).resolve()
            stat = resolved.stat()
            return cached(str(resolved), stat.st_mtime_ns, stat.st_size, stat.st_ino)

        reader.cache_info = cached.cache_info  # type: ignore[attr-defined]
        reader.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        return reader

    return decorate
