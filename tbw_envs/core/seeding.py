"""Seeds derived from what a thing is, stable across processes and Python runs."""

from __future__ import annotations

import hashlib
from typing import Any

__all__ = ["derive_seed"]


def derive_seed(*parts: Any) -> int:
    """A 63-bit seed from any printable parts, stable across processes and Python runs (unlike
    ``hash``), so a game's seeds depend on what the game is, never on who plays it when."""
    digest = hashlib.blake2b(repr(parts).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1
