"""Train sb3-contrib's MaskablePPO on TBW or Junqi through the single-agent wrappers.

    tbw-train --game tbw --scenario duel_5v5_8x8 --opponent random --timesteps 200000 \\
        --policy cnn
    tbw-train --game junqi --opponent self --timesteps 300000

(``python scripts/train_ppo.py`` from a clone is the same command.) Without ``--game``, the game
is the one whose variant flag (``--scenario``, ``--rules``, ...) is given, else the one the
``--opponent`` agents play, else the first game.

The learner plays both seats (``--learner-seat alternate`` by default): observations are in the
player's own frame, so one policy serves either seat. ``--opponent`` takes one or more agent
specs of ``agents.registry`` (``random``, ``greedy``, ``exact``, ``ppo:path=...``) and/or
``self``; with several, each episode draws one. ``self`` is a pool of frozen snapshots of the
learner (one every ``--snapshot-every`` steps, the newest ``--pool-size`` kept), from which each
episode draws its opponent (the newest with probability ``--latest-prob``), played by sampling
(``agents.training.pools``).

Every ``--eval-every`` steps the current policy plays ``--eval-games`` seat-swapped arena games
(deterministic, on the game core) against each ``--eval-opponents`` agent. ``--out`` (default
``runs/ppo-<game>-<time>/``) receives ``policy.npz`` (the policy file: arrays and JSON, loaded
without running code, ``agents.policy.policy_files``), ``model.zip`` (SB3's, unpickled when
loaded: for resuming with SB3 only), ``checkpoints/`` (``ppo_<steps>_steps.npz`` and ``.zip``),
``monitor.csv`` (every training episode), ``eval.csv``, ``learning_curve.png`` and ``run.json``
(arguments, wall time, throughput). Play the result in the arena:
``tbw-arena --game tbw --agents ppo:path=runs/.../policy.npz greedy random``.
``--opponent ppo:path=...`` and ``--init`` take policy files too; a ``.zip`` is refused
(``tbw-convert-model`` converts one you trust).

Every argument is checked before training starts: numbers (type, finite, range), flags that do
not apply to the game (another game's variant flag; ``--opening-plies`` for a game whose players
set up their pieces, such as Junqi, whose starts vary already; ``--deployment`` for a game
without such a set-up, such as TBW; ``--eval-prior`` for another game than Junqi, whose move
evaluation it is) or to the run (the self-play flags without
``--opponent self``, the ``--prior-*`` flags without ``--eval-prior``), ``--opening-plies``
against the arena's cap (a quarter of the scenario's longest game), every ``--opponent`` and
``--eval-opponents`` spec (built and set against the game and board), ``--init`` (read in full)
and ``--out``. Errors name the flag and the value.

torch runs on one thread unless ``--threads`` says otherwise: torch's default threading is far
slower for these small networks on a small shared machine (docs/benchmarks.md).

Junqi only, ``--eval-prior``: the policy learns on top of the move evaluation. The env adds the
evaluation's normalised score of every legal move to a Dict observation
(``agents.junqi.eval_prior``; ``--prior-temperature`` piece-value units per logit, clipped at
``--prior-clip`` logits) and the policy's logits are ``beta * scores + net(planes)``
(``agents.junqi.eval_prior_net.EvalPriorPolicy``; ``beta`` learned from ``--prior-beta``, the
net's correction starting near zero), so the untrained policy plays like ``greedy``; it is saved
as ``checkpoints/ppo_0_steps.npz``, the baseline. The saved policies carry the prior's settings;
``ppo:path=...`` rebuilds the scores from its views.

The reusable parts (training env, evaluations, saving, callbacks) are in
``agents.training.training`` and ``agents.training.callbacks``; this module is the command
line.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shlex
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from agents.cli.common import (
    RUNS_FOLDER,
    add_game_flag,
    add_variant_flags,
    command_words,
    label,
    missing_extra,
    option,
    other_variant_problems,
    pick_game,
    registered,
    variant_flags,
)
from agents.junqi.eval_prior import PRIOR_GAME
from agents.policy.policy_files import (
    GAME_INFO_ATTRIBUTE,
    POLICY_FILE,
    read_policy_file,
    resolve_policy_path,
)
from agents.registry import make_agent
from agents.training.pools import SELF_PLAY, SnapshotPool, build_opponent
from agents.training.training import (
    PeriodicEvaluation,
    eval_prior_settings,
    make_training_env,
    new_game_factory,
    plot_learning_curve,
    policy_spec,
    read_monitor,
    save_model_and_policy,
)
from tbw_envs.core.contract import opening_plies_problem
from tbw_envs.description import Game
from tbw_envs.games import get_game

SOURCE = "scripts/train_ppo.py"  # the policy files' "source"
# The game's own env keywords among the flags (None where they do not apply).
ENV_OPTIONS = ("opening_plies", "deployment")
# What monitor.csv records of each episode besides the reward and length: the learner's seat
# and the info values every game's env shares (tbw_envs.infos), the end reason also counted in
# run.json.
MONITOR_INFO = ("learner", "plies", "end_reason")


# ---------------------------------------------------------------------------- arguments


def starts_alike(game: Game) -> bool:
    """Whether every game of a variant starts from the same position (no set-up by the
    players): random opening plies vary its training starts (the env's ``opening_plies``)."""
    return not game.has_layouts


def sets_up(game: Game) -> bool:
    """Whether the players set up their pieces: they may deploy with actions (the env's
    ``deployment``)."""
    return game.has_layouts


def has_eval_prior(game: Game) -> bool:
    """Whether ``--eval-prior`` has a move evaluation of this game to add (Junqi's)."""
    return game is PRIOR_GAME


# Flags that apply to some games only (which, and the default there), or to one configuration
# only, with their defaults: parsed with a default of None, so a flag given where it does not
# apply is an error, not silently ignored.
GAME_FLAGS: dict[str, tuple[Callable[[Game], bool], Any]] = {
    "opening_plies": (starts_alike, 0), "deployment": (sets_up, "random"),
    "eval_prior": (has_eval_prior, False),
}
PRIOR_FLAGS = {"prior_beta": 2.0, "prior_temperature": 2.0, "prior_clip": 15.0}
SELF_PLAY_FLAGS = {"snapshot_every": 20_000, "pool_size": 10, "latest_prob": 0.5}
# name: (lowest, highest) for integers; every float must also be finite.
INT_RANGES = {
    "timesteps": (1, 10**12), "envs": (1, 256), "n_steps": (1, 10**7),
    "batch_size": (2, 10**8), "n_epochs": (1, 1000), "seed": (0, 2**32 - 1),
    "threads": (0, 1024), "eval_every": (0, 10**12), "eval_games": (0, 100_000),
    "checkpoint_every": (1, 10**12), "snapshot_every": (1, 10**12), "pool_size": (1, 1000),
    "opening_plies": (0, 100_000),
}
# name: (lowest, highest, lowest included, highest included)
FLOAT_RANGES = {
    "lr": (0.0, 1.0, False, True), "gamma": (0.0, 1.0, True, True),
    "gae_lambda": (0.0, 1.0, True, True), "ent_coef": (0.0, 1.0, True, True),
    "clip_range": (0.0, 1.0, False, True), "latest_prob": (0.0, 1.0, True, True),
    "prior_beta": (0.0, 1e3, False, True), "prior_temperature": (0.0, 1e6, False, True),
    "prior_clip": (0.0, 1e6, False, True),
}
RUN_OUTPUTS = ("policy.npz", "model.zip", "run.json", "eval.csv", "monitor.csv")


def _interval(low: float, high: float, low_in: bool, high_in: bool) -> str:
    return f"{'[' if low_in else '('}{low:g}, {high:g}{']' if high_in else ')'}"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Train MaskablePPO on "
                    + " or ".join(label(game) for game in registered())
                    + " (see the module docstring).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_game_flag(p, help="the game (default: the one whose variant flag is given, else the "
                          "one the --opponent agents play, else the first game)")
    p.add_argument("--deployment", choices=("random", "agents"), default=None,
                   help="games whose players set up their pieces (Junqi): random layouts "
                        "(default), or the players deploy with actions")
    p.add_argument("--opponent", nargs="+", default=["random"],
                   help="agent spec(s) and/or 'self'; several: one drawn per episode")
    p.add_argument("--opponent-weights", nargs="+", type=float, default=None,
                   help="draw weights of the --opponent entries")
    p.add_argument("--learner-seat", default="alternate",
                   choices=("alternate", "random", "0", "1"))
    p.add_argument("--opening-plies", type=int, default=None, metavar="N",
                   help="games that start alike (TBW): start every training episode with N "
                        "random plies (varied starts; evaluate with arena --opening-plies); "
                        "default 0")
    p.add_argument("--timesteps", type=int, default=100_000, help="learner steps to train")
    p.add_argument("--envs", type=int, default=1, help="environments stepped in lockstep")
    p.add_argument("--policy", choices=("mlp", "cnn"), default="cnn",
                   help="cnn: agents.policy.nets.PlaneCNN extractor; mlp: flattened planes")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="output folder (default runs/ppo-<game>-<time>/)")
    p.add_argument("--overwrite", action="store_true",
                   help="write into an --out folder that holds an earlier run's results")
    p.add_argument("--threads", type=int, default=1,
                   help="torch threads (0: torch's default, slow on small shared machines)")
    p.add_argument("--init", default=None,
                   help="start from this policy file's weights (a policy.npz of the same "
                        "--policy and board; tbw-convert-model converts a model.zip)")
    p.add_argument("--eval-prior", action="store_true", default=None,
                   help="Junqi: logits = beta * move-evaluation scores + CNN correction "
                        "(agents.junqi.eval_prior_net); the untrained policy plays like greedy")
    p.add_argument("--prior-beta", type=float, default=None,
                   help="--eval-prior: initial beta (learned); default 2")
    p.add_argument("--prior-temperature", type=float, default=None,
                   help="--eval-prior: piece-value units of score per logit (before beta); "
                        "default 2")
    p.add_argument("--prior-clip", type=float, default=None,
                   help="--eval-prior: lowest normalised score, in logits (before beta); "
                        "default 15")
    # PPO
    p.add_argument("--n-steps", type=int, default=1024, help="rollout steps per env")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--n-epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--clip-range", type=float, default=0.2)
    # self-play and evaluation
    p.add_argument("--snapshot-every", type=int, default=None,
                   help="self-play: learner steps between snapshots (default 20000)")
    p.add_argument("--pool-size", type=int, default=None,
                   help="self-play: snapshots kept (default 10)")
    p.add_argument("--latest-prob", type=float, default=None,
                   help="self-play: chance an episode faces the newest snapshot (default 0.5)")
    p.add_argument("--eval-every", type=int, default=25_000, help="0: evaluate at the end only")
    p.add_argument("--eval-games", type=int, default=20, help="per opponent (rounded up to even)")
    p.add_argument("--eval-opponents", nargs="*", default=["random", "greedy"])
    p.add_argument("--checkpoint-every", type=int, default=50_000)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_variant_flags(p)
    return p


