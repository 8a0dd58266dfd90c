"""The compiled backend of Junqi's batched core: every game's state in arrays, stepped by the
numba kernels of ``kernels.py``. A game enters as a ``JunqiState`` (copied into the arrays) and
leaves as one (``state(i)``, rebuilt from them), so search, rendering and replay keep using the
reference core."""

from __future__ import annotations

import numpy as np

from tbw_envs.core.threads import ThreadSlices
from tbw_envs.junqi.actions import END_REASONS, PLAY, PlyRecord
from tbw_envs.junqi.batched import kernels
from tbw_envs.junqi.batched.base import JunqiBatch
from tbw_envs.junqi.board import NUM_POSTS
from tbw_envs.junqi.layout import DEPLOY_CELLS, LAYOUT_CELLS, cell_to_post
from tbw_envs.junqi.observation import (
    NUM_OBSERVATION_PLANES,
    RANK_LOWER_BOUNDS,
    RANK_UPPER_BOUNDS,
    TERRAIN_PLANES,
)
from tbw_envs.junqi.state import JunqiState, deployment_masks

# Per seat, the absolute post of each of its 30 layout cells.
_CELL_POSTS = tuple(np.array([cell_to_post(cell, player) for cell in range(LAYOUT_CELLS)])
                    for player in (0, 1))
_DEPLOYMENT_MASKS = tuple(np.array(masks, np.int16) for masks in deployment_masks())
_REASON_CODES = {reason: index + 1 for index, reason in enumerate(END_REASONS)}
# Room for this many plies of history per game at first; it doubles when a game outgrows it.
_FIRST_HISTORY = 256


