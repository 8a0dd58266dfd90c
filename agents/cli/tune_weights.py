"""Tune an evaluation's weights by Q-learning (``agents.training.junqi_tuning``,
``agents.training.tbw_tuning``).

    tbw-tune-weights --game junqi --episodes 1000
    tbw-tune-weights --game tbw --episodes 900

(``python scripts/tune_weights.py`` from a clone is the same command.) The games with an
evaluation to tune are those of the tuners below (each tuner's ``GAME``); without ``--game``,
the first of them (Junqi).

Shows a progress bar and leaves under ``--out`` (default ``runs/tune-<game>-<time>/``, which
must not hold an earlier run's files unless ``--overwrite`` is given) the tuned weights
``<game>_eval_tuned.yaml``, a resumable checkpoint, the learning history (JSON) and a
learning-curve PNG: the score against a fixed opponent and every weight over training. Agents
load the weights by path (``ucbmcts:weights=runs/tune-junqi-.../junqi_eval_tuned.yaml``,
``exact:weights=...``). The shipped configs are left alone: ``--config-name NAME`` also installs
the weights as ``configs/agents/<game>_eval_NAME.yaml`` (agents then load ``weights=NAME``),
and refuses to replace an existing file there, the shipped ``tuned`` included, unless
``--overwrite`` is given (``default`` is never replaced). ``--resume DIR`` continues a stopped
run exactly where it stopped; ``--episodes`` may raise its target, and the exploration schedule
then stretches to the new length.

Every argument is checked before any game is played: types and ranges (the config classes
``JunqiTuningConfig`` and ``TBWTuningConfig`` document them: e.g. ``--episodes`` in
[1, 1000000], ``--step-size`` in (0, 1], ``--discount`` and ``--epsilon`` in [0, 1],
``--eval-games`` even), the opponents (each spec is built once), the rule set, scenarios and
starting weights (loaded), ``--config-name`` (a simple name: letters, digits, ``_`` and ``-``),
the output locations (writable, nothing overwritten unless asked) and a ``--resume``
checkpoint (every field).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from abc import ABC, abstractmethod
from pathlib import Path

from agents.cli.common import command_words, option
from agents.junqi.evaluation import FEATURE_NAMES
from agents.junqi.evaluation import weights_path as junqi_weights_path
from agents.tbw.evaluation import save_weights
from agents.tbw.evaluation import weights_path as tbw_weights_path
from agents.training.junqi_tuning import JunqiTuningConfig, JunqiWeightTuner
from agents.training.tbw_tuning import LEARNED_FEATURES, TBWTuningConfig, TBWWeightTuner
from agents.training.weight_tuner import CheckpointError, TuningConfigError
from tbw_envs.core.contract import short_repr
from tbw_envs.games import get_game

CHECKPOINT = "checkpoint.json"
HISTORY = "history.json"
CURVE = "learning_curve.png"
SHARED_OPTIONS = ("episodes", "step_size", "discount", "opponents", "start_weights",
                  "eval_every", "eval_games", "eval_opponent", "seed")
# A name for configs/agents/<game>_eval_<name>.yaml and for weights=<name> in agent specs.
CONFIG_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
NEVER_REPLACED = ("default",)  # the built-in defaults (tests hold them equal)
DEFAULT_NAME = "tuned"
MAX_PATH_CHARS = 4096


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Output: the tuned weights go to <out>/<game>_eval_<name>.yaml (name: "
               "--config-name, default tuned); configs/ changes only with --config-name, and "
               "an existing file there (the shipped tuned weights included) only with "
               "--overwrite.")
    parser.add_argument("--game", choices=list(TUNINGS), default=next(iter(TUNINGS)),
                        help=f"the game whose evaluation to tune (default {next(iter(TUNINGS))})")
    # Defaults None: each game's config class supplies its own (see --help of the modules).
    parser.add_argument("--episodes", type=int, help="training games, at least 1 (Junqi "
                        "default 1000, TBW 900); with --resume, the new target")
    parser.add_argument("--step-size", type=float, help="TD step size, in (0, 1]")
    parser.add_argument("--discount", type=float, help="in [0, 1]")
    parser.add_argument("--epsilon", type=float, nargs=2, default=None,
                        metavar=("START", "END"),
                        help="epsilon-greedy exploration, linear decay; 0 <= END <= START <= 1")
    parser.add_argument("--opponents", nargs="+",
                        help="agent specs drawn per episode, or 'self' (Junqi default: greedy "
                             "self; TBW: exact self)")
    parser.add_argument("--start-weights", help="weights to start from: a name or a .yaml path")
    parser.add_argument("--eval-every", type=int,
                        help="episodes between evaluation points (0: none)")
    parser.add_argument("--eval-games", type=int, help="paired games per evaluation point, even")
    parser.add_argument("--eval-opponent", help="agent spec of the fixed evaluation opponent")
    parser.add_argument("--seed", type=int, help="in [0, 2**63 - 1]")
    junqi = parser.add_argument_group("Junqi only")
    junqi.add_argument("--rules", help="rule set name or path (default ccgc)")
    tbw = parser.add_argument_group("TBW only")
    tbw.add_argument("--scenarios", nargs="+",
                     help="scenarios the episodes cycle through (default: duel_5v5_8x8 "
                          "hex_skirmish fire_emblem_5v5)")
    tbw.add_argument("--opening-plies", type=int, nargs=2, metavar=("LO", "HI"),
                     help="each episode starts with a random number in [LO, HI] of random plies")
    tbw.add_argument("--exploration", help="perturb (perturbed-weight plans) or random")
    tbw.add_argument("--perturbation", type=float,
                     help="log-normal spread of an exploring turn's weights, in [0, 5]")
    tbw.add_argument("--win-reward", type=float,
                     help="value of a win (sets the weights' scale), in (0, 1e6]")
    tbw.add_argument("--trace-decay", type=float,
                     help="lambda of the lambda-returns (0: one-step Q-learning; default 0.8)")
    tbw.add_argument("--algorithm", help="single-turn search: exact (default), alg5 or alg2")
    tbw.add_argument("--budget", type=int, help="ops1 per turn of the search")
    tbw.add_argument("--eval-opening-plies", type=int,
                     help="random plies before each evaluation game")
    parser.add_argument("--out", type=Path, default=None,
                        help="run folder (default runs/tune-<game>-<time>/); must not hold an "
                             "earlier run's files unless --overwrite is given")
    parser.add_argument("--resume", type=Path, default=None, metavar="DIR",
                        help="continue the run saved in DIR (its settings come from its "
                             "checkpoint; only --episodes may raise the target)")
    parser.add_argument("--config-name", default=None, metavar="NAME",
                        help="also install the weights as configs/agents/<game>_eval_NAME.yaml "
                             "(agents load weights=NAME); NAME: letters, digits, _ and -. "
                             "Default: configs/ is left alone")
    parser.add_argument("--overwrite", action="store_true",
                        help="allow replacing an existing configs/agents file (never default) "
                             "and an earlier run's files in --out")
    parser.add_argument("--no-config", action="store_true",
                        help="leave configs/ alone (the default; kept for old command lines)")
    return parser


def parse_args(argv=None) -> argparse.Namespace:
    parser = build_parser()
    args = parser.parse_args(argv)
    for tuning in TUNINGS.values():
        if tuning.name == args.game:
            continue
        given = [n for n in tuning.options if getattr(args, n) is not None]
        if given:
            parser.error(f"{option(given[0])} applies to --game {tuning.name} only")
    if args.episodes is not None and args.episodes < 1:
        parser.error(f"argument --episodes: must be at least 1 (0 episodes would write the "
                     f"starting weights as tuned ones), got {args.episodes}")
    if args.config_name is not None:
        if args.no_config:
            parser.error("argument --no-config: not allowed with --config-name")
        if not CONFIG_NAME.fullmatch(args.config_name):
            parser.error("argument --config-name: must be a simple name (a letter or digit, "
                         "then letters, digits, '_' or '-', at most 64 characters; no path "
                         f"separators), got {short_repr(args.config_name)}")
        if args.config_name in NEVER_REPLACED:
            parser.error(f"argument --config-name: {args.config_name!r} names the built-in "
                         "weights, which are never replaced; choose another name")
    if args.resume is not None:
        fixed = [n for n in SHARED_OPTIONS + TUNINGS[args.game].options + ("epsilon", "out")
                 if n != "episodes" and getattr(args, n) is not None]
        if fixed:
            parser.error(f"argument {option(fixed[0])}: not allowed with --resume (the run "
                         "keeps its checkpoint's settings and folder; only --episodes may "
                         "change)")
    return args


def _path(path) -> str:
    """A path for a message: quoted in full (up to ``MAX_PATH_CHARS``), so it can be found."""
    text = str(path)
    if len(text) > MAX_PATH_CHARS:
        text = text[: MAX_PATH_CHARS - 3] + "..."
    return repr(text)


class GameTuning(ABC):
    """What differs between the games' tuners: the tuner and its config, the options only it
    has (their defaults come from its config class), the plotted features and the weights'
    files. Its game is the tuner's (``WeightTuner.GAME``)."""

    options: tuple[str, ...]
    config_class: type
    tuner_class: type
    plotted: tuple[str, ...]

    @property
    def name(self) -> str:
        """The game's name: the --game value."""
        return self.tuner_class.GAME.name

    @abstractmethod
    def config_path(self, config_name: str) -> Path:
        """Where ``--config-name`` installs the weights (configs/agents)."""

    def weights_file(self, config_name: str) -> str:
        """The tuned weights' file name in the run folder."""
        return f"{self.name}_eval_{config_name}.yaml"

    @abstractmethod
    def weights(self, tuner) -> tuple[dict[str, float], dict[str, float]]:
        """(starting weights, tuned weights) by feature name."""

    @abstractmethod
    def save(self, tuner, path: Path, config_name: str, comment: str) -> None: ...