def _check_values(args) -> list[str]:
    """Types, finiteness, ranges and flags that do not apply: the checks that need nothing
    but the arguments. Fills in the defaults of the flags that apply."""
    game = get_game(args.game)
    problems = other_variant_problems(args, game)
    for flag in variant_flags():
        if flag == game.variant_flag and getattr(args, flag) is None:
            setattr(args, flag, game.default_variant)
    for name, (applies, default) in GAME_FLAGS.items():
        if getattr(args, name) is None:
            setattr(args, name, default if applies(game) else None)
        elif not applies(game):
            takers = ", ".join(other.name for other in registered() if applies(other))
            problems.append(
                f"--eval-prior exists for {PRIOR_GAME.title} only (the move evaluation it adds "
                f"to the observation is {PRIOR_GAME.title}'s); {label(game)} has no such prior"
                if name == "eval_prior" else
                f"{option(name)} applies to {takers}, not {args.game} "
                f"(got {getattr(args, name)!r})")
    for name, default in PRIOR_FLAGS.items():
        if getattr(args, name) is None:
            setattr(args, name, default if args.eval_prior else None)
        elif not args.eval_prior:
            problems.append(f"{option(name)} applies with --eval-prior (Junqi) only")
    self_play = SELF_PLAY in args.opponent
    for name, default in SELF_PLAY_FLAGS.items():
        if getattr(args, name) is None:
            setattr(args, name, default if self_play else None)
        elif not self_play:
            problems.append(f"{option(name)} applies to self-play (--opponent self) only")
    for name, (low, high) in INT_RANGES.items():
        value = getattr(args, name)
        if value is not None and not low <= value <= high:
            problems.append(f"{option(name)} must be an integer in [{low}, {high}], got {value}")
    for name, (low, high, low_in, high_in) in FLOAT_RANGES.items():
        value = getattr(args, name)
        if value is None:
            continue
        inside = ((low <= value if low_in else low < value)
                  and (value <= high if high_in else value < high))
        if not math.isfinite(value) or not inside:
            problems.append(f"{option(name)} must be a finite number in "
                            f"{_interval(low, high, low_in, high_in)}, got {value}")
    rollout = args.n_steps * args.envs
    if rollout < 2:
        problems.append(f"--n-steps x --envs must be at least 2 (PPO normalises advantages "
                        f"over the rollout), got {args.n_steps} x {args.envs}")
    elif not args.batch_size <= rollout:
        problems.append(f"--batch-size {args.batch_size} is larger than the rollout of "
                        f"--n-steps x --envs = {rollout}")
    if args.opponent_weights is not None:
        weights = args.opponent_weights
        if (len(weights) != len(args.opponent) or not all(math.isfinite(w) and w >= 0
                                                          for w in weights)
                or sum(weights) <= 0):
            problems.append(f"--opponent-weights needs one finite, non-negative weight per "
                            f"--opponent entry ({len(args.opponent)}), not all zero; got "
                            f"{weights}")
    if SELF_PLAY in args.eval_opponents:
        problems.append("--eval-opponents: 'self' is a training opponent only (the learner "
                        "against its own snapshots); give agent specs")
    if args.eval_prior and args.policy != "cnn":
        problems.append("--eval-prior uses the CNN over the planes (--policy cnn)")
    return problems


