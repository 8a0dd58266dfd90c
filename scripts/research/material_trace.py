"""How many movable pieces each side of Junqi games keeps, ply by ply, split by an agent's result.

    python scripts/research/material_trace.py runs/X/games.jsonl [runs/Y/games.jsonl ...] \\
        --agent ismcts:seconds=1
    python scripts/research/material_trace.py RECORDS.jsonl --agent greedy --plies 10,30,50

Each record (written by scripts/arena.py) is replayed through the game core and checked. The
first table gives the movable pieces (every piece but mines and the flag) of the named agent and
of its opponent at each asked ply that the game reached, and at its end, as means over the
agent's won, drawn and lost games, and how those games ended. A second table counts the attacks
each side made (moves onto an enemy piece) by the referee's result, the pieces each side lost,
and the attacks of its three highest-ranked types. A third says how each side's first attack on
a headquarters of the other went: none in the game, onto the flag, or onto another piece
(``agents.junqi.material_trace`` says how each is counted).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from agents.arena.records import load_records
from agents.arena.replay import replay
from agents.junqi.material_trace import (
    DEFAULT_PLIES,
    SIDES,
    AttackCount,
    HeadquartersProbes,
    format_attacks,
    format_probes,
    format_table,
    trace_records,
)
from tbw_envs.core.contract import short_repr


def ply_list(text: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if len(part) <= 12]
    except ValueError:
        values = []
    if not values or len(values) != len(text.split(",")) or min(values) < 0:
        raise argparse.ArgumentTypeError(f"expected plies as whole numbers of at least 0 "
                                         f"separated by commas, got {short_repr(text)}")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", nargs="+", help="games.jsonl files written by scripts/arena.py")
    parser.add_argument("--agent", required=True,
                        help="the agent's label as the records give it (e.g. ismcts:seconds=1)")
    parser.add_argument("--plies", type=ply_list, default=list(DEFAULT_PLIES),
                        help="plies to count at, separated by commas (default 20,40,60)")
    args = parser.parse_args(argv)
    records: list[dict[str, Any]] = []
    for path in args.records:
        try:
            records += load_records(path)
        except OSError as exc:
            parser.error(f"cannot read {path}: {exc}")
        except ValueError as exc:  # MalformedRecord, naming the file and line
            parser.error(str(exc))
    if not records:
        parser.error("the files hold no records")
    attacks = {side: AttackCount() for side in SIDES}
    probes = {side: HeadquartersProbes() for side in SIDES}
    try:
        traces = trace_records(records, args.agent, args.plies, attacks, probes, replay=replay)
    except ValueError as exc:
        parser.error(f"cannot trace these records: {exc}")
    print(format_table(traces, args.agent, args.plies))
    print()
    print(format_attacks(attacks, args.agent, len(records)))
    print()
    print(format_probes(probes, args.agent))
    return 0


if __name__ == "__main__":
    sys.exit(main())
