"""The contract of a batched game core: N games of one variant held in arrays and stepped
together, the game-core half of ``tbw_envs.vector`` (which adds autoreset, seeding, rewards and
the checks of its input).

A game brings its batched core in its own folder (``tbw_envs/<game>/batched/``), with two
backends: ``"numba"`` (compiled kernels over the arrays) and ``"reference"`` (a loop over the
game's ordinary core states, the specification the kernels are tested against). Both fill the
same arrays, so everything above this module reads the arrays and never asks which backend runs.

The arrays are live: a step rewrites them in place. Readers copy what they keep.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np

from tbw_envs.core.contract import check_seed, is_integer, short_repr

BACKENDS = ("auto", "numba", "reference")
# A batch beyond this is a typo, refused before any array is allocated: 65,536 Junqi games hold
# about 1 GB of arrays, and a large TBW board several.
MAX_NUM_ENVS = 1 << 16


def sample_legal(action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``action_mask`` ``(N, A)`` bool, as an
    ``(N,)`` int64 array; a row without a legal action gets 0 (a finished game's slot, whose
    action is ignored)."""
    mask = np.asarray(action_mask, bool)
    if mask.ndim != 2:
        raise ValueError(f"sample_legal: action_mask must be (N, A), got shape {mask.shape}")
    counts = np.count_nonzero(mask, axis=1)
    picks = np.floor(rng.random(mask.shape[0]) * np.maximum(counts, 1)).astype(np.int64)
    # The legal actions of all rows in one sorted run: row r's start at the sum of the counts
    # before it, its k-th legal action k places further.
    legal = np.flatnonzero(mask)
    starts = np.cumsum(counts) - counts
    where = np.minimum(starts + picks, max(legal.size - 1, 0))
    chosen = legal[where] % mask.shape[1] if legal.size else np.zeros(mask.shape[0], np.int64)
    return np.where(counts > 0, chosen, 0).astype(np.int64)


def check_num_envs(num_envs: Any) -> int:
    if not is_integer(num_envs) or not 1 <= num_envs <= MAX_NUM_ENVS:
        raise ValueError(f"num_envs must be an integer from 1 to {MAX_NUM_ENVS:,}, got "
                         f"{short_repr(num_envs)}")
    return int(num_envs)


def slot_seeds(seed: Any, num_envs: int) -> list[int] | None:
    """Each slot's seed from a vector env's ``reset(seed=...)``: None stays None, an int ``s``
    gives ``s + i`` to slot ``i`` (as Gymnasium's vector envs do), a sequence of ``num_envs``
    ints gives one each; anything else is refused by name."""
    if seed is None:
        return None
    if is_integer(seed):
        first = check_seed(seed, "reset")
        return [first + i for i in range(num_envs)]
    if isinstance(seed, (list, tuple, np.ndarray)) and len(seed) == num_envs:
        return [check_seed(s, "reset") for s in seed]
    error = ValueError if isinstance(seed, (list, tuple, np.ndarray)) else TypeError
    raise error(f"reset: seed must be None, an int >= 0 or {num_envs} ints, got "
                f"{short_repr(seed)}")


def final_infos(info: dict[str, np.ndarray], ended: np.ndarray) -> dict[str, np.ndarray]:
    """The infos of the games that just ended, laid out as Gymnasium's vector envs lay out
    ``info["final_info"]``: each key's array, beside ``"_key"`` saying which slots ended."""
    final: dict[str, np.ndarray] = {}
    for key, value in info.items():
        final[key] = value.copy()
        final[f"_{key}"] = ended.copy()
    return final


def autoreset_name(mode: Any) -> Any:
    """A ``gymnasium.vector.AutoresetMode`` member as its name here (``"next_step"``, ...);
    anything else unchanged. Read by value, so this module needs no gymnasium."""
    value = getattr(mode, "value", None)
    names = {"NextStep": "next_step", "SameStep": "same_step", "Disabled": "disabled"}
    return names.get(value, mode) if isinstance(value, str) else mode


