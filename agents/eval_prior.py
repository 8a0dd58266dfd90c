"""Deprecated: moved to agents.learning.eval_prior; this path re-exports it."""

from agents.learning.eval_prior import (  # noqa: F401
    DEFAULT_CLIP,
    DEFAULT_TEMPERATURE,
    SCORES_KEY,
    EvalPrior,
    EvalPriorObservation,
    as_eval_prior,
    dict_observation_space,
    make_junqi_eval_prior,
)
