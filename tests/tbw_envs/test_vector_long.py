"""The long exactness run: 10^6 plies per game, every bundled variant, fresh and mid-game
starts, the compiled batched env against the reference backend
(``scripts/dev/vector_exactness.py``). Slow: minutes per game."""

from __future__ import annotations

import pytest

from scripts.dev import vector_exactness

pytest.importorskip("numba", reason="numba not installed (the fast extra)")


@pytest.mark.slow
@pytest.mark.parametrize("game", ["junqi", "tbw"])
def test_a_million_plies_per_game_are_equal(game):
    rows = vector_exactness.run(1_000_000, [game], seed=11)
    assert sum(row[3]["plies"] for row in rows) >= 1_000_000
    # Every variant ended games, from fresh starts and mid-game ones alike.
    assert all(row[3]["games ended"] > 0 for row in rows)


def test_the_exactness_check_catches_a_difference(monkeypatch):
    """The checker is not blind: a compiled backend whose planes differ in one slot fails."""
    calls = {"n": 0}

    def spoil(env_step):
        def step(actions):
            out = env_step(actions)
            calls["n"] += 1
            if calls["n"] == 5:
                out[0][3, 0, 0, 0] += 1.0
            return out
        return step

    real_make = vector_exactness.vector.make

    def make(game, num_envs, **kwargs):
        env = real_make(game, num_envs, **kwargs)
        if kwargs.get("backend") == "numba":
            env.step = spoil(env.step)
        return env

    monkeypatch.setattr(vector_exactness.vector, "make", make)
    with pytest.raises(vector_exactness.Mismatch, match=r"obs differs in slots \[3\]"):
        vector_exactness.check_variant("junqi", {"rules": "ccgc"}, 10 * 32, 0, False)