def parse_args(argv=None, parser: argparse.ArgumentParser | None = None):
    """The arguments, each checked (``_check_values``); errors exit as argparse's do, naming
    the flag and the value. ``check_run`` checks what needs building (specs, files)."""
    p = parser or build_parser()
    args = p.parse_args(argv)
    args.game = pick_game(args, p.error, [spec for spec in args.opponent if spec != SELF_PLAY],
                          "--opponent")
    if args.learner_seat in ("0", "1"):
        args.learner_seat = int(args.learner_seat)
    problems = _check_values(args)
    args.eval_prior = bool(args.eval_prior)
    if problems:
        p.error("; ".join(problems))
    args.eval_games += args.eval_games % 2
    return args


def variant_of(args) -> str:
    """The run's variant: the scenario (TBW), the rule set (Junqi), ..."""
    return getattr(args, get_game(args.game).variant_flag)


def eval_prior_of(args) -> dict[str, Any] | None:
    """The ``--eval-prior`` settings, or None without it."""
    return eval_prior_settings(args.prior_temperature, args.prior_clip) if args.eval_prior else None


def run_policy_spec(args) -> tuple[Any, dict[str, Any]]:
    """The policy class and ``policy_kwargs`` of the run."""
    return policy_spec(args.policy, eval_prior_of(args), args.prior_beta)


