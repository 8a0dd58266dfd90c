"""Hypothesis settings and strategies shared by the fuzz tests of the config loaders: a per-example
deadline (a slower example counts as a hang) and the names and values mutations draw from."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# A legal board may take ~2 s to build at the tile limit; anything slower counts as a hang.
FUZZ = settings(
    deadline=timedelta(seconds=5),
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,  # the same examples on every run: a fuzz failure reproduces
)

NAMES = ["plain", "hill", "lake", "bog", "sword", "bow", "foot", "hex", "square8", "leader",
         "draw", "hp", "none", ".", "#"]
scalars = (
    st.none() | st.booleans() | st.integers(-3, 12) | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=6) | st.sampled_from(NAMES)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(NAMES) | st.text(max_size=4) | st.integers(-2, 5),
                      inner, max_size=3),
    max_leaves=6,
)
