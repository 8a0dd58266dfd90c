"""The reference backend of TBW's batched core: one ``TBWState`` per slot, stepped in a loop, its
arrays filled with what ``tbw_v0`` observes with (``ObservationEncoder``, ``action_rotation``).
Slow and plainly right: the specification ``kernels.py`` is tested against, and the backend
where numba is missing."""

from __future__ import annotations

import numpy as np

from tbw_envs.tbw.batched.base import TBWBatched, state_fields
from tbw_envs.tbw.observation import action_rotation
from tbw_envs.tbw.state import END_REASONS, TBWState


class ReferenceTBWBatched(TBWBatched):
    backend = "reference"

    def __init__(self, num_envs: int, scenario, flip_perspective: bool):
        super().__init__(num_envs, scenario, flip_perspective)
        self._rotation = action_rotation(scenario)  # its own inverse: frame <-> core action
        self._states = [self.build_state() for _ in range(num_envs)]
        for index in range(num_envs):
            self._sync(index)

    def _rotates(self, state: TBWState) -> bool:
        return self.flip_perspective and state.current_player == 1

    def _sync(self, index: int) -> None:
        state = self._states[index]
        player = state.current_player
        self.observation[index] = self.encoder.encode(state, player)
        mask = state.legal_action_mask().astype(bool)  # all False once the game is over
        self.action_mask[index] = mask[self._rotation] if self._rotates(state) else mask
        self.current_player[index] = player
        self.terminated[index] = state.terminal
        self.winner[index] = -1 if state.winner is None else state.winner
        reason = state.end_reason
        self.end_reason[index] = 0 if reason is None else 1 + END_REASONS.index(reason)
        self.turn[index] = state.turn

    def _set_state(self, index: int, fields: dict) -> None:
        self._states[index] = self.build_state(fields)
        self.plies[index] = 0
        self._sync(index)

    def _reset_games(self, indices: np.ndarray) -> None:
        for index in indices.tolist():
            self._states[index] = self.build_state()
            self.plies[index] = 0
            self._sync(index)

    def state(self, index: int) -> TBWState:
        return self.build_state(state_fields(self._states[self._check_index(index, "state")]))

    def _step(self, actions: np.ndarray, active: np.ndarray) -> None:
        for index in np.flatnonzero(active).tolist():
            state = self._states[index]
            action = int(actions[index])
            state.apply(int(self._rotation[action]) if self._rotates(state) else action)
            self.plies[index] += 1
            self._sync(index)
