"""What both backends of Junqi's batched core share: the rule set, new games drawn as
``junqi_v0`` draws them, and the checks of a state set in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tbw_envs.core.batched import BatchedCore
from tbw_envs.junqi.actions import END_REASONS, NUM_ACTIONS, PLAY
from tbw_envs.junqi.layout import Layout, as_random, random_layout_cells
from tbw_envs.junqi.observation import OBSERVATION_SHAPE, observation_planes
from tbw_envs.junqi.state import JunqiState
from tbw_envs.junqi.variant import JunqiRules


class JunqiBatch(BatchedCore):
    """What both backends share: the rule set, new games and the checks of a state set in."""

    name = "junqi"
    end_reasons = tuple(END_REASONS)

    def __init__(self, num_envs: int, rules: JunqiRules):
        super().__init__(num_envs, NUM_ACTIONS, OBSERVATION_SHAPE)
        self.rules = rules

    @property
    def variant(self) -> JunqiRules:
        return self.rules

    def reset_games(self, indices: Sequence[int], rngs: Sequence[np.random.Generator]) -> None:
        # junqi_v0.reset draws JunqiState.random_initial(its generator, rules): one stdlib
        # stream from the generator, then each seat's layout from it.
        for index, rng in zip(indices, rngs, strict=True):
            rand = as_random(rng)
            self._start(int(index), (random_layout_cells(rand), random_layout_cells(rand)))
        self._refresh(np.asarray(indices, np.int64))

    def _start(self, index: int, cells: tuple[tuple, tuple]) -> None:
        """Slot ``index`` starts play from the two seats' layout cells."""
        self._set(index, JunqiState.initial((Layout(cells[0]), Layout(cells[1])), self.rules))

    def set_state(self, index: int, state: Any) -> None:
        self._set(index, state.clone())
        self._refresh(np.array([index], np.int64))

    def planes_of(self, state: JunqiState, player: int) -> np.ndarray:
        return observation_planes(state.view(player))

    def check_variant_state(self, state: Any) -> str | None:
        if not isinstance(state, JunqiState):
            return f"a Junqi batch takes tbw_envs.junqi.JunqiState states, not {type(state)}"
        if state.rules != self.rules:
            return (f"the state plays rule set {state.rules.name!r}, this batch "
                    f"{self.rules.name!r} (one rule set per batch)")
        if state.phase != PLAY:
            return "the state is in the deployment phase; a batch starts games in play"
        return None

    def _set(self, index: int, state: JunqiState) -> None:
        """Slot ``index`` holds ``state`` (a copy the batch owns); arrays refreshed later."""
        raise NotImplementedError

    def _refresh(self, indices: np.ndarray) -> None:
        """Masks and planes of the slots ``indices`` after ``_set``."""
        raise NotImplementedError
