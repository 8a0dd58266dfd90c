"""Self-play training of a policy-value network on the batched cores.

    python scripts/train_learned.py --game junqi --updates 2000 --out runs/learned-junqi
    python scripts/train_learned.py --out runs/learned-junqi --updates 4000   # carries on

One network plays both seats of ``--envs`` games of ``tbw_envs.vector`` at once; every move is
a training sample for its player (PPO with zero-sum advantages: ``agents.training.selfplay``);
``--league-fraction`` of the games are played against a past snapshot instead (one taken every
``--snapshot-every`` updates, the newest ``--league-size`` kept), against forgetting.
An update is ``--rollout-steps`` moves in every game, then ``--epochs`` passes over them in
minibatches of ``--minibatch``.

``--out`` receives ``checkpoint.npz`` (everything a resume needs, plain arrays: loading runs no
code; written every ``--checkpoint-every`` updates, when all games restart, so a resumed run
makes the same weights as one never stopped), ``net.npz`` (the weights alone, what an agent
plays), ``curve.csv`` (a row per update: losses, entropy, game lengths, env steps/s, and every
``--eval-every`` updates the score against random play and against the network of the previous
evaluation, with Wilson 95% intervals), ``ladder.csv`` (every ``--ladder-every`` updates the
network's rating on the game's pinned ladder, ``configs/ladder/<game>.yaml`` or ``--ladder``,
with its 95% interval; the network rated is kept as ``nets/net_<update>.npz``),
``learning_curve.png`` and ``run.json``. Given an ``--out`` that holds a checkpoint, the run
resumes from it: the settings are the checkpoint's (only ``--updates``, ``--eval-*``,
``--ladder*``, ``--threads`` and ``--backend`` may change), and ``curve.csv`` and
``ladder.csv`` are cut back to the checkpoint's update.

torch runs on ``--threads`` threads (default 1: torch's default threading is far slower for
small networks on a small shared machine; docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import platform
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from agents.arena.ladder import run_ladder
from agents.arena.ladder_config import LadderConfigError, load_ladder
from agents.cli.common import (
    add_game_flag,
    add_variant_flags,
    given_variant,
    missing_extra,
    non_negative_int,
    pick_game,
    positive_int,
    refuse_other_variants,
    seed_value,
)
from tbw_envs.games import get_game

CURVE_FIELDS = ("update", "env_steps", "seconds", "steps_per_second", "policy_loss",
                "value_loss", "entropy", "approx_kl", "games_ended", "mean_game_plies",
                "vs_random", "vs_random_low", "vs_random_high", "vs_previous",
                "vs_previous_low", "vs_previous_high")
LADDER_FIELDS = ("update", "env_steps", "elo", "elo_low", "elo_high", "games", "seconds", "net")
SETTINGS = ("envs", "rollout_steps", "epochs", "minibatch", "lr", "entropy_coef", "channels",
            "blocks", "head_channels", "checkpoint_every", "seed", "league_fraction",
            "snapshot_every", "league_size")


def _number(text: str, low: float, above: bool) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value) or value < low or (above and value == low):
        bound = "above" if above else "at least"
        raise argparse.ArgumentTypeError(f"expected a finite number {bound} {low:g}, got "
                                         f"{text!r}")
    return value


def positive_float(text: str) -> float:
    return _number(text, 0.0, above=True)


def non_negative_float(text: str) -> float:
    return _number(text, 0.0, above=False)


def fraction(text: str) -> float:
    value = non_negative_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"expected a share from 0 to 1, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="train_learned.py", description=__doc__.splitlines()[0],
        epilog=__doc__.split("\n\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    add_game_flag(parser)
    parser.add_argument("--out", required=True, help="the run's folder (resumed if it holds a "
                                                     "checkpoint)")
    parser.add_argument("--updates", type=positive_int, required=True,
                        help="train until this many updates are done in all")
    parser.add_argument("--seed", type=seed_value, default=0)
    parser.add_argument("--envs", type=positive_int, default=256)
    parser.add_argument("--rollout-steps", type=positive_int, default=32)
    parser.add_argument("--epochs", type=positive_int, default=1)
    parser.add_argument("--minibatch", type=positive_int, default=2048)
    parser.add_argument("--lr", type=positive_float, default=3e-4)
    parser.add_argument("--entropy-coef", type=non_negative_float, default=0.01)
    parser.add_argument("--channels", type=positive_int, default=32)
    parser.add_argument("--blocks", type=non_negative_int, default=0)
    parser.add_argument("--head-channels", type=positive_int, default=8)
    parser.add_argument("--league-fraction", type=fraction, default=0.25,
                        help="share of the games played against a past snapshot (0: pure "
                             "self-play)")
    parser.add_argument("--snapshot-every", type=positive_int, default=25, help="updates")
    parser.add_argument("--league-size", type=positive_int, default=8,
                        help="snapshots kept (the newest)")
    parser.add_argument("--checkpoint-every", type=positive_int, default=50,
                        help="updates between checkpoints (the games restart there)")
    parser.add_argument("--eval-every", type=positive_int, default=50, help="updates")
    parser.add_argument("--eval-games", type=positive_int, default=200,
                        help="games per evaluation (even)")
    parser.add_argument("--ladder-every", type=non_negative_int, default=200,
                        help="updates between ratings on the game's pinned ladder (0: never)")
    parser.add_argument("--ladder", default=None, metavar="NAME_OR_YAML",
                        help="the ladder to rate on (default: the game's pinned one, "
                             "configs/ladder/<game>.yaml)")
    parser.add_argument("--ladder-games", type=positive_int, default=None,
                        help="games per ladder opponent (even; default the ladder's)")
    parser.add_argument("--threads", type=non_negative_int, default=1,
                        help="torch threads (0: torch's default)")
    parser.add_argument("--backend", choices=["auto", "numba", "reference"], default="auto")
    parser.add_argument("--no-progress", action="store_true")
    add_variant_flags(parser)
    return parser


def _given_settings(argv: list[str]) -> set[str]:
    flags = {"--" + name.replace("_", "-") for name in SETTINGS}
    return {word.split("=")[0] for word in argv if word.split("=")[0] in flags}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    for flag, games in (("--eval-games", args.eval_games), ("--ladder-games", args.ladder_games)):
        if games is not None and games % 2:
            parser.error(f"{flag} must be even (seat-swapped pairs), got {games}")
    try:
        import torch

        from agents.learned.files import copy_net, load_net
        from agents.learned.net import policy_head_for
        from agents.training.selfplay import SelfPlayConfig, SelfPlayTrainer
        from agents.training.selfplay_checkpoints import resume, save
        from agents.training.selfplay_eval import play_match
    except ImportError as exc:
        return missing_extra("train_learned.py", "train", exc)
    if args.threads:
        torch.set_num_threads(args.threads)
    out = Path(args.out)
    checkpoint = out / "checkpoint.npz"
    if checkpoint.is_file():
        changed = sorted(_given_settings(argv))
        if changed or args.game is not None or given_variant(args, args.game or "junqi"):
            parser.error(f"{out} holds a checkpoint, whose settings the run keeps; drop "
                         f"{', '.join(changed) or '--game and the variant flag'} (or pick "
                         f"another --out)")
        trainer = resume(checkpoint, backend=args.backend)
        ladder = _pinned_ladder(trainer.config, args, parser.error)
        print(f"resuming {checkpoint} at update {trainer.updates_done} "
              f"({trainer.env_steps:,} env steps)")
    else:
        game = pick_game(args, parser.error)
        refuse_other_variants(args, game, parser.error)
        description = get_game(game)
        variant = given_variant(args, game) or description.default_variant
        config = SelfPlayConfig(
            game=game, variant={description.variant_flag: variant}, num_envs=args.envs,
            rollout_steps=args.rollout_steps, epochs=args.epochs, minibatch=args.minibatch,
            lr=args.lr, entropy_coef=args.entropy_coef, channels=args.channels,
            blocks=args.blocks, head_channels=args.head_channels,
            policy_head=policy_head_for(game),
            restart_every=args.checkpoint_every, league_fraction=args.league_fraction,
            snapshot_every=args.snapshot_every, league_size=args.league_size)
        ladder = _pinned_ladder(config, args, parser.error)  # before anything is written
        try:
            trainer = SelfPlayTrainer(config, seed=args.seed, backend=args.backend)
        except ValueError as exc:
            parser.error(str(exc))
        out.mkdir(parents=True, exist_ok=True)
        save(trainer, checkpoint)
    config = trainer.config
    if trainer.updates_done >= args.updates:
        print(f"{out}: {trainer.updates_done} updates done already (--updates {args.updates})")
        return 0
    rows = _read_table(out / "curve.csv", trainer.updates_done)
    _write_table(out / "curve.csv", CURVE_FIELDS, rows)
    _write_table(out / "ladder.csv", LADDER_FIELDS,
                 _read_table(out / "ladder.csv", trainer.updates_done))
    previous = load_net(out / "previous_net.npz")[0] if (out / "previous_net.npz").is_file() \
        else None
    bar = _progress(args, trainer)
    started = time.perf_counter()
    steps_at_start = trainer.env_steps
    session = _session_index(out)
    while trainer.updates_done < args.updates:
        stats = trainer.update()
        row: dict[str, Any] = {field: "" for field in CURVE_FIELDS}
        row.update({key: value for key, value in vars(stats).items() if key in CURVE_FIELDS})
        row["steps_per_second"] = config.num_envs * config.rollout_steps / stats.seconds
        if trainer.updates_done % args.eval_every == 0:
            seed = args.seed * 7_919 + trainer.updates_done
            score = play_match(trainer.net, "random", config.game, config.variant,
                               args.eval_games, seed, args.backend)
            row["vs_random"], (row["vs_random_low"], row["vs_random_high"]) = (
                score.score, score.interval)
            if previous is not None:
                score = play_match(trainer.net, previous, config.game, config.variant,
                                   args.eval_games, seed, args.backend)
                row["vs_previous"], (row["vs_previous_low"], row["vs_previous_high"]) = (
                    score.score, score.interval)
            previous = copy_net(trainer.net)
            save(trainer, out / "previous_net.npz", weights_only=True)
        rows.append(row)
        _append_table(out / "curve.csv", CURVE_FIELDS, row)
        if ladder is not None and trainer.updates_done % args.ladder_every == 0:
            rating = _rate_on_ladder(out, trainer, args)
            (print if bar is None else bar.write)(
                f"update {trainer.updates_done}: {rating['elo']:.0f} Elo on the pinned ladder "
                f"[{rating['elo_low']:.0f}, {rating['elo_high']:.0f}], {rating['games']} games")
        if trainer.updates_done % config.restart_every == 0:
            save(trainer, checkpoint)
            save(trainer, out / "net.npz", weights_only=True)
            # So that a run killed between checkpoints still says what it did.
            _write_run(out, argv, trainer, time.perf_counter() - started,
                       trainer.env_steps - steps_at_start, session)
        if bar is not None:
            bar.update(config.num_envs * config.rollout_steps)
            bar.set_postfix(update=trainer.updates_done, entropy=f"{stats.entropy:.2f}",
                            vs_random=row["vs_random"] if row["vs_random"] != "" else "-")
    if bar is not None:
        bar.close()
    wall = time.perf_counter() - started
    save(trainer, out / "net.npz", weights_only=True)
    if trainer.updates_done % config.restart_every:
        print(f"note: update {trainer.updates_done} is not a checkpoint boundary (every "
              f"{config.restart_every}); a resume carries on from update "
              f"{trainer.updates_done - trainer.updates_done % config.restart_every}")
    _write_run(out, argv, trainer, wall, trainer.env_steps - steps_at_start, session)
    plotted = plot_curve(out)
    print(f"{trainer.updates_done} updates, {trainer.env_steps:,} env steps; "
          f"{(trainer.env_steps - steps_at_start) / wall:,.0f} env steps/s this run; "
          f"{out / 'net.npz'}" + (f", {plotted}" if plotted else ""))
    return 0


def _progress(args: argparse.Namespace, trainer: Any):
    if args.no_progress:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    per_update = trainer.config.num_envs * trainer.config.rollout_steps
    return tqdm(total=args.updates * per_update, initial=trainer.updates_done * per_update,
                unit="step", unit_scale=True, smoothing=0.05)


def _pinned_ladder(config: Any, args: argparse.Namespace, error) -> Any:
    """The game's pinned ladder when ``--ladder-every`` asks for ratings, or None. Its ratings
    hold on its own variant only, so a run on another one is told to turn them off."""
    if not args.ladder_every:
        return None
    try:
        ladder = load_ladder(args.ladder, game=config.game)
    except LadderConfigError as exc:
        error(f"--ladder-every: {exc}")
    variant = next(iter(config.variant.values()))
    if ladder.variant != variant:
        error(f"--ladder-every: the pinned {config.game} ladder rates on {ladder.variant}, this "
              f"run trains on {variant}; give --ladder-every 0")
    return ladder


def _rate_on_ladder(out: Path, trainer: Any, args: argparse.Namespace) -> dict[str, Any]:
    """Rate the network as it is now on the pinned ladder (one process: the training waits)
    and add the rating to ``ladder.csv``; the network rated stays in ``nets/``."""
    from agents.training.selfplay_checkpoints import save

    net = out / "nets" / f"net_{trainer.updates_done}.npz"
    net.parent.mkdir(exist_ok=True)
    save(trainer, net, weights_only=True)
    started = time.perf_counter()
    result = run_ladder(trainer.config.game, f"learned:path={net}", args.ladder,
                        games_per_opponent=args.ladder_games, workers=1, progress=False)
    row = {"update": trainer.updates_done, "env_steps": trainer.env_steps, "elo": result.elo,
           "elo_low": result.elo_low, "elo_high": result.elo_high, "games": result.games,
           "seconds": round(time.perf_counter() - started, 1),
           "net": net.relative_to(out).as_posix()}
    _append_table(out / "ladder.csv", LADDER_FIELDS, row)
    return row


def _read_table(path: Path, updates_done: int) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    with open(path, newline="", encoding="utf-8") as handle:
        return [row for row in csv.DictReader(handle) if int(row["update"]) <= updates_done]


def _write_table(path: Path, fields: tuple[str, ...], rows: list[dict[str, Any]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fields)
        writer.writeheader()
        writer.writerows(rows)


def _append_table(path: Path, fields: tuple[str, ...], row: dict[str, Any]) -> None:
    with open(path, "a", newline="", encoding="utf-8") as handle:
        csv.DictWriter(handle, fields).writerow(row)


def _session_index(out: Path) -> int:
    """The index this session's entry takes in ``run.json`` (one entry per session)."""
    path = out / "run.json"
    return len(json.loads(path.read_text())) if path.is_file() else 0