class JunqiTuning(GameTuning):
    options = ("rules",)
    config_class, tuner_class = JunqiTuningConfig, JunqiWeightTuner
    plotted = FEATURE_NAMES

    def config_path(self, config_name: str) -> Path:
        return junqi_weights_path(config_name)

    def weights(self, tuner) -> tuple[dict[str, float], dict[str, float]]:
        return tuner.base.weight_dict(), tuner.current_config().weight_dict()

    def save(self, tuner, path: Path, config_name: str, comment: str) -> None:
        tuner.current_config(config_name).save(path)


class TBWTuning(GameTuning):
    options = ("scenarios", "opening_plies", "exploration", "perturbation", "win_reward",
               "algorithm", "budget", "eval_opening_plies", "trace_decay")
    config_class, tuner_class = TBWTuningConfig, TBWWeightTuner
    plotted = LEARNED_FEATURES

    def config_path(self, config_name: str) -> Path:
        return tbw_weights_path(config_name)

    def weights(self, tuner) -> tuple[dict[str, float], dict[str, float]]:
        return tuner.base.weight_dict(), tuner.weight_dict()

    def save(self, tuner, path: Path, config_name: str, comment: str) -> None:
        save_weights(tuner.current_evaluation(), path, config_name, comment)


# The first is the --game default.
TUNINGS = {tuning.name: tuning for tuning in (JunqiTuning(), TBWTuning())}


