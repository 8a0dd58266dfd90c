"""Deprecated: moved to ``agents.tbw.search.exact``; this path re-exports it."""

from agents.tbw.search.exact import MAX_ASSIGNMENTS, solve_exact  # noqa: F401
