"""For the tests of the training recipes in scripts/integrations/."""

from __future__ import annotations


def assert_trained(result: dict) -> None:
    """What every training recipe must show: only legal moves, and weights that moved."""
    assert result["illegal"] == 0
    assert result["weights_changed"]
