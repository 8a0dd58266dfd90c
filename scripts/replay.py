"""Replay arena game records (games.jsonl): verify them and show them as text or an animated GIF.

    python scripts/replay.py runs/arena-junqi-.../games.jsonl --verify       # check every game
    python scripts/replay.py RECORDS.jsonl --game-index 3 --text --every 20  # board every 20 plies
    python scripts/replay.py RECORDS.jsonl --game-index -1 --gif last.gif    # animated GIF

A record is replayed through the game core from its starting position (TBW: the scenario; Junqi:
both layouts) and checked against everything it claims: the seeds derive from the round robin's
(the pair's seed, each seat's agent seed, Junqi's random layouts), the first opening_plies moves
are the random opening of the pair's seed, every action is legal, the state after every ply has
the recorded digest (agents.arena.DIGEST_SCHEME), the result, end reason and ply count match, and
the digest of the whole record (which binds the agents to their seats) matches. With a whole
file, the two games of each pair must swap seats. The first mismatch of a record is printed
with its index and the ply, and the exit code is 1. Records of format /1 carry no digests: they
are checked as far as they allow, and the summary says so (--require-digests fails them).
Junqi boards are drawn omniscient (both sides' pieces).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.arena import (  # noqa: E402
    DIGEST_SCHEME,
    GAMES,
    PLY_DIGEST_HEX,
    RECORD_FORMAT,
    RECORD_FORMATS,
    DigestChain,
    agent_seed,
    end_reason,
    layout_seed,
    pair_seed,
    random_opening,
    record_digest,
    record_start_state,
)
from tbw_envs.contract import is_integer, short_repr  # noqa: E402

GIF_FRAMES = 120  # default --every for a GIF keeps about this many frames
MAX_LINE_BYTES = 64 * 2**20  # one record; a 1,000,000-ply game with its digests is ~25 MB
MAX_FPS = 100.0


class ReplayMismatch(ValueError):
    """A record that does not replay: an illegal action, or a result that differs."""


class MalformedRecord(ReplayMismatch):
    """A file or record that is not what scripts/arena.py writes: not UTF-8, not JSON, nested
    too deeply, or a field missing or of the wrong type."""


def load_records(path: str | Path) -> list[dict[str, Any]]:
    """The records of a JSON-lines file, one per non-empty line. Raises ``MalformedRecord``
    naming the line for text that is not UTF-8, not JSON, nested too deeply, too long or not an
    object (``OSError`` if the file cannot be read)."""
    records = []
    with Path(path).open("rb") as handle:
        for line_number in range(1, sys.maxsize):
            raw = handle.readline(MAX_LINE_BYTES + 1)
            if not raw:
                break
            where = f"{path}, line {line_number}"
            if len(raw) > MAX_LINE_BYTES:
                raise MalformedRecord(f"{where}: longer than {MAX_LINE_BYTES:,} bytes")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise MalformedRecord(f"{where}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at "
                                      f"column {exc.start + 1})") from None
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except RecursionError:
                raise MalformedRecord(f"{where}: JSON nested too deeply") from None
            except ValueError as exc:  # JSONDecodeError, or an integer of too many digits
                raise MalformedRecord(f"{where}: not JSON ({short_repr(str(exc))})") from None
            if not isinstance(record, dict):
                raise MalformedRecord(f"{where}: a record is a JSON object, got "
                                      f"{type(record).__name__}")
            records.append(record)
    return records


def record_name(record: dict[str, Any], index: int | None = None) -> str:
    where = f"record {index}" if index is not None else "record"
    agents = record.get("agents")
    if not (isinstance(agents, list) and len(agents) == 2):
        agents = ["?", "?"]
    return (f"{where} (game {short_repr(record.get('game_id', '?'))}, "
            f"{short_repr(record.get('game', '?'))}: {short_repr(agents[0])} v "
            f"{short_repr(agents[1])})")


# ---------------------------------------------------------------------- the shape of a record


def _is_count(value: Any) -> bool:
    return is_integer(value) and value >= 0


def _is_hex(value: Any, length: int) -> bool:
    return (isinstance(value, str) and len(value) == length
            and all(c in "0123456789abcdef" for c in value))


def _pair_of(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, list) and len(value) == 2 and all(map(check, value))


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _is_number(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


# (field path, test, what it must be); a path of keys into nested objects.
_SHAPE = [
    (("game_id",), _is_count, "a non-negative integer"),
    (("pairing",), _is_count, "a non-negative integer"),
    (("pair",), _is_count, "a non-negative integer"),
    (("seed",), _is_count, "a non-negative integer"),
    (("agents",), _pair_of(_is_text), "two agent labels (strings), by seat"),
    (("specs",), _pair_of(_is_text), "two agent specs (strings), by seat"),
    (("agent_seeds",), _pair_of(_is_count), "two non-negative integers, by seat"),
    (("start",), lambda v: isinstance(v, dict), "an object"),
    (("start", "opening_plies"), _is_count, "a non-negative integer"),
    (("actions",), lambda v: isinstance(v, list) and all(_is_count(a) for a in v),
     "a list of non-negative integers"),
    (("result",), lambda v: isinstance(v, dict), "an object"),
    (("result", "returns"), _pair_of(_is_number), "two finite numbers, by seat"),
    (("result", "winner"), lambda v: v is None or (is_integer(v) and v in (0, 1)),
     "0, 1 or null"),
    (("result", "end_reason"), _is_text, "a string"),
    (("result", "plies"), _is_count, "a non-negative integer"),
]
_SHAPE_V2 = [
    (("swapped",), lambda v: isinstance(v, bool), "true or false"),
    (("base_seed",), _is_count, "a non-negative integer"),
    (("start", "opening_plies_requested"), _is_count, "a non-negative integer"),
    (("digests",), lambda v: isinstance(v, dict), "an object"),
    (("digests", "scheme"), lambda v: v == DIGEST_SCHEME, repr(DIGEST_SCHEME)),
    (("digests", "start"), lambda v: _is_hex(v, 64), "64 lowercase hex digits"),
    (("digests", "final"), lambda v: _is_hex(v, 64), "64 lowercase hex digits"),
    (("digests", "record"), lambda v: _is_hex(v, 64), "64 lowercase hex digits"),
    (("digests", "plies"),
     lambda v: isinstance(v, list) and all(_is_hex(d, PLY_DIGEST_HEX) for d in v),
     f"a list of {PLY_DIGEST_HEX}-hex-digit digests, one per ply"),
]
_MISSING = object()


def check_record_shape(record: Any, index: int | None = None) -> None:
    """Raise ``MalformedRecord`` naming the record and the first field that is missing or of
    the wrong type; nothing is replayed before every field has the shape replay needs."""
    if not isinstance(record, dict):
        raise MalformedRecord(f"{'record' if index is None else f'record {index}'}: a record "
                              f"is a JSON object, got {type(record).__name__}")
    name = record_name(record, index)
    fmt = record.get("format", _MISSING)
    if fmt not in RECORD_FORMATS:
        raise MalformedRecord(f"{name}: unknown record format {short_repr(fmt)}; expected one "
                              f"of {', '.join(RECORD_FORMATS)}")
    game = record.get("game")
    if game not in GAMES:
        raise MalformedRecord(f"{name}: unknown game {short_repr(game)}; expected one of "
                              f"{', '.join(GAMES)}")
    shape = list(_SHAPE) + [((("scenario",) if game == "tbw" else ("rules",)), _is_text,
                             "a scenario name or path" if game == "tbw" else
                             "a rule-set name or path")]
    if game == "junqi":
        shape += [(("start", "layouts"), _pair_of(_is_text), "two layouts (text), by seat"),
                  (("start", "layout_sources"), _pair_of(lambda v: v in ("random", "agent")),
                   "two of 'random' or 'agent', by seat")]
    if fmt == RECORD_FORMAT:
        shape += _SHAPE_V2
    for path, test, what in shape:
        value: Any = record
        for key in path:
            value = value.get(key, _MISSING) if isinstance(value, dict) else _MISSING
        field = ".".join(path)
        if value is _MISSING:
            raise MalformedRecord(f"{name}: missing field {field!r}")
        if not test(value):
            raise MalformedRecord(f"{name}: field {field!r} must be {what}, got "
                                  f"{type(value).__name__} {short_repr(value)}")


def has_digests(record: dict[str, Any]) -> bool:
    return record.get("format") == RECORD_FORMAT


# ---------------------------------------------------------------------- replay and verify


def describe(game: str, state: Any, action: Any) -> str:
    """An action in words, or why it is not one."""
    if not is_integer(action):
        return f"not an integer but {type(action).__name__}"
    try:
        if game == "tbw":
            return state.describe_action(action)
        from tbw_envs.junqi.state import as_action, describe_action

        return describe_action(as_action(action))
    except ValueError as exc:
        return str(exc)


def _check_seeds(record: dict[str, Any], fail: Callable[[str], ReplayMismatch]) -> None:
    """The pair's seed, the agents' seeds and Junqi's random layouts derive from the seeds
    the record names (``agents.arena.schedule``)."""
    seed, pair = record["seed"], record["pair"]
    if has_digests(record):
        expected = pair_seed(record["base_seed"], record["pairing"], pair)
        if seed != expected:
            raise fail(f"seed differs: the record says {seed}, but base seed "
                       f"{record['base_seed']}, pairing {record['pairing']}, pair {pair} give "
                       f"{expected}")
        seatings = [record["swapped"]]
    else:
        seatings = [False, True]  # /1 records do not say which seating a game was
    found = list(record["agent_seeds"])
    candidates = [[agent_seed(seed, 2 * pair + int(swapped), seat) for seat in (0, 1)]
                  for swapped in seatings]
    if found not in candidates:
        raise fail(f"agent_seeds differ: the record says {short_repr(found)}, the seed "
                   f"{seed} and its seating give {short_repr(candidates[0])}")
    if record["game"] == "junqi":
        import random

        from tbw_envs.junqi.layout import format_layout, random_layout

        for seat in (0, 1):
            if record["start"]["layout_sources"][seat] != "random":
                continue
            drawn = format_layout(random_layout(random.Random(layout_seed(seed, seat))))
            if record["start"]["layouts"][seat] != drawn:
                raise fail(f"the layout of player {seat} is marked random but is not the one "
                           f"seed {seed} draws")


def _check_opening(record: dict[str, Any], state: Any,
                   fail: Callable[[str], ReplayMismatch]) -> None:
    """The first ``opening_plies`` actions are the random opening of the pair's seed."""
    played = record["start"]["opening_plies"]
    actions = record["actions"]
    if played > len(actions):
        raise fail(f"start.opening_plies is {played}, but the record has only {len(actions)} "
                   f"actions")
    if has_digests(record):
        requested = record["start"]["opening_plies_requested"]
        if played > requested:
            raise fail(f"start.opening_plies {played} is more than the "
                       f"{requested} requested (start.opening_plies_requested)")
        expected = random_opening(state.clone(), requested, record["seed"],
                                  stop_before_end=True)
    else:
        requested = played
        expected = random_opening(state.clone(), played, record["seed"])
    for ply, (want, got) in enumerate(zip(expected, actions[:played], strict=False), 1):
        if want != got:
            raise fail(f"opening ply {ply}: the record has action {got}, but the random opening "
                       f"of seed {record['seed']} plays {want}")
    if len(expected) != played:
        raise fail(f"start.opening_plies differs: the record says {played}, but the random "
                   f"opening of seed {record['seed']} ({requested} requested) plays "
                   f"{len(expected)}")


