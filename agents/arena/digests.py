"""The digests that make a record prove the game it describes.

A record carries a chain of SHA-256 digests over the game's canonical state encoding (the
game description's ``state_encoding``: the same bytes in every process, whatever
PYTHONHASHSEED):
  h_0 = sha256("tbw-envs-arena/start" 0 context 0 state_0)
  h_k = sha256(h_{k-1} action_k 0 state_k)          (h as 32 raw bytes, action in decimal)
where the context fingerprints the scenario or rule set (``variant_context``). The record stores
h_0 and h_n in full ("start", "final"), the first PLY_DIGEST_HEX hex digits of every h_k
("plies", so a replay names the first ply that differs) and "record", the SHA-256 of the whole
record but that field (canonical JSON): it binds the agents to their seats, the seeds, the
opening and the result to the moves. The digests catch any edit or corruption and a replay under
changed rules; they are not a signature (whoever edits a record can recompute them).

A whole ``games.jsonl`` is bound by its manifest (``games.manifest.json`` beside it, written with
it by ``records.write_records``): the count of its records, each record's ``[game id, record
digest]`` in file order, and "digest", the SHA-256 of the canonical JSON of the format, the
count and that list. It catches a record removed, doubled, reordered or added, and an edited
manifest; like the record digests it is not a signature.
"""

from __future__ import annotations

import hashlib
from typing import Any

from tbw_envs.core.canonical import canonical_json
from tbw_envs.description import Game

DIGEST_SCHEME = "sha256-chain/1"
PLY_DIGEST_HEX = 16
MANIFEST_FORMAT = "tbw-envs-arena-manifest/1"
KEPT_CONTEXTS = 16  # game contexts a process keeps (``game_context``)

# Each (game, variant) context computed in this process. Kept by the game's name, not the
# description: a worker process receives a copy of the description with every task.
_contexts: dict[tuple[str, str], bytes] = {}


def game_context(game: Game, variant: Any) -> bytes:
    """Canonical JSON of the game and the scenario or rule set it is played under (computed
    once per process for a variant given by name or path)."""
    key = (game.name, variant) if isinstance(variant, str) else None
    context = _contexts.get(key) if key is not None else None
    if context is None:
        context = canonical_json([game.name, game.variant_context(variant)])
        if key is not None:
            if len(_contexts) >= KEPT_CONTEXTS:
                del _contexts[next(iter(_contexts))]  # the oldest
            _contexts[key] = context
    return context


class DigestChain:
    """The running digest of one game (``DIGEST_SCHEME``) of ``game``'s description:
    ``step`` after every ply."""

    def __init__(self, game: Game, variant: Any, state: Any):
        self.game = game
        self.state_encoding = game.state_encoding
        self.value = hashlib.sha256(b"tbw-envs-arena/start\0" + game_context(game, variant)
                                    + b"\0" + self.state_encoding(state)).digest()
        self.start = self.value.hex()
        self.plies = bytearray()  # PLY_DIGEST_HEX // 2 bytes per ply: compact while in memory

    def step(self, action: int, state: Any) -> str:
        """Digest the ply ``action`` that led to ``state``; returns its short hex digest."""
        self.value = self.next_value(action, state)
        short = self.value[:PLY_DIGEST_HEX // 2]
        self.plies += short
        return short.hex()

    def next_value(self, action: int, state: Any) -> bytes:
        """The h_k the ply ``action`` that led to ``state`` would give, the chain unchanged."""
        return hashlib.sha256(self.value + str(int(action)).encode("ascii") + b"\0"
                              + self.state_encoding(state)).digest()

    @property
    def final(self) -> str:
        return self.value.hex()


def ply_digest_list(packed: bytes) -> list[str]:
    width = PLY_DIGEST_HEX // 2
    return [packed[i:i + width].hex() for i in range(0, len(packed), width)]


def record_digest(record: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of ``record`` without ``digests.record``."""
    body = dict(record)
    digests = body.get("digests")
    if isinstance(digests, dict):
        body["digests"] = {key: value for key, value in digests.items() if key != "record"}
    return hashlib.sha256(canonical_json(body)).hexdigest()


def manifest_entry(record: dict[str, Any]) -> list[Any]:
    """What a file's manifest lists for ``record``: ``[game id, record_digest]``."""
    return [record.get("game_id"), record_digest(record)]


def manifest_digest(entries: list[list[Any]]) -> str:
    """SHA-256 of the canonical JSON of the manifest format, the count and ``entries``."""
    return hashlib.sha256(canonical_json([MANIFEST_FORMAT, len(entries), entries])).hexdigest()


def manifest_of(entries: list[list[Any]]) -> dict[str, Any]:
    """The manifest of a file whose records have these ``manifest_entry`` values, in order."""
    return {"format": MANIFEST_FORMAT, "count": len(entries), "digest": manifest_digest(entries),
            "records": entries}
