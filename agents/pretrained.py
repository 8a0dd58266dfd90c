"""Deprecated: moved to agents.learning.pretrained; this path re-exports it."""

from agents.learning.pretrained import (  # noqa: F401
    MANIFEST_KEYS,
    manifest,
    manifest_path,
    pretrained_path,
    trained_for,
)