def replay(record: dict[str, Any], index: int | None = None,
           on_ply: Callable[[int, Any], None] | None = None) -> Any:
    """Replay ``record`` through the game core, checking everything it claims (see the module
    docstring); returns the final state.

    ``on_ply(ply, state)`` is called with the start (ply 0) and after every action. Raises
    ``MalformedRecord`` for a field missing or of the wrong type, and ``ReplayMismatch`` naming
    the record and the first mismatch (with its ply): seeds, the start, the opening, an illegal
    action, a state digest, a game that ends too early or too late, the result, end reason or
    ply count, or the digest of the whole record.
    """
    check_record_shape(record, index)
    name = record_name(record, index)

    def fail(problem: str) -> ReplayMismatch:
        return ReplayMismatch(f"{name}: {problem}")

    game = record["game"]
    digests = record.get("digests") if has_digests(record) else None
    _check_seeds(record, fail)
    try:
        state = record_start_state(record)
    except (KeyError, TypeError, ValueError) as exc:
        raise fail(f"cannot build the starting position: {exc}") from None
    variant = record["scenario"] if game == "tbw" else record["rules"]
    chain = DigestChain(game, variant, state)
    if digests is not None and chain.start != digests["start"]:
        raise fail(f"the starting position differs from the recorded one (digests.start "
                   f"{digests['start'][:16]}..., the replay gives {chain.start[:16]}...): the "
                   f"scenario or rule set, or the layouts, changed")
    _check_opening(record, state, fail)
    actions = record["actions"]
    ply_digests = digests["plies"] if digests is not None else []
    if on_ply is not None:
        on_ply(0, state)
    for ply, action in enumerate(actions, 1):
        if state.is_terminal():
            raise fail(f"the game ended after {ply - 1} plies but the record has "
                       f"{len(actions)} actions")
        legal = state.legal_actions()
        if action not in legal:
            raise fail(f"ply {ply}: action {action!r} ({describe(game, state, action)}) is not "
                       f"legal for player "
                       f"{state.current_player}; {len(legal)} legal actions")
        state.apply(action)
        digest = chain.step(action, state)
        if ply <= len(ply_digests) and ply_digests[ply - 1] != digest:
            raise fail(f"ply {ply}: the state digest differs (the record says "
                       f"{ply_digests[ply - 1]}, the replay gives {digest}): action {action} "
                       f"is not the move that was played, or the rules changed")
        if on_ply is not None:
            on_ply(ply, state)
    if not state.is_terminal():
        raise fail(f"the record's {len(actions)} actions end, but the game is not over")
    expected = record["result"]
    returns = [float(r) for r in state.returns()]
    winner = None if returns[0] == returns[1] else (0 if returns[0] > returns[1] else 1)
    found = {"returns": returns, "winner": winner, "end_reason": end_reason(game, state),
             "plies": len(actions)}
    for key in ("returns", "winner", "end_reason", "plies"):
        want = expected[key]
        if key == "returns":
            want = [float(r) for r in want]
        if want != found[key]:
            raise fail(f"result.{key} differs: the record says {want!r}, the replay gives "
                       f"{found[key]!r}")
    if digests is not None:
        if len(ply_digests) != len(actions):
            raise fail(f"digests.plies has {len(ply_digests)} entries for {len(actions)} plies")
        if chain.final != digests["final"]:
            raise fail(f"the final state digest differs (digests.final "
                       f"{digests['final'][:16]}..., the replay gives {chain.final[:16]}...)")
        recomputed = record_digest(record)
        if recomputed != digests["record"]:
            raise fail(f"digests.record differs (the record says {digests['record'][:16]}..., "
                       f"recomputed {recomputed[:16]}...): a field was edited after the game "
                       f"was written (the agents or their seats, specs, seeds, opening or "
                       f"result; the moves and states match)")
    return state


