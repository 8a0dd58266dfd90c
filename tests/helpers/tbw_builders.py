"""Small TBW scenarios written by hand as dicts, on any of the three topologies, for the
rules tests of the TBW core: ``make(rows, units)`` returns the initial state, and a few
readers turn a state's legal actions and movement range into row/column terms;
``check_action_invariants`` holds the action encoding, the legal list and the mask together."""

from __future__ import annotations

import numpy as np

from tbw_envs.tbw import END_TURN, TBWState, load_scenario

TOPOLOGIES = ("square4", "square8", "hex")

TERRAIN = {
    "plain": {"cost": 1},
    "forest": {"cost": 2},
    "hill": {"passable": False},
    "lake": {"passable": False, "shoot_over": True},
    "marsh": {"cost": {"foot": 2, "cavalry": 3}},
    "bog": {"cost": {"default": 1, "cavalry": None}},
    "mud": {"cost": 2.5},
    "road": {"cost": 0.5},
}

LEGEND = {
    ".": "plain", "F": "forest", "H": "hill", "L": "lake", "S": "marsh", "B": "bog",
    "M": "mud", "r": "road",
}


def ut(move=2, rng=(1, 1), hp=10, atk=4, cls=None):
    spec = {"hp": hp, "atk": atk, "move": move, "range": list(rng)}
    if cls is not None:
        spec["move_class"] = cls
    return spec


TYPES = {
    "soldier": ut(move=2),
    "statue": ut(move=0),  # cannot move: isolates attack rules
    "killer": ut(move=0, atk=10),
    "runner": ut(move=3),
    "archer": ut(move=0, rng=(2, 2), hp=8, atk=3),
    "longbow": ut(move=0, rng=(2, 3), hp=8, atk=3),
}


def scenario(rows, units, topology="square4", win="annihilation", max_turns=10,
             unit_types=None, terrain_types=None, legend=None, rules=None, first_side=0):
    """A scenario dict; ``units`` are ``(side, type, (row, col))`` or ``(..., {extra})``."""
    unit_specs = []
    for u in units:
        side, utype, (r, c), *extra = u
        spec = {"side": side, "type": utype, "pos": [r, c]}
        if extra:
            spec.update(extra[0])
        unit_specs.append(spec)
    data = {
        "board": {"topology": topology, "terrain": list(rows), "legend": legend or LEGEND},
        "terrain": terrain_types or TERRAIN,
        "unit_types": unit_types or TYPES,
        "units": unit_specs,
        "win": win,
        "max_turns": max_turns,
        "first_side": first_side,
    }
    if rules is not None:
        data["rules"] = rules
    return data


def make(rows, units, **kw):
    return TBWState.initial(load_scenario(scenario(rows, units, **kw)))


def open_rows(n_rows, n_cols, char="."):
    return [char * n_cols] * n_rows


def reach(state, uid):
    """movement_range as {(row, col): cost}."""
    cols = state.scenario.board.cols
    return {divmod(t, cols): cost for t, cost in state.movement_range(uid).items()}


def unit_actions(state, uid):
    """The decoded legal actions of one unit: a set of (dest, target)."""
    out = set()
    for a in state.legal_actions():
        d = state.decode_action(a)
        if d != END_TURN and d[0] == uid:
            out.add((d[1], d[2]))
    return out


def targets_from(state, uid, dest):
    return {t for d, t in unit_actions(state, uid) if d == dest and t is not None}


def snapshot(state):
    return (state.legal_actions(), state.units, state.current_player, state.turn,
            state.is_terminal(), state.winner)


def pos(state, uid):
    return state.units[uid].pos


# =============================================================================== board geometry


def board(topology, rows=5, cols=5):
    return make(open_rows(rows, cols), [(0, "statue", (0, 0))], topology=topology,
                win="none").scenario.board


FREED = ["....."]

FREED_UNITS = [(0, "killer", (0, 1)), (0, "runner", (0, 0)),
               (1, "statue", (0, 2), {"hp": 5}), (1, "statue", (0, 4))]


def check_action_invariants(state):
    legal = state.legal_actions()
    assert legal == sorted(legal)
    assert len(set(legal)) == len(legal)
    if state.is_terminal():
        assert legal == []
    else:
        assert legal[-1] == state.encode_action(END_TURN) == state.num_actions - 1
    mask = state.legal_action_mask()
    assert mask.shape == (state.num_actions,)
    assert int(mask.sum()) == len(legal)
    assert set(np.flatnonzero(mask).tolist()) == set(legal)
    for a in legal:
        d = state.decode_action(a)
        if d == END_TURN:
            assert state.encode_action(END_TURN) == a
        else:
            assert state.encode_action(*d) == a
