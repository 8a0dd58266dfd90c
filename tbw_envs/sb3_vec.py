"""Deprecated: moved to agents.learning.sb3_vec; this path re-exports it."""

from agents.learning.sb3_vec import MaskedSB3VecEnv  # noqa: F401