def check_pairs(records: list[dict[str, Any]]) -> list[str]:
    """The two games of each pair (same game, scenario or rules, pairing, pair and seed) must
    seat the same two agents the other way round and share the opening."""
    groups: dict[tuple, list[int]] = {}
    for index, record in enumerate(records):
        key = (record["game"], record.get("scenario"), record.get("rules"), record["pairing"],
               record["pair"], record["seed"])
        groups.setdefault(key, []).append(index)
    problems = []
    for (_, _, _, pairing, pair, _), indices in groups.items():
        if len(indices) != 2:
            continue
        first, second = (records[i] for i in indices)
        where = (f"records {indices[0]} and {indices[1]} are the two games of pair {pair} of "
                 f"pairing {pairing}")
        if first["agents"] != second["agents"][::-1]:
            problems.append(f"{record_name(second, indices[1])}: {where}, but do not swap "
                            f"seats: {short_repr(first['agents'])} and "
                            f"{short_repr(second['agents'])}")
        elif has_digests(first) and has_digests(second) and first["swapped"] == second["swapped"]:
            problems.append(f"{record_name(second, indices[1])}: {where}, but both say "
                            f"swapped={first['swapped']}")
        elif (first["start"]["opening_plies"] != second["start"]["opening_plies"]
              or first["actions"][:first["start"]["opening_plies"]]
              != second["actions"][:second["start"]["opening_plies"]]):
            problems.append(f"{record_name(second, indices[1])}: {where}, but their random "
                            f"openings differ")
    return problems


