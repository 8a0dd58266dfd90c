"""Junqi on the web page (``agents.web``, through ``JunqiGame.web_board``): the JSON the page's
post board draws, the opponents it suggests, and the layouts a person plays with.

The one rule of this module: a player's position is built from ``state.view(player)`` and from
nothing else, so it cannot hold what the view does not (the opponent's identities). The whole
board (``revealed_json``) is built from the state, and the app hands it out only once the game
is over, or to a watcher of a finished game.
"""

from __future__ import annotations

import random
from typing import Any

from agents.junqi.deployment import LAYOUT_POLICIES
from tbw_envs.core.contract import short_repr
from tbw_envs.junqi.board import COLS, NUM_POSTS, ROWS, board_graph, post_name
from tbw_envs.junqi.layout import (
    BACK_TWO_ROWS_CELLS,
    CAMP_CELLS,
    FRONT_ROW_CELLS,
    HEADQUARTERS_CELLS,
    LAYOUT_CELLS,
    LAYOUT_ROWS,
    coerce_layout,
    format_layout,
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

__all__ = ["HIDDEN_INFORMATION", "KIND", "LAYOUT_POLICY_NAMES", "OPPONENTS", "board_json",
           "human_layout", "position_json", "revealed_json", "starting_layout"]

KIND = "posts"  # the page's board that draws it: pieces on the posts of a Junqi board
HIDDEN_INFORMATION = True  # a player's view hides the opponent's pieces
# Suggestions for the page's opponent box; any registry spec that plays Junqi is accepted.
OPPONENTS = ("random", "greedy", "greedy:weights=tuned", "ismcts:iterations=200",
             "ismcts:seconds=1", "ucbmcts:iterations=200,weights=tuned", "mcts:iterations=200",
             "ppo:pretrained")
# The layout policies a person may name; the first is the one a layout to arrange starts from.
LAYOUT_POLICY_NAMES = ("heuristic", *sorted(set(LAYOUT_POLICIES) - {"heuristic"}))


# ---------------------------------------------------------------------- the board


def _pieces() -> list[dict[str, Any]]:
    return [{"code": PIECE_CODES[k], "name": PIECE_NAMES[k], "chinese": PIECE_CHINESE[k],
             "count": ARMY_COUNTS[k]} for k in range(NUM_PIECE_TYPES)]


def board_json(rules: Any) -> dict[str, Any]:
    """What never changes during a game under the loaded ``rules``."""
    graph = board_graph()
    return {
        "variant": rules.name,
        "description": rules.description,
        "rows": ROWS,
        "cols": COLS,
        "posts": [post_name(p) for p in range(NUM_POSTS)],
        "links": [[a, b, kind] for a, b, kind in graph.links],
        "camps": [p for p in range(NUM_POSTS) if graph.is_camp[p]],
        "headquarters": [p for p in range(NUM_POSTS) if graph.is_headquarters[p]],
        "pieces": _pieces(),
        # A layout is 6 rows of 5 cells in its owner's frame, front row first.
        "layout": {
            "rows": LAYOUT_ROWS, "cols": COLS, "cells": LAYOUT_CELLS,
            "camps": sorted(CAMP_CELLS), "headquarters": sorted(HEADQUARTERS_CELLS),
            "back_two_rows": sorted(BACK_TWO_ROWS_CELLS), "front_row": sorted(FRONT_ROW_CELLS),
        },
        "no_collision_limit": rules.no_collision_limit,
        "no_collision_result": rules.no_collision_result,
        "total_ply_limit": rules.total_ply_limit,
    }


# ---------------------------------------------------------------------- positions


def position_json(view: Any, legal: bool, history: bool = True) -> dict[str, Any]:
    """A player's position, from its view only; with ``legal``, its moves as ``[from, to,
    action]``; the last ply (``last``), and with ``history`` every ply (a replay's frames leave
    it out: it grows with the game)."""
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
    position = _common(view, view.player, posts, history)
    if legal:
        position["moves"] = [[action // NUM_POSTS, action % NUM_POSTS, action]
                             for action in view.legal_actions() if action < NUM_POSTS ** 2]
    return position


def _common(source: Any, viewer: int | None, posts: list, history: bool) -> dict[str, Any]:
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


def revealed_json(state: Any, history: bool = True) -> dict[str, Any]:
    """The whole position, hidden identities included: only for a game that is over, or a
    watcher's "everything" view of a recorded game."""
    posts = []
    for post in range(NUM_POSTS):
        owner = state.owner[post]
        posts.append(None if owner < 0 else
                     {"owner": owner, "moved": bool(state.moved[post]),
                      "piece": None if state.kind[post] == NO_PIECE
                      else PIECE_CODES[state.kind[post]]})
    return _common(state, None, posts, history)


# ---------------------------------------------------------------------- layouts


def human_layout(layout: Any, rng: random.Random) -> Any:
    """The person's layout from the page: a layout policy name ("random", "heuristic"), 6 rows
    of 5 piece codes in their own frame (front row first; "." or null on camps), or layout
    text; a ValueError names what is wrong with it."""
    if isinstance(layout, str) and layout in LAYOUT_POLICIES:
        return LAYOUT_POLICIES[layout](rng)
    if isinstance(layout, (list, tuple)) and len(layout) == LAYOUT_ROWS:
        # Rows of 5 codes from the page; camps may come as None.
        layout = [[("." if token is None else token) for token in row]
                  if isinstance(row, (list, tuple)) else row for row in layout]
    elif not (isinstance(layout, str) and "\n" in layout):
        raise ValueError(f"layout must be one of {list(LAYOUT_POLICY_NAMES)}, 6 rows of 5 "
                         f"piece codes, or layout text; got {short_repr(layout)}")
    return coerce_layout(layout, "your layout")


def starting_layout(policy: Any, rng: random.Random) -> dict[str, Any]:
    """A layout to start arranging from, drawn by ``policy``: its rows of piece codes in its
    owner's frame (front row first; "." on camps), the pieces and the headquarters cells."""
    if policy not in LAYOUT_POLICIES:
        raise ValueError(f"policy must be one of {list(LAYOUT_POLICY_NAMES)}, got "
                         f"{short_repr(policy)}")
    layout = LAYOUT_POLICIES[policy](rng)
    rows = [line.split() for line in format_layout(layout).splitlines()]
    return {"rows": rows, "pieces": _pieces(), "headquarters": sorted(HEADQUARTERS_CELLS)}
