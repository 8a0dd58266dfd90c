"""Evaluation of an end-of-turn TBW state, for the single-turn search in ``agents.tbw.search``.

An evaluation is any callable ``evaluate(state, side) -> float``: it scores ``state`` (a game-core
``TBWState`` as the core produces it after a plan, so the turn may already have passed to the
other side) from ``side``'s point of view; larger is better for ``side``. The side is passed
explicitly because the core ends the turn automatically after the last unit acts, so the state
alone cannot say who just moved.

``DefaultEvaluation`` (the default) adds, for ``side`` = "us" and the other side = "them":

* material: ``sum(Hp x ATK)`` of our living units minus the same for theirs, plus
  ``kill_bonus x ATK`` for each dead enemy unit (minus the same for each of ours): a kill also
  removes the unit's future attacks, which its remaining Hp alone undervalues;
* victory: ``+win_value`` if they have lost (annihilated, or leader dead under the ``leader`` win
  rule), ``-win_value`` if we have;
* leader safety: for each of our living leaders, ``-leader_weight x`` the summed ATK of living
  enemies that could reach it next turn (board distance <= their movement + maximum range;
  terrain ignored, a cheap over-estimate of the threat);
* exposure: the same threat sum, ``x exposure_weight``, for every living unit of ours (keeps
  units out of reach unless the attack pays; 2.0 won most games against the greedy baseline
  in a small sweep over 0, 0.5, 1, 2);
* position: ``-position_weight x`` the board distance from each of our living units to the
  nearest living enemy (draws the army forward when nothing is in reach);
* an optional per-tile bonus ``tile_bonus[tile]`` for each of our living units (objectives,
  benchmark evaluations).

Decomposition. Every term except material and victory is a sum over our units of a value that
depends only on the unit's tile and on which enemies are alive; material and victory depend only
on the Hp vector. ``decompose(root, side)`` returns exactly that split (``Decomposition``), and
the exact solver relies on it: it is only used when the evaluation provides it, and the tests
check ``decomposition.value(state) == evaluate(state, side)`` on random states.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


class Decomposition:
    """``evaluate(end, side) == base(end.hp) + sum(unit_table(u, alive)[end.pos[u]])`` over our
    living units ``u``, valid for every state reachable from ``root`` within ``side``'s turn
    (enemy units do not move during it; only their Hp changes)."""

    side: int

    def base(self, hp: Sequence[int]) -> float:  # pragma: no cover - interface
        raise NotImplementedError

    def unit_table(self, uid: int, alive: frozenset[int]) -> Sequence[float]:
        """Per-tile value of our unit ``uid`` when exactly the enemies in ``alive`` live."""
        raise NotImplementedError  # pragma: no cover - interface

    def value(self, state) -> float:
        sc = state.scenario
        alive = frozenset(e for e in sc.side_units[1 - self.side] if state.hp[e] > 0)
        total = self.base(state.hp)
        for u in sc.side_units[self.side]:
            if state.hp[u] > 0:
                total += self.unit_table(u, alive)[state.pos[u]]
        return total


@dataclass(frozen=True)
class DefaultEvaluation:
    """Material, victory, leader safety and position (see the module docstring)."""

    kill_bonus: float = 5.0
    win_value: float = 1_000_000.0
    leader_weight: float = 2.0
    exposure_weight: float = 2.0
    position_weight: float = 0.1
    tile_bonus: tuple[float, ...] | None = None

    decomposable = True

    def __call__(self, state, side: int) -> float:
        return self.decompose(state, side).value(state)

    def decompose(self, root, side: int) -> Decomposition:
        return _DefaultDecomposition(self, root, side)


class _DefaultDecomposition(Decomposition):
    def __init__(self, weights: DefaultEvaluation, root, side: int):
        sc = root.scenario
        self.side = side
        self.weights = weights
        self.scenario = sc
        self.enemy_pos = {e: root.pos[e] for e in sc.side_units[1 - side]}
        self._tables: dict[tuple[int, frozenset[int]], tuple[float, ...]] = {}
        if weights.tile_bonus is not None and len(weights.tile_bonus) != sc.board.size:
            raise ValueError(
                f"tile_bonus has {len(weights.tile_bonus)} entries, the board has "
                f"{sc.board.size} tiles"
            )

    def base(self, hp: Sequence[int]) -> float:
        sc, w = self.scenario, self.weights
        total = 0.0
        lost = [False, False]
        for s in (0, 1):
            sign = 1.0 if s == self.side else -1.0
            ids = sc.side_units[s]
            for u in ids:
                atk = sc.units[u].type.atk
                if hp[u] > 0:
                    total += sign * hp[u] * atk
                else:
                    total -= sign * w.kill_bonus * atk
            if sc.win != "none" and ids:
                lost[s] = all(hp[u] <= 0 for u in ids) or (
                    sc.win == "leader" and any(sc.units[u].leader and hp[u] <= 0 for u in ids)
                )
        if lost[0] != lost[1]:
            total += w.win_value if lost[1 - self.side] else -w.win_value
        return total

    def linear_hp_coefficients(self) -> dict[int, float]:
        """For the compiled kernel: ``base(hp) == sum(coef[u] * hp[u] for living enemies u)``
        plus a value that depends only on which units are dead (ours cannot die in our turn)."""
        sc = self.scenario
        return {u: -float(sc.units[u].type.atk) for u in sc.side_units[1 - self.side]}

    def unit_table(self, uid: int, alive: frozenset[int]) -> tuple[float, ...]:
        key = (uid, alive)
        table = self._tables.get(key)
        if table is None:
            table = self._build_table(uid, alive)
            self._tables[key] = table
        return table

    def _build_table(self, uid: int, alive: frozenset[int]) -> tuple[float, ...]:
        sc, w = self.scenario, self.weights
        dist = sc.board.distance_table
        spec = sc.units[uid]
        threat_weight = w.exposure_weight + (w.leader_weight if spec.leader else 0.0)
        # Enemies as (tile, reach, ATK); reach = movement + maximum range, terrain ignored.
        enemies = [
            (self.enemy_pos[e], sc.units[e].type.move + sc.units[e].type.range_max,
             sc.units[e].type.atk)
            for e in sorted(alive)
        ]
        bonus = w.tile_bonus
        out = []
        for tile in range(sc.board.size):
            d = dist[tile]
            value = 0.0
            if enemies:
                if w.position_weight:
                    value -= w.position_weight * min(d[p] for p, _, _ in enemies)
                if threat_weight:
                    value -= threat_weight * sum(atk for p, reach, atk in enemies if d[p] <= reach)
            if bonus is not None:
                value += bonus[tile]
            out.append(value)
        return tuple(out)


def default_evaluation() -> DefaultEvaluation:
    return DefaultEvaluation()


def decomposition_of(evaluate, root, side: int) -> Decomposition | None:
    """The evaluation's decomposition for this turn, or None when it offers none."""
    if getattr(evaluate, "decomposable", False) and hasattr(evaluate, "decompose"):
        return evaluate.decompose(root, side)
    return None