def verify_records(records: list[dict[str, Any]]) -> list[str]:
    """Check every record's shape, then replay each well-formed one and check the pairs; the
    problems, each naming its record and the first mismatch (empty when all match)."""
    problems = []
    well_formed = []
    for index, record in enumerate(records):
        try:
            check_record_shape(record, index)
            well_formed.append(index)
        except MalformedRecord as exc:
            problems.append(str(exc))
    for index in well_formed:
        try:
            replay(records[index], index)
        except ReplayMismatch as exc:
            problems.append(str(exc))
    if len(well_formed) == len(records):
        problems += check_pairs(records)
    return problems


def digest_note(records: list[dict[str, Any]]) -> str | None:
    """What the summary says about records without digests (format /1), if any."""
    old = [i for i, r in enumerate(records) if isinstance(r, dict) and not has_digests(r)]
    if not old:
        return None
    shown = ", ".join(map(str, old[:8])) + (", ..." if len(old) > 8 else "")
    return (f"{len(old)} of {len(records)} records carry no digests (format "
            f"{RECORD_FORMATS[0]}; records {shown}): their seeds, opening, moves and result "
            f"were checked, but not the state after each ply nor which agent sat in which seat")


# ====================================================================== rendering


def render_text(game: str, state: Any) -> str:
    if game == "tbw":
        from tbw_envs.tbw.render import render_ansi
    else:
        from tbw_envs.junqi.render import render_ansi
    return render_ansi(state).rstrip()