def _is_dir(path: Path) -> bool:
    """``path.is_dir()``, False for names the OS cannot look up (too long, NUL bytes)."""
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


class _ArgumentError(Exception):
    """An argument that cannot be used; ``flag`` names it."""

    def __init__(self, flag: str, message: str):
        super().__init__(message)
        self.flag = flag


def _config_flag(field: str) -> str:
    """The option that sets a config field."""
    return "--epsilon" if field in ("epsilon_start", "epsilon_end") else option(field)


def build_tuner(args, game: GameTuning):
    """The tuner and its run folder, every argument checked; nothing is written here."""
    if args.resume is not None:
        folder = args.resume
        if not _is_dir(folder):
            raise _ArgumentError("--resume", f"{_path(folder)} is not a directory")
        checkpoint = folder / CHECKPOINT
        if not checkpoint.is_file():
            raise _ArgumentError("--resume", f"{_path(folder)} holds no {CHECKPOINT}")
        try:
            tuner = game.tuner_class.from_checkpoint(checkpoint, episodes=args.episodes)
        except CheckpointError as exc:
            flag = "--episodes" if exc.field == "episodes" and args.episodes else "--resume"
            raise _ArgumentError(flag, str(exc)) from None
        return tuner, folder
    fields = {name: getattr(args, name) for name in SHARED_OPTIONS + game.options
              if getattr(args, name) is not None}
    for name in ("opponents", "scenarios", "opening_plies"):
        if name in fields:
            fields[name] = tuple(fields[name])
    if args.epsilon is not None:
        fields["epsilon_start"], fields["epsilon_end"] = args.epsilon
    try:
        config = game.config_class(**fields)
        tuner = game.tuner_class(config)
    except TuningConfigError as exc:
        raise _ArgumentError(_config_flag(exc.field), str(exc)) from None
    out = args.out or Path("runs") / f"tune-{args.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    return tuner, out


