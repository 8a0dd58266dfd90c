"""TBW on the web page (``agents.web``, through ``TBWGame.web_board``): the JSON the page's tile
board draws, and the opponents it suggests.

The board (terrain, unit types, the scenario's limits) is sent once; a position per ply. TBW
hides nothing, so a player's position and the whole board are the same units; the moves a
player may make are grouped by unit and tile (``tbw_options``), as the page offers them.
"""

from __future__ import annotations

from typing import Any

from tbw_envs.tbw.state import END_TURN

__all__ = ["HIDDEN_INFORMATION", "KIND", "OPPONENTS", "board_json", "position_json",
           "revealed_json", "tbw_options"]

KIND = "tiles"  # the page's board that draws it: units on a square or hex tile grid
HIDDEN_INFORMATION = False  # each player's view is the whole position
# Suggestions for the page's opponent box; any registry spec that plays TBW is accepted.
OPPONENTS = ("random", "greedy", "greedy:weights=tuned", "alg2", "exact", "tree:solves=40",
             "oep:generations=20", "ppo:pretrained")


def board_json(scenario: Any) -> dict[str, Any]:
    """What never changes during a game on the loaded ``scenario``."""
    board = scenario.board
    return {
        "variant": scenario.name,
        "description": scenario.description,
        "rows": board.rows,
        "cols": board.cols,
        "topology": board.topology,
        "terrain": list(scenario.terrain_grid),
        "terrain_types": {
            name: {"passable": t.passable, "shoot_over": t.shoot_over, "cost": t.default_cost}
            for name, t in scenario.terrain_types.items()
        },
        "units": [
            {"id": u.id, "side": u.side, "slot": u.slot, "type": u.type.name, "leader": u.leader,
             "max_hp": u.hp, "atk": u.type.atk, "move": u.type.move,
             "range": [u.type.range_min, u.type.range_max]}
            for u in scenario.units
        ],
        "units_per_side": scenario.units_per_side,  # for decoding action ids
        "max_turns": scenario.max_turns,
        "win": scenario.win,
        "end_turn": scenario.end_turn_action,
    }


def position_json(view: Any, legal: bool, history: bool = True) -> dict[str, Any]:
    """Every unit where it stands; with ``legal``, the moves by unit and tile (``options``).
    A TBW position has no history to leave out."""
    board = view.scenario.board
    units = []
    for uid, tile in enumerate(view.pos):
        alive = view.hp[uid] > 0
        row, col = board.rc(tile) if alive else (None, None)
        units.append({"id": uid, "row": row, "col": col, "hp": max(view.hp[uid], 0),
                      "alive": alive, "acted": bool(view.acted[uid])})
    position = {
        "current_player": view.current_player,
        "turn": view.turn,
        "terminal": view.is_terminal(),
        "winner": view.winner,
        "end_reason": None if view.end_reason is None else str(view.end_reason),
        "units": units,
    }
    if legal:
        position["options"] = tbw_options(view)
    return position


def revealed_json(state: Any, history: bool = True) -> dict[str, Any]:
    """The whole position: TBW hides nothing, so a player's position without its moves."""
    return position_json(state, legal=False)


def tbw_options(state: Any) -> dict[str, list[dict[str, Any]]]:
    """Per ready unit (keyed by its id as text, for JSON), each tile it may end its move on and
    the actions from there: ``{"tile": [row, col], "actions": [{"action", "target"}]}``, the
    first with ``target`` None (move only)."""
    options: dict[str, dict[tuple[int, int], list[dict[str, Any]]]] = {}
    for action in state.legal_actions():
        decoded = state.decode_action(action)
        if decoded == END_TURN:
            continue
        uid, tile, target = decoded
        options.setdefault(str(uid), {}).setdefault(tuple(tile), []).append(
            {"action": action, "target": target})
    return {uid: [{"tile": list(tile), "actions": sorted(acts, key=_no_target_first)}
                  for tile, acts in tiles.items()]
            for uid, tiles in options.items()}


def _no_target_first(act: dict[str, Any]) -> tuple[bool, int]:
    return act["target"] is not None, act["action"]
