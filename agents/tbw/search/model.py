"""The single-turn search problem extracted from a TBW game-core state (``TurnModel``).

During one side's turn the enemy units do not move; only their Hp changes. Everything a search
needs is therefore fixed at the root except four small mutable things: where our ready units
stand, which tiles are occupied, the enemies' Hp, and which enemies have died (a bit mask).
``TurnModel`` precomputes the rest from the game core:

* ``region(i, dead)``: the tiles ready unit ``i`` may move to when the enemies in the bit mask
  ``dead`` have been killed (Dijkstra over movement costs; through our own units, never
  through living enemies; whether the end tile is free is checked at search time, because our
  units that have already moved free their start tiles and occupy new ones);
* ``targets(i, tile)``: the enemies unit ``i`` could attack from ``tile`` (range and line of
  sight depend on terrain and the enemy's fixed tile only; whether it is still alive is checked
  at search time);
* the occupancy of the board at the root, the win test per dead mask, and the action encoding.

Enemy indices put the enemies that can possibly be attacked this turn first, so dead masks stay
below ``1 << n_attackable``.
"""

from __future__ import annotations

from tbw_envs.tbw.rules import in_attack_range, reachable_tiles, side_has_lost

# Occupancy codes: -1 free, 0..n-1 ready unit i, n+e enemy e, STATIC for our units that have
# already acted this turn (they block end tiles but, being ours, not paths).
FREE = -1


class TurnModel:
    def __init__(self, state):
        if state.is_terminal():
            raise ValueError("cannot plan a turn in a finished game")
        sc = state.scenario
        self.state = state
        self.scenario = sc
        self.side = side = state.current_player
        self.ready: list[int] = state.ready_units()
        self.n = n = len(self.ready)
        self.start = [state.pos[u] for u in self.ready]
        self.atk = [sc.units[u].type.atk for u in self.ready]
        self.static_own = [
            u for u in sc.side_units[side] if state.hp[u] > 0 and u not in self.ready
        ]
        self._region_cache: dict[tuple[int, int], tuple[int, ...]] = {}
        self._region_set_cache: dict[tuple[int, int], frozenset[int]] = {}
        self._target_cache: dict[tuple[int, int], tuple[int, ...]] = {}

        living_enemies = [e for e in sc.side_units[1 - side] if state.hp[e] > 0]
        # Provisional enemy order to find the attackable ones, then the final order.
        self.enemy_uid = living_enemies
        self.enemy_tile = [state.pos[e] for e in living_enemies]
        attackable = self._attackable_enemies()
        self.enemy_uid = [e for e in living_enemies if e in attackable] + [
            e for e in living_enemies if e not in attackable
        ]
        self.enemy_tile = [state.pos[e] for e in self.enemy_uid]
        self.n_enemies = len(self.enemy_uid)
        self.n_attackable = len(attackable)
        self.enemy_hp = [state.hp[e] for e in self.enemy_uid]
        self.enemy_slot = [sc.units[e].slot for e in self.enemy_uid]
        self._region_cache.clear()
        self._region_set_cache.clear()
        self._target_cache.clear()

        self.static_code = n + self.n_enemies
        occ = [FREE] * sc.board.size
        for i, tile in enumerate(self.start):
            occ[tile] = i
        for e, tile in enumerate(self.enemy_tile):
            occ[tile] = n + e
        for u in self.static_own:
            occ[state.pos[u]] = self.static_code
        self.occupancy = occ

        # Win test per dead mask (enemies dead before the turn count as dead already).
        self._dead_before = [
            e for e in sc.side_units[1 - side] if state.hp[e] <= 0
        ]
        self.full_attackable_mask = (1 << self.n_attackable) - 1
        self._unit_slot = [u.slot for u in sc.units]

    # ---------------------------------------------------------------- geometry

    def region(self, i: int, dead: int) -> tuple[int, ...]:
        key = (i, dead)
        tiles = self._region_cache.get(key)
        if tiles is None:
            tiles = self._compute_region(i, dead)
            self._region_cache[key] = tiles
        return tiles

    def region_set(self, i: int, dead: int) -> frozenset[int]:
        """``region(i, dead)`` as a set, for membership tests."""
        key = (i, dead)
        tiles = self._region_set_cache.get(key)
        if tiles is None:
            tiles = self._region_set_cache[key] = frozenset(self.region(i, dead))
        return tiles

    def _compute_region(self, i: int, dead: int) -> tuple[int, ...]:
        """The core's movement rule, with the enemies in ``dead`` removed from the board."""
        blocked = {
            tile for e, tile in enumerate(self.enemy_tile) if not (dead >> e) & 1
        }
        uid = self.ready[i]
        return tuple(sorted(
            reachable_tiles(self.scenario, self.start[i], self.scenario.units[uid].type, blocked)
        ))

    def targets(self, i: int, tile: int) -> tuple[int, ...]:
        """Enemy indices unit ``i`` could attack from ``tile`` if they are alive."""
        key = (i, tile)
        out = self._target_cache.get(key)
        if out is None:
            uid = self.ready[i]
            out = tuple(
                e for e, euid in enumerate(self.enemy_uid)
                if self._in_attack_range(uid, tile, euid)
            )
            self._target_cache[key] = out
        return out

    def _in_attack_range(self, uid: int, tile: int, target: int) -> bool:
        sc = self.scenario
        return in_attack_range(sc, sc.units[uid].type, tile, self.state.pos[target])

    def _attackable_enemies(self) -> set[int]:
        """Enemies (by uid) that some ready unit can attack this turn under some kill order:
        grow the dead set until no new enemy comes in reach (kills only widen regions)."""
        found: set[int] = set()
        while True:
            dead = sum(1 << e for e, uid in enumerate(self.enemy_uid) if uid in found)
            self._region_cache.clear()
            new = set(found)
            for i, uid in enumerate(self.ready):
                for tile in self.region(i, dead):
                    for euid in self.enemy_uid:
                        if euid not in new and self._in_attack_range(uid, tile, euid):
                            new.add(euid)
            if new == found:
                return found
            found = new

    # ---------------------------------------------------------------- rules

    def is_win(self, dead: int) -> bool:
        """Whether the enemies in ``dead`` (plus those dead before the turn) lose the game."""
        dead_uids = {self.enemy_uid[e] for e in range(self.n_enemies) if (dead >> e) & 1}
        dead_uids.update(self._dead_before)
        return side_has_lost(self.scenario, 1 - self.side, dead_uids)

    def alive_uids(self, dead: int) -> frozenset[int]:
        return frozenset(
            uid for e, uid in enumerate(self.enemy_uid) if not (dead >> e) & 1
        )

    def full_hp(self, enemy_hp) -> list[int]:
        """The game's Hp vector (by unit id) with the enemies' Hp replaced by ``enemy_hp``."""
        hp = self.state.hp[:]
        for e, uid in enumerate(self.enemy_uid):
            hp[uid] = enemy_hp[e]
        return hp

    def encode(self, i: int, tile: int, target: int) -> int:
        """The game action: ready unit ``i`` moves to ``tile`` and attacks enemy index
        ``target`` (-1: no attack)."""
        enemy_slot = None if target < 0 else self.enemy_slot[target]
        return self.scenario.unit_action(self._unit_slot[self.ready[i]], tile, enemy_slot)

    def decode(self, action: int) -> tuple[int, int, int]:
        """Inverse of ``encode`` for unit actions of a ready unit."""
        slot, tile, enemy_slot = self.scenario.split_action(action)
        i = next(j for j, u in enumerate(self.ready) if self._unit_slot[u] == slot)
        target = -1 if enemy_slot is None else self.enemy_slot.index(enemy_slot)
        return i, tile, target


