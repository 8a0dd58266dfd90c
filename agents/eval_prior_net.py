"""Deprecated: moved to agents.learning.eval_prior_net; this path re-exports it."""

from agents.learning.eval_prior_net import (  # noqa: F401
    DEFAULT_BETA,
    EvalPriorPolicy,
    PriorPlanesExtractor,
    eval_prior_policy_kwargs,
)
