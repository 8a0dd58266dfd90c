"""What a ``games.jsonl`` record must hold before it is replayed: every field of the shape
replay needs, checked and named (``check_record_shape``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from agents.arena.digests import DIGEST_SCHEME, PLY_DIGEST_HEX
from agents.arena.records import RECORD_FORMAT, RECORD_FORMATS, MalformedRecord
from tbw_envs.core.contract import is_integer, short_repr
from tbw_envs.games import game_names, get_game


def record_name(record: dict[str, Any], index: int | None = None) -> str:
    where = f"record {index}" if index is not None else "record"
    agents = record.get("agents")
    if not (isinstance(agents, list) and len(agents) == 2):
        agents = ["?", "?"]
    return (f"{where} (game {short_repr(record.get('game_id', '?'))}, "
            f"{short_repr(record.get('game', '?'))}: {short_repr(agents[0])} v "
            f"{short_repr(agents[1])})")


def _is_count(value: Any) -> bool:
    return is_integer(value) and value >= 0


def _is_hex(value: Any, length: int) -> bool:
    return (isinstance(value, str) and len(value) == length
            and all(c in "0123456789abcdef" for c in value))


def _pair_of(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, list) and len(value) == 2 and all(map(check, value))


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _is_number(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


# (field path, test, what it must be); a path of keys into nested objects.
_SHAPE = [
    (("game_id",), _is_count, "a non-negative integer"),
    (("pairing",), _is_count, "a non-negative integer"),
    (("pair",), _is_count, "a non-negative integer"),
    (("seed",), _is_count, "a non-negative integer"),
    (("agents",), _pair_of(_is_text), "two agent labels (strings), by seat"),
    (("specs",), _pair_of(_is_text), "two agent specs (strings), by seat"),
    (("agent_seeds",), _pair_of(_is_count), "two non-negative integers, by seat"),
    (("start",), lambda v: isinstance(v, dict), "an object"),
    (("start", "opening_plies"), _is_count, "a non-negative integer"),
    (("actions",), lambda v: isinstance(v, list) and all(_is_count(a) for a in v),
     "a list of non-negative integers"),
    (("result",), lambda v: isinstance(v, dict), "an object"),
    (("result", "returns"), _pair_of(_is_number), "two finite numbers, by seat"),
    (("result", "winner"), lambda v: v is None or (is_integer(v) and v in (0, 1)),
     "0, 1 or null"),
    (("result", "end_reason"), _is_text, "a string"),
    (("result", "plies"), _is_count, "a non-negative integer"),
]
_SHAPE_V2 = [
    (("swapped",), lambda v: isinstance(v, bool), "true or false"),
    (("base_seed",), _is_count, "a non-negative integer"),
    (("start", "opening_plies_requested"), _is_count, "a non-negative integer"),
    (("digests",), lambda v: isinstance(v, dict), "an object"),
    (("digests", "scheme"), lambda v: v == DIGEST_SCHEME, repr(DIGEST_SCHEME)),
    (("digests", "start"), lambda v: _is_hex(v, 64), "64 lowercase hex digits"),
    (("digests", "final"), lambda v: _is_hex(v, 64), "64 lowercase hex digits"),
    (("digests", "record"), lambda v: _is_hex(v, 64), "64 lowercase hex digits"),
    (("digests", "plies"),
     lambda v: isinstance(v, list) and all(_is_hex(d, PLY_DIGEST_HEX) for d in v),
     f"a list of {PLY_DIGEST_HEX}-hex-digit digests, one per ply"),
]
_MISSING = object()


def check_record_shape(record: Any, index: int | None = None) -> None:
    """Raise ``MalformedRecord`` naming the record and the first field that is missing or of
    the wrong type; nothing is replayed before every field has the shape replay needs."""
    if not isinstance(record, dict):
        raise MalformedRecord(f"{'record' if index is None else f'record {index}'}: a record "
                              f"is a JSON object, got {type(record).__name__}")
    name = record_name(record, index)
    fmt = record.get("format", _MISSING)
    if fmt not in RECORD_FORMATS:
        raise MalformedRecord(f"{name}: unknown record format {short_repr(fmt)}; expected one "
                              f"of {', '.join(RECORD_FORMATS)}")
    game = record.get("game")
    if not isinstance(game, str) or game not in game_names():
        raise MalformedRecord(f"{name}: unknown game {short_repr(game)}; expected one of "
                              f"{', '.join(game_names())}")
    description = get_game(game)
    noun = description.variant_noun.replace(" ", "-")  # "a rule-set name"
    shape = list(_SHAPE) + [((description.variant_flag,), _is_text, f"a {noun} name or path")]
    if description.has_layouts:
        shape += [(("start", "layouts"), _pair_of(_is_text), "two layouts (text), by seat"),
                  (("start", "layout_sources"), _pair_of(lambda v: v in ("random", "agent")),
                   "two of 'random' or 'agent', by seat")]
    if fmt == RECORD_FORMAT:
        shape += _SHAPE_V2
    for path, test, what in shape:
        value: Any = record
        for key in path:
            value = value.get(key, _MISSING) if isinstance(value, dict) else _MISSING
        field = ".".join(path)
        if value is _MISSING:
            raise MalformedRecord(f"{name}: missing field {field!r}")
        if not test(value):
            raise MalformedRecord(f"{name}: field {field!r} must be {what}, got "
                                  f"{type(value).__name__} {short_repr(value)}")
    # Optional (--record-thinking): per action, what the mover's thinking() said.
    thinking = record.get("thinking", _MISSING)
    if thinking is not _MISSING and not (
            isinstance(thinking, list) and len(thinking) == len(record["actions"])
            and all(entry is None or isinstance(entry, dict) for entry in thinking)):
        raise MalformedRecord(f"{name}: field 'thinking' must be a list of one object or null "
                              f"per action ({len(record['actions'])}), got "
                              f"{type(thinking).__name__} {short_repr(thinking)}")


def has_digests(record: dict[str, Any]) -> bool:
    return record.get("format") == RECORD_FORMAT
