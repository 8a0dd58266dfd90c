"""What both PettingZoo envs share: the ``env()`` wrapper and the end-of-game step rule.

``env()`` is ``raw_env`` inside one ``StandardWrapper``, which keeps every check of PettingZoo's
default stack (``OrderEnforcingWrapper`` over ``AssertOutOfBoundsWrapper`` over
``TerminateIllegalWrapper(illegal_reward=-1)``) in a single layer:

- the reset/step order: ``step``, ``observe``, ``state``, ``render`` and ``agent_iter`` before
  the first ``reset`` raise PettingZoo's errors, and ``agents``, ``agent_selection``,
  ``rewards``, ``terminations``, ``truncations``, ``infos`` and ``num_agents`` raise
  ``AttributeError``; a reset that raises does not count as a reset;
- the input contract (docs/input_contract.md): an action that is not an integer in range raises
  ``ValueError`` naming it (a check, never an ``assert``, so ``python -O`` behaves the same);
- an illegal but well-formed action ends the game with ``illegal_reward`` (-1) for the mover
  and 0 for the other, every agent terminated and truncated, as ``TerminateIllegalWrapper``
  does;
- after the game is over, ``step(None)`` removes finished agents and any other action raises
  ``GameOverError`` (``step_after_game_over``).

The wrapper plays a move it has checked through the raw env's ``play_checked(agent, action)``,
part of the raw-env contract (``CheckedPlay``, which both bundled raw envs implement): ``step``
without the checks the wrapper has just made, so that none is made twice. A raw env without it
(any PettingZoo AEC env, a new game's first raw env) is played through its ``step`` instead,
which repeats those checks and behaves the same; the wrapper decides which once, when it is
built.

Why one layer: each PettingZoo wrapper forwards attributes through ``__getattr__``, so three of
them made every ``env.agents`` or ``env.terminations[agent]`` three failed lookups deep, and
``TerminateIllegalWrapper`` reads the legality from the mask of the last observation: a large
share of ``env()`` time (docs/benchmarks.md). Here the hot attributes are properties that read
the raw env directly, and legality comes from the raw env's own check, which raises
``IllegalActionError`` before changing anything (``scripts/bench/bench_env_overhead.py``
measures the result beside PettingZoo's connect four).

``parallel_env()`` is ``env()`` under PettingZoo's ``turn_based_aec_to_parallel`` with
``WaitingAgentMaskWrapper`` in between (docs/integrations.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol, runtime_checkable

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper
from pettingzoo.utils.env_logger import EnvLogger

from tbw_envs.core.contract import GameOverError, check_action, short_repr
from tbw_envs.core.errors import IllegalActionError

# Deprecated name: both raw envs raise the game cores' ``IllegalActionError`` (a ValueError)
# before anything changes; ``env()`` turns it into the end of the game with -1 for the mover.
IllegalMoveError = IllegalActionError


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


@runtime_checkable
class CheckedPlay(Protocol):
    """A raw AEC env that can play a move whose checks its caller has made: ``env()``'s
    ``StandardWrapper`` plays every move through ``play_checked`` when the raw env has it, and
    through ``step`` otherwise (module docstring)."""

    def play_checked(self, agent: str, action: int) -> None:
        """``step(action)`` for an ``action`` already checked to be an int in range
        (``tbw_envs.core.contract.check_action``), by ``agent``, the ``agent_selection``, in a
        game that is not over (``step_after_game_over``). An illegal action raises
        ``IllegalActionError`` and changes nothing, as ``step`` does."""


def _forwarded(name: str) -> property:
    """A property of ``StandardWrapper`` that reads and writes ``name`` on the raw env, and
    raises ``AttributeError`` before the first reset (as PettingZoo's OrderEnforcingWrapper)."""

    def fget(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    def fset(self, value):
        setattr(self._raw, name, value)

    return property(fget, fset, doc=f"The raw env's ``{name}``.")


class StandardWrapper(wrappers.OrderEnforcingWrapper):
    """The checks of PettingZoo's default AEC wrappers in one layer (module docstring).

    A subclass of PettingZoo's ``OrderEnforcingWrapper``, so ``isinstance`` checks and its
    ``agent_iter`` work as before; ``env.unwrapped`` is the raw env.
    """

    agents = _forwarded("agents")
    agent_selection = _forwarded("agent_selection")
    rewards = _forwarded("rewards")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    infos = _forwarded("infos")
    _cumulative_rewards = _forwarded("_cumulative_rewards")

    def __init__(self, env: AECEnv, illegal_reward: float = -1.0):
        super().__init__(env)
        self._raw = env.unwrapped
        self._play = checked_play(self._raw)
        self._illegal_reward = float(illegal_reward)
        self._num_actions = {}

    @property
    def num_agents(self) -> int:
        return len(self.agents)

    def reset(self, seed=None, options=None) -> None:
        before = (self._has_reset, self._has_updated)
        self._has_reset = self._has_updated = True
        try:
            self.env.reset(seed=seed, options=options)
        except BaseException:
            self._has_reset, self._has_updated = before  # a failed reset is no reset
            raise
        raw = self._raw
        self._num_actions = {a: raw.action_space(a).n for a in raw.possible_agents}

    def observe(self, agent):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.observe(agent)

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        raw = self._raw
        agent = raw.agent_selection
        return (
            raw.observe(agent) if observe else None,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

    def step(self, action) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self._raw
        self._has_updated = True
        if step_after_game_over(raw, action):  # the game is over: only None steps
            return
        agent = raw.agent_selection
        action = check_action(action, self._num_actions[agent])
        try:
            self._play(agent, action)
        except IllegalActionError:
            self._end_by_illegal_move(agent)

    def _end_by_illegal_move(self, agent) -> None:
        """What ``TerminateIllegalWrapper`` does: ``illegal_reward`` for ``agent``, 0 for the
        others, and every agent terminated and truncated."""
        EnvLogger.warn_on_illegal_move()
        raw = self._raw
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.agents, 0)
        raw.rewards[agent] = self._illegal_reward
        codes = getattr(raw, "info_codes", None)
        if codes is not None:  # the numeric end-of-game infos (tbw_envs.infos)
            others = [a for a in raw.possible_agents if a != agent]
            outcome = {"end_reason": codes.illegal_end(),
                       "winner": codes.winner(raw.possible_agents.index(others[0]))}
            raw.infos = {a: {**raw.infos[a], **outcome} for a in raw.agents}
        raw._accumulate_rewards()
        raw._deads_step_first()

    def __str__(self) -> str:
        return str(self.env)


def checked_play(raw: AECEnv) -> Callable[[str, int], None]:
    """How ``StandardWrapper`` plays a checked move of ``raw``: its ``play_checked`` if it is a
    ``CheckedPlay``, else its ``step`` (which checks again)."""
    if isinstance(raw, CheckedPlay):
        return raw.play_checked
    return lambda agent, action: raw.step(action)


def standard_wrappers(raw: AECEnv) -> AECEnv:
    """``raw`` as ``env()`` gives it (module docstring)."""
    return StandardWrapper(raw, illegal_reward=-1)


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
    """PettingZoo's turn-based conversion with ``infos[agent]["active_agent"]``, the seat to
    move, on every ``reset`` and ``step`` of every agent (the conversion names it by string, only
    after a step, and not once the game is over). It is a number, as every info of ours is
    (``tbw_envs.infos``): 0 or 1, or -1 once the game is over; the agent's name with
    ``string_infos=True``. Each agent's info is its own dict, not the AEC env's."""

    def reset(self, seed=None, options=None):
        observations, infos = super().reset(seed=seed, options=options)
        return observations, self._with_active_agent(infos)

    def _checked_action(self, actions):
        """The action of the agent to move, once ``actions`` holds to the input contract: a
        dict keyed by live agents (the agent to move among them), each value an integer in
        range; the waiting agent's action may be left out or None, and is not played.
        Anything else raises ``ValueError`` (``TypeError`` for a non-dict) before anything
        changes; a step after the game is over raises ``GameOverError``."""
        if not hasattr(self, "agents"):
            raise RuntimeError("step() called before reset(); call reset() first")
        if not self.agents:
            raise GameOverError(
                "step(): the game is over and every agent has been removed; call reset() to "
                "play again"
            )
        if not isinstance(actions, Mapping):
            raise TypeError(
                f"step() takes a dict of actions keyed by agent, got {short_repr(actions)}"
            )
        unknown = [agent for agent in actions if agent not in self.agents]
        if unknown:
            raise ValueError(
                f"step(): no live agent named {short_repr(unknown[0])}; agents are "
                f"{self.agents}"
            )
        active = self.aec_env.agent_selection
        if actions.get(active) is None:
            raise ValueError(
                f"step(): no action for {active}, the agent to move "
                f"(infos[agent]['active_agent'] names it); got actions for {sorted(actions)}"
            )
        for agent, action in actions.items():
            if action is not None:
                check_action(action, self.action_space(agent).n)
        return actions[active]

    def _with_active_agent(self, infos: dict) -> dict:
        aec = self.aec_env
        active = aec.agent_selection if aec.agents else None
        codes = getattr(aec.unwrapped, "info_codes", None)
        value = codes.seat(active) if codes is not None else active
        return {agent: {**info, "active_agent": value} for agent, info in infos.items()}

    def step(self, actions):
        # turn_based_aec_to_parallel_wrapper.step, with the input contract checked first
        # (``_checked_action``) and without its in-place edit of the AEC env's info dicts.
        aec = self.aec_env
        aec.step(self._checked_action(actions))
        rewards = {**aec.rewards}
        terminations = {**aec.terminations}
        truncations = {**aec.truncations}
        infos = {**aec.infos}
        observations = {agent: aec.observe(agent) for agent in aec.agents}
        while aec.agents and (aec.terminations[aec.agent_selection]
                              or aec.truncations[aec.agent_selection]):
            aec.step(None)
        self.agents = aec.agents
        return observations, rewards, terminations, truncations, self._with_active_agent(infos)


class FlatObservationsWrapper(wrappers.BaseWrapper):
    """``{"observations": flat float32 planes, "action_mask": float32}`` per agent.

    For RLlib, whose default encoders reject our Dict observation and whose example
    ``ActionMaskingTorchRLModule`` reads ``obs["observations"]`` (flat) and
    ``obs["action_mask"]`` (``scripts/integrations/rllib_ppo.py``)."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._spaces = {}
        for agent in env.possible_agents:
            inner = env.observation_space(agent)
            size = int(np.prod(inner["observation"].shape))
            self._spaces[agent] = spaces.Dict({
                "observations": spaces.Box(0.0, 1.0, (size,), np.float32),
                "action_mask": spaces.Box(0.0, 1.0, inner["action_mask"].shape, np.float32),
            })

    def observation_space(self, agent):
        return self._spaces[agent]

    def observe(self, agent):
        obs = super().observe(agent)
        return {"observations": obs["observation"].reshape(-1).astype(np.float32),
                "action_mask": obs["action_mask"].astype(np.float32)}

    def __str__(self) -> str:
        return str(self.env)


def turn_based_parallel(aec: AECEnv) -> ParallelEnv:
    """``aec`` (an ``env()``) as a parallel env: each step plays the action of the agent whose
    turn it is (``infos[agent]["active_agent"]`` names it) and ignores the other's."""
    return TurnBasedParallelEnv(WaitingAgentMaskWrapper(aec))
