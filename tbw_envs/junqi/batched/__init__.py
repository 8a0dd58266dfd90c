"""Junqi's batched core: N games of one rule set in arrays, stepped together
(``tbw_envs.core.batched.BatchedCore``; ``tbw_envs.vector`` builds the env on it).

``make_batched(num_envs, rules, backend)`` picks the backend: ``"numba"`` (the compiled kernels
of ``kernels.py``, the ``fast`` extra) or ``"reference"`` (a loop over ``JunqiState``s, the
specification the kernels are held to). New games start from two uniformly random layouts
drawn exactly as ``junqi_v0``'s reset draws them, so slot ``i`` replays that env game for game.
"""

from __future__ import annotations

from typing import Any

from tbw_envs.core.batched import resolve_backend
from tbw_envs.junqi.batched.base import JunqiBatch
from tbw_envs.junqi.batched.reference import ReferenceJunqiBatch
from tbw_envs.junqi.variant import load_rules

__all__ = ["JunqiBatch", "ReferenceJunqiBatch", "make_batched"]


def make_batched(num_envs: int, rules: Any = "ccgc", backend: str = "auto",
                 threads: int | None = None) -> JunqiBatch:
    """``num_envs`` Junqi games of ``rules`` (a name, path, dict or JunqiRules), empty until
    ``reset_games`` or ``set_state`` fills them. ``threads``: how many threads step the
    compiled backend (None: one per core this process may use)."""
    chosen = resolve_backend(backend)
    loaded = load_rules(rules)
    if chosen == "numba":
        from tbw_envs.junqi.batched.compiled import CompiledJunqiBatch  # numba: optional

        return CompiledJunqiBatch(num_envs, loaded, threads)
    return ReferenceJunqiBatch(num_envs, loaded)
