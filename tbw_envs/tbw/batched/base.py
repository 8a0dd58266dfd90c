"""What the two backends of TBW's batched core share (``TBWBatched``): the scenario and the
frame, the checks of what comes in, and the conversion of a slot to a ``TBWState`` and back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tbw_envs.core.batched import BatchedCore
from tbw_envs.core.contract import is_integer, short_repr
from tbw_envs.tbw.observation import ObservationEncoder
from tbw_envs.tbw.state import END_REASONS, TBWState
from tbw_envs.tbw.variant import Scenario


def _play_fields(scenario: Scenario) -> tuple[tuple[str, Any], ...]:
    """Everything of a scenario that decides play or the planes, by name (not its name, text
    or source: two loads of one file are different objects but the same game)."""
    board = scenario.board
    return (
        ("board", (board.topology, board.rows, board.cols)),
        ("terrain types", tuple(scenario.terrain_names)),
        ("terrain", tuple(scenario.terrain_index)),
        ("move costs", tuple(scenario.move_costs.items())),
        ("sight blocking", scenario.blocks_sight),
        ("units", tuple(scenario.units)),
        ("first_side", scenario.first_side),
        ("max_turns", scenario.max_turns),
        ("win", scenario.win),
        ("line_of_sight", scenario.line_of_sight),
        ("turn_limit_result", scenario.turn_limit_result),
    )


def scenario_difference(ours: Scenario, theirs: Scenario) -> str | None:
    """The first field in which ``theirs`` plays differently from ``ours``, or None when the two
    are the same game."""
    if theirs is ours:
        return None
    for (field, mine), (_, other) in zip(_play_fields(ours), _play_fields(theirs), strict=True):
        if mine != other:
            return field
    return None


class TBWBatched(BatchedCore):
    """What both backends share: the scenario, the frame, the checks of what comes in, and the
    conversion of a slot to a ``TBWState`` and back."""

    name = "tbw"
    end_reasons = tuple(END_REASONS)

    def __init__(self, num_envs: int, scenario: Scenario, flip_perspective: bool):
        self.scenario = scenario
        self.flip_perspective = flip_perspective
        self.encoder = ObservationEncoder(scenario, flip=flip_perspective)
        super().__init__(num_envs, scenario.num_actions, self.encoder.shape)
        self.turn = np.ones(num_envs, np.int64)

    @property
    def variant(self) -> Scenario:
        return self.scenario

    @property
    def observation_channels(self) -> tuple[str, ...]:
        return self.encoder.channel_names

    def extra_info(self) -> dict[str, np.ndarray]:
        return {"turn": self.turn}

    def planes_of(self, state: TBWState, player: int) -> np.ndarray:
        return self.encoder.encode(state, player)

    # ------------------------------------------------------------------ checks

    def check_variant_state(self, state: Any) -> str | None:
        if not isinstance(state, TBWState):
            return (f"a TBW batch takes tbw_envs.tbw.TBWState states, not "
                    f"{type(state).__name__} {short_repr(state)}")
        field = scenario_difference(self.scenario, state.scenario)
        if field is not None:
            return (f"the state plays scenario {state.scenario.name!r}, which differs from this "
                    f"batch's {self.scenario.name!r} in its {field} (one scenario per batch)")
        return None

    def _check_index(self, index: Any, where: str) -> int:
        if not is_integer(index) or not 0 <= index < self.num_envs:
            raise ValueError(f"{where}: slot index {short_repr(index)} is not an integer in "
                             f"[0, {self.num_envs})")
        return int(index)

    def _check_indices(self, indices: Sequence[int]) -> np.ndarray:
        found = np.asarray(indices)
        if found.size == 0:
            return np.zeros(0, np.int64)
        if found.ndim != 1 or found.dtype.kind not in "iu":
            raise ValueError(f"reset_games: indices must be a sequence of slot integers, got "
                             f"{short_repr(indices)}")
        bad = (found < 0) | (found >= self.num_envs)
        if bad.any():
            raise ValueError(f"reset_games: slot index {int(found[bad][0])} is not in "
                             f"[0, {self.num_envs})")
        return found.astype(np.int64)

    def _check_step(self, actions: np.ndarray, active: np.ndarray) -> tuple[np.ndarray, ...]:
        """``actions`` as int64 and ``active`` as bool arrays of shape (N,), every active action
        legal: a bad one is refused, naming its slot, before any game moves (the caller checks
        the same, but an action outside the rules would corrupt the compiled backend's arrays
        silently, so the one scan of the masks is worth its microseconds)."""
        n = self.num_envs
        actions, active = np.asarray(actions), np.asarray(active)
        if actions.shape != (n,) or actions.dtype.kind not in "iu":
            raise ValueError(f"step: actions must be {n} integers, got an array of shape "
                             f"{actions.shape} and dtype {actions.dtype}")
        if active.shape != (n,) or active.dtype != bool:
            raise ValueError(f"step: active must be {n} booleans, got an array of shape "
                             f"{active.shape} and dtype {active.dtype}")
        actions = np.ascontiguousarray(actions, np.int64)
        active = np.ascontiguousarray(active)
        inside = (actions >= 0) & (actions < self.num_actions)
        legal = np.zeros(n, bool)
        legal[inside] = self.action_mask[np.flatnonzero(inside), actions[inside]]
        bad = np.flatnonzero(active & ~legal)
        if bad.size:
            slot = int(bad[0])
            why = "the game is over" if self.terminated[slot] else "not legal (see action_mask)"
            raise ValueError(f"step: slot {slot}: action {int(actions[slot])} is {why}"
                             + (f" ({bad.size} bad slots)" if bad.size > 1 else ""))
        return actions, active

    # ------------------------------------------------------------------ the interface

    def set_state(self, index: int, state: Any) -> None:
        index = self._check_index(index, "set_state")
        problem = self.check_variant_state(state)
        if problem is not None:
            raise ValueError(f"set_state: {problem}")
        if state.terminal:
            raise ValueError("set_state: that game is already over")
        fields = state_fields(state)
        problem = self._fields_problem(fields)
        if problem is not None:
            raise ValueError(f"set_state: the state's {problem}")
        self._set_state(index, fields)

    def reset_games(self, indices: Sequence[int], rngs: Sequence[np.random.Generator]) -> None:
        # The first position is the scenario's: a new game draws nothing from ``rngs``.
        self._reset_games(self._check_indices(indices))

    def step(self, actions: np.ndarray, active: np.ndarray) -> None:
        self._step(*self._check_step(actions, active))

    def _fields_problem(self, fields: dict[str, Any]) -> str | None:
        """What in ``fields`` no position of this scenario can hold (the compiled backend
        indexes its tables with them), or None."""
        units, tiles = len(self.scenario.units), self.scenario.board.size
        for name, length in (("hp", units), ("pos", units), ("acted", units),
                             ("occupant", tiles)):
            if len(fields[name]) != length:
                return f"{name} has {len(fields[name])} entries, the scenario {length}"
        if not all(0 <= tile < tiles for tile in fields["pos"]):
            return f"pos holds a tile outside [0, {tiles}): {short_repr(fields['pos'])}"
        if not all(-1 <= uid < units for uid in fields["occupant"]):
            return (f"occupant holds a unit id outside [-1, {units}): "
                    f"{short_repr(fields['occupant'])}")
        for name in ("current_player", "winner", "last_side"):
            if fields[name] not in (0, 1) and (name == "current_player"
                                               or fields[name] is not None):
                return f"{name} is {short_repr(fields[name])}, not a side (0 or 1)"
        return None

    def _set_state(self, index: int, fields: dict[str, Any]) -> None:
        """Slot ``index`` continues from the checked position ``fields``."""
        raise NotImplementedError

    def _reset_games(self, indices: np.ndarray) -> None:
        raise NotImplementedError

    def _step(self, actions: np.ndarray, active: np.ndarray) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------ states

    def build_state(self, fields: dict[str, Any] | None = None) -> TBWState:
        """A ``TBWState`` of this batch's scenario: its first position, or one holding
        ``fields`` (as ``state_fields`` gives them). Its caches start empty, so everything it
        answers is computed from the fields."""
        state = TBWState(self.scenario)
        if fields is not None:
            for name, value in fields.items():
                setattr(state, name, value)
        return state


def state_fields(state: TBWState) -> dict[str, Any]:
    """The fields of ``state`` that make up the position, as fresh Python values."""
    return {
        "hp": [int(x) for x in state.hp], "pos": [int(x) for x in state.pos],
        "occupant": [int(x) for x in state.occupant], "acted": [bool(x) for x in state.acted],
        "current_player": int(state.current_player), "turn": int(state.turn),
        "winner": None if state.winner is None else int(state.winner),
        "terminal": bool(state.terminal),
        "last_side": None if state.last_side is None else int(state.last_side),
    }

