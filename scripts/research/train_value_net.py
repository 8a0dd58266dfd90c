"""Train the Junqi value network (``agents.junqi.value_net``) on the outcomes of recorded games.

    python scripts/research/train_value_net.py --games runs/A runs/B --test runs/C \\
        --dir runs/value-net [--hidden 32] [--epochs 30] [--seed 0] [--every 2] \\
        [--lookahead 8] [--resume]

Every ``--every``-th position of each finished game, from the side to move, is a sample
labelled with that side's result (a win 1, a loss 0, a draw 1/2), or with ``--lookahead N``
the logistic state value's winning chance N plies later (fitted on the same games; the result
where the game ends sooner). A tenth of the ``--games`` games (``--validation``, whole games,
chosen by ``--seed``) is held out to pick the epoch; the ``--test`` games only report. Training
is seeded (the same games, seed and options give the same weights on the same machine) and
resumable: each epoch writes ``DIR/checkpoint.pt``, and ``--resume`` carries on from it.
``DIR`` also gets the learning curves (``history.csv``, ``learning_curve.png``) and the best
epoch's weights as ``junqi_value_net.npz`` (copy it to ``configs/agents/`` to ship it). Needs
the ``train`` extra (torch); ``agents.junqi.value_net_training`` does the work.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from agents.arena.records import games_digests, recorded_games
from agents.junqi.value_net_training import CHECKPOINT_NAME, TrainingOptions, train_value_net

COMMAND = "python scripts/research/train_value_net.py "


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", required=True, help="arena runs to train on")
    parser.add_argument("--test", nargs="*", default=[], help="arena runs to report on")
    parser.add_argument("--dir", required=True, help="checkpoint, curves and weights go here")
    parser.add_argument("--hidden", type=int, default=32, help="hidden units (default 32)")
    parser.add_argument("--epochs", type=int, default=30, help="epochs (default 30)")
    parser.add_argument("--batch", type=int, default=256, help="positions a step (default 256)")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam's step size (default 1e-3)")
    parser.add_argument("--weight-decay", type=float, default=1e-4,
                        help="AdamW's weight decay (default 1e-4)")
    parser.add_argument("--validation", type=float, default=0.1,
                        help="share of the --games games held out to pick the epoch (default 0.1)")
    parser.add_argument("--every", type=int, default=2, help="sample every N-th ply (default 2)")
    parser.add_argument("--lookahead", type=int, default=0, metavar="PLIES",
                        help="train on the logistic value's winning chance PLIES later (a "
                             "multiple of --every) instead of the result (default 0: the result)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--resume", action="store_true", help="carry on from DIR/checkpoint.pt")
    args = parser.parse_args(argv)
    for name in ("hidden", "epochs", "batch", "every", "threads"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    if args.lookahead < 0 or args.lookahead % args.every:
        parser.error("--lookahead must be a non-negative multiple of --every, got "
                     f"{args.lookahead}")
    if not 0.0 < args.validation < 1.0:
        parser.error(f"--validation must be in (0, 1), got {args.validation}")

    import torch

    torch.set_num_threads(args.threads)
    out = Path(args.dir)
    checkpoint_path = out / CHECKPOINT_NAME
    if checkpoint_path.exists() and not args.resume:
        parser.error(f"{checkpoint_path} exists: pass --resume to carry on, or another --dir")
    out.mkdir(parents=True, exist_ok=True)

    options = TrainingOptions(
        hidden=args.hidden, epochs=args.epochs, batch=args.batch, lr=args.lr,
        weight_decay=args.weight_decay, validation=args.validation, every=args.every,
        lookahead=args.lookahead, seed=args.seed)
    made_by = {
        "command": COMMAND + shlex.join(
            [a for a in (argv if argv is not None else sys.argv[1:]) if a != "--resume"]),
        "games_sha256": games_digests(args.games)}
    games = recorded_games(args.games, "junqi")
    test_games = recorded_games(args.test, "junqi") if args.test else None
    report = train_value_net(games, test_games, out, options, made_by)
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
