"""Helpers of the TBW search tests: random small scenarios, replaying a plan, comparing scores,
and the mark that skips a test of the compiled kernel when numba is missing."""

from __future__ import annotations

import math
import random

import pytest

from agents.tbw.search import kernel
from agents.tbw.search.model import TurnModel
from tbw_envs.tbw import TBWState, parse_scenario

needs_numba = pytest.mark.skipif(not kernel.HAVE_NUMBA, reason="numba not installed")


def random_scenario_dict(seed: int, *, topology: str | None = None, own: int | None = None,
                         enemies: int | None = None, win: str | None = None) -> dict:
    """A small board with terrain (slow forest, impassable hill, shoot-over lake), 1-3 units a
    side placed close together so that moves collide and kills happen."""
    rng = random.Random(seed)
    topology = topology or rng.choice(["square4", "square8", "hex"])
    rows, cols = rng.randint(4, 6), rng.randint(4, 6)
    terrain = []
    for _ in range(rows):
        terrain.append("".join(
            rng.choices(".FHL", weights=[10, 2, 1, 1])[0] for _ in range(cols)
        ))
    own = own if own is not None else rng.randint(1, 3)
    enemies = enemies if enemies is not None else rng.randint(1, 3)
    free = [(r, c) for r in range(rows) for c in range(cols) if terrain[r][c] in ".F"]
    rng.shuffle(free)
    if len(free) < own + enemies:
        return random_scenario_dict(seed + 10_000, topology=topology, own=own, enemies=enemies,
                                    win=win)
    types = {
        "sword": {"hp": rng.randint(3, 8), "atk": rng.randint(2, 5), "move": rng.choice([1, 2]),
                  "range": [1, 1]},
        "bow": {"hp": rng.randint(3, 6), "atk": rng.randint(2, 4), "move": rng.choice([1, 2]),
                "range": [2, rng.choice([2, 3])]},
        "rider": {"hp": rng.randint(4, 8), "atk": rng.randint(3, 6), "move": 3,
                  "range": [1, 1], "move_class": "horse"},
    }
    units = []
    for k in range(own + enemies):
        r, c = free[k]
        units.append({"side": 0 if k < own else 1, "type": rng.choice(list(types)),
                      "pos": [r, c]})
    win = win or rng.choice(["annihilation", "leader", "none"])
    if win == "leader":
        units[0]["leader"] = True
        units[own]["leader"] = True
    return {
        "name": f"random_{seed}",
        "board": {"topology": topology, "terrain": terrain,
                  "legend": {".": "plain", "F": "forest", "H": "hill", "L": "lake"}},
        "terrain": {"plain": {"cost": 1}, "forest": {"cost": {"foot": 2, "horse": 3}},
                    "hill": {"passable": False}, "lake": {"passable": False, "shoot_over": True}},
        "unit_types": types,
        "units": units,
        "win": win,
        "max_turns": 5,
        "rules": {"line_of_sight": rng.random() < 0.5},
    }


def random_state(seed: int, **kwargs):
    return TBWState.initial(parse_scenario(random_scenario_dict(seed, **kwargs)))


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def replay(state, actions):
    state = state.clone()
    for action in actions:
        state.apply(action)  # raises on an illegal action
    return state


def first_moves(model: TurnModel) -> set[int]:
    """The actions the turn model allows as the turn's first: each unit's moves and attacks."""
    out = set()
    for i in range(model.n):
        for tile in model.region(i, 0):
            if model.occupancy[tile] in (-1, i):
                out.add(model.encode(i, tile, -1))
                out.update(model.encode(i, tile, e) for e in model.targets(i, tile))
    return out


def random_walk_states(seed: int, plies: int = 12):
    """States along a random game on a small random scenario, terminal ones included."""
    rng = random.Random(seed)
    state = random_state(seed)
    states = [state.clone()]
    for _ in range(plies):
        if state.is_terminal():
            break
        actions = state.legal_actions()
        state.apply(rng.choice(actions[:-1] if len(actions) > 1 else actions))
        states.append(state.clone())
    return states
