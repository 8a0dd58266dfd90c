"""TBW's batched core: N games of one scenario held in arrays and stepped together
(``tbw_envs.core.batched.BatchedCore``; ``tbw_envs.vector`` builds the env on it).

``make_batched(num_envs, scenario, flip_perspective, backend)`` picks the backend: ``"numba"``
(the compiled kernels of ``kernels.py`` behind ``compiled.py``, the ``fast`` extra) or
``"reference"`` (``reference.py``: a loop over ``TBWState``s, the specification the kernels are
held to); ``base.py`` holds what they share (``TBWBatched``). Both fill the arrays exactly as
``tbw_v0.raw_env(scenario=..., flip_perspective=...)`` observes the agent to move: the
``ObservationEncoder`` planes and the legal mask in the mover's frame, and the actions ``step``
takes are in that frame too. TBW's first position is the scenario's, so a new game draws nothing
from its generator.

Besides the arrays of ``BatchedCore``, ``turn`` (``(N,)`` int64) holds each game's round, as the
AEC env's infos carry it.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from tbw_envs.core.batched import check_num_envs, resolve_backend
from tbw_envs.core.contract import short_repr
from tbw_envs.core.threads import check_threads
from tbw_envs.tbw.batched.base import TBWBatched
from tbw_envs.tbw.batched.reference import ReferenceTBWBatched
from tbw_envs.tbw.variant import load_scenario

__all__ = ["TBWBatched", "make_batched"]


def make_batched(num_envs: int, scenario: Any = "duel_5v5_8x8", flip_perspective: bool = True,
                 backend: str = "auto", threads: int | None = None) -> TBWBatched:
    """``num_envs`` TBW games of ``scenario`` (a bundled name, a YAML path, a dict or a
    Scenario), each at the scenario's first position; ``flip_perspective`` as ``tbw_v0``'s
    (player 1 sees the board and names tiles turned half a turn). ``threads``: how many threads
    step the compiled backend (None: one per core this process may use)."""
    chosen = resolve_backend(backend)
    num_envs = check_num_envs(num_envs)
    check_threads(threads)  # by either backend, though only the compiled one uses threads
    if not isinstance(flip_perspective, (bool, np.bool_)):
        raise TypeError(f"flip_perspective must be True or False, got "
                        f"{short_repr(flip_perspective)}")
    loaded = load_scenario(scenario)
    if flip_perspective and not loaded.board.rotation_is_symmetry():
        warnings.warn(
            f"scenario {loaded.name!r}: a half turn does not map its {loaded.board.rows}-row "
            f"{loaded.board.topology} board onto itself, so player_1's turned view distorts "
            f"neighbourhoods (as in tbw_v0); use an even number of rows or "
            f"flip_perspective=False", stacklevel=2)
    if chosen == "numba":
        from tbw_envs.tbw.batched.compiled import CompiledTBWBatched

        return CompiledTBWBatched(num_envs, loaded, bool(flip_perspective), threads)
    return ReferenceTBWBatched(num_envs, loaded, bool(flip_perspective))