_SIDE_FILL = ("#c62828", "#1f4fbf")  # player 0 red, player 1 blue, as the RGB renderers

# A GIF redraws only the pieces: the board (terrain, roads, railroads) is drawn once, and each
# frame's pieces are removed before the next frame's are added.


def draw_tbw_board(ax: Any, state: Any) -> None:
    """TBW terrain: one coloured tile per board tile (hex boards shift odd rows half a tile)."""
    from matplotlib.patches import Rectangle

    from tbw_envs.tbw.render import _terrain_color

    scenario = state.scenario
    board = scenario.board
    for tile in range(board.size):
        x, y = _tbw_xy(state, tile)
        terrain = scenario.terrain_types[scenario.terrain_grid[tile]].name
        ax.add_artist(Rectangle((x - 0.5, y - 0.5), 1, 1, edgecolor="#555555", linewidth=0.5,
                                facecolor=_terrain_color(terrain) / 255.0))
    ax.set_xlim(0 - 0.5, board.cols - 0.5 + (0.5 if board.topology == "hex" else 0.0))
    ax.set_ylim(board.rows - 0.5, -0.5)
    ax.set_xticks(range(board.cols))
    ax.set_yticks(range(board.rows))


def _tbw_xy(state: Any, tile: int) -> tuple[float, float]:
    board = state.scenario.board
    row, col = board.rc(tile)
    return col + (0.5 if board.topology == "hex" and row % 2 else 0.0), float(row)


