"""Fit the learned Junqi state value (``agents.junqi.state_value``) on recorded arena games.

    python scripts/fit_state_value.py --games runs/A runs/B [--test runs/C] \\
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

import numpy as np
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.arena.records import games_digests, recorded_games  # noqa: E402
from agents.junqi.eval_config import load_eval_config  # noqa: E402
from agents.junqi.state_value import (  # noqa: E402
    PIECE_FEATURES,
    STATE_FEATURES,
    fit_logistic,
    fit_samples,
    log_loss,
    outcome_samples,
)
from tbw_envs.junqi.pieces import PIECE_NAMES  # noqa: E402


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

    piece_values = dict(zip(PIECE_NAMES, load_eval_config(args.weights).piece_values,
                            strict=True))
    x_fit, y_fit = outcome_samples(recorded_games(args.games, "junqi"), args.every)
    value, info = fit_samples(x_fit, y_fit, piece_values)
    report = {"fit": info, "weights": value.as_dict(), "scale": value.scale,
              "piece_values": {n: w / value.scale
                               for n, w in zip(PIECE_FEATURES, value.weights, strict=False)}}
    if args.test:
        x, y = outcome_samples(recorded_games(args.test, "junqi"), args.every)
        hand = np.asarray([piece_values[n] for n in PIECE_FEATURES])
        material_only = fit_logistic((x_fit[:, :len(hand)] @ hand)[:, None], y_fit)
        report["test"] = {
            "samples": int(len(y)),
            "log_loss": log_loss(x, y, value.weights),
            "material_log_loss": log_loss((x[:, :len(hand)] @ hand)[:, None], y, material_only),
        }
    print(json.dumps(report, indent=2))
    if args.out:
        made_by = {
            "command": "python scripts/fit_state_value.py " + shlex.join(argv or sys.argv[1:]),
            "games_sha256": games_digests(args.games),
            "samples": info["samples"],
            "log_loss": round(info["log_loss"], 6),
        }
        data = {"weights": {n: float(w) for n, w in zip(STATE_FEATURES, value.weights,
                                                          strict=True)},
                "scale": value.scale, "made_by": made_by}
        Path(args.out).write_text(
            "# The learned Junqi state value (agents/junqi/state_value.py); plain data.\n"
            + yaml.safe_dump(data, sort_keys=False))
    return report


if __name__ == "__main__":
    main()
