"""Multi-agent PPO for TBW and Junqi on RLlib (Ray): self-play, action masking, checkpoints.

    tbw-train-rllib --game tbw --scenario duel_5v5_8x8 --iterations 20
    tbw-train-rllib --game junqi --rules ccgc --num-env-runners 2 --iterations 50
    tbw-train-rllib --game tbw --opponent frozen --freeze-every 5 --iterations 40
    tbw-train-rllib --game tbw --address auto --num-env-runners 32   # a cluster

(``python scripts/train_rllib.py`` from a clone is the same command.) Without ``--game``, the
game is the one whose variant flag (``--scenario``, ``--rules``, ...) is given, else the one
``--eval-opponent`` plays, else the first game.

RLlib's new API stack (RLModule, Learner, EnvRunner, ConnectorV2), PPO with one shared policy
for both seats (self-play), or the learner against a frozen copy of itself refreshed every
``--freeze-every`` iterations (``--opponent frozen``). Each iteration prints a progress line;
``--out`` (default ``runs/rllib-<game>-<time>/``) gets ``progress.csv``, ``learning_curve.png``,
``checkpoints/iter_NNNN/`` every ``--checkpoint-every`` iterations and ``checkpoint/`` at the
end (``Algorithm.from_checkpoint(path)`` restores one; the policy alone is
``RLModule.from_checkpoint(path / "learner_group/learner/rl_module/shared")``).

The env (RLlib's ``PettingZooEnv`` over our AEC ``env()``), the masking module and the self-play
mapping are in ``agents.training.rllib``, the training loop in ``agents.training.rllib_training``;
this module is the command line. Every argument is checked before Ray is imported.

Threads: every process (driver/learner and each env runner) uses ``--threads`` torch threads,
default 1 (README, "Training": torch's default threading is far slower on a shared machine).
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
from pathlib import Path

from agents.arena import check_game
from agents.cli.common import (
    add_game_flag,
    add_variant_flags,
    command_words,
    label,
    non_empty,
    pick_game,
    ray_address,
    refuse_other_variants,
    registered,
)
from agents.registry import make_agent
from agents.training.rllib import import_rllib
from agents.training.rllib_training import train
from tbw_envs.games import get_game

# Caps on what scales with input (the input contract): env runners are processes and envs per
# runner are game copies, so a typo like 100000 would start that many workers.
MAX_ENV_RUNNERS = 64
MAX_ENVS_PER_RUNNER = 256
MAX_COUNT = 10**9


def _int_at_least(low: int, high: int = MAX_COUNT):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text[:80]!r}"
                                             ) from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        if value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high:,}, got {value:,}")
        return value

    return parse


def _real_in(low: float, high: float, low_open: bool = False):
    """A finite decimal number in ``[low, high]`` (``(low, high]`` with ``low_open``)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text[:80]!r}") from None
        below = value <= low if low_open else value < low
        if not math.isfinite(value) or below or value > high:
            interval = f"{'(' if low_open else '['}{low:g}, {high:g}]"
            raise argparse.ArgumentTypeError(f"must be a finite number in {interval}, got "
                                             f"{text[:80]}")
        return value

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Multi-agent PPO for " + " and ".join(map(label, registered()))
                    + " on RLlib (Ray): self-play, action masking, checkpoints.")
    add_game_flag(parser, help="the game (default: the one whose variant flag is given, else "
                               "the one --eval-opponent plays, else the first game)")
    parser.add_argument("--iterations", type=_int_at_least(1), default=10)
    parser.add_argument("--num-env-runners", type=_int_at_least(0, MAX_ENV_RUNNERS), default=0,
                        metavar="K",
                        help="Ray actors that step environments (0: sample in this process); "
                             "on a cluster they spread over the nodes")
    parser.add_argument("--num-envs-per-env-runner", type=_int_at_least(1, MAX_ENVS_PER_RUNNER),
                        default=4,
                        help="envs each env runner (or the driver, with K=0) steps, one "
                             "batched forward pass for all (default 4; the sampling rate it "
                             "buys is measured in docs/benchmarks.md)")
    parser.add_argument("--address", type=ray_address, default="local",
                        help="'local' starts Ray on this machine; 'auto' joins the cluster "
                             "'ray start' set up here; ray://head:10001 connects through Ray "
                             "Client (default local)")
    parser.add_argument("--opponent", choices=["self", "frozen"], default="self",
                        help="self: both seats share the trained policy; frozen: the policy "
                             "plays a frozen copy of itself, refreshed every --freeze-every")
    parser.add_argument("--freeze-every", type=_int_at_least(1), default=5)
    parser.add_argument("--eval-games", type=_int_at_least(0), default=10,
                        help="greedy games against --eval-opponent after each --eval-every "
                             "iterations (0: none)")
    parser.add_argument("--eval-opponent", default="random",
                        help="agent spec (agents.registry): random, greedy, ...")
    parser.add_argument("--eval-every", type=_int_at_least(1), default=1)
    parser.add_argument("--checkpoint-every", type=_int_at_least(0), default=0,
                        help="also checkpoint every N iterations (0: only at the end)")
    parser.add_argument("--train-batch-size", type=_int_at_least(1), default=2000)
    parser.add_argument("--minibatch-size", type=_int_at_least(1), default=256)
    parser.add_argument("--num-epochs", type=_int_at_least(1), default=4)
    parser.add_argument("--lr", type=_real_in(0.0, 1.0, low_open=True), default=3e-4)
    parser.add_argument("--gamma", type=_real_in(0.0, 1.0), default=0.99)
    parser.add_argument("--entropy-coeff", type=_real_in(0.0, 1.0), default=0.01)
    parser.add_argument("--hidden", type=_int_at_least(1, 65536), nargs="+", default=[256, 256])
    parser.add_argument("--threads", type=_int_at_least(1, 256), default=1,
                        help="torch threads per process (default 1)")
    parser.add_argument("--seed", type=_int_at_least(0, 2**31 - 1), default=0)
    parser.add_argument("--out", type=non_empty, default=None,
                        help="output folder (default runs/rllib-<game>-<YYYYmmdd-HHMMSS>/)")
    add_variant_flags(parser)
    return parser


