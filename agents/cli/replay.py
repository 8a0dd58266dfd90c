"""Replay arena game records (games.jsonl): verify them and show them as text or an animated GIF.

    tbw-replay runs/arena-junqi-.../games.jsonl --verify       # check every game
    tbw-replay RECORDS.jsonl --game-index 3 --text --every 20  # the board every 20 plies
    tbw-replay RECORDS.jsonl --game-index -1 --gif last.gif    # an animated GIF

(``python scripts/replay.py`` from a clone is the same command.) A record names its game and
its variant, so this command takes no --game or variant flag: any registered game replays.

A record is replayed through the game core from its starting position (TBW: the scenario; Junqi:
both layouts) and checked against everything it claims: the seeds derive from the round robin's
(the pair's seed, each seat's agent seed, Junqi's random layouts), the first opening_plies moves
are the random opening of the pair's seed, every action is legal, the state after every ply has
the recorded digest (agents.arena.DIGEST_SCHEME), the result, end reason and ply count match, and
the digest of the whole record (which binds the agents to their seats) matches; a digest field
edited by itself (digests.start, a digests.plies entry, digests.final, and with the file's
manifest digests.record) is named as that field. With a whole file, the two games of each pair
must swap seats, and the file must be complete: the manifest the arena and the ladder write
beside it (games.manifest.json: the count, each record's game id and digest, in order, and a
digest over them) names each record that is missing, doubled, out of order, changed or added,
and an edited manifest. A file without a manifest is verified record by record, and the
summary says completeness was not checked.
The first mismatch of a record is printed with its index and the ply, and the exit code is 1.
Records of format /1 carry no digests: they are checked as far as they allow, and the summary
says so (--require-digests fails them). A game an agent forfeited (tbw-arena --on-agent-error
forfeit) replays up to the bad move, an illegal action is checked to be illegal there, and the
summary says that a raise cannot be checked.
Junqi boards are drawn omniscient (both sides' pieces). The checks are agents.arena.replay's;
this is their command line.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path
from typing import Any

from agents.arena.completeness import read_manifest
from agents.arena.gif import GIF_FRAMES, write_gif
from agents.arena.record_shape import check_record_shape, has_digests, record_name
from agents.arena.records import (
    RECORD_FORMATS,
    MalformedRecord,
    ReplayMismatch,
    load_records,
    manifest_path,
)
from agents.arena.replay import digest_note, forfeit_note, replay, verify_records
from agents.cli.common import positive_int
from tbw_envs.core.contract import short_repr
from tbw_envs.games import get_game

MAX_FPS = 100.0


def positive_fps(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {short_repr(text)}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_FPS):
        raise argparse.ArgumentTypeError(f"must be a number above 0 and at most {MAX_FPS:g}, "
                                         f"got {short_repr(text)}")
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records",
                        help="a games.jsonl file written by the arena or the ladder")
    parser.add_argument("--game-index", type=int, default=None,
                        help="which record to show (0-based line order; -1 the last; default 0)")
    parser.add_argument("--verify", action="store_true",
                        help="check every record (or only --game-index) and, with the manifest "
                             "beside the file, that it is complete; print a summary")
    parser.add_argument("--require-digests", action="store_true",
                        help="with --verify, fail records without digests (format /1)")
    parser.add_argument("--text", action="store_true",
                        help="print the board as text: the final one, or every --every plies")
    parser.add_argument("--every", type=positive_int, default=None, metavar="K",
                        help="show the board every K plies (text) / a GIF frame every K plies "
                             f"(default for a GIF: about {GIF_FRAMES} frames)")
    parser.add_argument("--gif", default=None, metavar="OUT.gif", help="write an animated GIF")
    parser.add_argument("--fps", type=positive_fps, default=4.0,
                        help=f"GIF frames per second, above 0 and at most {MAX_FPS:g}")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
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
        problems, manifest, unreadable = [], None, False
        try:
            manifest = read_manifest(args.records)
        except OSError as exc:
            unreadable = True
            problems.append(f"{manifest_path(args.records)}: cannot be read ({exc.strerror}); "
                            f"completeness not checked")
        except MalformedRecord as exc:
            unreadable = True
            problems.append(f"{exc}; completeness not checked")
        problems += verify_records(records, manifest)
        if args.require_digests and note:
            problems.append(f"--require-digests: {note}")
        for problem in problems:
            print(f"MISMATCH {problem}", file=sys.stderr)
        verdict = "all match" if not problems else f"{len(problems)} mismatch(es)"
        if manifest is None and not unreadable:
            verdict += (f"; completeness not checked: there is no "
                        f"{manifest_path(args.records).name} beside it, so a record removed, "
                        f"doubled or reordered would not show")
        elif not problems:
            verdict += f", and the file is complete ({manifest.name} lists these records in order)"
        print(f"verified {len(records)} records from {args.records}: {verdict}")
        if note and not args.require_digests:
            print(f"note: {note}")
        forfeits = forfeit_note(records)
        if forfeits:
            print(f"note: {forfeits}")
        status = 1 if problems else 0
        if not (args.text or args.gif):
            return status

    index = args.game_index if args.game_index is not None else 0
    index %= len(records)
    record = records[index]
    show_text = args.text or not (args.verify or args.gif)
    try:
        check_record_shape(record, index)
        game = get_game(record["game"])
        if show_text:

            def on_ply(ply: int, state: Any) -> None:
                if args.every and ply % args.every == 0 and not state.is_terminal():
                    print(f"--- ply {ply}\n{game.render_text(state).rstrip()}\n")

            final = replay(record, index, on_ply)
            plies = len(record["actions"])
            print(f"--- final position of {record_name(record, index)}, ply {plies}")
            print(game.render_text(final).rstrip())
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

