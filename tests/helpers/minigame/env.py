"""The minigame's raw PettingZoo AEC env: what a game must give ``Game.raw_env`` so that the
description's default ``env``, ``parallel_env`` and ``single_agent_env`` work (the methods
``tbw_envs.wrappers.SingleAgentEnv`` lists, the infos of ``tbw_envs.infos``).

The observation is the heap's remaining stones, one-hot; actions need no frame (the game is
the same from both seats).
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from tbw_envs.aec_wrappers import step_after_game_over
from tbw_envs.core.contract import check_action, check_agent, check_mask_dtype, check_seed
from tbw_envs.infos import InfoCodes

from .state import END_REASONS, Heap, NimState, load_heap

AGENTS = ("player_0", "player_1")


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention
    metadata = {"render_modes": ["ansi"], "name": "nim_v0", "is_parallelizable": False,
                "end_reasons": list(InfoCodes(END_REASONS, AGENTS).end_reasons)}

    def __init__(self, heap="small", render_mode: str | None = None,
                 string_infos: bool = False, mask_dtype=np.int8):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r} is not one of [None, 'ansi']")
        self.render_mode = render_mode
        self.info_codes = InfoCodes(END_REASONS, AGENTS, string_infos)
        self.mask_dtype = check_mask_dtype(mask_dtype)
        self.heap: Heap = load_heap(heap)
        obs = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.heap.stones + 1,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.heap.num_actions,), self.mask_dtype),
        })
        self.possible_agents = list(AGENTS)
        self.observation_spaces = {a: obs for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(self.heap.num_actions) for a in AGENTS}
        self._state = NimState(self.heap)
        self.agents = list(AGENTS)
        self._reset_bookkeeping()

    @property
    def variant(self) -> Heap:
        return self.heap

    @property
    def core_state(self) -> NimState:
        return self._state

    def observation_space(self, agent):
        return self.observation_spaces[check_agent(agent, AGENTS)]

    def action_space(self, agent):
        return self.action_spaces[check_agent(agent, AGENTS)]

    def view(self, agent: str) -> NimState:
        return self._state.view(AGENTS.index(check_agent(agent, AGENTS)))

    def to_env_action(self, agent: str, core_action: int) -> int:
        return check_action(core_action, self.heap.num_actions)

    def to_core_action(self, agent: str, action: int) -> int:
        return check_action(action, self.heap.num_actions)

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        agent = self.agent_selection if agent is None else check_agent(agent, AGENTS)
        if self._state.is_terminal() or AGENTS[self._state.current_player] != agent:
            return np.zeros(self.heap.num_actions, self.mask_dtype)
        return self._state.legal_action_mask().astype(self.mask_dtype)

    def observe_planes(self, agent) -> np.ndarray:
        check_agent(agent, AGENTS)
        planes = np.zeros(self.heap.stones + 1, np.float32)
        planes[self._state.stones] = 1.0
        return planes

    def observe(self, agent):
        return {"observation": self.observe_planes(agent), "action_mask": self.action_mask(agent)}

    def reset(self, seed: int | None = None, options: dict | None = None):
        seed = check_seed(seed, "nim_v0.reset")
        if seed is not None:
            for i, agent in enumerate(AGENTS):
                self.action_spaces[agent].seed(seed + i)
        self._state = NimState(self.heap)
        self.agents = list(AGENTS)
        self._reset_bookkeeping()

    def _reset_bookkeeping(self) -> None:
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.agent_selection = AGENTS[self._state.current_player]
        self._sync_infos()

    def _sync_infos(self) -> None:
        state, codes = self._state, self.info_codes
        info = {"plies": state.ply, "end_reason": codes.end_reason(state.end_reason),
                "winner": codes.winner(state.winner)}
        self.infos = {a: dict(info) for a in self.agents}

    def step(self, action):
        if step_after_game_over(self, action):
            return
        agent = self.agent_selection
        self._state.apply(check_action(action, self.heap.num_actions))
        self._cumulative_rewards[agent] = 0.0
        if self._state.is_terminal():
            for seat, reward in enumerate(self._state.returns()):
                self.rewards[AGENTS[seat]] = reward
                self.terminations[AGENTS[seat]] = True
        self.agent_selection = AGENTS[self._state.current_player]
        self._sync_infos()
        self._accumulate_rewards()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; nothing to render")
            return None
        return str(self._state)

    def close(self):
        pass
