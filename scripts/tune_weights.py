#!/usr/bin/env python
"""Tune an evaluation's weights by Q-learning (``agents.junqi.tuning``, ``agents.tbw.tuning``).

    python scripts/tune_weights.py --game junqi --episodes 1000
    python scripts/tune_weights.py --game tbw --episodes 900

Shows a progress bar, writes the tuned weights to ``configs/agents/<game>_eval_tuned.yaml``
(agents load them as ``weights=tuned``, e.g. ``ucbmcts:weights=tuned`` or
``exact:weights=tuned``), and leaves under ``--out`` (default ``runs/tune-<game>-<time>/``) a
resumable checkpoint, the learning history (JSON) and a learning-curve PNG: the score against a
fixed opponent and every weight over training. ``--resume DIR`` continues a stopped run exactly
where it stopped; ``--episodes`` may raise its target, and the exploration schedule then
stretches to the new length.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CHECKPOINT = "checkpoint.json"
# Options that only one game's tuner has (their defaults come from its config class).
GAME_OPTIONS = {
    "junqi": ("rules",),
    "tbw": ("scenarios", "opening_plies", "exploration", "perturbation", "win_reward",
            "algorithm", "budget", "eval_opening_plies", "trace_decay"),
}
SHARED_OPTIONS = ("episodes", "step_size", "discount", "opponents", "start_weights",
                  "eval_every", "eval_games", "eval_opponent", "seed")


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=["junqi", "tbw"], default="junqi",
                        help="the game whose evaluation to tune (default junqi)")
    # Defaults None: each game's config class supplies its own (see --help of the modules).
    parser.add_argument("--episodes", type=int)
    parser.add_argument("--step-size", type=float)
    parser.add_argument("--discount", type=float)
    parser.add_argument("--epsilon", type=float, nargs=2, default=None,
                        metavar=("START", "END"), help="epsilon-greedy exploration, linear decay")
    parser.add_argument("--opponents", nargs="+",
                        help="agent specs drawn per episode, or 'self' (Junqi default: greedy "
                             "self; TBW: exact self)")
    parser.add_argument("--start-weights")
    parser.add_argument("--eval-every", type=int)
    parser.add_argument("--eval-games", type=int)
    parser.add_argument("--eval-opponent")
    parser.add_argument("--seed", type=int)
    junqi = parser.add_argument_group("Junqi only")
    junqi.add_argument("--rules")
    tbw = parser.add_argument_group("TBW only")
    tbw.add_argument("--scenarios", nargs="+",
                     help="scenarios the episodes cycle through (default: duel_5v5_8x8 "
                          "hex_skirmish fire_emblem_5v5)")
    tbw.add_argument("--opening-plies", type=int, nargs=2, metavar=("LO", "HI"),
                     help="each episode starts with a random number in [LO, HI] of random plies")
    tbw.add_argument("--exploration", help="perturb (perturbed-weight plans) or random")
    tbw.add_argument("--perturbation", type=float,
                     help="log-normal spread of an exploring turn's weights")
    tbw.add_argument("--win-reward", type=float, help="value of a win (sets the weights' scale)")
    tbw.add_argument("--trace-decay", type=float,
                     help="lambda of the lambda-returns (0: one-step Q-learning; default 0.8)")
    tbw.add_argument("--algorithm", help="single-turn search: exact (default), alg5 or alg2")
    tbw.add_argument("--budget", type=int, help="ops1 per turn of the search")
    tbw.add_argument("--eval-opening-plies", type=int,
                     help="random plies before each evaluation game")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--resume", type=Path, default=None, metavar="DIR",
                        help="continue the run saved in DIR")
    parser.add_argument("--config-name", default="tuned",
                        help="write configs/agents/<game>_eval_<name>.yaml (default: tuned)")
    parser.add_argument("--no-config", action="store_true",
                        help="leave configs/ alone (the weights are in the run folder)")
    args = parser.parse_args(argv)
    for game, names in GAME_OPTIONS.items():
        if game == args.game:
            continue
        given = [n for n in names if getattr(args, n) is not None]
        if given:
            parser.error(f"--{given[0].replace('_', '-')} applies to --game {game} only")
    return args


class _Game:
    """What differs between the games: the tuner, its config and the weights' files."""

    def __init__(self, name: str):
        self.name = name
        if name == "junqi":
            from agents.junqi.evaluation import FEATURE_NAMES
            from agents.junqi.tuning import JunqiTuningConfig, JunqiWeightTuner

            self.config_class, self.tuner_class = JunqiTuningConfig, JunqiWeightTuner
            self.plotted = FEATURE_NAMES
        else:
            from agents.tbw.tuning import LEARNED_FEATURES, TBWTuningConfig, TBWWeightTuner

            self.config_class, self.tuner_class = TBWTuningConfig, TBWWeightTuner
            self.plotted = LEARNED_FEATURES

    def config_path(self, config_name: str) -> Path:
        if self.name == "junqi":
            from agents.junqi.evaluation import eval_config_path

            return eval_config_path(config_name)
        from agents.tbw.evaluation import weights_path

        return weights_path(config_name)

    def weights(self, tuner) -> tuple[dict[str, float], dict[str, float]]:
        """(starting weights, tuned weights) by feature name."""
        if self.name == "junqi":
            return tuner.base.weight_dict(), tuner.current_config().weight_dict()
        return tuner.base.weight_dict(), tuner.weight_dict()

    def save(self, tuner, path: Path, config_name: str, comment: str) -> None:
        if self.name == "junqi":
            tuner.current_config(config_name).save(path)
            return
        from agents.tbw.evaluation import save_weights

        save_weights(tuner.current_evaluation(), path, config_name, comment)


