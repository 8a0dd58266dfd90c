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
"""

from __future__ import annotations

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
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