def draw_tbw_position(ax: Any, state: Any) -> list[Any]:
    """TBW units as side-coloured discs (gold rim: a leader) with their label and Hp."""
    from matplotlib.patches import Circle

    from tbw_envs.tbw.render import unit_label

    scenario = state.scenario
    artists = []
    for uid, tile in enumerate(state.pos):
        if state.hp[uid] <= 0:
            continue
        x, y = _tbw_xy(state, tile)
        unit = scenario.units[uid]
        artists.append(ax.add_artist(Circle(
            (x, y), 0.42, facecolor=_SIDE_FILL[unit.side], linewidth=1.5,
            edgecolor="gold" if unit.leader else "white",
        )))
        artists.append(ax.text(x, y - 0.08, unit_label(scenario, uid), ha="center",
                               va="center", color="white", fontsize=8, fontweight="bold"))
        artists.append(ax.text(x, y + 0.22, str(state.hp[uid]), ha="center", va="center",
                               color="white", fontsize=6))
    if state.is_terminal():
        status = "draw" if state.winner is None else f"side {state.winner} wins"
    else:
        status = f"side {state.current_side} to move"
    ax.set_title(f"{scenario.name}: turn {state.turn}/{scenario.max_turns}, {status}",
                 fontsize=9)
    return artists


# The front line between rows F and G is drawn as a gap, as on a real board.
_JUNQI_RIVER_GAP = 0.8


def _junqi_xy(post: int) -> tuple[float, float]:
    from tbw_envs.junqi.board import COLS

    row, col = divmod(post, COLS)
    return float(col), row + (_JUNQI_RIVER_GAP if row >= 6 else 0.0)


def draw_junqi_board(ax: Any, state: Any = None) -> None:
    """The Junqi board: railroads thick, roads thin, camps round, headquarters boxed."""
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Circle, FancyBboxPatch

    from tbw_envs.junqi.board import COLS, NUM_POSTS, RAIL, ROW_LETTERS, ROWS, board_graph

    graph = board_graph()
    for rail in (False, True):
        segments = [(_junqi_xy(a), _junqi_xy(b)) for a, b, kind in graph.links
                    if (kind == RAIL) == rail]
        ax.add_collection(LineCollection(segments, colors="#333333" if rail else "#999999",
                                         linewidths=2.4 if rail else 0.8, zorder=1))
    for post in range(NUM_POSTS):
        x, y = _junqi_xy(post)
        if graph.is_camp[post]:
            ax.add_artist(Circle((x, y), 0.3, facecolor="#f3e7c4", edgecolor="#333333",
                                 zorder=2))
        elif graph.is_headquarters[post]:
            ax.add_artist(FancyBboxPatch((x - 0.3, y - 0.22), 0.6, 0.44,
                                         boxstyle="round,pad=0.02", facecolor="#e8d7a8",
                                         edgecolor="#333333", zorder=2))
    ax.set_xlim(-0.6, COLS - 0.4)
    ax.set_ylim(ROWS - 1 + _JUNQI_RIVER_GAP + 0.6, -0.6)
    ax.set_yticks([_junqi_xy(row * COLS)[1] for row in range(ROWS)], list(ROW_LETTERS))
    ax.set_xticks(range(COLS))