def _check_writable_dir(flag: str, path: Path) -> None:
    """``path`` is a directory we may write in, or can be made one."""
    existing = path
    while True:  # up to the nearest existing ancestor
        try:
            existing.stat()
            break
        except (FileNotFoundError, NotADirectoryError):
            if existing.parent == existing:
                break
            existing = existing.parent
        except (OSError, ValueError) as exc:  # a name too long, a NUL byte, no permission
            reason = getattr(exc, "strerror", None) or str(exc)
            raise _ArgumentError(flag, f"{_path(path)} cannot be used: {reason}") from None
    if not _is_dir(existing):
        what = "exists and is not a directory" if existing == path else (
            f"cannot be made: {_path(existing)} is not a directory")
        raise _ArgumentError(flag, f"{_path(path)} {what}")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise _ArgumentError(flag, f"{_path(path)} is not writable (no write "
                                   f"permission on {_path(existing)})")


def check_outputs(args, game: GameTuning, out: Path) -> Path | None:
    """Check where the run writes: the run folder (``--out``, or the ``--resume`` folder) and
    the configs/agents file of ``--config-name`` (returned, or None). Nothing is written."""
    name = args.config_name or DEFAULT_NAME
    flag = "--resume" if args.resume is not None else "--out"
    _check_writable_dir(flag, out)
    if args.resume is None and _is_dir(out) and not args.overwrite:
        earlier = [n for n in (CHECKPOINT, HISTORY, CURVE, game.weights_file(name))
                   if (out / n).exists()]
        if earlier:
            raise _ArgumentError("--out", f"{_path(out)} already holds a run's files "
                                 f"({', '.join(earlier)}); continue that run with --resume, "
                                 "choose another --out, or give --overwrite")
    if args.config_name is None:
        return None
    target = game.config_path(args.config_name)
    if target.exists() and not args.overwrite:
        raise _ArgumentError("--config-name", f"{target} exists; give --overwrite to replace "
                                              "it (a shipped config changes what every agent "
                                              f"with weights={args.config_name} plays)")
    if target.exists() and not target.is_file():
        raise _ArgumentError("--config-name", f"{target} exists and is not a file")
    _check_writable_dir("--config-name", target.parent)
    return target


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
    game = TUNINGS[args.game]
    try:
        tuner, out = build_tuner(args, game)
        target = check_outputs(args, game, out)
    except _ArgumentError as exc:
        build_parser().error(f"argument {exc.flag}: {exc}")
    name = args.config_name or DEFAULT_NAME
    out.mkdir(parents=True, exist_ok=True)
    config = tuner.config
    label = get_game(args.game).title
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
    (out / HISTORY).write_text(json.dumps(history, indent=1), encoding="utf-8")
    command = " ".join(command_words("tune_weights"))
    comment = (f"Tuned by {command} --game {args.game}: {tuner.episode} episodes, "
               f"seed {config.seed}, opponents {' '.join(config.opponents)}.")
    weights_file = out / game.weights_file(name)
    game.save(tuner, weights_file, name, comment)
    if target is not None:
        game.save(tuner, target, name, comment)
    if history["evaluations"]:
        plot_learning_curve(history, out / CURVE, config.eval_opponent,
                            game.plotted, f"{label} evaluation weights: Q-learning")
    start, tuned = game.weights(tuner)
    print(f"\n{'feature':<14}{'start':>12}{'tuned':>12}")
    for feature in start:
        print(f"{feature:<14}{start[feature]:>12.4g}{tuned[feature]:>12.4g}")
    for point in history["evaluations"]:
        per = "".join(f", {n} {s:.3f}" for n, s in sorted(point.get("scenarios", {}).items()))
        print(f"episode {point['episode']:>6}: score {point['score']:.3f} "
              f"v {config.eval_opponent}{per}")
    print(f"\nwall time {time.perf_counter() - started:.0f} s; run folder {out}")
    print(f"tuned weights: {weights_file} (weights={weights_file})")
    if target is not None:
        print(f"installed as {target} (weights={args.config_name})")
    return 0

