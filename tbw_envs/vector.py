"""Batched self-play envs: N games of one variant stepped together by the game's batched core.

>>> import numpy as np
>>> from tbw_envs import vector
>>> envs = vector.make("junqi", 1024, seed=0, rules="ccgc")
>>> obs, info = envs.reset()
>>> rng = np.random.default_rng(0)
>>> for _ in range(100):
...     actions = vector.sample_legal(info["action_mask"], rng)
...     obs, rewards, terminated, truncated, info = envs.step(actions)

Each game is the game's AEC env (``tbw_v0``, ``junqi_v0``) seen by the player to move:

- ``obs``: ``(N, C, H, W)`` float32, the planes ``env.observe(agent)["observation"]`` gives the
  player to move, in its frame;
- ``step(actions)``: ``actions`` an ``(N,)`` integer array of action ids in the mover's frame
  (the AEC env's ids);
- ``rewards``: ``(N, 2)`` float32, a column per seat, nonzero only on the step that ends a game
  (the AEC env's returns); ``terminated``, ``truncated``: ``(N,)`` bool (no game truncates:
  every end, a ply cap included, is a rule of the game);
- ``info``: ``"action_mask"`` ``(N, A)`` bool, ``"current_player"``, ``"end_reason"`` (the
  AEC env's info codes, ``end_reasons`` names them), ``"winner"`` (-1 for a draw and while
  the game runs) and ``"plies"``, each ``(N,)`` int64, plus the game's own (TBW's ``"turn"``).

Game ``i`` replays the AEC env reset with seed ``seed + i`` (then reset without a seed at each
new game) and stepped with the same actions: the same planes, masks, movers, rewards and end
reasons, bit for bit, whichever backend and however many threads run it.

Autoreset follows Gymnasium's modes (``gymnasium.vector.AutoresetMode``): ``"next_step"``
(the default, as Gymnasium's vector envs): the step after a game ends starts a new one in its
slot, ignoring its action, with zero rewards; ``"same_step"``: the new game starts in the step
that ended the old one, whose last planes are in ``info["final_obs"]`` and infos in
``info["final_info"]`` (``info["_final_obs"]`` and ``info["_final_info"]`` say which slots, as
Gymnasium's own vector envs lay them out); ``"disabled"``: a
finished game stays finished until ``reset(options={"reset_mask": mask})``.

An illegal action is refused (``illegal_action="raise"``, the default): a ValueError naming the
env indices and actions, and nothing changes. ``illegal_action="lose"`` is the AEC ``env()``
rule instead: the offender's game ends, -1 for it, 0 for the other seat, end reason
``"illegal_action"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode

from tbw_envs.batch_spaces import BatchSpacesOnDemand
from tbw_envs.core.batched import (
    BatchedCore,
    autoreset_name,
    check_num_envs,
    final_infos,
    sample_legal,
    slot_seeds,
)
from tbw_envs.core.contract import check_seed, is_integer, short_list, short_repr
from tbw_envs.games import get_game

__all__ = ["AUTORESET_MODES", "ILLEGAL_ACTION_RULES", "SelfPlayVectorEnv", "make",
           "sample_legal"]

AUTORESET_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP,
                   "disabled": AutoresetMode.DISABLED}
ILLEGAL_ACTION_RULES = ("raise", "lose")
RESET_OPTIONS = ("states", "reset_mask")


def make(game: str, num_envs: int, *, seed: int | None = None, backend: str = "auto",
         autoreset_mode: str = "next_step", illegal_action: str = "raise", copy: bool = True,
         threads: int | None = None, **variant: Any) -> SelfPlayVectorEnv:
    """``num_envs`` self-play games of ``game`` (a registered name: ``"tbw"``, ``"junqi"``),
    the variant given as the game's AEC env takes it (``rules="ccgc"``,
    ``scenario="duel_5v5_8x8"``; TBW also ``flip_perspective``).

    ``seed``: the seed of the first ``reset()`` (one given to ``reset`` wins).
    ``backend``: ``"numba"`` (the compiled kernels, the ``fast`` extra), ``"reference"`` (a loop
    over the game's core states: slow, and the same results) or ``"auto"`` (numba where it
    imports). ``threads``: how many threads step the compiled backend (None: one per core this
    process may use; the arrays are the same for any count). ``copy=False`` returns the env's
    own arrays from ``reset`` and ``step`` (the next call overwrites them) instead of copies."""
    description = get_game(game)
    count = check_num_envs(num_envs)
    core = description.batched_core(count, backend=backend, threads=threads, **variant)
    return SelfPlayVectorEnv(core, seed=seed, autoreset_mode=autoreset_mode,
                             illegal_action=illegal_action, copy=copy)


class SelfPlayVectorEnv(BatchSpacesOnDemand):
    """N self-play games on a batched core (``tbw_envs.core.batched.BatchedCore``); see the
    module docstring. Made by ``make``."""

    def __init__(self, core: BatchedCore, *, seed: int | None = None,
                 autoreset_mode: str = "next_step", illegal_action: str = "raise",
                 copy: bool = True):
        autoreset_mode = autoreset_name(autoreset_mode)
        if not isinstance(autoreset_mode, str) or autoreset_mode not in AUTORESET_MODES:
            raise ValueError(f"autoreset_mode must be one of {', '.join(AUTORESET_MODES)}, "
                             f"got {short_repr(autoreset_mode)}")
        if not isinstance(illegal_action, str) or illegal_action not in ILLEGAL_ACTION_RULES:
            raise ValueError(f"illegal_action must be 'raise' or 'lose', got "
                             f"{short_repr(illegal_action)}")
        if not isinstance(copy, bool):
            raise ValueError(f"copy must be True or False, got {short_repr(copy)}")
        self._first_seed = check_seed(seed, "make")
        self.core = core
        self.num_envs = core.num_envs
        self.game = core.name
        self.backend = core.backend
        self.autoreset_mode = AUTORESET_MODES[autoreset_mode]
        self.illegal_action = illegal_action
        self.copy = copy
        self.metadata = {"autoreset_mode": self.autoreset_mode}
        # The AEC env's info codes: 0 "not_over", the game's reasons, then "illegal_action".
        self.end_reasons = ("not_over", *core.end_reasons, "illegal_action")
        self._illegal_code = len(self.end_reasons) - 1
        self.single_observation_space = spaces.Box(0.0, 1.0, core.observation_shape, np.float32)
        self.single_action_space = spaces.Discrete(core.num_actions)
        n = self.num_envs
        self._rngs: list[np.random.Generator] | None = None
        self._forfeited = np.zeros(n, bool)
        self._forfeit_winner = np.full(n, -1, np.int64)
        self._needs_reset = np.zeros(n, bool)  # next_step: finished last step, reset this one
        self._rewards = np.zeros((n, 2), np.float32)
        self._all = np.ones(n, bool)
        self._lent = False  # the core's observation was returned as it is

    # ------------------------------------------------------------------ the API
    @property
    def variant(self) -> Any:
        return self.core.variant

    def reset(self, *, seed: int | Sequence[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """New games in every slot (or in the slots of ``options["reset_mask"]``).

        ``seed``: an int (slot ``i`` gets ``seed + i``), a sequence of N ints, or None (the
        slots keep their generators; at the first reset, ``make``'s seed, else fresh entropy).
        ``options={"states": [...]}``: slot ``i`` continues from a copy of the i-th core state
        (running, of this variant; None for a new game)."""
        options = {} if options is None else options
        if not isinstance(options, dict):
            raise TypeError(f"reset: options must be a dict or None, got {short_repr(options)}")
        unknown = set(options) - set(RESET_OPTIONS)
        if unknown:
            raise ValueError(f"reset: unknown option(s) {short_list(unknown)}; supported: "
                             f"{list(RESET_OPTIONS)}")
        if seed is None and self._rngs is None:
            seed = self._first_seed
        seeds = slot_seeds(seed, self.num_envs)
        slots = self._check_reset_mask(options.get("reset_mask"))
        states = self._check_states(options.get("states"), slots)
        # Everything is checked: from here on nothing can fail halfway.
        if seeds is not None:
            fresh = [seeding.np_random(s)[0] for s in seeds]
            if self._rngs is None or slots.all():
                self._rngs = fresh
            else:
                for i in np.flatnonzero(slots):
                    self._rngs[i] = fresh[i]
        elif self._rngs is None:
            self._rngs = [seeding.np_random(None)[0] for _ in range(self.num_envs)]
        indices = np.flatnonzero(slots)
        given = [i for i in indices if states is not None and states[i] is not None]
        self._take_back()
        for i in given:
            self.core.set_state(int(i), states[i])
        drawn = np.array([i for i in indices if states is None or states[i] is None], np.int64)
        if drawn.size:
            self.core.reset_games(drawn, [self._rngs[i] for i in drawn])
        self._forfeited[indices] = False
        self._forfeit_winner[indices] = -1
        self._needs_reset[indices] = False
        return self._out(self.core.observation), self._info()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """One action in every slot; see the module docstring for autoreset and illegal
        actions."""
        core = self.core
        if self._rngs is None:
            raise RuntimeError(f"{self.game} vector env: call reset() before step()")
        actions = self._check_actions(actions)
        resetting = self._needs_reset
        finished = core.terminated | self._forfeited
        if self.autoreset_mode == AutoresetMode.DISABLED and finished.any():
            raise ValueError(
                f"step: the games in slots {_indices(finished)} are over and autoreset is "
                f"disabled; reset them with reset(options={{'reset_mask': mask}})")
        playing = ~finished if self.autoreset_mode != AutoresetMode.NEXT_STEP else ~resetting
        legal = core.action_mask[np.arange(self.num_envs), actions]
        illegal = playing & ~legal
        if illegal.any() and self.illegal_action == "raise":
            where = np.flatnonzero(illegal)
            raise ValueError(
                f"step: illegal action(s) in slots {_indices(illegal)} (actions "
                f"{actions[where[:8]].tolist()}); nothing was played. info['action_mask'] "
                f"gives the legal ones")
        rewards = self._rewards
        rewards[:] = 0.0
        self._take_back()
        if resetting.any():
            indices = np.flatnonzero(resetting)
            core.reset_games(indices, [self._rngs[i] for i in indices])
            self._forfeited[indices] = False
            self._forfeit_winner[indices] = -1
        moving = playing & legal
        core.step(actions, moving)
        if illegal.any():  # "lose": the offender's game ends unplayed
            offenders = np.flatnonzero(illegal)
            movers = core.current_player[offenders]
            self._forfeited[offenders] = True
            self._forfeit_winner[offenders] = 1 - movers
            rewards[offenders, movers] = -1.0
        ended = moving & core.terminated
        if ended.any():
            rows = np.flatnonzero(ended)
            winners = core.winner[rows]
            won = winners >= 0
            rewards[rows[won], winners[won]] = 1.0
            rewards[rows[won], 1 - winners[won]] = -1.0
        terminated = ended | illegal
        info = self._info()
        if self.autoreset_mode == AutoresetMode.SAME_STEP and terminated.any():
            final_observation = (self._out(core.observation) if self.copy
                                 else core.observation.copy())
            final_info = final_infos(info, terminated)
            self._take_back()
            indices = np.flatnonzero(terminated)
            core.reset_games(indices, [self._rngs[i] for i in indices])
            self._forfeited[indices] = False
            self._forfeit_winner[indices] = -1
            info = self._info()
            info.update(final_info=final_info, _final_info=terminated.copy(),
                        final_obs=final_observation, _final_obs=terminated.copy())
        self._needs_reset = (terminated if self.autoreset_mode == AutoresetMode.NEXT_STEP
                             else np.zeros(self.num_envs, bool))
        return (self._out(core.observation), rewards.copy(), terminated,
                np.zeros(self.num_envs, bool), info)

    def state(self, index: int) -> Any:
        """Game ``index`` as a new core state (``TBWState``, ``JunqiState``), for search,
        rendering and replay."""
        if not is_integer(index) or not -self.num_envs <= index < self.num_envs:
            raise IndexError(f"state: index must be an integer below {self.num_envs}, got "
                             f"{short_repr(index)}")
        if self._rngs is None:
            raise RuntimeError(f"{self.game} vector env: call reset() before state()")
        return self.core.state(int(index) % self.num_envs)

    def close(self) -> None:
        """Nothing to release (no processes, no windows); here for the vector-env API."""

    def __repr__(self) -> str:
        return (f"<SelfPlayVectorEnv {self.game} x{self.num_envs} ({self.backend}, "
                f"{self.autoreset_mode.value})>")

    # ------------------------------------------------------------------ helpers
    def _out(self, array: np.ndarray) -> np.ndarray:
        """One of the core's arrays as ``reset`` and ``step`` return it. With ``copy``, the
        planes are lent, not copied: the kernels only ever write whole rows of them, never read
        them, and ``_take_back`` moves the core off them before it writes again, so a full set
        of planes is saved (a third of the memory of TBW's largest battle). The masks, which the
        legality checks read, are copied like every other array."""
        if not self.copy:
            return array
        if array is self.core.observation:
            self._lent = True
            return array
        return array.copy()

    def _take_back(self) -> None:
        """Before the core writes: arrays lent by ``_out`` stay the caller's."""
        if self._lent:
            self.core.release_observation()
            self._lent = False

    def _info(self) -> dict[str, Any]:
        core = self.core
        forfeited = self._forfeited
        end_reason = np.where(forfeited, self._illegal_code, core.end_reason)
        winner = np.where(forfeited, self._forfeit_winner, core.winner)
        mask = core.action_mask.copy() if forfeited.any() else self._out(core.action_mask)
        mask[forfeited] = False
        info = {"action_mask": mask, "current_player": core.current_player.copy(),
                "end_reason": end_reason, "winner": winner, "plies": core.plies.copy()}
        for name, array in core.extra_info().items():
            info[name] = array.copy()
        return info

    def _check_actions(self, actions: Any) -> np.ndarray:
        array = np.asarray(actions)
        if array.shape != (self.num_envs,):
            raise ValueError(f"step: actions must have shape ({self.num_envs},), one per env, "
                             f"got shape {array.shape}")
        if array.dtype.kind not in "iu":
            raise ValueError(f"step: actions must be integers (action ids), got dtype "
                             f"{array.dtype}")
        low, high = (int(array.min()), int(array.max())) if array.size else (0, 0)
        if low < 0 or high >= self.core.num_actions:
            bad = np.flatnonzero((array < 0) | (array >= self.core.num_actions))
            raise ValueError(f"step: action ids run from 0 to {self.core.num_actions - 1}; "
                             f"slots {short_list(bad.tolist())} hold "
                             f"{array[bad[:8]].tolist()}")
        return array.astype(np.int64, copy=False)

    def _check_reset_mask(self, mask: Any) -> np.ndarray:
        if mask is None:
            return self._all
        array = np.asarray(mask)
        if array.shape != (self.num_envs,) or array.dtype != bool:
            raise ValueError(f"reset: options['reset_mask'] must be a bool array of shape "
                             f"({self.num_envs},), got {short_repr(mask)}")
        return array

    def _check_states(self, states: Any, slots: np.ndarray) -> list[Any] | None:
        if states is None:
            return None
        if not isinstance(states, (list, tuple)) or len(states) != self.num_envs:
            raise ValueError(f"reset: options['states'] must be a list of {self.num_envs} "
                             f"core states (None for a new game), got {short_repr(states)}")
        for i, state in enumerate(states):
            if state is None or not slots[i]:
                continue
            problem = self.core.check_variant_state(state)
            if problem is None and state.is_terminal():
                problem = "that game is already over"
            if problem is not None:
                raise ValueError(f"reset: options['states'][{i}]: {problem}")
        return list(states)


def _indices(mask: np.ndarray) -> str:
    return short_list(np.flatnonzero(mask).tolist())
