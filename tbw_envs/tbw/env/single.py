"""TBW's single-agent Gymnasium env: ``tbw_v0.raw_env`` inside ``tbw_envs.wrappers.SingleAgentEnv``
(``gymnasium.make("tbw_envs/TBWSingle-v0", scenario=...)``).

Env card (the same as docs/tbw.md's; tests/tbw_envs/test_env_cards.py checks it against the code;
the numbers are the default scenario's):

- Import: ``import gymnasium``; ``import tbw_envs``; ``gymnasium.make("tbw_envs/TBWSingle-v0")``;
  ``from tbw_envs.tbw.env.single import make_tbw_single``; ``make_tbw_single()``
- Actions: discrete; the learner's actions are ``tbw_v0``'s, one unit's whole action or END_TURN
  a step, and the opponent's replies are played inside ``step()``
- Agents: one learner, in seat learner_seat; the opponent is part of the env
- Action space: ``Discrete(1921)``: the ids of ``tbw_v0``'s card, the last, 1920, END_TURN
- Observation space: ``Box(0.0, 1.0, (32, 8, 8), float32)``, the learner's planes of ``tbw_v0``;
  with mask_in_obs ``tbw_v0``'s Dict with its ``action_mask``
- Observation channels: ``terrain:plain``, ``terrain:mountain``, ``terrain:water``,
  ``move_cost:foot``, ``turn_progress``, ``own:present``, ``own:hp_fraction``, ``own:hp``,
  ``own:atk``, ``own:move``, ``own:range_min``, ``own:range_max``, ``own:leader``,
  ``own:acted``, ``enemy:present``, ``enemy:hp_fraction``, ``enemy:hp``, ``enemy:atk``,
  ``enemy:move``, ``enemy:range_min``, ``enemy:range_max``, ``enemy:leader``, ``own_slot:0``,
  ``own_slot:1``, ``own_slot:2``, ``own_slot:3``, ``own_slot:4``, ``enemy_slot:0``,
  ``enemy_slot:1``, ``enemy_slot:2``, ``enemy_slot:3``, ``enemy_slot:4``
  (env.unwrapped.aec.observation_channels)
- Action mask: ``action_masks()`` and ``info["action_mask"]`` (bool, on every reset and step),
  with mask_in_obs also in the observation; once the episode is over it allows only the last
  id, noop_action, a placeholder never played
- Rewards: 0 until the episode ends, then the learner's return: +1 for a win, -1 for a loss, 0
  for a draw; an illegal action with illegal_action "lose" ends the episode with
  illegal_reward, -1.0 by default
- Starting state: the scenario's first position, then opening_plies random plies and the
  opponent's moves until the learner is to act
- Episode end: terminated when the game ends (``annihilation``, ``leader_killed``,
  ``mutual_defeat``, ``turn_limit_hp`` or ``turn_limit_draw``, after at most 40 rounds) or on
  an illegal action with illegal_action "lose" (``illegal_action``)
- Truncation: never; no time limit is registered (``max_episode_steps`` is None)
- Arguments: ``scenario="duel_5v5_8x8"``: as ``tbw_v0``'s; ``opponent="random"``: "random", an
  agent with act(view) or a callable (observation, action_mask) to action;
  ``learner_seat=0``: 0, 1, "alternate" or "random"; ``render_mode=None``: as ``tbw_v0``'s;
  ``illegal_action="lose"``: "lose" ends the episode, "raise" raises a ValueError;
  ``flip_perspective=True``: as ``tbw_v0``'s; ``mask_in_obs=False``: Dict observations with the
  mask; ``opening_plies=0``: random plies at each reset, at most a quarter of the longest game
  (100 on duel_5v5_8x8); ``string_infos=False``: name the learner and the end reason in infos;
  ``illegal_reward=-1.0``: the learner's reward for an illegal action; ``mask_dtype=np.int8``:
  the Dict observation's mask dtype, np.int8 or bool
- Version history: v0: the first version, ``tbw_v0`` against one opponent
"""

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
