"""What both PettingZoo envs share: the ``env()`` wrapper stack and the end-of-game step rule.

``env()`` is ``raw_env`` wrapped, outermost first, in:

- ``OrderEnforcingWrapper`` (PettingZoo's, extended: a reset that raises leaves the wrapper as
  it was, and a non-None action after every agent has been removed raises ``GameOverError``
  instead of being dropped with a log message);
- ``ActionContractWrapper``: the input contract (docs/input_contract.md) checked before
  PettingZoo's wrappers index a mask with the action. It replaces PettingZoo's
  ``AssertOutOfBoundsWrapper``, whose ``assert`` vanishes under ``python -O`` and whose mask
  lookup turns a bool action into numpy's "truth value of an array" error;
- ``TerminateIllegalWrapper(illegal_reward=-1)``: a legal-looking but illegal action ends the
  game with -1 for the offender.

``parallel_env()`` is ``env()`` under PettingZoo's ``turn_based_aec_to_parallel`` with
``WaitingAgentMaskWrapper`` in between (docs/integrations.md).
"""

from __future__ import annotations

import numpy as np
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper
from pettingzoo.utils.env_logger import EnvLogger

from tbw_envs.contract import GameOverError, check_action, short_repr


def step_after_game_over(env: AECEnv, action) -> bool:
    """The end-of-game rule of ``raw_env.step``; True when it handled the step.

    Once the game is over, ``step(None)`` removes the selected finished agent (PettingZoo's
    convention), and with no agent left it does nothing (with PettingZoo's log warning). Any
    other action raises ``GameOverError``: it cannot be played, and dropping it silently would
    hide a bug in the caller's loop.
    """
    if not env.agents:
        if action is None:
            EnvLogger.warn_step_after_terminated_truncated()
            return True
        raise GameOverError(
            f"step({short_repr(action)}): the game is over and every agent has been removed; "
            "call reset() to play again"
        )
    agent = env.agent_selection
    if not (env.terminations[agent] or env.truncations[agent]):
        return False
    if action is not None:
        raise GameOverError(
            f"step({short_repr(action)}): the game is over ({agent} is done); step(None) "
            "removes each finished agent, reset() starts a new game"
        )
    env._was_dead_step(None)
    return True


class ActionContractWrapper(wrappers.BaseWrapper):
    """Checks each action against the input contract before the wrappers below see it."""

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.agents and not (self.terminations[agent] or self.truncations[agent]):
            action = check_action(action, self.action_space(agent).n)
        elif action is not None:
            # Here, not below: after an illegal move TerminateIllegalWrapper would hand a
            # finished agent's action straight to PettingZoo's bare ValueError.
            step_after_game_over(self.unwrapped, action)  # raises GameOverError
        super().step(action)

    def __str__(self) -> str:
        return str(self.env)


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order checks; a failed reset does not count as a reset, and a non-None
    action after every agent is gone raises ``GameOverError``."""

    def reset(self, seed=None, options=None) -> None:
        before = (self._has_reset, self._has_updated)
        try:
            super().reset(seed=seed, options=options)
        except BaseException:
            self._has_reset, self._has_updated = before
            raise

    def step(self, action) -> None:
        if self._has_reset and not self.agents and action is not None:
            step_after_game_over(self.unwrapped, action)  # raises GameOverError
        super().step(action)

    def __str__(self) -> str:
        return str(self.env)


def standard_wrappers(raw: AECEnv) -> AECEnv:
    """``raw`` with the wrapper stack of ``env()`` (module docstring)."""
    wrapped = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    wrapped = ActionContractWrapper(wrapped)
    return OrderEnforcingWrapper(wrapped)


class WaitingAgentMaskWrapper(wrappers.BaseWrapper):
    """An agent that cannot act (not its turn, or the game is over) observes a mask allowing
    only the last action id instead of an all-zero mask.

    The parallel API hands every live agent an observation each step, and masked-softmax
    policies (TorchRL, RLlib) turn an all-zero mask into NaN logits. The waiting agent's action
    is ignored by the turn-based conversion, so the placeholder is never played; it is the last
    id because in TBW that is END_TURN, the one action that is always meaningful.
    """

    def observe(self, agent):
        obs = super().observe(agent)
        if obs is None or obs["action_mask"].any():
            return obs
        mask = np.zeros_like(obs["action_mask"])
        mask[-1] = 1
        return {**obs, "action_mask": mask}

    def __str__(self) -> str:
        return str(self.env)


class TurnBasedParallelEnv(turn_based_aec_to_parallel_wrapper):
    """PettingZoo's turn-based conversion; ``reset`` also names ``infos[agent]["active_agent"]``
    (the conversion's ``step`` does), so the first move's player is known without the AEC
    env."""

    def reset(self, seed=None, options=None):
        observations, infos = super().reset(seed=seed, options=options)
        active = self.aec_env.agent_selection
        return observations, {agent: {**info, "active_agent": active}
                              for agent, info in infos.items()}


class NoInfosWrapper(wrappers.BaseWrapper):
    """Every agent's ``infos`` entry is empty.

    For TorchRL's ``PettingZooWrapper``, which turns each info value into a tensor under a spec
    fixed at reset: the end-of-game ``end_reason`` (a string) and ``winner`` (None for a draw)
    appear later and break it. The outcome stays in the rewards."""

    @property
    def infos(self):
        return {agent: {} for agent in self.env.infos}

    def __str__(self) -> str:
        return str(self.env)


def turn_based_parallel(aec: AECEnv) -> ParallelEnv:
    """``aec`` (an ``env()``) as a parallel env: each step plays the action of the agent whose
    turn it is (``infos[agent]["active_agent"]`` names it) and ignores the other's."""
    return TurnBasedParallelEnv(WaitingAgentMaskWrapper(aec))
