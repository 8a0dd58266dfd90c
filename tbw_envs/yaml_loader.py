"""Deprecated: moved to ``tbw_envs.core.yaml_loader``; this path re-exports it."""

from tbw_envs.core.yaml_loader import (  # noqa: F401
    MAX_DEPTH,
    MAX_FILE_BYTES,
    ConfigError,
    is_file,
    load_yaml,
    number_text_hint,
    parse_yaml,
    read_text,
)