def numba_available() -> bool:
    """Whether the compiled backend can run here (numba imports)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def resolve_backend(backend: Any) -> str:
    """``"auto"`` as ``"numba"`` where numba imports, else ``"reference"``; an unknown name or a
    ``"numba"`` without numba is refused by name."""
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend == "auto":
        return "numba" if numba_available() else "reference"
    if backend == "numba" and not numba_available():
        raise ValueError("backend='numba' needs numba (pip install -c constraints.txt "
                         "'tbw-envs[fast]'); backend='reference' runs without it")
    return backend


class BatchedCore(ABC):
    """N games of one variant. Subclasses allocate the arrays below in ``__init__`` and keep
    them current after every ``reset_games``, ``set_state`` and ``step``.

    Arrays (N = ``num_envs``, A = ``num_actions``), for the player to move, in its frame (the
    frame of the game's AEC env, whose ``observe`` they equal):

    - ``observation``: ``(N, *observation_shape)`` float32;
    - ``action_mask``: ``(N, A)`` bool, all False in a finished game;
    - ``current_player``: ``(N,)`` int64, the player to move (in a finished game: whoever
      would have moved);
    - ``terminated``: ``(N,)`` bool;
    - ``winner``: ``(N,)`` int64, 0 or 1, -1 for a draw and while the game runs;
    - ``end_reason``: ``(N,)`` int64, 0 while the game runs, else 1 + the index of the reason
      in ``end_reasons`` (the AEC env's info code);
    - ``plies``: ``(N,)`` int64, actions played since the game was set.
    """

    name: str  # the game's registered name
    end_reasons: tuple[str, ...]
    backend: str  # "numba" or "reference"

    def __init__(self, num_envs: int, num_actions: int, observation_shape: tuple[int, ...]):
        self.num_envs = num_envs
        self.num_actions = num_actions
        self.observation_shape = tuple(observation_shape)
        self.observation = np.zeros((num_envs, *observation_shape), np.float32)
        self.action_mask = np.zeros((num_envs, num_actions), bool)
        self.current_player = np.zeros(num_envs, np.int64)
        self.terminated = np.zeros(num_envs, bool)
        self.winner = np.full(num_envs, -1, np.int64)
        self.end_reason = np.zeros(num_envs, np.int64)
        self.plies = np.zeros(num_envs, np.int64)

    @property
    @abstractmethod
    def variant(self) -> Any:
        """The variant every game plays (a Scenario, a JunqiRules)."""

    @abstractmethod
    def reset_games(self, indices: Sequence[int], rngs: Sequence[np.random.Generator]) -> None:
        """Start new games in the slots ``indices``, drawing any randomness of a new game from
        ``rngs[i]`` for slot ``indices[i]`` exactly as the game's AEC env's ``reset`` draws it
        from its generator, so a slot replays that env game for game."""

    @abstractmethod
    def set_state(self, index: int, state: Any) -> None:
        """Slot ``index`` continues from a copy of ``state`` (a core state of this variant, not
        over; the caller checked its type and that it is running)."""

    @abstractmethod
    def state(self, index: int) -> Any:
        """Slot ``index``'s game as a new core state, equal to the one the reference core would
        hold after the same actions."""

    @abstractmethod
    def step(self, actions: np.ndarray, active: np.ndarray) -> None:
        """Play ``actions[i]`` (int64, in the mover's frame) in every slot with ``active[i]``;
        the caller has checked that each is legal (``action_mask``) and that no active game is
        over. Inactive slots are left exactly as they were."""

    def release_observation(self) -> None:
        """Give ``observation`` away: the core goes on in a copy of it, so the array handed out
        is never written again. A vector env that returns fresh planes lends the core's own and
        calls this before its next write: one copy a step, as before, without a third full set
        of planes beside the core's and the caller's."""
        self.observation = self.observation.copy()
        self._observation_moved()

    def _observation_moved(self) -> None:
        """Point whatever the backend derived from ``observation`` (views, kernel records) at
        the array ``release_observation`` put in its place."""
        return None  # the reference backends index the attributes afresh each time

    def observe_as(self, index: int, player: int) -> np.ndarray:
        """Slot ``index``'s planes as ``player`` sees them (``observation`` holds the mover's
        only): what a single-agent env shows its learner at a game's end."""
        return self.planes_of(self.state(index), player)

    def planes_of(self, state: Any, player: int) -> np.ndarray:
        """``player``'s planes of a core state, as the AEC env's ``observe`` builds them."""
        raise NotImplementedError(f"{type(self).__name__} has no planes_of")

    def extra_info(self) -> dict[str, np.ndarray]:
        """The game's own ``(N,)`` arrays for the vector env's info (TBW's ``"turn"``), as
        its AEC env's infos carry them."""
        return {}

    def check_variant_state(self, state: Any) -> str | None:
        """Why ``state`` cannot be set into this batch (a message), or None when it can."""
        return None