def build_tuner(args, game: _Game):
    if args.resume is not None:
        checkpoint = args.resume / CHECKPOINT
        if not checkpoint.is_file():
            raise SystemExit(f"--resume {args.resume}: no {CHECKPOINT} in it")
        try:
            tuner = game.tuner_class.from_checkpoint(checkpoint, episodes=args.episodes)
        except ValueError as exc:
            raise SystemExit(f"tune_weights: {exc}") from None
        return tuner, args.resume
    fields = {name: getattr(args, name) for name in SHARED_OPTIONS + GAME_OPTIONS[game.name]
              if getattr(args, name) is not None}
    for name in ("opponents", "scenarios", "opening_plies"):
        if name in fields:
            fields[name] = tuple(fields[name])
    if args.epsilon is not None:
        fields["epsilon_start"], fields["epsilon_end"] = args.epsilon
    try:
        config = game.config_class(**fields)
        tuner = game.tuner_class(config)
    except ValueError as exc:
        raise SystemExit(f"tune_weights: {exc}") from None
    out = args.out or Path("runs") / f"tune-{args.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    out.mkdir(parents=True, exist_ok=True)
    return tuner, out


def plot_learning_curve(history: dict, path: Path, opponent: str, features, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = history["evaluations"]
    episodes = [p["episode"] for p in points]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    top.plot(episodes, [p["score"] for p in points], marker="o", label="all", color="black")
    scenarios = sorted({name for p in points for name in p.get("scenarios", {})})
    for name in scenarios if len(scenarios) > 1 else ():
        top.plot(episodes, [p["scenarios"].get(name) for p in points], marker=".",
                 linewidth=0.8, label=name)
    if len(scenarios) > 1:
        top.legend(fontsize=8)
    top.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    top.set_ylim(0, 1)
    top.set_ylabel(f"score v {opponent}")
    top.set_title(title)
    for name in features:
        start = points[0]["weights"][name] if points else 1.0
        scale = abs(start) if start else 1.0
        bottom.plot(episodes, [p["weights"][name] / scale for p in points], label=name)
    bottom.axhline(0.0, color="grey", linewidth=0.8)
    bottom.set_ylabel("weight / |starting weight|")
    bottom.set_xlabel("training episodes")
    bottom.legend(fontsize=8, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None) -> int:
    args = parse_args(argv)
    game = _Game(args.game)
    tuner, out = build_tuner(args, game)
    config = tuner.config
    label = "Junqi" if args.game == "junqi" else "TBW"
    print(f"Q-learning the {label} evaluation weights: {config.episodes} episodes "
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
    comment = (f"Tuned by scripts/tune_weights.py --game {args.game}: {tuner.episode} episodes, "
               f"seed {config.seed}, opponents {' '.join(config.opponents)}.")
    game.save(tuner, out / f"{args.game}_eval_{args.config_name}.yaml", args.config_name, comment)
    if not args.no_config:
        game.save(tuner, game.config_path(args.config_name), args.config_name, comment)
    if history["evaluations"]:
        plot_learning_curve(history, out / "learning_curve.png", config.eval_opponent,
                            game.plotted, f"{label} evaluation weights: Q-learning")
    start, tuned = game.weights(tuner)
    print(f"\n{'feature':<14}{'start':>12}{'tuned':>12}")
    for name in start:
        print(f"{name:<14}{start[name]:>12.4g}{tuned[name]:>12.4g}")
    for point in history["evaluations"]:
        per = "".join(f", {n} {s:.3f}" for n, s in sorted(point.get("scenarios", {}).items()))
        print(f"episode {point['episode']:>6}: score {point['score']:.3f} "
              f"v {config.eval_opponent}{per}")
    print(f"\nwall time {time.perf_counter() - started:.0f} s; run folder {out}")
    if not args.no_config:
        print(f"tuned weights: {game.config_path(args.config_name)} (weights={args.config_name})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
