"""Deprecated: moved to agents.learning.weight_tuner; this path re-exports it."""

from agents.learning.weight_tuner import (  # noqa: F401
    MAX_CHECKPOINT_BYTES,
    MAX_EPISODES,
    MAX_GAMES,
    MAX_PLIES,
    MAX_REWARD,
    MAX_SEED,
    MAX_SPEC_CHARS,
    CheckpointError,
    TuningConfigError,
    TuningHistory,
    WeightTuner,
    check_agent_specs,
    check_epsilons,
    check_int,
    check_names,
    check_real,
    check_text,
)
