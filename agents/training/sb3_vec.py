"""SuperSuit vector environments of our ``parallel_env()`` for sb3-contrib's ``MaskablePPO``.

SuperSuit turns ``parallel_env()`` into a vector env of one row per seat. Its own SB3 output
(``base_class="stable_baselines3"``) does not work with ``MaskablePPO``: the algorithm asks the
vector env for masks through ``has_attr("action_masks")`` / ``env_method("action_masks")``,
which SuperSuit's adapter lacks, and SB3's seeding calls a ``seed`` that SuperSuit's vector envs
lack (supersuit 3.11, sb3-contrib 2.9). ``MaskedSB3VecEnv`` is that adapter, done for masks: it
takes SuperSuit's Gymnasium-style output, serves the masks from the ``"action_mask"`` entry of
the last observations, and hands the policy the ``"observation"`` entry alone (a Box, so the
usual ``"MlpPolicy"``/``"CnnPolicy"`` apply)::

    games = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(tbw_v0.parallel_env()), 4,
                                  base_class="gymnasium")
    model = MaskablePPO("MlpPolicy", MaskedSB3VecEnv(games), seed=0).learn(10_000)

Self-play, one network: each seat is a row; the waiting seat's mask allows only the last action
id, so its sampled action has probability 1 and no policy gradient, while its row still carries
that seat's rewards (+1/-1 when the game ends). SuperSuit resets a finished game inside the step
that ends it, so the observations (and masks) a step returns are those of the next decision; the
finished game's last observation is in ``infos[i]["terminal_observation"]`` (its ``"observation"``
entry, as SB3 expects), and a game cut by its turn limit sets ``"TimeLimit.truncated"`` so that
SB3 bootstraps its value. Needs stable-baselines3 (the ``train`` extra).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from tbw_envs.core.contract import is_integer, short_repr

MASK_KEY = "action_mask"
OBSERVATION_KEY = "observation"
METHOD = "action_masks"


class MaskedSB3VecEnv(VecEnv):
    """An SB3 ``VecEnv`` over a Gymnasium-style vector env (SuperSuit's ``base_class=
    "gymnasium"``) with Dict observations ``{"observation", "action_mask"}``; ``MaskablePPO``
    reads the masks through ``action_masks()``."""

    def __init__(self, games):
        missing = [name for name in ("observation_space", "action_space", "num_envs")
                   if not hasattr(games, name)]
        if missing:
            raise TypeError(
                "MaskedSB3VecEnv needs a Gymnasium-style vector env of our parallel_env (e.g. "
                "supersuit.concat_vec_envs_v1(..., base_class='gymnasium')); got "
                f"{type(games).__name__} {short_repr(games)}, which has no {', '.join(missing)}"
            )
        space = games.observation_space
        if not (isinstance(space, spaces.Dict)
                and {MASK_KEY, OBSERVATION_KEY} <= set(space.spaces)):
            raise TypeError(
                "MaskedSB3VecEnv needs Dict observations with 'observation' and 'action_mask' "
                f"entries (our parallel_env's), got {space}"
            )
        if not isinstance(games.action_space, spaces.Discrete):
            raise TypeError(f"MaskedSB3VecEnv needs a Discrete action space, "
                            f"got {games.action_space}")
        mask_shape = space.spaces[MASK_KEY].shape
        if mask_shape != (int(games.action_space.n),):
            raise ValueError(f"the action mask has shape {mask_shape}, but the action space has "
                             f"{games.action_space.n} actions")
        num_envs = getattr(games, "num_envs", None)
        if not is_integer(num_envs) or num_envs < 1:
            raise ValueError(f"MaskedSB3VecEnv needs a vector env of at least one env, got "
                             f"num_envs={short_repr(num_envs)}")
        self.games = games
        self.render_mode = getattr(games, "render_mode", None)
        super().__init__(games.num_envs, space.spaces[OBSERVATION_KEY], games.action_space)
        self._masks: np.ndarray | None = None
        self._actions: np.ndarray | None = None

    def _split(self, obs: dict) -> np.ndarray:
        self._masks = np.asarray(obs[MASK_KEY], dtype=bool)
        return obs[OBSERVATION_KEY]

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds else None  # SuperSuit seeds its rows seed, seed+1...
        obs, infos = self.games.reset(seed=seed)
        self._reset_seeds()
        self.reset_infos = list(infos) if isinstance(infos, Sequence) else [{}] * self.num_envs
        return self._split(obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        obs, rewards, terminations, truncations, infos = self.games.step(self._actions)
        infos = [dict(info) for info in infos]
        for i, info in enumerate(infos):
            if isinstance(info.get("terminal_observation"), dict):
                info["terminal_observation"] = info["terminal_observation"][OBSERVATION_KEY]
            info["TimeLimit.truncated"] = bool(truncations[i] and not terminations[i])
        dones = np.logical_or(terminations, truncations)
        return self._split(obs), np.asarray(rewards, dtype=np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        if self._masks is None:
            raise RuntimeError("call reset() before asking for action masks")
        return self._masks

    def close(self) -> None:
        self.games.close()

    # SB3's attribute protocol: only the masks are per row; nothing else is reachable.
    def has_attr(self, attr_name: str) -> bool:
        return attr_name == METHOD

    def get_attr(self, attr_name: str, indices=None) -> list:
        if attr_name == "render_mode":
            return [self.render_mode for _ in self._get_indices(indices)]
        raise AttributeError(f"MaskedSB3VecEnv rows have no attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        raise AttributeError(f"MaskedSB3VecEnv cannot set {attr_name!r} on its rows")

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list:
        if method_name != METHOD:
            raise AttributeError(f"MaskedSB3VecEnv rows have no method {method_name!r}")
        masks = self.action_masks()
        return [masks[i] for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]
