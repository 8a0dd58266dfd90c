"""Deprecated: moved to ``tbw_envs.core.configs_path``; this path re-exports it."""

from tbw_envs.core.configs_path import (  # noqa: F401
    configs_dir,
)
