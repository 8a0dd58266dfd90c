"""Positions as the browser draws them: JSON-ready dicts built from what a player may know.

The one rule of this module: a player's position is built from ``state.view(player)`` and from
nothing else, so it cannot hold what the view does not (Junqi's hidden identities). The whole
board (``revealed``) is built from the state, and the app hands it out only once the game is
over, or to a watcher of a finished game.

Each game gives two parts: the ``board`` (what never changes in a game: geometry, terrain, unit
types, the rules' limits), sent once, and a ``position`` per ply.
"""

from __future__ import annotations

from typing import Any

from tbw_envs.games import get_game
from tbw_envs.junqi.board import COLS as JUNQI_COLS
from tbw_envs.junqi.board import NUM_POSTS, board_graph, post_name
from tbw_envs.junqi.board import ROWS as JUNQI_ROWS
from tbw_envs.junqi.layout import (
    BACK_TWO_ROWS_CELLS,
    CAMP_CELLS,
    FRONT_ROW_CELLS,
    HEADQUARTERS_CELLS,
    LAYOUT_CELLS,
    LAYOUT_ROWS,
)
from tbw_envs.junqi.pieces import (
    ARMY_COUNTS,
    NO_PIECE,
    NUM_PIECE_TYPES,
    PIECE_CHINESE,
    PIECE_CODES,
    PIECE_NAMES,
    RESULT_NAMES,
)
from tbw_envs.tbw.state import END_TURN

__all__ = ["board_json", "position_json", "revealed_json", "action_words"]


# ---------------------------------------------------------------------- the board


def board_json(game: str, variant: Any) -> dict[str, Any]:
    """What never changes during a game of ``game`` on ``variant`` (a name or a loaded one)."""
    loaded = get_game(game).load_variant(variant)
    return _tbw_board(loaded) if game == "tbw" else _junqi_board(loaded)


def _tbw_board(scenario: Any) -> dict[str, Any]:
    board = scenario.board
    return {
        "game": "tbw",
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


def _junqi_board(rules: Any) -> dict[str, Any]:
    graph = board_graph()
    return {
        "game": "junqi",
        "variant": rules.name,
        "description": rules.description,
        "rows": JUNQI_ROWS,
        "cols": JUNQI_COLS,
        "posts": [post_name(p) for p in range(NUM_POSTS)],
        "links": [[a, b, kind] for a, b, kind in graph.links],
        "camps": [p for p in range(NUM_POSTS) if graph.is_camp[p]],
        "headquarters": [p for p in range(NUM_POSTS) if graph.is_headquarters[p]],
        "pieces": [{"code": PIECE_CODES[k], "name": PIECE_NAMES[k], "chinese": PIECE_CHINESE[k],
                    "count": ARMY_COUNTS[k]} for k in range(NUM_PIECE_TYPES)],
        # A layout is 6 rows of 5 cells in its owner's frame, front row first.
        "layout": {
            "rows": LAYOUT_ROWS, "cols": JUNQI_COLS, "cells": LAYOUT_CELLS,
            "camps": sorted(CAMP_CELLS), "headquarters": sorted(HEADQUARTERS_CELLS),
            "back_two_rows": sorted(BACK_TWO_ROWS_CELLS), "front_row": sorted(FRONT_ROW_CELLS),
        },
        "no_collision_limit": rules.no_collision_limit,
        "no_collision_result": rules.no_collision_result,
        "total_ply_limit": rules.total_ply_limit,
    }


# ---------------------------------------------------------------------- positions


def position_json(game: str, view: Any, legal: bool = False,
                  history: bool = True) -> dict[str, Any]:
    """A player's position, from its view only (``state.view(player)``); with ``legal``, the
    moves it may make now, grouped as the page offers them. Junqi: the last ply (``last``),
    and with ``history`` every ply (a replay's frames leave it out: it grows with the game)."""
    if game == "tbw":
        return _tbw_position(view, legal)
    return _junqi_position(view, legal, history)


def _tbw_position(state: Any, legal: bool) -> dict[str, Any]:
    board = state.scenario.board
    units = []
    for uid, tile in enumerate(state.pos):
        alive = state.hp[uid] > 0
        row, col = board.rc(tile) if alive else (None, None)
        units.append({"id": uid, "row": row, "col": col, "hp": max(state.hp[uid], 0),
                      "alive": alive, "acted": bool(state.acted[uid])})
    position = {
        "current_player": state.current_player,
        "turn": state.turn,
        "terminal": state.is_terminal(),
        "winner": state.winner,
        "end_reason": None if state.end_reason is None else str(state.end_reason),
        "units": units,
    }
    if legal:
        position["options"] = tbw_options(state)
    return position


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


def _junqi_position(view: Any, legal: bool, history: bool) -> dict[str, Any]:
    posts = []
    for post in range(NUM_POSTS):
        owner = view.owner[post]
        if owner < 0:
            posts.append(None)
            continue
        entry: dict[str, Any] = {"owner": owner, "moved": bool(view.moved[post])}
        if owner == view.player:
            entry["piece"] = PIECE_CODES[view.kind[post]]
        else:
            entry["piece"] = None
            # The player's own deductions: the types it cannot yet rule out.
            entry["possible"] = [PIECE_CODES[k] for k in range(NUM_PIECE_TYPES)
                                 if view.possible[post] >> k & 1]
        posts.append(entry)
    position = _junqi_common(view, view.player, posts, history)
    if legal:
        position["moves"] = [[action // NUM_POSTS, action % NUM_POSTS, action]
                             for action in view.legal_actions() if action < NUM_POSTS ** 2]
    return position


def _junqi_common(source: Any, viewer: int | None, posts: list, history: bool) -> dict[str, Any]:
    """What a Junqi view and the whole state show alike: the public record."""
    position = {
        "viewer": viewer,
        "current_player": source.current_player,
        "phase": source.phase,
        "ply": source.ply,
        "quiet_plies": source.quiet_plies,
        "terminal": source.is_terminal(),
        "winner": source.winner,
        "end_reason": source.end_reason,
        "posts": posts,
        "flag_revealed": list(source.flag_revealed),
        "last": _ply_json(source.history[-1]) if source.history else None,
    }
    if history:
        position["history"] = [_ply_json(record) for record in source.history]
    return position


def _ply_json(record: Any) -> dict[str, Any]:
    return {"player": record.player, "from": record.from_post, "to": record.to_post,
            "result": RESULT_NAMES[record.result]}


def revealed_json(game: str, state: Any, history: bool = True) -> dict[str, Any]:
    """The whole position, hidden identities included: only for a game that is over, or a
    watcher's "everything" view of a recorded game."""
    if game == "tbw":
        return _tbw_position(state, legal=False)  # TBW hides nothing
    posts = []
    for post in range(NUM_POSTS):
        owner = state.owner[post]
        posts.append(None if owner < 0 else
                     {"owner": owner, "moved": bool(state.moved[post]),
                      "piece": None if state.kind[post] == NO_PIECE
                      else PIECE_CODES[state.kind[post]]})
    return _junqi_common(state, None, posts, history)


def action_words(game: str, state: Any, action: int) -> str:
    """``action`` in words, in ``state`` before it is played (the record's log line)."""
    return get_game(game).describe_action(state, action)
