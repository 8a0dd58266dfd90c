"""Deprecated: moved to agents.learning.junqi_tuning; this path re-exports it."""

from agents.learning.junqi_tuning import (  # noqa: F401
    CHECKPOINT_FORMAT,
    STATE_FEATURES,
    JunqiTuningConfig,
    JunqiWeightTuner,
)
