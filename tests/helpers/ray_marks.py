"""For the Ray and RLlib tests: marks that skip a test when ray (or ray[rllib]) is missing, since
RLlib pins its own gymnasium and lives in its own environment (docs/integrations.md, "RLlib"),
and settings small enough for one training iteration in seconds."""

from __future__ import annotations

import importlib.util

import pytest

HAS_RAY = importlib.util.find_spec("ray") is not None
NO_RAY = "ray is not installed; it needs its own environment (docs/integrations.md, 'RLlib')"
needs_ray = pytest.mark.skipif(not HAS_RAY, reason=NO_RAY)
needs_rllib = pytest.mark.skipif(
    not HAS_RAY or importlib.util.find_spec("ray.rllib") is None,
    reason="ray[rllib] is not installed; it needs its own environment (docs/integrations.md)")
VARIANTS = {"tbw": "duel_5v5_8x8", "junqi": "ccgc"}
# Small enough for one iteration in seconds, big enough for whole games (TBW and Junqi games of
# random-ish play last about 150-250 env steps), so the end-of-game metrics exist.
TINY = dict(train_batch_size=600, minibatch_size=200, num_epochs=1, hidden=(64,),
            num_envs_per_env_runner=1)
