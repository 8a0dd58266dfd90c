"""Deprecated: moved to ``tbw_envs.core.contract``; this path re-exports it."""

from tbw_envs.core.contract import (  # noqa: F401
    GameOverError,
    check_action,
    check_agent,
    check_options,
    check_seed,
    check_text,
    is_integer,
    is_real_number,
    kind_of,
    short_list,
    short_repr,
)
