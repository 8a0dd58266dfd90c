"""TBW's single-agent Gymnasium env: ``tbw_v0.raw_env`` inside ``tbw_envs.wrappers.SingleAgentEnv``
(``gymnasium.make("tbw_envs/TBWSingle-v0", scenario=...)``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tbw_envs.tbw.env.aec import raw_env
from tbw_envs.wrappers import SingleAgentEnv

__all__ = ["make_tbw_single"]


def make_tbw_single(
    scenario="duel_5v5_8x8",
    opponent: Any = "random",
    learner_seat: int | str = 0,
    render_mode: str | None = None,
    illegal_action: str = "lose",
    flip_perspective: bool = True,
    mask_in_obs: bool = False,
    opening_plies: int = 0,
    string_infos: bool = False,
    illegal_reward: float = -1.0,
    mask_dtype=np.int8,
) -> SingleAgentEnv:
    """``gymnasium.make("tbw_envs/TBWSingle-v0", scenario=..., opponent=...)``;
    ``mask_in_obs=True`` gives Dict observations ``{"observation", "action_mask"}``;
    ``opening_plies=N`` starts every episode with N random plies (varied starts; at most a
    quarter of the scenario's longest game, the arena's cap: 100 on duel_5v5_8x8);
    ``string_infos=True`` names the learner and the end reason in infos; ``mask_dtype=bool``
    makes the Dict observation's mask boolean (TorchRL; default int8)."""
    aec = raw_env(scenario=scenario, render_mode=render_mode,
                         flip_perspective=flip_perspective, string_infos=string_infos,
                         mask_dtype=mask_dtype)
    return SingleAgentEnv(aec, opponent=opponent, learner_seat=learner_seat,
                          illegal_action=illegal_action, illegal_reward=illegal_reward,
                          mask_in_obs=mask_in_obs, opening_plies=opening_plies)