def make_env(args, opponent):
    """The run's single-agent env against ``opponent``."""
    options = {name: getattr(args, name) for name in ENV_OPTIONS
               if getattr(args, name) is not None}
    return make_training_env(args.game, variant_of(args), opponent, args.learner_seat,
                             eval_prior=eval_prior_of(args), **options)


def _check_out(args) -> str | None:
    if args.out is None:
        return None
    out = Path(args.out).expanduser()
    if out.exists() and not out.is_dir():
        return f"--out {args.out!r} exists and is not a folder"
    if out.is_dir() and not args.overwrite:
        earlier = [name for name in RUN_OUTPUTS if (out / name).exists()]
        if earlier:
            return (f"--out {args.out!r} holds an earlier run ({', '.join(earlier)}); choose "
                    f"another folder or give --overwrite")
    existing = out
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        return f"--out {args.out!r}: cannot create or write in {str(existing)!r}"
    return None


def check_run(args, error) -> dict[str, Any]:
    """Everything that needs building, before anything is written or trained: the scenario or
    rule set, every --opponent and --eval-opponents spec (built, and set against this game and
    board), the --init file (read in full) and the --out folder. ``error(message)`` reports a
    problem (``parser.error``). Returns ``{"init": policy or None}``."""
    game = get_game(args.game)
    try:
        longest = game.longest_game(variant_of(args))
    except (ValueError, TypeError, OSError) as exc:
        error(f"{option(game.variant_flag)} {variant_of(args)!r}: {exc}")
    if args.opening_plies:
        # The arena's cap: a longer opening would end every episode inside reset().
        problem = opening_plies_problem(args.opening_plies, longest, f"{game.name} "
                                        f"{game.variant_noun} {variant_of(args)!r}")
        if problem:
            error(f"--opening-plies {problem}")
    try:
        env = make_env(args, "random")
    except (ValueError, TypeError, OSError) as exc:
        error(f"{option(game.variant_flag)} {variant_of(args)!r}: {exc}")
    for flag, specs in (("--opponent", args.opponent), ("--eval-opponents",
                                                          args.eval_opponents)):
        for spec in specs:
            if spec == SELF_PLAY:
                continue
            try:
                agent = make_agent(spec, seed=0, game=args.game)
                # The wrapper refuses an agent that declares another game or board.
                make_env(args, agent).close()
            except (ValueError, TypeError, OSError, ImportError) as exc:
                error(f"{flag} {spec!r}: {exc}")
    init = None
    if args.init is not None:
        policy_class, policy_kwargs = run_policy_spec(args)
        if policy_class == "MlpPolicy":
            from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

            policy_class = MaskableActorCriticPolicy
        target = policy_class(env.observation_space, env.action_space, lambda _: 0.0,
                              **policy_kwargs)
        try:
            _, init = read_policy_file(resolve_policy_path(args.init), target=target,
                                       game=args.game)
        except (ValueError, OSError) as exc:
            error(f"--init {args.init!r}: {exc}")
    env.close()
    problem = _check_out(args)
    if problem:
        error(problem)
    return {"init": init}


