"""The batched single-agent env (``tbw_envs.single_vector``) as an SB3 ``VecEnv``, for
sb3-contrib's ``MaskablePPO``::

    envs = gymnasium.make_vec("tbw_envs/JunqiSingle-v0", num_envs=64, seed=0,
                              vectorization_mode="vector_entry_point", autoreset_mode="same_step")
    model = MaskablePPO("MlpPolicy", BatchedSB3VecEnv(envs)).learn(10_000)

SB3's vector envs reset a finished env inside the step that ends it; the batched env does the
same under ``autoreset_mode="same_step"``, which the adapter therefore requires (under
``"next_step"`` a whole batch step would be spent on the reset and SB3 would learn from it).
The conventions SB3 needs, from the batched env's arrays:

- ``step_wait`` returns the next decision's planes; a finished game's last planes are in
  ``infos[i]["terminal_observation"]`` and its infos (``end_reason``, ``winner``, ...) are that
  row's ``infos[i]``, as ``DummyVecEnv`` gives them, the new game's in ``reset_infos[i]``; no
  game is cut by a time limit (every end is a rule), so ``"TimeLimit.truncated"`` is False.
- ``env_method("action_masks")`` is one ``(A,)`` bool mask per row (sb3-contrib stacks them),
  and ``action_masks()`` all of them, ``(N, A)``; a mask is never all False.
- ``seed(s)`` seeds the next reset with ``s, s + 1, ...``, one seed per game, as the batched env
  seeds ``reset(seed=s)``: the same games as ``envs.reset(seed=s)``.
- ``get_attr`` reads an attribute of the batched env, the same for every row (its games share
  it); ``env_method("set_opponent", opponent)`` swaps the opponent of the whole batch (for
  snapshots of the learner), so it needs every row (``indices=None``). Nothing is set per row:
  ``set_attr`` refuses and says where to change the env.

Wrap the adapter, not the batched env (``VecMonitor(BatchedSB3VecEnv(envs))`` for episode
statistics). Needs stable-baselines3 (the ``train`` extra).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv

from tbw_envs.core.contract import short_list, short_repr
from tbw_envs.single_vector import SingleAgentVectorEnv

METHOD = "action_masks"
# The batched env's methods that env_method may call, once for all rows. Not reset or step:
# those go through the adapter, which keeps the masks and infos SB3 reads.
BATCH_METHODS = ("set_opponent",)
MASK_KEY = "action_mask"
# The batched env's same-step keys, in Gymnasium's layout: the ended games' infos (each key
# beside its "_key") and last planes.
FINAL_INFO = "final_info"
FINAL_OBSERVATION = "final_obs"


class BatchedSB3VecEnv(VecEnv):
    """An SB3 ``VecEnv`` over a ``SingleAgentVectorEnv`` built with
    ``autoreset_mode="same_step"``; see the module docstring."""

    def __init__(self, envs: Any):
        if not isinstance(envs, SingleAgentVectorEnv):
            raise TypeError(
                "BatchedSB3VecEnv needs the batched single-agent env as gymnasium.make_vec("
                "'tbw_envs/<Game>Single-v0', num_envs, vectorization_mode='vector_entry_point', "
                "autoreset_mode='same_step') returns it (wrap the adapter, not the env: "
                f"VecMonitor(BatchedSB3VecEnv(envs))); got {type(envs).__name__} "
                f"{short_repr(envs)}")
        if envs.autoreset_mode != AutoresetMode.SAME_STEP:
            raise ValueError(
                f"BatchedSB3VecEnv needs autoreset_mode='same_step' (SB3 resets a finished env "
                f"inside the step that ends it), got {envs.autoreset_mode.name.lower()!r}: pass "
                f"autoreset_mode='same_step' to gymnasium.make_vec")
        if not isinstance(envs.single_observation_space, spaces.Box):
            raise ValueError(
                "BatchedSB3VecEnv gives MaskablePPO the masks through action_masks(), not in "
                "the observation: build the env without mask_in_obs=True")
        self.envs = envs
        super().__init__(envs.num_envs, envs.single_observation_space, envs.single_action_space)
        self._masks: np.ndarray | None = None
        self._actions: np.ndarray | None = None

    # ------------------------------------------------------------------ stepping
    def reset(self) -> np.ndarray:
        # SB3's seed(s) sets s + i for env i, the seeds envs.reset(seed=s) gives its games.
        seeds = None if self._seeds[0] is None else list(self._seeds)
        options = self._options[0] if any(self._options) else None
        observation, info = self.envs.reset(seed=seeds, options=options)
        self._reset_seeds()
        self._reset_options()
        self._masks = info[MASK_KEY]
        self.reset_infos = _rows(info, self.num_envs)
        return observation

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions): call step(actions)")
        actions, self._actions = self._actions, None
        observation, rewards, terminated, truncated, info = self.envs.step(actions)
        self._masks = info[MASK_KEY]
        dones = terminated | truncated
        infos = _rows(info, self.num_envs)
        for i in np.flatnonzero(dones):
            # DummyVecEnv's layout: the row's infos are the ended game's, the new game's go to
            # reset_infos.
            self.reset_infos[i] = infos[i]
            infos[i] = {key: value[i] for key, value in info[FINAL_INFO].items()
                        if not key.startswith("_")}
            infos[i]["terminal_observation"] = info[FINAL_OBSERVATION][i].copy()
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return observation, rewards.astype(np.float32, copy=False), dones, infos

    def action_masks(self) -> np.ndarray:
        """Every row's mask of the current decision, ``(N, A)`` bool."""
        if self._masks is None:
            raise RuntimeError("call reset() before asking for action masks")
        return self._masks

    def close(self) -> None:
        self.envs.close()

    # ------------------------------------------------------------------ SB3's attribute protocol
    def get_attr(self, attr_name: str, indices=None) -> list:
        rows = self._checked_indices(indices)
        if (not isinstance(attr_name, str) or attr_name.startswith("_")
                or not hasattr(self.envs, attr_name)):
            raise AttributeError(f"BatchedSB3VecEnv: the batched env has no attribute "
                                 f"{short_repr(attr_name)}")
        value = getattr(self.envs, attr_name)
        return [value for _ in rows]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        raise AttributeError(
            f"BatchedSB3VecEnv cannot set {attr_name!r} per row: its rows are the games of one "
            f"batched env, which holds the setting for all of them; change it on that env "
            f"(venv.envs; the opponent with env_method('set_opponent', opponent))")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        rows = self._checked_indices(indices)
        if method_name == METHOD:
            masks = self.action_masks()
            return [masks[i] for i in rows]
        if method_name not in BATCH_METHODS:
            raise AttributeError(
                f"BatchedSB3VecEnv: env_method reaches {METHOD!r} (one mask per row) and "
                f"{', '.join(map(repr, BATCH_METHODS))} (the whole batch), not "
                f"{short_repr(method_name)}; call anything else on the batched env (venv.envs)")
        if sorted(rows) != list(range(self.num_envs)):
            raise ValueError(
                f"BatchedSB3VecEnv: {method_name!r} acts on the whole batched env, so on every "
                f"row; call it with indices=None, not rows {short_list(rows)}")
        result = getattr(self.envs, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        # The rows are games inside one batched env, not gymnasium Envs: nothing wraps them.
        return [False for _ in self._checked_indices(indices)]

    def _checked_indices(self, indices) -> list[int]:
        rows = list(self._get_indices(indices))
        bad = [i for i in rows
               if isinstance(i, bool) or not isinstance(i, (int, np.integer))
               or not 0 <= i < self.num_envs]
        if bad:
            raise IndexError(f"BatchedSB3VecEnv: indices must be rows 0 to {self.num_envs - 1}, "
                             f"got {short_list(bad)}")
        return [int(i) for i in rows]


def _rows(info: dict, num_envs: int) -> list[dict]:
    """The batched env's infos of the current games (the arrays, not the ended games' and not
    Gymnasium's ``_key`` flags) as one dict per row."""
    current = {key: value for key, value in info.items()
               if key not in (FINAL_INFO, FINAL_OBSERVATION) and not key.startswith("_")}
    return [{key: value[i] for key, value in current.items()} for i in range(num_envs)]

