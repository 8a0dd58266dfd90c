"""The reference backend of Junqi's batched core: one ``JunqiState`` per slot, stepped in a
loop, its arrays filled with the functions ``junqi_v0`` observes with. Slow and plainly right:
the specification ``kernels.py`` is tested against, and the backend where numba is missing."""

from __future__ import annotations

import numpy as np

from tbw_envs.junqi.actions import END_REASONS
from tbw_envs.junqi.batched.base import JunqiBatch
from tbw_envs.junqi.observation import action_to_absolute, legal_mask_in_frame, observation_planes
from tbw_envs.junqi.state import JunqiState

_REASON_CODES = {reason: index + 1 for index, reason in enumerate(END_REASONS)}


class ReferenceJunqiBatch(JunqiBatch):
    backend = "reference"

    def __init__(self, num_envs: int, rules):
        super().__init__(num_envs, rules)
        self._states: list[JunqiState | None] = [None] * num_envs

    def _set(self, index: int, state: JunqiState) -> None:
        self._states[index] = state
        self.plies[index] = 0

    def _refresh(self, indices: np.ndarray) -> None:
        for index in indices.tolist():
            self._sync(index)

    def _sync(self, index: int) -> None:
        state = self._states[index]
        player = state.current_player
        legal = [] if state.is_terminal() else state.legal_actions()
        self.action_mask[index] = legal_mask_in_frame(legal, player).astype(bool)
        self.observation[index] = observation_planes(state.view(player))
        self.current_player[index] = player
        self.terminated[index] = state.is_terminal()
        self.winner[index] = -1 if state.winner is None else state.winner
        self.end_reason[index] = _REASON_CODES.get(state.end_reason, 0)

    def state(self, index: int) -> JunqiState:
        return self._states[index].clone()

    def step(self, actions: np.ndarray, active: np.ndarray) -> None:
        for index in np.flatnonzero(active).tolist():
            state = self._states[index]
            state.apply(action_to_absolute(int(actions[index]), state.current_player))
            self.plies[index] += 1
            self._sync(index)
