"""Fit the learned Junqi state value (``agents.junqi.state_value``) on recorded arena games.

    python scripts/research/fit_state_value.py --games runs/A runs/B [--test runs/C] \\
        [--every 4] [--out configs/agents/junqi_state_value.yaml]

Each run is an arena folder (or its ``games.jsonl``); every ``--every``-th position of a
finished game, from the side to move, is a sample labelled with that side's result. The fit is
deterministic: the same games give the same weights. ``--out`` writes YAML (plain data: the
weights by feature, the piece-value scale, and how they were made: the command, each games
file's SHA-256, the sample count and log-loss). ``--test`` scores the fit, and a logistic fit
of the evaluation's material balance alone, on other games.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from agents.arena.records import games_digests, recorded_games
from agents.junqi.evaluation import load_weights
from agents.junqi.state_value import fit_report, state_value_yaml
from tbw_envs.junqi.pieces import PIECE_NAMES

COMMAND = "python scripts/research/fit_state_value.py "


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", required=True, help="arena runs to fit on")
    parser.add_argument("--test", nargs="*", default=[], help="arena runs to score the fit on")
    parser.add_argument("--every", type=int, default=4, help="sample every N-th ply (default 4)")
    parser.add_argument("--weights", default="tuned",
                        help="evaluation weights whose piece values set the scale (default tuned)")
    parser.add_argument("--out", help="write the fit here as YAML")
    args = parser.parse_args(argv)
    if args.every < 1:
        parser.error(f"--every must be at least 1, got {args.every}")

    piece_values = dict(zip(PIECE_NAMES, load_weights(args.weights).piece_values, strict=True))
    fit_games = recorded_games(args.games, "junqi")
    test_games = recorded_games(args.test, "junqi") if args.test else None
    value, report = fit_report(fit_games, test_games, piece_values, args.every)
    print(json.dumps(report, indent=2))
    if args.out:
        made_by = {
            "command": COMMAND + shlex.join(argv or sys.argv[1:]),
            "games_sha256": games_digests(args.games),
            "samples": report["fit"]["samples"],
            "log_loss": round(report["fit"]["log_loss"], 6),
        }
        Path(args.out).write_text(state_value_yaml(value, made_by))
    return report


if __name__ == "__main__":
    main()
