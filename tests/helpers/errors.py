"""Checks of error messages shared by the input-contract tests: the error type, the words the
message must hold, and a bound on its length; seeds every seeded constructor must refuse."""

from __future__ import annotations

import numpy as np
import pytest

# Every message of the agents' layer stays short, whatever the value (short_repr cuts values to
# 100 characters).
MAX_MESSAGE = 700


def raises_naming(build, error, *words):
    """``build()`` raises ``error`` with a message that holds every one of ``words`` and is at
    most MAX_MESSAGE characters long; returns the message."""
    with pytest.raises(error) as info:
        build()
    message = str(info.value)
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    assert len(message) <= MAX_MESSAGE, f"{len(message)} characters: {message[:200]}..."
    return message


# Seeds every seeded constructor must refuse: (seed, error, how the message shows the seed).
BAD_SEEDS = [(-1, ValueError, "-1"), (np.int64(-3), ValueError, "-3"),
             ("abc", TypeError, "abc"), (1.5, TypeError, "1.5"), (True, TypeError, "True"),
             (np.float64(2.0), TypeError, "2.0"), ([1], TypeError, "[1]")]


def assert_names(message: str, *parts: str) -> None:
    for part in parts:
        assert part in message, f"{part!r} not in {message!r}"
