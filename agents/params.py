"""Deprecated: moved to ``agents.common.params``; this path re-exports it."""

from agents.common.params import *  # noqa: F401,F403
from agents.common.params import __all__  # noqa: F401
