"""Deprecated: moved to agents.learning.tbw_tuning; this path re-exports it."""

from agents.learning.tbw_tuning import (  # noqa: F401
    CHECKPOINT_FORMAT,
    EXPLORATIONS,
    FIXED_FEATURES,
    LEARNED_FEATURES,
    STATE_FEATURES,
    TUNING_SCENARIOS,
    TBWTuningConfig,
    TBWWeightTuner,
)
