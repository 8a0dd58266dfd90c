"""Observation planes of a TBW state from one side's point of view (plain numpy).

Lives beside the core (not in the env) so learned agents can encode a view exactly as the env
does. With ``flip=True`` the board is rotated 180 degrees for side 1, so "my" army always starts
at the bottom and one policy can play both seats; the env rotates action tiles the same way.
(On hex boards the rotation is an exact symmetry of the grid when the row count is even.)
"""

from __future__ import annotations

import numpy as np

# Per-side unit feature planes, in channel order.
UNIT_FEATURES = ("present", "hp_fraction", "hp", "atk", "move", "range_min", "range_max", "leader")


class ObservationEncoder:
    """Builds ``(C, H, W)`` float32 planes in [0, 1]; static terrain planes are built once."""

    def __init__(self, scenario, flip: bool = True):
        self.scenario = scenario
        self.flip = flip
        b = scenario.board
        self.rows, self.cols, self.size = b.rows, b.cols, b.size
        n = scenario.units_per_side
        terrain_names = scenario.terrain_names
        classes = list(scenario.move_costs)
        specs = scenario.units
        self.max_hp = max((u.hp for u in specs), default=1)
        self.max_atk = max((u.type.atk for u in specs), default=1) or 1
        self.max_move = max((u.type.move for u in specs), default=1) or 1
        self.max_range = max((u.type.range_max for u in specs), default=1)

        names = [f"terrain:{t}" for t in terrain_names]
        names += [f"move_cost:{c}" for c in classes]
        names += ["turn_progress"]
        names += [f"own:{f}" for f in UNIT_FEATURES] + ["own:acted"]
        names += [f"enemy:{f}" for f in UNIT_FEATURES]
        names += [f"own_slot:{k}" for k in range(n)] + [f"enemy_slot:{k}" for k in range(n)]
        self.channel_names: tuple[str, ...] = tuple(names)
        self.shape = (len(names), b.rows, b.cols)
        ch = {name: i for i, name in enumerate(names)}
        self._turn_channel = ch["turn_progress"]
        self._own_base = ch["own:present"]
        self._own_acted = ch["own:acted"]
        self._enemy_base = ch["enemy:present"]
        self._own_slot = ch["own_slot:0"] if n else 0
        self._enemy_slot = ch["enemy_slot:0"] if n else 0

        static = np.zeros(self.shape, np.float32)
        tindex = scenario.terrain_index
        for tile in range(b.size):
            r, c = b.rc(tile)
            static[tindex[tile], r, c] = 1.0
        for i, cls in enumerate(classes):
            costs = scenario.move_costs[cls]
            finite = [x for x in costs if x is not None] or [1]
            top = max(finite)
            for tile, cost in enumerate(costs):
                r, c = b.rc(tile)
                static[len(terrain_names) + i, r, c] = 0.0 if cost is None else cost / top
        self._static = static
        self._static_rotated = np.ascontiguousarray(static[:, ::-1, ::-1])
        # Per-unit constant features, so the hot loop only writes numbers.
        self._unit_constants = [
            (
                u.side, u.slot, u.hp,
                u.type.atk / self.max_atk, u.type.move / self.max_move,
                u.type.range_min / self.max_range, u.type.range_max / self.max_range,
                1.0 if u.leader else 0.0,
            )
            for u in specs
        ]

    def encode(self, state, side: int) -> np.ndarray:
        flip = self.flip and side == 1
        obs = (self._static_rotated if flip else self._static).copy()
        flat = obs.reshape(-1)
        size = self.size
        obs[self._turn_channel] = min(state.turn / state.scenario.max_turns, 1.0)
        max_hp = self.max_hp
        for uid, (uside, slot, full_hp, atk, move, rmin, rmax, leader) in enumerate(
            self._unit_constants
        ):
            hp = state.hp[uid]
            if hp <= 0:
                continue
            tile = state.pos[uid]
            if flip:
                tile = size - 1 - tile
            if uside == side:
                base, slot_base = self._own_base, self._own_slot
                if state.acted[uid]:
                    flat[self._own_acted * size + tile] = 1.0
            else:
                base, slot_base = self._enemy_base, self._enemy_slot
            flat[base * size + tile] = 1.0
            flat[(base + 1) * size + tile] = hp / full_hp
            flat[(base + 2) * size + tile] = hp / max_hp
            flat[(base + 3) * size + tile] = atk
            flat[(base + 4) * size + tile] = move
            flat[(base + 5) * size + tile] = rmin
            flat[(base + 6) * size + tile] = rmax
            flat[(base + 7) * size + tile] = leader
            flat[(slot_base + slot) * size + tile] = 1.0
        return obs

    def encode_state(self, state) -> np.ndarray:
        """Omniscient planes for centralised critics: side 0's (unrotated) planes plus a
        side-to-move plane."""
        to_move = np.full((1, self.rows, self.cols), float(state.current_player), np.float32)
        return np.concatenate([self.encode(state, 0), to_move])


def action_rotation(scenario) -> np.ndarray:
    """The action ids seen from the other side of the board: rotating the board 180 degrees maps
    tile ``t`` to ``size - 1 - t`` and keeps the unit slot and the target (END_TURN stays). The
    permutation is its own inverse, so it maps frame actions to core actions and back."""
    n = scenario.units_per_side
    size = scenario.board.size
    ids = np.arange(scenario.num_actions - 1)
    k = ids % (n + 1)
    slot, tile = np.divmod(ids // (n + 1), size)
    rotated = (slot * size + (size - 1 - tile)) * (n + 1) + k
    return np.append(rotated, scenario.num_actions - 1)