def check_variant_flags(args, parser: argparse.ArgumentParser) -> str:
    """The run's game (``pick_game``) and variant; the other games' variant flags are
    errors."""
    args.game = pick_game(args, parser.error, [args.eval_opponent], "--eval-opponent")
    refuse_other_variants(args, args.game, parser.error)
    game = get_game(args.game)
    return getattr(args, game.variant_flag) or game.default_variant


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    variant = check_variant_flags(args, parser)
    if args.minibatch_size > args.train_batch_size:
        parser.error(f"--minibatch-size {args.minibatch_size} is larger than --train-batch-size "
                     f"{args.train_batch_size}")
    if args.out is not None and Path(args.out).exists() and (
            not Path(args.out).is_dir() or any(Path(args.out).iterdir())):
        parser.error(f"--out {args.out!r:.200} exists and is not an empty folder; give a new one")
    try:
        check_game(args.game, variant)
        if args.eval_games and args.eval_opponent != "random":
            make_agent(args.eval_opponent, seed=0, game=args.game)
        import_rllib()
    except (ValueError, ImportError) as exc:
        parser.error(str(exc))
    train(args.game, variant, iterations=args.iterations, num_env_runners=args.num_env_runners,
          address=args.address, out=args.out, opponent=args.opponent,
          freeze_every=args.freeze_every, eval_games=args.eval_games,
          eval_opponent=args.eval_opponent, eval_every=args.eval_every,
          checkpoint_every=args.checkpoint_every, threads=args.threads,
          num_envs_per_env_runner=args.num_envs_per_env_runner,
          train_batch_size=args.train_batch_size, minibatch_size=args.minibatch_size,
          num_epochs=args.num_epochs, lr=args.lr, gamma=args.gamma,
          entropy_coeff=args.entropy_coeff, hidden=tuple(args.hidden), seed=args.seed,
          command=shlex.join([*command_words("train_rllib"), *argv]))
    return 0

