"""Deprecated: moved to ``agents.tbw.search.model``; this path re-exports it."""

from agents.tbw.search.model import FREE, Evaluator, TurnModel  # noqa: F401
