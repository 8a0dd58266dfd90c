"""Junqi's single-agent Gymnasium env: ``junqi_v0.raw_env`` inside
``tbw_envs.wrappers.SingleAgentEnv`` (``gymnasium.make("tbw_envs/JunqiSingle-v0", rules=...)``)."""

from __future__ import annotations

from typing import Any

from tbw_envs.junqi.env.aec import raw_env
from tbw_envs.wrappers import SingleAgentEnv

__all__ = ["make_junqi_single"]


def make_junqi_single(
    opponent: Any = "random",
    learner_seat: int | str = 0,
    render_mode: str | None = None,
    illegal_action: str = "lose",
    mask_in_obs: bool = False,
    opening_plies: int = 0,
    illegal_reward: float = -1.0,
    **env_kwargs,
) -> SingleAgentEnv:
    """``gymnasium.make("tbw_envs/JunqiSingle-v0", rules=..., opponent=...)``;
    ``mask_in_obs=True`` gives Dict observations ``{"observation", "action_mask"}``;
    ``opening_plies=N`` starts every episode with N random plies (at most a quarter of the
    rule set's longest game: 500 on ccgc); other keywords
    (``rules``, ``deployment``, ``string_infos``, ``mask_dtype``: int8 or bool for the Dict
    observation's mask) go to ``junqi_v0.raw_env``."""
    aec = raw_env(render_mode=render_mode, **env_kwargs)
    return SingleAgentEnv(aec, opponent=opponent, learner_seat=learner_seat,
                          illegal_action=illegal_action, illegal_reward=illegal_reward,
                          mask_in_obs=mask_in_obs, opening_plies=opening_plies)