class CompiledJunqiBatch(JunqiBatch):
    backend = "numba"

    def __init__(self, num_envs: int, rules, threads: int | None = None):
        super().__init__(num_envs, rules)
        self._slices = ThreadSlices(num_envs, threads)
        n = num_envs
        self._owner = np.full((n, NUM_POSTS), -1, np.int8)
        self._kind = np.full((n, NUM_POSTS), -1, np.int8)
        self._moved = np.zeros((n, NUM_POSTS), np.uint8)
        self._possible = np.zeros((n, 2, NUM_POSTS), np.int16)
        self._flag_revealed = np.full((n, 2), -1, np.int64)
        self._flag_revealed_ply = np.full((n, 2), -1, np.int64)
        self._history = np.zeros((n, _FIRST_HISTORY), np.uint16)
        self._history_length = np.zeros(n, np.int64)
        self._ply = np.zeros(n, np.int64)
        self._quiet = np.zeros(n, np.int64)
        # The deployment record of each game (``JunqiState._placed``), kept as Python lists:
        # set once per game and never read by play.
        self._placed: list[list[list[int]]] = [[[], []] for _ in range(n)]
        self._tables = kernels.Tables(rules)
        self._flat_observation = self.observation.reshape(n, NUM_OBSERVATION_PLANES, NUM_POSTS)
        self._terrain = np.ascontiguousarray(TERRAIN_PLANES)
        self._lower = np.ascontiguousarray(RANK_LOWER_BOUNDS)
        self._upper = np.ascontiguousarray(RANK_UPPER_BOUNDS)

    def _observation_moved(self) -> None:
        self._flat_observation = self.observation.reshape(self.num_envs, NUM_OBSERVATION_PLANES,
                                                          NUM_POSTS)

    # ------------------------------------------------------------------ in and out
    def _set(self, index: int, state: JunqiState) -> None:
        i = index
        self._owner[i] = state.owner
        self._kind[i] = state.kind
        self._moved[i] = state.moved
        self._possible[i] = state.possible
        for side in (0, 1):
            post, ply = state.flag_revealed[side], state.flag_revealed_ply[side]
            self._flag_revealed[i, side] = -1 if post is None else post
            self._flag_revealed_ply[i, side] = -1 if ply is None else ply
        history = state.history
        self._reserve_history(len(history) + 1)
        self._history[i, : len(history)] = [
            r.from_post | r.to_post << 6 | r.result << 12 | int(r.engineer_only) << 14
            | r.player << 15 for r in history
        ]
        self._history_length[i] = len(history)
        self._ply[i] = state.ply
        self._quiet[i] = state.quiet_plies
        self.current_player[i] = state.current_player
        self.terminated[i] = state.is_terminal()
        self.winner[i] = -1 if state.winner is None else state.winner
        self.end_reason[i] = _REASON_CODES.get(state.end_reason, 0)
        self.plies[i] = 0
        self._placed[i] = [state._placed[0][:], state._placed[1][:]]

    def _start(self, index: int, cells: tuple[tuple, tuple]) -> None:
        # JunqiState.initial written into the arrays; a new game is never over (the front
        # row always has a piece that can move or attack), so there is no end to settle.
        i = index
        self._owner[i] = -1
        self._kind[i] = -1
        self._moved[i] = 0
        self._possible[i] = 0
        for player in (0, 1):
            kinds = np.array([-1 if k is None else k for k in cells[player]], np.int8)
            placed = kinds >= 0
            posts = _CELL_POSTS[player][placed]
            self._owner[i, posts] = player
            self._kind[i, posts] = kinds[placed]
            # The other side may suspect of each piece whatever the deployment rules allow.
            self._possible[i, 1 - player, posts] = _DEPLOYMENT_MASKS[player][posts]
            self._placed[i][player] = [cells[player][cell] for cell in DEPLOY_CELLS]
        self._flag_revealed[i] = -1
        self._flag_revealed_ply[i] = -1
        self._history_length[i] = 0
        self._ply[i] = 0
        self._quiet[i] = 0
        self.current_player[i] = 0
        self.terminated[i] = False
        self.winner[i] = -1
        self.end_reason[i] = 0
        self.plies[i] = 0

    def state(self, index: int) -> JunqiState:
        i = index
        state = JunqiState(self.rules)
        state.owner = self._owner[i].tolist()
        state.kind = self._kind[i].tolist()
        state.moved = [bool(m) for m in self._moved[i]]
        state.possible = [self._possible[i, 0].tolist(), self._possible[i, 1].tolist()]
        state.flag_revealed = [None if p < 0 else p for p in self._flag_revealed[i].tolist()]
        state.flag_revealed_ply = [None if p < 0 else p
                                   for p in self._flag_revealed_ply[i].tolist()]
        state.history = [
            PlyRecord(code >> 15, code & 63, (code >> 6) & 63, (code >> 12) & 3,
                      bool(code >> 14 & 1))
            for code in self._history[i, : self._history_length[i]].tolist()
        ]
        state.current_player = int(self.current_player[i])
        state.phase = PLAY
        state.ply = int(self._ply[i])
        state.quiet_plies = int(self._quiet[i])
        if self.terminated[i]:
            winner = int(self.winner[i])
            state._end(None if winner < 0 else winner, END_REASONS[self.end_reason[i] - 1])
        else:
            state._legal = None
        state._placed = [self._placed[i][0][:], self._placed[i][1][:]]
        return state

    def _reserve_history(self, plies: int) -> None:
        capacity = self._history.shape[1]
        if plies <= capacity:
            return
        while capacity < plies:
            capacity *= 2
        grown = np.zeros((self.num_envs, capacity), np.uint16)
        grown[:, : self._history.shape[1]] = self._history
        self._history = grown

    # ------------------------------------------------------------------ kernels
    def _refresh(self, indices: np.ndarray) -> None:
        t = self._tables
        kernels.refresh_games(
            indices, self._owner, self._kind, self._moved, self._possible, self._flag_revealed,
            self._history, self._history_length, self.current_player, self.terminated,
            self._ply, self._quiet, self.action_mask, self._flat_observation, self._terrain,
            self._lower, self._upper, t.road, t.road_count, t.rail, t.rail_count, t.rays,
            t.ray_length, t.is_rail, t.is_camp, t.stuck, t.mobile_kind, t.routes,
            t.turn_depth, t.ply_cap, t.no_collision_limit)

    def step(self, actions: np.ndarray, active: np.ndarray) -> None:
        longest = int(self._history_length.max(initial=0))
        self._reserve_history(longest + 1)
        t = self._tables
        self._slices.run(
            kernels.step_games, actions, active, self._owner, self._kind, self._moved,
            self._possible, self._flag_revealed, self._flag_revealed_ply, self._history,
            self._history_length, self.current_player, self.terminated, self.winner,
            self.end_reason, self._ply, self._quiet, self.plies, self.action_mask,
            self._flat_observation, self._terrain, self._lower, self._upper, t.road, t.road_count,
            t.rail, t.rail_count, t.rays, t.ray_length, t.is_rail, t.is_camp, t.stuck, t.combat,
            t.beats, t.stops, t.mobile_kind, t.routes, t.turn_depth, t.no_collision_limit,
            t.loser_moves_next, t.total_ply_limit, t.ply_cap, t.flag_on_marshal_death)
