"""Deprecated: moved to agents.learning.nets; this path re-exports it."""

from agents.learning.nets import (  # noqa: F401
    PlaneCNN,
    mlp_policy_kwargs,
    plane_policy_kwargs,
    policy_kwargs_for,
)
