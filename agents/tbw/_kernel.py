"""Deprecated: moved to ``agents.tbw.search.kernel``; this path re-exports it."""

from agents.tbw.search.kernel import (  # noqa: F401
    HAVE_NUMBA,
    MAX_ATTACKABLE,
    enumerate_plans,
    run,
    supports,
)
