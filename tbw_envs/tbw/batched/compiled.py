"""The compiled backend of TBW's batched core: every game's fields in arrays, stepped by the
numba kernels of ``kernels.py``. A game enters as a ``TBWState`` (copied into the arrays) and
leaves as one (``state(i)``, rebuilt from them), so search, rendering and replay keep using the
reference core.

``pack_scenario`` turns a scenario and its ``ObservationEncoder`` into the kernels' ``Tables``;
every number the kernels read comes from the scenario's own tables (``Board.neighbors``,
``Board.distance_table``, ``Scenario.move_costs``, ``Board.tiles_between``) or from the
encoder's, computed by the same Python expressions, so the planes agree bit for bit.
"""

from __future__ import annotations

import numpy as np

from tbw_envs.core.threads import ThreadSlices
from tbw_envs.tbw.batched import kernels
from tbw_envs.tbw.batched.base import TBWBatched, state_fields
from tbw_envs.tbw.observation import UNIT_FEATURES, ObservationEncoder
from tbw_envs.tbw.rules import MOVE_EPSILON
from tbw_envs.tbw.state import TBWState
from tbw_envs.tbw.variant import WIN_RULES, Scenario

# The unit features that are constants of a unit (after present, hp_fraction and hp), in the
# encoder's channel order.
CONSTANT_FEATURES = UNIT_FEATURES[3:]


def _sight_blocked(scenario: Scenario, longest_range: int) -> np.ndarray:
    """``blocked[a, b]``: under line of sight, whether a tile between ``a`` and ``b`` stops a
    ranged attack; filled only for the pairs an attack can span (distance 2 to the longest
    range), the only ones the kernels read."""
    board = scenario.board
    if not scenario.line_of_sight or longest_range < 2:
        return np.zeros((1, 1), bool)
    blocks = scenario.blocks_sight
    blocked = np.zeros((board.size, board.size), bool)
    for a in range(board.size):
        distances = board.distance_table[a]
        for b in range(board.size):
            if 2 <= distances[b] <= longest_range:
                blocked[a, b] = any(blocks[t] for t in board.tiles_between(a, b))
    return blocked


def _static_planes(encoder: ObservationEncoder, scenario: Scenario) -> np.ndarray:
    """The planes of a board without units at turn 0, in side 0's frame and turned (the
    encoder's own static planes, read through ``encode`` of a state whose units are dead)."""
    empty = TBWState(scenario)
    empty.hp = [0] * len(scenario.units)
    empty.turn = 0
    frames = [encoder.encode(empty, 0)]
    frames.append(encoder.encode(empty, 1) if encoder.flip else frames[0])
    return np.stack([frame.reshape(-1) for frame in frames])


def pack_scenario(scenario: Scenario, encoder: ObservationEncoder) -> kernels.Tables:
    """The kernels' tables of ``scenario`` seen through ``encoder``."""
    board = scenario.board
    size, n = board.size, scenario.units_per_side
    degree = max(1, max(len(nb) for nb in board.neighbors))
    neighbors = np.full((size, degree), -1, np.int64)
    neighbor_count = np.zeros(size, np.int64)
    for tile, around in enumerate(board.neighbors):
        neighbors[tile, :len(around)] = around
        neighbor_count[tile] = len(around)
    classes = list(scenario.move_costs)
    move_cost = np.array([[-1.0 if c is None else float(c) for c in scenario.move_costs[cls]]
                          for cls in classes], np.float64)
    specs = scenario.units
    side_units = np.full((2, n), -1, np.int64)
    for side in (0, 1):
        side_units[side, :len(scenario.side_units[side])] = scenario.side_units[side]
    # The encoder's expressions for the constant features (ObservationEncoder.__init__).
    unit_planes = np.array([
        [u.type.atk / encoder.max_atk, u.type.move / encoder.max_move,
         u.type.range_min / encoder.max_range, u.type.range_max / encoder.max_range,
         1.0 if u.leader else 0.0] for u in specs
    ], np.float32).reshape(len(specs), len(CONSTANT_FEATURES))
    channel = {name: index for index, name in enumerate(encoder.channel_names)}
    longest_range = max((u.type.range_max for u in specs), default=1)
    return kernels.Tables(
        size=size, n=n, num_actions=scenario.num_actions, first_side=scenario.first_side,
        max_turns=scenario.max_turns, win_rule=WIN_RULES.index(scenario.win),
        turn_limit_hp=scenario.turn_limit_result == "hp",
        line_of_sight=bool(scenario.line_of_sight), flip=bool(encoder.flip),
        neighbors=neighbors, neighbor_count=neighbor_count, move_cost=move_cost,
        distance=np.array(board.distance_table, np.int32).reshape(size, size),
        sight_blocked=_sight_blocked(scenario, longest_range),
        units=np.array([[u.side, u.slot, u.type.atk, u.hp, int(u.leader),
                         classes.index(u.type.move_class), u.type.range_min, u.type.range_max]
                        for u in specs], np.int64).reshape(len(specs), len(kernels.UNIT_COLUMNS)),
        unit_budget=np.array([u.type.move + MOVE_EPSILON for u in specs], np.float64),
        side_units=side_units,
        side_count=np.array([len(scenario.side_units[s]) for s in (0, 1)], np.int64),
        static_planes=_static_planes(encoder, scenario), unit_planes=unit_planes,
        max_hp=int(encoder.max_hp), turn_channel=channel["turn_progress"],
        own_base=channel["own:present"], own_acted=channel["own:acted"],
        enemy_base=channel["enemy:present"], own_slot=channel["own_slot:0"],
        enemy_slot=channel["enemy_slot:0"],
    )