# ---------------------------------------------------------------------------- the run's steps


def output_folder(args) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(args.out).expanduser() if args.out else RUNS_FOLDER / f"ppo-{args.game}-{stamp}"
    out.mkdir(parents=True, exist_ok=True)
    return out


def self_play_pool(args) -> SnapshotPool | None:
    if SELF_PLAY not in args.opponent:
        return None
    return SnapshotPool(args.game, args.pool_size, args.latest_prob)


def training_env(args, pool: SnapshotPool | None, seed: int):
    return make_env(args, build_opponent(args.opponent, args.opponent_weights, args.game, seed,
                                         pool))


def build_vec_env(args, pool: SnapshotPool | None, out: Path):
    """``--envs`` envs stepped in lockstep, every episode logged to monitor.csv. Each env gets
    its own opponent objects (agents keep per-game memory); the snapshots are shared."""
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    vec_env = DummyVecEnv([partial(training_env, args, pool, args.seed + i)
                           for i in range(args.envs)])
    return VecMonitor(vec_env, filename=str(out / "monitor.csv"),
                      info_keywords=MONITOR_INFO)


def build_model(args, vec_env, init: Any):
    """MaskablePPO with the run's settings, from ``init``'s weights if given (read and checked
    from the policy file by ``check_run``; never a model.zip)."""
    from sb3_contrib import MaskablePPO

    policy_class, policy_kwargs = run_policy_spec(args)
    model = MaskablePPO(
        policy_class, vec_env, n_steps=args.n_steps, batch_size=args.batch_size,
        n_epochs=args.n_epochs, learning_rate=args.lr, gamma=args.gamma,
        gae_lambda=args.gae_lambda, ent_coef=args.ent_coef, clip_range=args.clip_range,
        policy_kwargs=policy_kwargs, seed=args.seed, device="cpu", verbose=0,
    )
    if init is not None:
        model.policy.load_state_dict(init.state_dict())
    return model


