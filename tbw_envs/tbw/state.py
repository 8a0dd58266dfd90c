"""The TBW game state: rules, legal actions and the forward model that agents search.

One action is one unit's whole action (move, then attack or not); a side's turn is a sequence
of such actions, one per living unit at most, in the order the player chooses, until every unit
has acted or the player plays END_TURN.

Action encoding, with N = scenario.units_per_side and T = rows * cols:
``action = (slot * T + tile) * (N + 1) + k`` where ``slot`` is the acting side's unit slot,
``tile`` the destination and ``k`` the enemy slot attacked (``k == N``: no attack);
END_TURN is the last action, ``N * T * (N + 1)``.

Speed: a unit's movement region depends on terrain and *enemy* positions only (allies are
passable), and enemies do not move during our turn, so regions and attack options are computed
once per turn and reused until an enemy dies. Legal actions are then a filter over cached tuples.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tbw_envs.core.contract import check_action, is_integer, short_repr
from tbw_envs.core.errors import IllegalActionError
from tbw_envs.tbw.render import render_ansi
from tbw_envs.tbw.rules import MOVE_EPSILON, in_attack_range, reachable_tiles, side_has_lost
from tbw_envs.tbw.variant import Scenario, load_scenario

END_TURN = "END_TURN"
__all__ = ["END_TURN", "MOVE_EPSILON", "IllegalActionError", "TBWState", "Unit", "as_action_id"]


class EndReason(str):
    """An end reason (a plain string in every comparison, JSON or pickle) that can also be
    called: ``end_reason`` was a method before it became the property both games share."""

    def __call__(self) -> str:
        warnings.warn("TBWState.end_reason is a property now; read it without calling it",
                      DeprecationWarning, stacklevel=2)
        return str(self)


# Why a game ended (``TBWState.end_reason``).
ANNIHILATION = "annihilation"
LEADER_KILLED = "leader_killed"
MUTUAL_DEFEAT = "mutual_defeat"
TURN_LIMIT_HP = "turn_limit_hp"
TURN_LIMIT_DRAW = "turn_limit_draw"
END_REASONS = (ANNIHILATION, LEADER_KILLED, MUTUAL_DEFEAT, TURN_LIMIT_HP, TURN_LIMIT_DRAW)


def as_action_id(action, num_actions: int) -> int:
    """``action`` as a plain int in ``[0, num_actions)`` (Python or numpy integers, or a 0-d
    integer array; never a bool); anything else raises ``IllegalActionError`` naming the value
    (the input contract, ``tbw_envs.core.contract.check_action``)."""
    return check_action(action, num_actions, error=IllegalActionError)


@dataclass(frozen=True)
class Unit:
    """A read-only snapshot of one unit (``state.units``)."""

    id: int
    side: int
    slot: int
    type: str
    pos: tuple[int, int] | None
    hp: int
    max_hp: int
    atk: int
    move: float
    range: tuple[int, int]
    leader: bool
    alive: bool
    acted: bool


class TBWState:
    """Full game state. Cheap to ``clone()``; agents search clones, envs wrap one."""

    __slots__ = (
        "scenario", "hp", "pos", "occupant", "acted", "current_player", "turn", "winner",
        "terminal", "last_side", "_options", "_legal",
    )

    def __init__(self, scenario: Scenario):
        self.scenario = scenario
        b = scenario.board
        self.hp = [u.hp for u in scenario.units]
        self.pos = [b.tile(u.row, u.col) for u in scenario.units]
        self.occupant = [-1] * b.size
        for uid, tile in enumerate(self.pos):
            self.occupant[tile] = uid
        self.acted = [False] * len(scenario.units)
        self.current_player = scenario.first_side
        self.turn = 1  # the round number: each side plays its ``turn``-th turn
        self.winner: int | None = None
        self.terminal = False
        # The side that played the most recent action (None before the first): after a turn
        # ends the state alone would not say who just moved, which evaluations need.
        self.last_side: int | None = None
        # unit id -> {destination tile: (no-attack action, attack actions...)}, for the units of
        # the side to move, valid until an enemy dies or the turn ends.
        self._options: dict[int, dict[int, tuple[int, ...]]] = {}
        self._legal: list[int] | None = None
        self._check_game_over()

    @classmethod
    def initial(cls, scenario: Scenario | str | Path | dict) -> TBWState:
        """The first position of ``scenario``: a ``Scenario``, or what ``load_scenario`` takes
        (a bundled name such as ``"duel_5v5_8x8"``, a YAML path, or a dict)."""
        return cls(load_scenario(scenario))

    # ------------------------------------------------------------------ basics

    @property
    def num_actions(self) -> int:
        return self.scenario.num_actions

    @property
    def end_turn_action(self) -> int:
        return self.scenario.num_actions - 1

    def clone(self) -> TBWState:
        new = TBWState.__new__(TBWState)
        new.scenario = self.scenario
        new.hp = self.hp[:]
        new.pos = self.pos[:]
        new.occupant = self.occupant[:]
        new.acted = self.acted[:]
        new.current_player = self.current_player
        new.turn = self.turn
        new.winner = self.winner
        new.terminal = self.terminal
        new.last_side = self.last_side
        new._options = dict(self._options)  # values are never mutated, only replaced
        new._legal = self._legal
        return new

    def view(self, player: int) -> TBWState:
        """TBW is a perfect-information game: a player's view is a copy of the full state."""
        self._check_player(player)
        return self.clone()

    def is_terminal(self) -> bool:
        return self.terminal

    @property
    def end_reason(self) -> EndReason | None:
        """Why the game ended (one of ``END_REASONS``), None while it is running. The state
        keeps only ``winner``, so this reads the reason off the board."""
        if not self.terminal:
            return None
        return EndReason(self._read_end_reason())

    def _read_end_reason(self) -> str:
        sc = self.scenario
        dead = [[u for u in sc.side_units[side] if self.hp[u] <= 0] for side in (0, 1)]
        lost = [side_has_lost(sc, side, dead[side]) for side in (0, 1)]
        if lost[0] and lost[1]:
            return MUTUAL_DEFEAT
        if lost[0] or lost[1]:
            loser = 0 if lost[0] else 1
            return ANNIHILATION if len(dead[loser]) == len(sc.side_units[loser]) else LEADER_KILLED
        return TURN_LIMIT_HP if self.winner is not None else TURN_LIMIT_DRAW

    def returns(self) -> list[float]:
        """[+1, -1] for a side-0 win, [-1, +1] for a side-1 win, [0, 0] otherwise."""
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == 0 else [-1.0, 1.0]

    def alive(self, uid: int) -> bool:
        return self.hp[uid] > 0

    def living_units(self, side: int) -> list[int]:
        return [u for u in self.scenario.side_units[side] if self.hp[u] > 0]

    def ready_units(self) -> list[int]:
        """Units of the side to move that are alive and have not acted this turn."""
        if self.terminal:
            return []
        return [
            u for u in self.scenario.side_units[self.current_player]
            if self.hp[u] > 0 and not self.acted[u]
        ]

    @property
    def units(self) -> list[Unit]:
        sc = self.scenario
        out = []
        for spec in sc.units:
            uid = spec.id
            alive = self.hp[uid] > 0
            out.append(
                Unit(
                    id=uid, side=spec.side, slot=spec.slot, type=spec.type.name,
                    pos=sc.board.rc(self.pos[uid]) if alive else None,
                    hp=max(self.hp[uid], 0), max_hp=spec.hp, atk=spec.type.atk,
                    move=spec.type.move, range=(spec.type.range_min, spec.type.range_max),
                    leader=spec.leader, alive=alive, acted=self.acted[uid],
                )
            )
        return out

    def unit_at(self, row: int, col: int) -> int | None:
        uid = self.occupant[self.scenario.board.tile(row, col)]
        return None if uid < 0 else uid

    # ------------------------------------------------------------------ movement and attacks

    def movement_range(self, uid: int) -> dict[int, float]:
        """Tiles the unit can end its move on, mapped to the movement points spent (Dijkstra).

        Passes through its own side's units, never through enemies, never ends on an occupied
        tile; its own tile (cost 0) is always included.
        """
        region = self._reachable(uid)
        occ = self.occupant
        return {t: c for t, c in region.items() if occ[t] < 0 or occ[t] == uid}

    def _reachable(self, uid: int) -> dict[int, float]:
        """Tiles reachable within movement points, ignoring whether allies stand on them."""
        sc = self.scenario
        side = sc.unit_sides[uid]
        enemy_tiles = {
            self.pos[e] for e in sc.side_units[1 - side] if self.hp[e] > 0
        }
        return reachable_tiles(sc, self.pos[uid], sc.units[uid].type, enemy_tiles)

    def can_attack_from(self, uid: int, tile: int, target: int) -> bool:
        """Whether ``uid`` standing on ``tile`` may attack ``target`` where it now stands."""
        sc = self.scenario
        if self.hp[target] <= 0 or sc.units[target].side == sc.units[uid].side:
            return False
        return in_attack_range(sc, sc.units[uid].type, tile, self.pos[target])

    def _unit_options(self, uid: int) -> dict[int, tuple[int, ...]]:
        options = self._options.get(uid)
        if options is not None:
            return options
        sc = self.scenario
        n = sc.units_per_side
        size = sc.board.size
        slot_base = sc.units[uid].slot * size
        enemies = [
            (sc.units[e].slot, e, self.pos[e])
            for e in sc.side_units[1 - sc.units[uid].side] if self.hp[e] > 0
        ]
        utype = sc.units[uid].type
        rmin, rmax = utype.range_min, utype.range_max
        distance_table = sc.board.distance_table
        check_sight = sc.line_of_sight and rmax > 1
        options = {}
        for tile in self._reachable(uid):
            base = (slot_base + tile) * (n + 1)  # Scenario.unit_action, inlined: hot loop
            acts = [base + n]
            distances = distance_table[tile]
            # Inlined range test (the hot loop); can_attack_from is the readable twin.
            for k, e, epos in enemies:
                if rmin <= distances[epos] <= rmax and (
                    not check_sight or self.can_attack_from(uid, tile, e)
                ):
                    acts.append(base + k)
            options[tile] = tuple(acts)
        self._options[uid] = options
        return options

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[int]:
        """All legal actions, sorted ascending (END_TURN last); empty when the game is over."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal[:]

    def _compute_legal(self) -> list[int]:
        if self.terminal:
            return []
        occ = self.occupant
        out: list[int] = []
        for uid in self.ready_units():
            for tile, acts in self._unit_options(uid).items():
                o = occ[tile]
                if o < 0 or o == uid:
                    out.extend(acts)
        out.sort()
        out.append(self.end_turn_action)
        return out

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(self.scenario.num_actions, dtype=np.int8)
        legal = self._legal if self._legal is not None else self.legal_actions()
        mask[legal] = 1
        return mask

    def is_legal(self, action) -> bool:
        try:
            self._check_legal(action)
        except IllegalActionError:
            return False
        return True

    # ------------------------------------------------------------------ encoding

    def encode_action(self, unit_id, dest=None, target=None) -> int:
        """Action id of ``unit_id`` (of the side to move) moving to ``dest`` = (row, col) and
        attacking ``target`` (a unit id, or None); ``encode_action(END_TURN)`` is END_TURN.

        Ids and coordinates must be integers (Python or numpy, never bools): ``True`` would
        silently mean unit 1 and ``(6.5, 1)`` a tile nobody named."""
        if isinstance(unit_id, str) and unit_id == END_TURN:
            return self.end_turn_action
        sc = self.scenario
        if not is_integer(unit_id) or not 0 <= unit_id < len(sc.units):
            raise ValueError(
                f"encode_action: unknown unit id {short_repr(unit_id)}; unit ids are integers "
                f"0-{len(sc.units) - 1} (or END_TURN)"
            )
        spec = sc.units[int(unit_id)]
        if spec.side != self.current_player:
            raise ValueError(
                f"encode_action: unit {unit_id} belongs to side {spec.side}, "
                f"but side {self.current_player} is to move"
            )
        if isinstance(dest, np.ndarray) and dest.shape == (2,) and dest.dtype.kind in "iu":
            dest = tuple(dest.tolist())
        if (
            not isinstance(dest, (tuple, list))
            or len(dest) != 2
            or not all(map(is_integer, dest))
        ):
            raise ValueError(
                f"encode_action: destination {short_repr(dest)} is not a (row, col) pair of "
                f"integers"
            )
        row, col = int(dest[0]), int(dest[1])
        if not sc.board.in_bounds(row, col):
            raise ValueError(
                f"encode_action: destination ({row}, {col}) is outside the "
                f"{sc.board.rows} x {sc.board.cols} board"
            )
        tile = sc.board.tile(row, col)
        enemy_slot = None
        if target is not None:
            if not is_integer(target) or not 0 <= target < len(sc.units):
                raise ValueError(
                    f"encode_action: unknown target unit id {short_repr(target)}; unit ids "
                    f"are integers 0-{len(sc.units) - 1} (or None for no attack)"
                )
            if sc.units[int(target)].side == spec.side:
                raise ValueError(f"encode_action: target {target} is on the acting side")
            enemy_slot = sc.units[int(target)].slot
        return sc.unit_action(spec.slot, tile, enemy_slot)

    def decode_action(self, action):
        """``(unit_id, (row, col), target_unit_id or None)`` for the side to move, or END_TURN."""
        action = self._as_action_int(action)
        if action == self.end_turn_action:
            return END_TURN
        sc = self.scenario
        slot, tile, k = sc.split_action(action)
        own = sc.side_units[self.current_player]
        if slot >= len(own):
            raise IllegalActionError(
                f"action {action}: side {self.current_player} has no unit in slot {slot}"
            )
        target = None
        if k is not None:
            enemy = sc.side_units[1 - self.current_player]
            if k >= len(enemy):
                raise IllegalActionError(
                    f"action {action}: side {1 - self.current_player} has no unit in slot {k}"
                )
            target = enemy[k]
        return own[slot], sc.board.rc(tile), target

    def describe_action(self, action) -> str:
        decoded = self.decode_action(action)
        if decoded == END_TURN:
            return "END_TURN"
        uid, dest, target = decoded
        sc = self.scenario
        text = f"unit {uid} ({sc.units[uid].type.name}) -> {dest}"
        if target is not None:
            text += f", attacks unit {target} ({sc.units[target].type.name})"
        return text

    def _as_action_int(self, action) -> int:
        return as_action_id(action, self.num_actions)

    def _check_legal(self, action) -> tuple:
        if self.terminal:
            raise IllegalActionError(f"action {short_repr(action)}: the game is over")
        decoded = self.decode_action(action)
        if decoded == END_TURN:
            return decoded
        uid, dest, target = decoded
        action = int(action)
        if self.hp[uid] <= 0:
            raise IllegalActionError(f"action {action}: unit {uid} is dead")
        if self.acted[uid]:
            raise IllegalActionError(f"action {action}: unit {uid} has already acted this turn")
        tile = self.scenario.board.tile(*dest)
        acts = self._unit_options(uid).get(tile)
        if acts is None:
            raise IllegalActionError(
                f"action {action}: {dest} is out of unit {uid}'s movement range"
            )
        if self.occupant[tile] not in (-1, uid):
            raise IllegalActionError(
                f"action {action}: {dest} is occupied by unit {self.occupant[tile]}"
            )
        if action not in acts:
            raise IllegalActionError(
                f"action {action}: unit {uid} at {dest} cannot attack unit {target} "
                f"(dead or out of attack range)"
            )
        return decoded

    # ------------------------------------------------------------------ transitions

    def apply(self, action) -> None:
        """Play one action; raises ``IllegalActionError`` (a ValueError) and leaves the state
        unchanged if it is not legal."""
        try:
            decoded = self._check_legal(action)
        except IllegalActionError as exc:
            legal_count = 0 if self.terminal else len(self.legal_actions())
            raise IllegalActionError(f"{exc} [{legal_count} legal actions]") from None
        self._legal = None
        self.last_side = self.current_player
        if decoded == END_TURN:
            self._end_turn()
            return
        uid, dest, target = decoded
        self._act(uid, self.scenario.board.tile(*dest), target)

    def _act(self, uid: int, tile: int, target: int | None) -> None:
        occ = self.occupant
        occ[self.pos[uid]] = -1
        occ[tile] = uid
        self.pos[uid] = tile
        self.acted[uid] = True
        self._options.pop(uid, None)
        if target is not None:
            self.hp[target] = max(0, self.hp[target] - self.scenario.units[uid].type.atk)
            if self.hp[target] == 0:
                occ[self.pos[target]] = -1
                # A freed tile opens paths and removes attack options: recompute regions.
                self._options = {}
                if self._check_game_over():
                    return
        if not self.ready_units():
            self._end_turn()

    def _end_turn(self) -> None:
        sc = self.scenario
        for uid in sc.side_units[self.current_player]:
            self.acted[uid] = False
        self._options = {}
        self._legal = None
        self.current_player = 1 - self.current_player
        if self.current_player == sc.first_side:
            if self.turn >= sc.max_turns:
                self._finish_at_turn_limit()
            else:
                self.turn += 1

    def _finish_at_turn_limit(self) -> None:
        self.terminal = True
        if self.scenario.turn_limit_result == "hp":
            totals = [sum(max(self.hp[u], 0) for u in self.scenario.side_units[s]) for s in (0, 1)]
            if totals[0] != totals[1]:
                self.winner = 0 if totals[0] > totals[1] else 1

    def _check_game_over(self) -> bool:
        sc = self.scenario
        if sc.win == "none":
            return False
        lost = [
            side_has_lost(sc, side, [u for u in sc.side_units[side] if self.hp[u] <= 0])
            for side in (0, 1)
        ]
        if lost[0] or lost[1]:
            self.terminal = True
            self._options = {}
            self._legal = None
            if lost[0] != lost[1]:
                self.winner = 1 if lost[0] else 0
            return True
        return False

    # ------------------------------------------------------------------ misc

    def _check_player(self, player) -> None:
        if player not in (0, 1) or isinstance(player, bool):
            raise ValueError(f"player must be 0 or 1, got {short_repr(player)}")

    def render_text(self) -> str:
        return render_ansi(self)

    def __repr__(self) -> str:
        alive = [len(self.living_units(s)) for s in (0, 1)]
        status = f"winner={self.winner}" if self.terminal else f"side {self.current_player} to move"
        return (
            f"TBWState({self.scenario.name!r}, turn {self.turn}, {status}, "
            f"units alive {alive[0]} v {alive[1]})"
        )
