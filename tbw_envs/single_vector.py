"""Batched single-agent envs: one learner seat per game, the opponent played inside ``step`` on
the whole batch at once, over a game's batched core (``tbw_envs.core.batched``).

``gymnasium.make_vec("tbw_envs/JunqiSingle-v0", num_envs=1024,
vectorization_mode="vector_entry_point")`` builds one (TBW's id too), taking the single-agent
env's keywords (``opponent``, ``learner_seat``, ``opening_plies``, the variant, ...) plus
``seed``, ``backend`` and ``autoreset_mode``. It is a ``gymnasium.vector.VectorEnv``:

- ``obs``: ``(N, C, H, W)`` float32, the learner's planes (with ``mask_in_obs``, the Dict of
  the single-agent env, batched); ``rewards``: ``(N,)`` float32, the learner's return on the
  step that ends its game (``illegal_reward`` for an illegal action under "lose");
- ``info``: ``"action_mask"`` ``(N, A)`` bool, ``"learner"`` (its seat), ``"end_reason"``,
  ``"winner"``, ``"plies"``, ``"illegal_action"`` and the game's own (TBW's ``"turn"``). Once a
  game is over its mask allows only ``noop_action`` (the last id), as the single-agent env's
  does, so masked policies stay finite on final observations; the action is never played.

Opponents, batched: ``"random"`` (uniform legal actions from the env's generator), a callable
``(observations (M, C, H, W), masks (M, A) bool) -> (M,) actions`` called once per opponent
move on every game where the opponent is to move (a frozen policy; ``set_opponent`` swaps it,
for snapshots of the learner), or a list of them (a league: each new game draws one).

A new game that ends before the learner's first move (in its opening or the opponent's first
turn) is replaced by another, so every episode has a learner move. Autoreset: ``"next_step"``
(Gymnasium's default) or ``"same_step"``: the finished games' last planes in
``info["final_obs"]`` and their infos in ``info["final_info"]``, with ``info["_final_obs"]``
and ``info["_final_info"]`` saying which slots, as Gymnasium's own vector envs lay them out
(``gymnasium.vector.AutoresetMode`` members are taken too).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode

from tbw_envs.batch_spaces import BatchSpacesOnDemand
from tbw_envs.core.batched import (
    BatchedCore,
    autoreset_name,
    final_infos,
    sample_legal,
    slot_seeds,
)
from tbw_envs.core.contract import (
    check_mask_dtype,
    check_seed,
    is_integer,
    is_real_number,
    opening_plies_problem,
    short_list,
    short_repr,
)

__all__ = ["SingleAgentVectorEnv"]

BatchedOpponent = Callable[[np.ndarray, np.ndarray], Any]
AUTORESET_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}
# A reset that keeps drawing games that end before the learner moves is a broken opponent or
# variant, not bad luck.
MAX_REDRAWS = 100


class SingleAgentVectorEnv(BatchSpacesOnDemand, gymnasium.vector.VectorEnv):
    """See the module docstring; made by ``Game.single_vector_env``."""

    def __init__(self, core: BatchedCore, *, opponent: Any = "random",
                 learner_seat: int | str = 0, illegal_action: str = "lose",
                 illegal_reward: float = -1.0, mask_in_obs: bool = False,
                 opening_plies: int = 0, mask_dtype: Any = np.int8, seed: int | None = None,
                 autoreset_mode: str = "next_step"):
        if is_integer(learner_seat) and learner_seat in (0, 1):
            learner_seat = int(learner_seat)
        elif not (isinstance(learner_seat, str) and learner_seat in ("alternate", "random")):
            raise ValueError(f"learner_seat must be 0, 1, 'alternate' or 'random', got "
                             f"{short_repr(learner_seat)}")
        if not isinstance(illegal_action, str) or illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', got "
                             f"{short_repr(illegal_action)}")
        if not (is_real_number(illegal_reward) and np.isfinite(illegal_reward)):
            raise ValueError(f"illegal_reward must be a finite number, got "
                             f"{short_repr(illegal_reward)}")
        if not isinstance(mask_in_obs, (bool, np.bool_)):
            raise TypeError(f"mask_in_obs must be True or False, got {short_repr(mask_in_obs)}")
        if not is_integer(opening_plies) or opening_plies < 0:
            raise ValueError(f"opening_plies must be a non-negative integer, got "
                             f"{short_repr(opening_plies)}")
        problem = opening_plies_problem(int(opening_plies), core.variant.longest_game(),
                                        f"{core.name} {short_repr(core.variant.name)}")
        if problem:
            raise ValueError(f"opening_plies {problem}")
        autoreset_mode = autoreset_name(autoreset_mode)
        if not isinstance(autoreset_mode, str) or autoreset_mode not in AUTORESET_MODES:
            raise ValueError(f"autoreset_mode must be one of {', '.join(AUTORESET_MODES)}, got "
                             f"{short_repr(autoreset_mode)}")
        self.core = core
        self.num_envs = core.num_envs
        self.learner_seat_option = learner_seat
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.mask_in_obs = bool(mask_in_obs)
        self.opening_plies = int(opening_plies)
        self.autoreset_mode = AUTORESET_MODES[autoreset_mode]
        self.metadata = {"autoreset_mode": self.autoreset_mode}
        self.render_mode = None
        self.end_reasons = ("not_over", *core.end_reasons, "illegal_action")
        self._illegal_code = len(self.end_reasons) - 1
        self._mask_dtype = check_mask_dtype(mask_dtype)
        planes = spaces.Box(0.0, 1.0, core.observation_shape, np.float32)
        self.single_observation_space = planes if not self.mask_in_obs else spaces.Dict({
            "observation": planes,
            "action_mask": spaces.Box(0, 1, (core.num_actions,), self._mask_dtype)})
        self.single_action_space = spaces.Discrete(core.num_actions)
        self.noop_action = core.num_actions - 1
        n = self.num_envs
        self._first_seed = check_seed(seed, "make_vec")
        self._game_rngs: list[np.random.Generator] | None = None
        self._rng = np.random.default_rng()  # openings, "random" opponents, seats, leagues
        self._seat = np.zeros(n, np.int64)
        self._lent = False  # the core's observation was returned as it is
        self._over: np.ndarray | None = None  # the games over at the last emit (noop masks)
        self._next_seat = np.arange(n, dtype=np.int64) % 2  # "alternate"
        self._opponent_index = np.zeros(n, np.int64)
        self._forfeited = np.zeros(n, bool)
        self._needs_reset = np.zeros(n, bool)
        self._all_rows = np.arange(n)
        self.set_opponent(opponent)

    # ------------------------------------------------------------------ opponents
    def set_opponent(self, opponent: Any) -> None:
        """Replace the opponent (``"random"``, a batched callable or a list of them), from the
        next opponent move on; a list is drawn from at each new game."""
        choices = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent]
        if not choices:
            raise ValueError("opponent: an empty list of opponents")
        for choice in choices:
            if not (isinstance(choice, str) and choice == "random") and not callable(choice):
                raise TypeError(
                    f"opponent must be 'random', a callable (observations, action_masks) -> "
                    f"actions over a batch, or a list of them; got {short_repr(choice)}")
        self._opponents = choices
        self._opponent_index[:] = np.minimum(self._opponent_index, len(choices) - 1)

    def _opponent_actions(self, rows: np.ndarray) -> np.ndarray:
        core = self.core
        actions = np.zeros(rows.size, np.int64)
        for index, opponent in enumerate(self._opponents):
            mine = self._opponent_index[rows] == index
            if not mine.any():
                continue
            slots = rows[mine]
            masks = core.action_mask[slots]
            if isinstance(opponent, str):
                chosen = sample_legal(masks, self._rng)
            else:
                chosen = self._checked_opponent_output(opponent(core.observation[slots], masks),
                                                       masks, slots)
            actions[mine] = chosen
        return actions

    def _checked_opponent_output(self, output: Any, masks: np.ndarray,
                                 slots: np.ndarray) -> np.ndarray:
        chosen = np.asarray(output)
        if chosen.shape != (slots.size,) or chosen.dtype.kind not in "iu":
            raise ValueError(f"the opponent must return one integer action per game it is "
                             f"given ({slots.size}), got {short_repr(output)}")
        inside = (chosen >= 0) & (chosen < masks.shape[1])
        legal = inside & masks[np.arange(slots.size), np.where(inside, chosen, 0)]
        if not legal.all():
            bad = slots[~legal]
            raise ValueError(f"the opponent played illegal actions in slots "
                             f"{short_list(bad.tolist())}")
        return chosen.astype(np.int64)

    # ------------------------------------------------------------------ the API
    def reset(self, *, seed: int | Sequence[int] | None = None,
              options: dict[str, Any] | None = None):
        if options not in (None, {}):
            raise ValueError(f"reset: this env takes no options, got {short_repr(options)}")
        if seed is None and self._game_rngs is None:
            seed = self._first_seed
        seeds = slot_seeds(seed, self.num_envs)
        if seeds is not None:
            self._game_rngs = [seeding.np_random(s)[0] for s in seeds]
            # Apart from every game's own stream (slot 0's is seeds[0] alone).
            self._rng = np.random.default_rng([seeds[0], 1])
            first = np.array(seeds) % 2
            self._next_seat = first.astype(np.int64)
        elif self._game_rngs is None:
            self._game_rngs = [seeding.np_random(None)[0] for _ in range(self.num_envs)]
        self._take_back()
        self._start_games(self._all_rows)
        self._needs_reset[:] = False
        observation, info = self._emit(np.zeros(self.num_envs, bool))
        return observation, info

    def step(self, actions: Any):
        if self._game_rngs is None:
            raise RuntimeError("step() before reset(): call reset() first")
        core = self.core
        actions = self._check_actions(actions)
        resetting = self._needs_reset
        playing = ~resetting
        legal = core.action_mask[self._all_rows, actions]
        illegal = playing & ~legal
        if illegal.any() and self.illegal_action == "raise":
            raise ValueError(f"step: illegal action(s) in slots {_indices(illegal)} (actions "
                             f"{actions[illegal][:8].tolist()}); nothing was played")
        self._take_back()
        if resetting.any():
            self._start_games(np.flatnonzero(resetting))
        moving = playing & legal
        core.step(actions, moving)
        self._play_opponents(np.flatnonzero(moving))
        ended = moving & core.terminated
        rewards = np.zeros(self.num_envs, np.float32)
        winner = core.winner
        rewards[ended & (winner == self._seat)] = 1.0
        rewards[ended & (winner == 1 - self._seat)] = -1.0
        rewards[illegal] = self.illegal_reward
        self._forfeited[illegal] = True
        terminated = ended | illegal
        observation, info = self._emit(terminated)
        if self.autoreset_mode == AutoresetMode.SAME_STEP and terminated.any():
            final_observation, final_info = observation, final_infos(info, terminated)
            self._take_back()
            self._start_games(np.flatnonzero(terminated))
            observation, info = self._emit(np.zeros(self.num_envs, bool))
            info.update(final_info=final_info, _final_info=terminated.copy(),
                        final_obs=final_observation, _final_obs=terminated.copy())
            self._needs_reset = np.zeros(self.num_envs, bool)
        else:
            self._needs_reset = terminated.copy()
        return observation, rewards, terminated, np.zeros(self.num_envs, bool), info

    def action_masks(self) -> np.ndarray:
        """The learner's masks, ``(N, A)`` bool (what MaskablePPO asks for)."""
        if self._over is None:
            raise RuntimeError("action_masks() before reset(): call reset() first")
        masks = self.core.action_mask.copy()
        masks[self._over] = False
        masks[self._over, self.noop_action] = True
        return masks

    def state(self, index: int) -> Any:
        """Game ``index`` as a core state (``TBWState``, ``JunqiState``)."""
        if not is_integer(index) or not 0 <= index < self.num_envs:
            raise IndexError(f"state: index must be an integer below {self.num_envs}, got "
                             f"{short_repr(index)}")
        return self.core.state(int(index))

    def close(self, **kwargs: Any) -> None:
        """Nothing to release (no processes, no windows)."""

    # ------------------------------------------------------------------ games
    def _start_games(self, rows: np.ndarray) -> None:
        """New games in ``rows``: each seat drawn, the opening and the opponent's moves played,
        until the learner is to move (a game that ends before that is drawn again)."""
        core = self.core
        self._choose_seats(rows)
        self._forfeited[rows] = False
        pending = rows
        for _ in range(MAX_REDRAWS):
            core.reset_games(pending, [self._game_rngs[i] for i in pending])
            if len(self._opponents) > 1:
                self._opponent_index[pending] = self._rng.integers(len(self._opponents),
                                                                   size=pending.size)
            for _ in range(self.opening_plies):
                live = pending[~core.terminated[pending]]
                if not live.size:
                    break
                self._step_rows(live, sample_legal(core.action_mask[live], self._rng))
            self._play_opponents(pending)
            pending = pending[core.terminated[pending]]
            if not pending.size:
                return
        raise RuntimeError(f"{MAX_REDRAWS} new games in a row ended before the learner's first "
                           f"move (slots {short_list(pending.tolist())}): check the opponent "
                           f"and opening_plies")

    def _choose_seats(self, rows: np.ndarray) -> None:
        option = self.learner_seat_option
        if option == "alternate":
            self._seat[rows] = self._next_seat[rows]
            self._next_seat[rows] = 1 - self._next_seat[rows]
        elif option == "random":
            self._seat[rows] = self._rng.integers(2, size=rows.size)
        else:
            self._seat[rows] = option

    def _play_opponents(self, rows: np.ndarray) -> None:
        core = self.core
        while rows.size:
            rows = rows[~core.terminated[rows] & (core.current_player[rows] != self._seat[rows])]
            if not rows.size:
                return
            self._step_rows(rows, self._opponent_actions(rows))

    def _step_rows(self, rows: np.ndarray, actions: np.ndarray) -> None:
        full = np.zeros(self.num_envs, np.int64)
        full[rows] = actions
        active = np.zeros(self.num_envs, bool)
        active[rows] = True
        self.core.step(full, active)

    def _emit(self, terminated: np.ndarray):
        """The learner's planes, masks and infos; a finished game shows the learner's own view
        of its last position and a mask of ``noop_action`` alone."""
        core = self.core
        # The core's planes are lent, not copied (see ``_take_back``); the rows changed here are
        # finished games', which the core writes afresh before it shows them again.
        observation = core.observation
        self._lent = True
        for i in np.flatnonzero(terminated & (core.current_player != self._seat)):
            observation[i] = core.observe_as(int(i), int(self._seat[i]))
        self._over = terminated | self._forfeited
        masks = self.action_masks()
        forfeited = self._forfeited
        info = {
            "action_mask": masks,
            "learner": self._seat.copy(),
            "end_reason": np.where(forfeited, self._illegal_code, core.end_reason),
            "winner": np.where(forfeited, 1 - self._seat, core.winner),
            "plies": core.plies.copy(),
            "illegal_action": forfeited.copy(),
            **{name: array.copy() for name, array in core.extra_info().items()},
        }
        if self.mask_in_obs:
            observation = {"observation": observation,
                           "action_mask": masks.astype(self._mask_dtype)}
        return observation, info

    def _take_back(self) -> None:
        """Before the core writes: the planes lent by ``_emit`` stay the caller's (the kernels
        write whole rows of planes and never read them, so the core goes on in a copy)."""
        if self._lent:
            self.core.release_observation()
            self._lent = False

    def _check_actions(self, actions: Any) -> np.ndarray:
        array = np.asarray(actions)
        if array.shape != (self.num_envs,) or array.dtype.kind not in "iu":
            raise ValueError(f"step: actions must be {self.num_envs} integer action ids, got "
                             f"{short_repr(actions)} (shape {array.shape}, dtype {array.dtype})")
        bad = (array < 0) | (array >= self.core.num_actions)
        if bad.any():
            raise ValueError(f"step: action ids run from 0 to {self.core.num_actions - 1}; "
                             f"slots {_indices(bad)} hold {array[bad][:8].tolist()}")
        return array.astype(np.int64, copy=False)


def _indices(mask: np.ndarray) -> str:
    return short_list(np.flatnonzero(mask).tolist())