def draw_junqi_position(ax: Any, state: Any) -> list[Any]:
    """Every piece, omniscient: a side-coloured tile with its code; the last move an arrow."""
    from matplotlib.patches import FancyBboxPatch

    from tbw_envs.junqi.board import NUM_POSTS
    from tbw_envs.junqi.moves import EMPTY
    from tbw_envs.junqi.pieces import PIECE_CODES
    from tbw_envs.junqi.state import describe_action

    artists = []
    for post in range(NUM_POSTS):
        owner = state.owner[post]
        if owner == EMPTY:
            continue
        x, y = _junqi_xy(post)
        artists.append(ax.add_artist(FancyBboxPatch(
            (x - 0.34, y - 0.2), 0.68, 0.4, boxstyle="round,pad=0.02",
            facecolor=_SIDE_FILL[owner], edgecolor="white", zorder=3,
        )))
        artists.append(ax.text(x, y, PIECE_CODES[state.kind[post]], ha="center", va="center",
                               color="white", fontsize=8, fontweight="bold", zorder=4))
    last_move = ""
    if state.history:
        last = state.history[-1]
        (xa, ya), (xb, yb) = _junqi_xy(last.from_post), _junqi_xy(last.to_post)
        artists.append(ax.annotate(
            "", xy=(xb, yb), xytext=(xa, ya), zorder=5,
            arrowprops={"arrowstyle": "->", "color": "#ff9800", "linewidth": 2},
        ))
        move = describe_action(last.from_post * NUM_POSTS + last.to_post)
        last_move = f"\nlast: player {last.player} {move}"
    if state.is_terminal():
        status = f"game over: {state.end_reason}, winner {state.winner}"
    else:
        status = f"player {state.current_player} to move"
    ax.set_title(f"Junqi ({state.rules.name}) ply {state.ply}, {status}{last_move}",
                 fontsize=8)
    return artists


