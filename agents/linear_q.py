"""Deprecated: moved to agents.learning.linear_q; this path re-exports it."""

from agents.learning.linear_q import LinearQ, feature_scales  # noqa: F401
