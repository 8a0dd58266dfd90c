#!/usr/bin/env python
"""Tune the move-evaluation weights by Q-learning (``agents.junqi.tuning``).

    python scripts/tune_weights.py --game junqi --episodes 1000

Shows a progress bar, writes the tuned weights to ``configs/agents/junqi_eval_tuned.yaml``
(agents load them as ``weights=tuned``, e.g. ``ucbmcts:weights=tuned``), and leaves under
``--out`` (default ``runs/tune-junqi-<time>/``) a resumable checkpoint, the learning history
(JSON) and a learning-curve PNG: the score against a fixed opponent and every weight over
training. ``--resume DIR`` continues a stopped run exactly where it stopped; ``--episodes`` may
raise its target, and the exploration schedule then stretches to the new length.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.junqi.evaluation import FEATURE_NAMES, eval_config_path  # noqa: E402
from agents.junqi.tuning import JunqiTuningConfig, JunqiWeightTuner  # noqa: E402

CHECKPOINT = "checkpoint.json"


def parse_args(argv=None) -> argparse.Namespace:
    defaults = JunqiTuningConfig()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=["junqi"], default="junqi",
                        help="the game whose evaluation to tune (TBW: not yet, see issue 8)")
    parser.add_argument("--episodes", type=int, default=defaults.episodes)
    parser.add_argument("--step-size", type=float, default=defaults.step_size)
    parser.add_argument("--discount", type=float, default=defaults.discount)
    parser.add_argument("--epsilon", type=float, nargs=2, default=None,
                        metavar=("START", "END"), help="epsilon-greedy exploration, linear decay")
    parser.add_argument("--opponents", nargs="+", default=list(defaults.opponents),
                        help="agent specs drawn per episode, or 'self' (default: greedy self)")
    parser.add_argument("--rules", default=defaults.rules)
    parser.add_argument("--start-weights", default=defaults.start_weights)
    parser.add_argument("--eval-every", type=int, default=defaults.eval_every)
    parser.add_argument("--eval-games", type=int, default=defaults.eval_games)
    parser.add_argument("--eval-opponent", default=defaults.eval_opponent)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--resume", type=Path, default=None, metavar="DIR",
                        help="continue the run saved in DIR")
    parser.add_argument("--config-name", default="tuned",
                        help="write configs/agents/junqi_eval_<name>.yaml (default: tuned)")
    parser.add_argument("--no-config", action="store_true",
                        help="leave configs/ alone (the weights are in the run folder)")
    return parser.parse_args(argv)


def build_tuner(args) -> tuple[JunqiWeightTuner, Path]:
    if args.resume is not None:
        checkpoint = args.resume / CHECKPOINT
        if not checkpoint.is_file():
            raise SystemExit(f"--resume {args.resume}: no {CHECKPOINT} in it")
        return JunqiWeightTuner.from_checkpoint(checkpoint, episodes=args.episodes), args.resume
    fields = dict(
        episodes=args.episodes, step_size=args.step_size, discount=args.discount,
        opponents=tuple(args.opponents), rules=args.rules, start_weights=args.start_weights,
        eval_every=args.eval_every, eval_games=args.eval_games,
        eval_opponent=args.eval_opponent, seed=args.seed,
    )  # fmt: skip
    if args.epsilon is not None:
        fields["epsilon_start"], fields["epsilon_end"] = args.epsilon
    try:
        config = JunqiTuningConfig(**fields)
    except ValueError as exc:
        raise SystemExit(f"tune_weights: {exc}") from None
    out = args.out or Path("runs") / f"tune-{args.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    out.mkdir(parents=True, exist_ok=True)
    return JunqiWeightTuner(config), out


def plot_learning_curve(history: dict, path: Path, opponent: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = history["evaluations"]
    episodes = [p["episode"] for p in points]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    top.plot(episodes, [p["score"] for p in points], marker="o")
    top.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    top.set_ylim(0, 1)
    top.set_ylabel(f"score v {opponent}")
    top.set_title("Junqi evaluation weights: Q-learning")
    for name in FEATURE_NAMES:
        start = points[0]["weights"][name] if points else 1.0
        scale = abs(start) if start else 1.0
        bottom.plot(episodes, [p["weights"][name] / scale for p in points], label=name)
    bottom.set_ylabel("weight / |starting weight|")
    bottom.set_xlabel("training episodes")
    bottom.legend(fontsize=8, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None) -> int:
    args = parse_args(argv)
    tuner, out = build_tuner(args)
    config = tuner.config
    print(f"Q-learning the Junqi evaluation weights: {config.episodes} episodes "
          f"(from {tuner.episode}), opponents {list(config.opponents)}, out {out}")
    try:
        from tqdm import tqdm

        bar = tqdm(total=config.episodes, initial=tuner.episode, unit="episode")
    except ImportError:  # the bar is a nicety
        bar = None

    def on_episode(episode: int, td_error: float) -> None:
        if bar is not None:
            last = tuner.history.evaluations[-1] if tuner.history.evaluations else None
            bar.set_postfix({"|TD|": f"{td_error:.0f}",
                             f"v {config.eval_opponent}": f"{last['score']:.2f}" if last else "-"})
            bar.update(1)

    started = time.perf_counter()
    tuner.run(on_episode, checkpoint=out / CHECKPOINT)
    if bar is not None:
        bar.close()
    history = json.loads((out / CHECKPOINT).read_text(encoding="utf-8"))["history"]
    (out / "history.json").write_text(json.dumps(history, indent=1), encoding="utf-8")
    tuned = tuner.current_config(args.config_name)
    tuned.save(out / f"junqi_eval_{args.config_name}.yaml")
    if not args.no_config:
        tuned.save(eval_config_path(args.config_name))
    if history["evaluations"]:
        plot_learning_curve(history, out / "learning_curve.png", config.eval_opponent)
    print(f"\n{'feature':<14}{'start':>10}{'tuned':>10}")
    for name, start, now in zip(FEATURE_NAMES, tuner.base.weights, tuned.weights, strict=True):
        print(f"{name:<14}{start:>10.3f}{now:>10.3f}")
    for point in history["evaluations"]:
        print(f"episode {point['episode']:>6}: score {point['score']:.3f} v {config.eval_opponent}")
    print(f"\nwall time {time.perf_counter() - started:.0f} s; run folder {out}")
    if not args.no_config:
        print(f"tuned weights: {eval_config_path(args.config_name)} (weights={args.config_name})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