def write_gif(record: dict[str, Any], out: str | Path, every: int | None = None,
              fps: float = 4.0, index: int | None = None) -> int:
    """Replay (and verify) ``record`` into an animated GIF, a frame every ``every`` plies (default:
    about ``GIF_FRAMES`` frames) plus the final position; returns the number of frames."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.animation import PillowWriter

    game = record.get("game")
    plies = len(record.get("actions", []))
    every = every or max(1, math.ceil(plies / GIF_FRAMES))
    start = record_start_state(record) if game in GAMES else None
    if game == "tbw":
        board = start.scenario.board
        size = (min(12.0, 1.0 + 0.55 * board.cols), min(12.0, 1.3 + 0.55 * board.rows))
        draw_board, draw_position = draw_tbw_board, draw_tbw_position
    else:
        size = (4.2, 8.4)
        draw_board, draw_position = draw_junqi_board, draw_junqi_position
    fig, ax = plt.subplots(figsize=size)
    ax.set_aspect("equal")
    writer = PillowWriter(fps=fps)
    shown: list[Any] = []
    frames = 0

    def frame(state: Any) -> None:
        nonlocal frames
        for artist in shown:
            artist.remove()
        shown[:] = draw_position(ax, state)
        writer.grab_frame()
        frames += 1

    with writer.saving(fig, str(out), dpi=80):
        if start is not None:
            draw_board(ax, start)

        def on_ply(ply: int, state: Any) -> None:
            if ply % every == 0 or ply == plies:
                frame(state)

        final = replay(record, index, on_ply)
        for _ in range(3):  # hold the final position before the GIF loops
            frame(final)
    plt.close(fig)
    return frames


# ====================================================================== command line


def positive_fps(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {short_repr(text)}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_FPS):
        raise argparse.ArgumentTypeError(f"must be a number above 0 and at most {MAX_FPS:g}, "
                                         f"got {short_repr(text)}")
    return value


def positive_every(text: str) -> int:
    try:
        value = int(text) if len(text) <= 40 else None
    except ValueError:
        value = None
    if value is None or value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got "
                                         f"{short_repr(text)}")
    return value


def check_gif_path(path: str) -> str | None:
    """Why ``path`` cannot take the GIF (checked before any replay), or None."""
    if not path.strip():
        return "an empty path"
    target = Path(path)
    if target.is_dir():
        return f"{short_repr(path)} is a folder"
    parent = target.parent
    if not parent.is_dir():
        return f"the folder {short_repr(str(parent))} does not exist"
    if not os.access(parent, os.W_OK | os.X_OK) or (
            target.exists() and not os.access(target, os.W_OK)):
        return f"no permission to write {short_repr(path)}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", help="a games.jsonl file written by scripts/arena.py")
    parser.add_argument("--game-index", type=int, default=None,
                        help="which record to show (0-based line order; -1 the last; default 0)")
    parser.add_argument("--verify", action="store_true",
                        help="check every record (or only --game-index) and print a summary")
    parser.add_argument("--require-digests", action="store_true",
                        help="with --verify, fail records without digests (format /1)")
    parser.add_argument("--text", action="store_true",
                        help="print the board as text: the final one, or every --every plies")
    parser.add_argument("--every", type=positive_every, default=None, metavar="K",
                        help="show the board every K plies (text) / a GIF frame every K plies "
                             f"(default for a GIF: about {GIF_FRAMES} frames)")
    parser.add_argument("--gif", default=None, metavar="OUT.gif", help="write an animated GIF")
    parser.add_argument("--fps", type=positive_fps, default=4.0,
                        help=f"GIF frames per second, above 0 and at most {MAX_FPS:g}")
    args = parser.parse_args(argv)
    if args.require_digests and not args.verify:
        parser.error("--require-digests applies to --verify only")
    if args.gif is not None:
        problem = check_gif_path(args.gif)
        if problem:
            parser.error(f"--gif: {problem}")
    try:
        records = load_records(args.records)
    except OSError as exc:
        parser.error(f"cannot read {args.records}: {exc}")
    except ReplayMismatch as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not records:
        parser.error(f"{args.records} holds no records")
    if args.game_index is not None and not -len(records) <= args.game_index < len(records):
        parser.error(f"--game-index {args.game_index} out of range: {len(records)} records")

    status = 0
    note = digest_note(records)
    if args.verify and args.game_index is None:
        problems = verify_records(records)
        if args.require_digests and note:
            problems.append(f"--require-digests: {note}")
        for problem in problems:
            print(f"MISMATCH {problem}", file=sys.stderr)
        verdict = "all match" if not problems else f"{len(problems)} mismatch(es)"
        print(f"verified {len(records)} records from {args.records}: {verdict}")
        if note and not args.require_digests:
            print(f"note: {note}")
        status = 1 if problems else 0
        if not (args.text or args.gif):
            return status

    index = args.game_index if args.game_index is not None else 0
    index %= len(records)
    record = records[index]
    show_text = args.text or not (args.verify or args.gif)
    try:
        check_record_shape(record, index)
        if show_text:
            game = record.get("game")

            def on_ply(ply: int, state: Any) -> None:
                if args.every and ply % args.every == 0 and not state.is_terminal():
                    print(f"--- ply {ply}\n{render_text(game, state)}\n")

            final = replay(record, index, on_ply)
            plies = len(record["actions"])
            print(f"--- final position of {record_name(record, index)}, ply {plies}")
            print(render_text(game, final))
        if args.gif:
            frames = write_gif(record, args.gif, every=args.every, fps=args.fps, index=index)
            print(f"wrote {args.gif} ({frames} frames)")
        if args.verify and args.game_index is not None:
            replay(record, index)
            if has_digests(record):
                print(f"verified {record_name(record, index)}: matches")
            elif args.require_digests:
                print(f"MISMATCH {record_name(record, index)}: --require-digests: it carries "
                      f"no digests (format {RECORD_FORMATS[0]})", file=sys.stderr)
                return 1
            else:
                print(f"verified {record_name(record, index)}: matches as far as it can be "
                      f"checked; it carries no digests (format {RECORD_FORMATS[0]}): the state "
                      f"after each ply and which agent sat in which seat are not proven")
    except ReplayMismatch as exc:
        print(f"MISMATCH {exc}", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
