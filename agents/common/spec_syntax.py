"""The syntax of agent spec strings, shared by the registry (``agents.registry``) and the user
agents of files and modules (``agents.user_agents``).

A spec is ``name`` or ``name:key=value,key=value``. Items are separated by commas; spaces around
keys and unquoted values are dropped. A lone word is a flag (``ppo:pretrained``). A value that
holds a comma (or starts with a quote, or must keep its outer spaces) is quoted with double or
single quotes, and a quote of the same kind inside it is doubled, as in CSV:
``ppo:path="runs/a,b/model.zip"``, ``ppo:path='it''s/model.zip'``. Each key may appear once. The
whole spec is at most ``MAX_SPEC_CHARS`` characters.

``cast_spec_values`` casts the text of each value by the type its parameter declares
(``agents.common.params``), never by guessing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents.common.params import Bool, Param, ParameterTypeError
from tbw_envs.core.contract import short_repr

MAX_SPEC_CHARS = 8192


def spec_error(spec: str, problem: str) -> ValueError:
    """A ValueError about ``spec`` (quoted, cut to a bounded length)."""
    return ValueError(f"agent spec {short_repr(spec)}: {problem}")


def check_spec_text(spec: Any) -> str:
    """``spec`` if it is a string of at most ``MAX_SPEC_CHARS`` characters."""
    if not isinstance(spec, str):
        raise ParameterTypeError(f"agent spec must be a string such as 'greedy' or "
                                 f"'ucbmcts:iterations=200', got {type(spec).__name__} "
                                 f"{short_repr(spec)}")
    if len(spec) > MAX_SPEC_CHARS:
        raise spec_error(spec, f"{len(spec)} characters long; a spec has at most "
                               f"{MAX_SPEC_CHARS}")
    return spec


def split_spec(spec: Any) -> tuple[str, dict[str, str | None]]:
    """``(name, {key: value text})`` of a spec: the syntax only, no types (module docstring)."""
    check_spec_text(spec)
    name, _, body = spec.partition(":")
    name = name.strip()
    if not name:
        raise spec_error(spec, "no agent name before ':'")
    texts, _ = split_items(spec, body)
    return name, texts


def split_items(spec: str, body: str) -> tuple[dict[str, str | None], frozenset[str]]:
    """The ``key=value`` items of ``body`` (the part of ``spec`` after the agent's name) as
    ``{key: value text}`` (None for a lone word), and the keys whose value was quoted."""
    items: dict[str, str | None] = {}
    quoted: set[str] = set()
    i, n = 0, len(body)
    while i < n:
        j = i
        while j < n and body[j] not in "=,":
            j += 1
        key = body[i:j].strip()
        if j == n or body[j] == ",":
            if key:  # a lone word: a flag ("ppo:pretrained")
                if key in items:
                    raise spec_error(spec, f"{short_repr(key)} is given twice")
                items[key] = None
            i = j + 1  # (or an empty item: "a=1,,b=2", a trailing comma)
            continue
        if not key:
            raise spec_error(spec, f"expected key=value, got a value without a key at "
                                   f"{short_repr(body[i:])}")
        i = j + 1
        while i < n and body[i] in " \t":
            i += 1
        if i < n and body[i] in "\"'":
            quote, i, chars = body[i], i + 1, []
            while True:
                if i >= n:
                    raise spec_error(spec, f"the value of {short_repr(key)} opens a {quote} "
                                           "quote that is never closed")
                if body[i] == quote:
                    if i + 1 < n and body[i + 1] == quote:  # a doubled quote: the quote itself
                        chars.append(quote)
                        i += 2
                        continue
                    i += 1
                    break
                chars.append(body[i])
                i += 1
            value = "".join(chars)
            while i < n and body[i] in " \t":
                i += 1
            if i < n and body[i] != ",":
                raise spec_error(spec, f"text after the closing quote of the value of "
                                       f"{short_repr(key)}: {short_repr(body[i:])}")
            i += 1
            quoted.add(key)
        else:
            end = body.find(",", i)
            end = n if end < 0 else end
            value = body[i:end].strip()
            i = end + 1
        if key in items:
            raise spec_error(spec, f"{short_repr(key)} is given twice")
        items[key] = value
    return items, frozenset(quoted)


def cast_spec_values(spec: str, name: str, texts: Mapping[str, str | None],
                     params: Mapping[str, Param],
                     refused: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The spec's values cast by their declared types, checked; a lone word (value None) sets a
    declared bool flag. ``refused``: keys a spec may never set, with the reason (``seed``)."""
    refused = refused or {}
    kwargs: dict[str, Any] = {}
    for key, text in texts.items():
        param = params.get(key)
        if param is None and text is None:
            raise spec_error(spec, f"expected key=value, got {short_repr(key)}")
        if param is None:
            known = ", ".join(sorted(params)) or "no parameters"
            why = f" ({refused[key]})" if key in refused else ""
            raise spec_error(spec, f"unknown parameter {short_repr(key)} for {name}{why}; "
                                   f"{name} takes: {known}")
        if text is None:  # a lone word
            if not isinstance(param, Bool):
                raise spec_error(spec, f"expected key=value, got {short_repr(key)}")
            text = "true"
        try:
            kwargs[key] = param.parse(text, key, name)
        except ParameterTypeError as exc:
            raise ParameterTypeError(f"agent spec {short_repr(spec)}: {exc}") from None
        except ValueError as exc:
            raise spec_error(spec, str(exc)) from None
    missing = sorted(k for k, p in params.items() if p.required and k not in kwargs)
    if missing:
        raise spec_error(spec, f"{name} needs {', '.join(f'{k}=' for k in missing)}")
    return kwargs