def region_capacity(tables: kernels.Tables) -> int:
    """Room for the largest movement region any unit of the scenario can have."""
    classes = tables.units[:, kernels.MOVE_CLASS].tolist()
    pairs = sorted(set(zip(classes, tables.unit_budget.tolist(), strict=True)))
    if not pairs:
        return 1
    return int(kernels.largest_region(
        tables.neighbors, tables.neighbor_count, tables.move_cost,
        np.array([c for c, _ in pairs], np.int64), np.array([b for _, b in pairs], np.float64)))


class CompiledTBWBatched(TBWBatched):
    backend = "numba"

    def __init__(self, num_envs: int, scenario: Scenario, flip_perspective: bool,
                 threads: int | None = None):
        super().__init__(num_envs, scenario, flip_perspective)
        self._slices = ThreadSlices(num_envs, threads)
        self._tables = t = pack_scenario(scenario, self.encoder)
        units, capacity = len(scenario.units), region_capacity(t)
        self._games = kernels.Games(
            hp=np.zeros((num_envs, units), np.int64), pos=np.zeros((num_envs, units), np.int64),
            occupant=np.full((num_envs, t.size), -1, np.int64),
            acted=np.zeros((num_envs, units), bool), current_player=self.current_player,
            turn=self.turn, winner=self.winner, terminated=self.terminated,
            last_side=np.full(num_envs, -1, np.int64), end_reason=self.end_reason,
            plies=self.plies, regions_fresh=np.zeros(num_envs, bool),
            region_len=np.zeros((num_envs, t.n), np.int64),
            region_tiles=np.zeros((num_envs, t.n, capacity), np.int64),
            region_attacks=np.zeros((num_envs, t.n, capacity), np.int64),
            observation=self.observation.reshape(num_envs, -1), action_mask=self.action_mask,
        )
        self._first = state_fields(self.build_state())
        self._reset_games(np.arange(num_envs, dtype=np.int64))

    def _observation_moved(self) -> None:
        self._games = self._games._replace(observation=self.observation.reshape(self.num_envs, -1))

    def _write(self, indices: np.ndarray, fields: dict) -> None:
        """Slots ``indices`` hold the position ``fields`` (as ``state_fields`` gives them)."""
        g = self._games
        g.hp[indices] = fields["hp"]
        g.pos[indices] = fields["pos"]
        g.occupant[indices] = fields["occupant"]
        g.acted[indices] = fields["acted"]
        g.current_player[indices] = fields["current_player"]
        g.turn[indices] = fields["turn"]
        g.winner[indices] = -1 if fields["winner"] is None else fields["winner"]
        g.terminated[indices] = fields["terminal"]
        g.last_side[indices] = -1 if fields["last_side"] is None else fields["last_side"]
        g.plies[indices] = 0
        kernels.refresh_games(self._tables, g, indices)

    def _set_state(self, index: int, fields: dict) -> None:
        self._write(np.array([index], np.int64), fields)

    def _reset_games(self, indices: np.ndarray) -> None:
        if indices.size:
            self._write(indices, self._first)

    def state(self, index: int) -> TBWState:
        i = self._check_index(index, "state")
        g = self._games
        winner, last_side = int(g.winner[i]), int(g.last_side[i])
        return self.build_state({
            "hp": g.hp[i].tolist(), "pos": g.pos[i].tolist(), "occupant": g.occupant[i].tolist(),
            "acted": g.acted[i].tolist(), "current_player": int(g.current_player[i]),
            "turn": int(g.turn[i]), "winner": None if winner < 0 else winner,
            "terminal": bool(g.terminated[i]), "last_side": None if last_side < 0 else last_side,
        })

    def _step(self, actions: np.ndarray, active: np.ndarray) -> None:
        self._slices.run(kernels.step_games, self._tables, self._games, actions, active)
