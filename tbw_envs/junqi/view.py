"""Deprecated: ``JunqiView`` lives in ``tbw_envs.junqi.state`` beside ``JunqiState`` (each needs
the other); this path re-exports it."""

from tbw_envs.junqi.state import JunqiView  # noqa: F401