class Evaluator:
    """Leaf evaluation for a search over ``model``: through the evaluation's decomposition
    (tables, fast) when it has one, else by replaying the plan on a clone of the root state
    and calling ``evaluate(state, side)`` (any evaluation, slow)."""

    def __init__(self, model: TurnModel, evaluate, decomposition):
        self.model = model
        self.evaluate = evaluate
        self.decomposition = decomposition
        self._base_cache: dict[tuple[int, ...], float] = {}
        self._mask_cache: dict[int, tuple[float, list]] = {}
        # A base linear in the living enemies' Hp (``DefaultEvaluation``) is evaluated as
        # ``mask_constant(dead) + sum(coef x Hp) + tables``: the compiled kernel sums the same
        # terms in the same order, so both round alike and break ties between plans alike.
        self.hp_coef: list[float] | None = None
        if decomposition is not None and hasattr(decomposition, "linear_hp_coefficients"):
            coef = decomposition.linear_hp_coefficients()
            self.hp_coef = [float(coef[u]) for u in model.enemy_uid]
            self._hp_terms = tuple(enumerate(self.hp_coef))
        self._mask_constants: dict[int, tuple[float, list]] = {}

    def tables(self, dead: int) -> tuple[float, list]:
        """(value of our static units, per-ready-unit tile tables) for the dead mask."""
        entry = self._mask_cache.get(dead)
        if entry is None:
            m, dec = self.model, self.decomposition
            alive = m.alive_uids(dead)
            static = sum(dec.unit_table(u, alive)[m.state.pos[u]] for u in m.static_own)
            entry = (static, [dec.unit_table(u, alive) for u in m.ready])
            self._mask_cache[dead] = entry
        return entry

    def base(self, enemy_hp) -> float:
        key = tuple(enemy_hp)
        value = self._base_cache.get(key)
        if value is None:
            value = self.decomposition.base(self.model.full_hp(enemy_hp))
            self._base_cache[key] = value
        return value

    def mask_constant(self, dead: int) -> float:
        """With ``hp_coef``: base + static value - the linear Hp part, for the dead mask."""
        return self._linear_entry(dead)[0]

    def _linear_entry(self, dead: int) -> tuple[float, list]:
        entry = self._mask_constants.get(dead)
        if entry is None:
            probe = [0 if (dead >> e) & 1 else hp for e, hp in enumerate(self.model.enemy_hp)]
            linear = sum(c * hp for c, hp in zip(self.hp_coef, probe, strict=True))
            static, tables = self.tables(dead)
            entry = self._mask_constants[dead] = (self.base(probe) + static - linear, tables)
        return entry

    def leaf(self, pos, enemy_hp, dead: int, plan) -> float:
        if self.hp_coef is not None:  # the kernel's summation order, term for term (__init__)
            entry = self._mask_constants.get(dead) or self._linear_entry(dead)
            value, tables = entry
            for e, c in self._hp_terms:
                value += c * enemy_hp[e]
        elif self.decomposition is None:
            return self.replay_value(plan)
        else:
            static, tables = self.tables(dead)
            value = self.base(enemy_hp) + static
        for i, tile in enumerate(pos):
            value += tables[i][tile]
        return value

    def replay(self, plan):
        """The game state after playing ``plan`` [(i, tile, target), ...] from the root."""
        state = self.model.state.clone()
        for i, tile, target in plan:
            state.apply(self.model.encode(i, tile, target))
        return state

    def replay_value(self, plan) -> float:
        return float(self.evaluate(self.replay(plan), self.model.side))
