"""Junqi's single-agent Gymnasium env: ``junqi_v0.raw_env`` inside
``tbw_envs.wrappers.SingleAgentEnv`` (``gymnasium.make("tbw_envs/JunqiSingle-v0", rules=...)``).

Env card (the same as docs/junqi.md's; tests/tbw_envs/test_env_cards.py checks it against the
code; the numbers of play limits are the default rule set's):

- Import: ``import gymnasium``; ``import tbw_envs``;
  ``gymnasium.make("tbw_envs/JunqiSingle-v0")``;
  ``from tbw_envs.junqi.env.single import make_junqi_single``; ``make_junqi_single()``
- Actions: discrete; the learner's actions are ``junqi_v0``'s, one move or one deployment a
  step, and the opponent's replies are played inside ``step()``
- Agents: one learner, in seat learner_seat; the opponent is part of the env
- Action space: ``Discrete(3612)``: the ids of ``junqi_v0``'s card, moves 0 to 3599 and
  deployments 3600 to 3611, in the learner's frame
- Observation space: ``Box(0.0, 1.0, (39, 12, 5), float32)``, the learner's planes of
  ``junqi_v0``; with mask_in_obs ``junqi_v0``'s Dict with its ``action_mask``
- Observation channels: ``own_marshal``, ``own_general``, ``own_major_general``,
  ``own_brigadier``, ``own_colonel``, ``own_major``, ``own_captain``, ``own_lieutenant``,
  ``own_engineer``, ``own_mine``, ``own_bomb``, ``own_flag``, ``opponent_present``,
  ``opponent_moved``, ``opponent_flag_revealed``, ``own_flag_revealed``,
  ``opponent_may_be_marshal``, ``opponent_may_be_general``, ``opponent_may_be_major_general``,
  ``opponent_may_be_brigadier``, ``opponent_may_be_colonel``, ``opponent_may_be_major``,
  ``opponent_may_be_captain``, ``opponent_may_be_lieutenant``, ``opponent_may_be_engineer``,
  ``opponent_may_be_mine``, ``opponent_may_be_bomb``, ``opponent_may_be_flag``,
  ``opponent_rank_lower_bound``, ``opponent_rank_upper_bound``, ``railroad``, ``camp``,
  ``headquarters``, ``last_move_from``, ``last_move_to``, ``ply_fraction``,
  ``quiet_ply_fraction``, ``deployment_phase``, ``next_deployment_post``
  (env.unwrapped.aec.observation_channels)
- Action mask: ``action_masks()`` and ``info["action_mask"]`` (bool, on every reset and step),
  with mask_in_obs also in the observation; once the episode is over it allows only the last
  id, noop_action, a placeholder never played
- Rewards: 0 until the episode ends, then the learner's return: +1 for a win, -1 for a loss, 0
  for a draw; an illegal action with illegal_action "lose" ends the episode with
  illegal_reward, -1.0 by default
- Starting state: ``junqi_v0``'s first position (random layouts, or the deployment phase), then
  opening_plies random plies and the opponent's moves until the learner is to act
- Episode end: terminated when the game ends (``flag_captured``, ``no_legal_move``,
  ``no_legal_move_both``, ``no_collision_limit``, ``total_ply_limit`` or ``ply_cap``, after at
  most 2000 plies) or on an illegal action with illegal_action "lose" (``illegal_action``)
- Truncation: never; no time limit is registered (``max_episode_steps`` is None)
- Arguments: ``opponent="random"``: "random", an agent with act(view) or a callable
  (observation, action_mask) to action; ``learner_seat=0``: 0, 1, "alternate" or "random";
  ``render_mode=None``: as ``junqi_v0``'s; ``illegal_action="lose"``: "lose" ends the episode,
  "raise" raises a ValueError; ``mask_in_obs=False``: Dict observations with the mask;
  ``opening_plies=0``: random plies at each reset, at most a quarter of the longest game (500
  on ccgc); ``illegal_reward=-1.0``: the learner's reward for an illegal action;
  ``rules="ccgc"``: as ``junqi_v0``'s; ``deployment="random"``: as ``junqi_v0``'s;
  ``render_perspective=None``: as ``junqi_v0``'s; ``string_infos=False``: name the learner and
  the end reason in infos; ``mask_dtype=np.int8``: the Dict observation's mask dtype, np.int8
  or bool
- Version history: v0: the first version, ``junqi_v0`` against one opponent
"""

from __future__ import annotations

from typing import Any

import numpy as np

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
    *,
    rules: Any = "ccgc",
    deployment: str = "random",
    render_perspective: str | None = None,
    string_infos: bool = False,
    mask_dtype=np.int8,
) -> SingleAgentEnv:
    """``gymnasium.make("tbw_envs/JunqiSingle-v0", rules=..., opponent=...)``;
    ``mask_in_obs=True`` gives Dict observations ``{"observation", "action_mask"}``;
    ``opening_plies=N`` starts every episode with N random plies (at most a quarter of the
    rule set's longest game: 500 on ccgc); ``rules``, ``deployment``, ``render_perspective``,
    ``string_infos`` and ``mask_dtype`` (int8 or bool for the Dict observation's mask) go to
    ``junqi_v0.raw_env``. Every keyword is named here, so its default is in the signature and
    in ``gymnasium.spec("tbw_envs/JunqiSingle-v0").kwargs``."""
    aec = raw_env(rules=rules, deployment=deployment, render_mode=render_mode,
                  render_perspective=render_perspective, string_infos=string_infos,
                  mask_dtype=mask_dtype)
    return SingleAgentEnv(aec, opponent=opponent, learner_seat=learner_seat,
                          illegal_action=illegal_action, illegal_reward=illegal_reward,
                          mask_in_obs=mask_in_obs, opening_plies=opening_plies)