def game_info(args) -> dict[str, Any]:
    """What the policy plays, saved inside every model.zip (SB3 stores plain attributes) and in
    every policy file."""
    return {
        "game": args.game, **{flag: getattr(args, flag) for flag in variant_flags()},
        "flip_perspective": True, "policy": args.policy, "eval_prior": bool(args.eval_prior),
    }


def run_title(args) -> str:
    return (f"MaskablePPO ({args.policy}{', eval prior' if args.eval_prior else ''}) on "
            f"{args.game} {variant_of(args)} vs "
            f"{' + '.join(args.opponent)}, seed {args.seed}")


def build_callbacks(args, out: Path, info: dict[str, Any], pool: SnapshotPool | None,
                    evaluations: PeriodicEvaluation, title: str) -> list[Any]:
    """Checkpoints (each with its policy file), then the progress bar, self-play snapshots and
    periodic evaluations, each redrawing the learning curve."""
    from agents.training.callbacks import PolicyCheckpoints, TrainingProgress

    checkpoints = PolicyCheckpoints(save_freq=max(args.checkpoint_every // args.envs, 1),
                                    save_path=str(out / "checkpoints"), name_prefix="ppo",
                                    game_info=info, source=SOURCE)
    progress = TrainingProgress(args.timesteps, f"ppo {args.game}",
                                show_bar=not args.no_progress, pool=pool,
                                snapshot_every=args.snapshot_every, evaluations=evaluations,
                                eval_every=args.eval_every,
                                after_evaluation=partial(plot_learning_curve, out, title))
    return [checkpoints, progress]


def write_summary(args, out: Path, model, seconds: dict[str, float], final: list[dict[str, Any]],
                  evaluations: PeriodicEvaluation, pool: SnapshotPool | None,
                  episodes: list[dict[str, str]]) -> None:
    """run.json: the arguments, times, throughput, final evaluation, self-play pool and
    machine."""
    import torch

    summary = {
        "args": vars(args), "timesteps": model.num_timesteps,
        "train_seconds": round(seconds["train"], 1),
        "steps_per_second": round(model.num_timesteps / seconds["train"], 1),
        "final_eval_seconds": round(seconds["final_eval"], 1),
        "episodes": len(episodes), "final_eval": final,
        "eval_prior": {"settings": eval_prior_of(args), "beta_init": args.prior_beta,
                       "beta_at_evaluations": evaluations.beta_history}
        if args.eval_prior else None,
        "pool": None if pool is None else {"snapshot_steps": pool.steps,
                                           "episodes_per_snapshot": dict(pool.games_against)},
        "machine": {"python": platform.python_version(), "torch": torch.__version__,
                    "torch_threads": torch.get_num_threads(), "cpu": platform.processor() or
                    platform.machine()},
        "finished": datetime.now().isoformat(timespec="seconds"),
    }
    if episodes:
        summary["training_end_reasons"] = dict(Counter(e.get("end_reason", "?")
                                                       for e in episodes))
    (out / "run.json").write_text(json.dumps(summary, indent=2, default=str))


def print_report(args, out: Path, timesteps: int, train_seconds: float,
                 final: list[dict[str, Any]], episodes: list[dict[str, str]],
                 plot: Path | None) -> None:
    print(f"{timesteps} steps in {train_seconds:.0f} s "
          f"({timesteps / train_seconds:.0f} steps/s, evaluations included), "
          f"{len(episodes)} episodes")
    for row in final:
        print(f"  vs {row['opponent']}: score {row['score']:.3f} "
              f"[{row['ci_low']:.2f}, {row['ci_high']:.2f}] over {row['games']} games "
              f"(W {row['wins']} D {row['draws']} L {row['losses']}), ends {row['end_reasons']}")
    print(f"policy: {out / POLICY_FILE} (model.zip: SB3's, to resume training)"
          + (f"\ncurve: {plot}" if plot else ""))
    arena = [*command_words("arena"), "--game", args.game,
             option(get_game(args.game).variant_flag), variant_of(args),
             "--agents", f"ppo:path={out / POLICY_FILE}", "greedy", "random"]
    print(f"arena: {shlex.join(arena)}")


def train_extra_missing() -> str | None:
    """Why the train extra (torch, sb3-contrib, stable-baselines3) does not import, or None."""
    try:
        import torch  # noqa: F401
        from sb3_contrib import MaskablePPO  # noqa: F401
        from stable_baselines3.common.callbacks import BaseCallback  # noqa: F401
        from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: F401
    except ImportError as exc:
        return str(exc)
    return None


def main(argv=None) -> int:
    parser = build_parser()
    args = parse_args(argv, parser)
    missing = train_extra_missing()
    if missing:
        return missing_extra("tbw-train", "train", missing)
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    # Every spec, file and folder is checked before anything is written or trained.
    checked = check_run(args, parser.error)
    out = output_folder(args)

    pool = self_play_pool(args)
    vec_env = build_vec_env(args, pool, out)
    model = build_model(args, vec_env, checked["init"])
    info = game_info(args)
    setattr(model, GAME_INFO_ATTRIBUTE, info)
    if pool is not None:
        pool.add(model.policy, 0)
    if args.eval_prior and not args.init:
        # The untrained policy (greedy's moves plus a near-zero correction): the baseline that
        # says what training added.
        (out / "checkpoints").mkdir(exist_ok=True)
        save_model_and_policy(model, out / "checkpoints" / "ppo_0_steps", info, 0,
                              source=SOURCE)
    new_game = new_game_factory(args.game, variant_of(args), args.opening_plies or 0)
    evaluations = PeriodicEvaluation(out / "eval.csv", args.game, new_game, args.eval_opponents,
                                     args.eval_games, track_beta=args.eval_prior)
    title = run_title(args)
    callbacks = build_callbacks(args, out, info, pool, evaluations, title)

    print(f"training {title}: {args.timesteps} steps, {args.envs} env(s), "
          f"torch threads {torch.get_num_threads()}, out {out}")
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps, callback=callbacks)
    seconds = {"train": time.perf_counter() - start}

    save_model_and_policy(model, out / "model", info, model.num_timesteps, POLICY_FILE,
                          source=SOURCE)
    start = time.perf_counter()
    final = evaluations.run(model.policy, model.num_timesteps)
    seconds["final_eval"] = time.perf_counter() - start
    plot = plot_learning_curve(out, title)
    episodes = read_monitor(out / "monitor.csv")
    write_summary(args, out, model, seconds, final, evaluations, pool, episodes)
    print_report(args, out, model.num_timesteps, seconds["train"], final, episodes, plot)
    return 0

