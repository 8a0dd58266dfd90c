"""Canonical bytes of values and of game states: the same bytes in every process, whatever
PYTHONHASHSEED (what record digests are computed over)."""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence
from typing import Any

__all__ = ["canonical_json", "int64s"]


def canonical_json(value: Any) -> bytes:
    """Compact, key-sorted, ASCII JSON: one byte string per value in every process."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=True).encode("ascii")


def int64s(values: Sequence[int]) -> bytes:
    """``values`` as little-endian 64-bit integers."""
    return struct.pack(f"<{len(values)}q", *values)