def _write_run(out: Path, argv: list[str], trainer: Any, wall: float, steps: int,
               session: int) -> None:
    path = out / "run.json"
    runs = json.loads(path.read_text()) if path.is_file() else []
    entry = {"command": shlex.join(["python", "scripts/train_learned.py", *argv]),
             "updates_done": trainer.updates_done, "env_steps": trainer.env_steps,
             "wall_seconds": round(wall, 1),
             "env_steps_per_second": round(steps / wall) if wall > 0 else None,
             "machine": f"{platform.machine()}, Python {platform.python_version()}",
             "seed": trainer.seed}
    runs[session:] = [entry]
    path.write_text(json.dumps(runs, indent=1) + "\n")


def plot_curve(out: Path) -> Path | None:
    """``curve.csv`` and ``ladder.csv`` as ``learning_curve.png``: the scores against random
    and the previous evaluation's network, the pinned-ladder rating, each with its interval,
    and the policy's entropy."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no learning-curve PNG (pip install matplotlib)")
        return None
    rows = _read_table(out / "curve.csv", 10**12)
    ratings = _read_table(out / "ladder.csv", 10**12)
    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(16, 4.5))
    for key, label in (("vs_random", "vs random"), ("vs_previous", "vs previous evaluation")):
        points = [r for r in rows if r[key] != ""]
        if points:
            x = [int(r["env_steps"]) for r in points]
            left.plot(x, [float(r[key]) for r in points], marker="o", label=label)
            left.fill_between(x, [float(r[key + "_low"]) for r in points],
                              [float(r[key + "_high"]) for r in points], alpha=0.15)
    left.axhline(0.5, color="grey", lw=0.8, ls="--")
    left.set_ylim(0, 1)
    left.set_xlabel("env steps")
    left.set_title("score (Wilson 95%)")
    left.grid(alpha=0.3)
    left.legend(loc="lower right")
    if ratings:
        x = [int(r["env_steps"]) for r in ratings]
        elo = [float(r["elo"]) for r in ratings]
        below = [e - float(r["elo_low"]) for e, r in zip(elo, ratings, strict=True)]
        above = [float(r["elo_high"]) - e for e, r in zip(elo, ratings, strict=True)]
        middle.errorbar(x, elo, yerr=[below, above], marker="o", capsize=3)
    else:
        middle.text(0.5, 0.5, "no ladder rating yet (--ladder-every)", ha="center",
                    va="center", transform=middle.transAxes)
    middle.set_xlabel("env steps")
    middle.set_title("pinned-ladder Elo (95% interval)")
    middle.grid(alpha=0.3)
    right.plot([int(r["env_steps"]) for r in rows], [float(r["entropy"]) for r in rows])
    right.set_xlabel("env steps")
    right.set_title("policy entropy")
    right.grid(alpha=0.3)
    fig.tight_layout()
    path = out / "learning_curve.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
