"""Replay arena game records (games.jsonl): verify them and show them as text or an animated GIF.

    python scripts/replay.py runs/arena-junqi-.../games.jsonl --verify       # check every game
    python scripts/replay.py RECORDS.jsonl --game-index 3 --text --every 20  # board every 20 plies
    python scripts/replay.py RECORDS.jsonl --game-index -1 --gif last.gif    # animated GIF

A record is replayed through the game core from its starting position (TBW: the scenario; Junqi:
both layouts); every action must be legal, and the result, end reason and ply count must match
the record. A mismatch prints a message naming the game and the ply and exits with code 1.
Junqi boards are drawn omniscient (both sides' pieces).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.arena import GAMES, RECORD_FORMAT, end_reason, record_start_state  # noqa: E402

GIF_FRAMES = 120  # default --every for a GIF keeps about this many frames


class ReplayMismatch(ValueError):
    """A record that does not replay: an illegal action, or a result that differs."""


def load_records(path: str | Path) -> list[dict[str, Any]]:
    """The records of a JSON-lines file, one per non-empty line."""
    records = []
    with Path(path).open(encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ReplayMismatch(f"{path}, line {line_number}: not JSON ({exc})") from None
            if not isinstance(record, dict):
                raise ReplayMismatch(f"{path}, line {line_number}: a record is a JSON object")
            records.append(record)
    return records


def record_name(record: dict[str, Any], index: int | None = None) -> str:
    where = f"record {index}" if index is not None else "record"
    agents = record.get("agents") or ["?", "?"]
    return (f"{where} (game {record.get('game_id', '?')}, {record.get('game', '?')}: "
            f"{agents[0]} v {agents[1]})")


def describe(game: str, state: Any, action: Any) -> str:
    """An action in words, or why it is not one."""
    if not isinstance(action, int) or isinstance(action, bool):
        return f"not an integer but {type(action).__name__}"
    try:
        if game == "tbw":
            return state.describe_action(action)
        from tbw_envs.junqi.state import as_action, describe_action

        return describe_action(as_action(action))
    except ValueError as exc:
        return str(exc)


def replay(record: dict[str, Any], index: int | None = None,
           on_ply: Callable[[int, Any], None] | None = None) -> Any:
    """Replay ``record`` through the game core, checking it; returns the final state.

    ``on_ply(ply, state)`` is called with the start (ply 0) and after every action. Raises
    ``ReplayMismatch`` naming the record and the ply on an illegal action, a game that ends too
    early or too late, or a result, end reason or ply count that differs from the record.
    """
    name = record_name(record, index)

    def fail(problem: str) -> ReplayMismatch:
        return ReplayMismatch(f"{name}: {problem}")

    if record.get("format", RECORD_FORMAT) != RECORD_FORMAT:
        raise fail(f"unknown record format {record.get('format')!r}; expected {RECORD_FORMAT}")
    game = record.get("game")
    if game not in GAMES:
        raise fail(f"unknown game {game!r}; expected one of {', '.join(GAMES)}")
    for key in ("actions", "result"):
        if key not in record:
            raise fail(f"missing field {key!r}")
    try:
        state = record_start_state(record)
    except (KeyError, TypeError, ValueError) as exc:
        raise fail(f"cannot build the starting position: {exc}") from None
    actions = record["actions"]
    if on_ply is not None:
        on_ply(0, state)
    for ply, action in enumerate(actions, 1):
        if state.is_terminal():
            raise fail(f"the game ended after {ply - 1} plies but the record has "
                       f"{len(actions)} actions")
        legal = state.legal_actions()
        if not isinstance(action, int) or isinstance(action, bool) or action not in legal:
            raise fail(f"ply {ply}: action {action!r} ({describe(game, state, action)}) is not "
                       f"legal for player "
                       f"{state.current_player}; {len(legal)} legal actions")
        state.apply(action)
        if on_ply is not None:
            on_ply(ply, state)
    if not state.is_terminal():
        raise fail(f"the record's {len(actions)} actions end, but the game is not over")
    expected = record["result"]
    found = {"returns": [float(r) for r in state.returns()],
             "end_reason": end_reason(game, state), "plies": len(actions)}
    for key in ("returns", "end_reason", "plies"):
        want = expected.get(key)
        if key == "returns" and want is not None:
            want = [float(r) for r in want]
        if want != found[key]:
            raise fail(f"{key} differs: the record says {want!r}, the replay gives "
                       f"{found[key]!r}")
    return state


def verify_records(records: list[dict[str, Any]]) -> list[str]:
    """Replay every record; the mismatch messages (empty when all match)."""
    problems = []
    for index, record in enumerate(records):
        try:
            replay(record, index)
        except ReplayMismatch as exc:
            problems.append(str(exc))
    return problems


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", help="a games.jsonl file written by scripts/arena.py")
    parser.add_argument("--game-index", type=int, default=None,
                        help="which record to show (0-based line order; -1 the last; default 0)")
    parser.add_argument("--verify", action="store_true",
                        help="check every record (or only --game-index) and print a summary")
    parser.add_argument("--text", action="store_true",
                        help="print the board as text: the final one, or every --every plies")
    parser.add_argument("--every", type=int, default=None, metavar="K",
                        help="show the board every K plies (text) / a GIF frame every K plies "
                             f"(default for a GIF: about {GIF_FRAMES} frames)")
    parser.add_argument("--gif", default=None, metavar="OUT.gif", help="write an animated GIF")
    parser.add_argument("--fps", type=float, default=4.0, help="GIF frames per second")
    args = parser.parse_args(argv)
    if args.every is not None and args.every < 1:
        parser.error("--every must be at least 1")
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
    if args.verify and args.game_index is None:
        problems = verify_records(records)
        for problem in problems:
            print(f"MISMATCH {problem}", file=sys.stderr)
        verdict = "all match" if not problems else f"{len(problems)} mismatch(es)"
        print(f"verified {len(records)} records from {args.records}: {verdict}")
        status = 1 if problems else 0
        if not (args.text or args.gif):
            return status

    index = args.game_index if args.game_index is not None else 0
    index %= len(records)
    record = records[index]
    show_text = args.text or not (args.verify or args.gif)
    try:
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
            print(f"verified {record_name(record, index)}: matches")
    except ReplayMismatch as exc:
        print(f"MISMATCH {exc}", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
