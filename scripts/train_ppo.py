"""Train sb3-contrib's MaskablePPO on TBW or Junqi through the single-agent wrappers.

    python scripts/train_ppo.py --game tbw --scenario duel_5v5_8x8 --opponent random \\
        --timesteps 200000 --policy cnn
    python scripts/train_ppo.py --game junqi --opponent self --timesteps 300000

The learner plays both seats (``--learner-seat alternate`` by default): observations are in the
player's own frame, so one policy serves either seat. ``--opponent`` takes one or more agent
specs of ``agents.registry`` (``random``, ``greedy``, ``exact``, ``ppo:path=...``) and/or
``self``; with several, each episode draws one. ``self`` is a pool of frozen snapshots of the
learner (one every ``--snapshot-every`` steps, the newest ``--pool-size`` kept), from which each
episode draws its opponent (the newest with probability ``--latest-prob``), played by sampling.

Every ``--eval-every`` steps the current policy plays ``--eval-games`` seat-swapped arena games
(deterministic, on the game core) against each ``--eval-opponents`` agent. ``--out`` (default
``runs/ppo-<game>-<time>/``) receives ``policy.npz`` (the policy file: arrays and JSON, loaded
without running code, ``agents.sb3``), ``model.zip`` (SB3's, unpickled when loaded: for
resuming with SB3 only), ``checkpoints/`` (``ppo_<steps>_steps.npz`` and ``.zip``),
``monitor.csv`` (every training episode), ``eval.csv``, ``learning_curve.png`` and ``run.json``
(arguments, wall time, throughput). Play the result in the arena:
``python scripts/arena.py --game tbw --agents ppo:path=runs/.../policy.npz greedy random``.
``--opponent ppo:path=...`` and ``--init`` take policy files too; a ``.zip`` is refused
(``scripts/convert_model.py`` converts one you trust).

Every argument is checked before training starts: numbers (type, finite, range), flags that do
not apply to the game (``--scenario`` / ``--opening-plies`` are TBW's, ``--rules`` /
``--deployment`` / ``--eval-prior`` Junqi's) or to the run (the self-play flags without
``--opponent self``, the ``--prior-*`` flags without ``--eval-prior``), every ``--opponent`` and
``--eval-opponents`` spec (built and set against the game and board), ``--init`` (read in full)
and ``--out``. Errors name the flag and the value.

torch runs on one thread unless ``--threads`` says otherwise: on a 2-core machine torch's default
threading made MaskablePPO about 30 times slower for these small networks.

Junqi only, ``--eval-prior``: the policy learns on top of the move evaluation. The env adds the
evaluation's normalised score of every legal move to a Dict observation
(``agents.eval_prior``; ``--prior-temperature`` piece-value units per logit, clipped at
``--prior-clip`` logits) and the policy's logits are ``beta * scores + net(planes)``
(``agents.eval_prior_net.EvalPriorPolicy``; ``beta`` learned from ``--prior-beta``, the net's
correction starting near zero), so the untrained policy plays like ``greedy``; it is saved as
``checkpoints/ppo_0_steps.npz``, the baseline. The saved policies carry the prior's settings;
``ppo:path=...`` rebuilds the scores from its views.
"""

from __future__ import annotations

import argparse
import copy
import csv
import json
import math
import os
import platform
import random
import sys
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# ---------------------------------------------------------------------------- opponents


class SnapshotPool:
    """Frozen copies of the learner's policy, shared by every env of a run.

    Each env plays through its own ``PoolOpponent`` (``pool.opponent(seed)``), which draws one
    snapshot per episode: envs reset at different times, so one shared choice would switch an
    env's opponent in the middle of its episode.
    """

    def __init__(self, game: str, pool_size: int = 10, latest_prob: float = 0.5):
        if pool_size < 1:
            raise ValueError(f"--pool-size must be at least 1, got {pool_size}")
        if not 0.0 <= latest_prob <= 1.0:
            raise ValueError(f"--latest-prob must be in [0, 1], got {latest_prob}")
        self.game = game
        self.pool_size = pool_size
        self.latest_prob = latest_prob
        self.policies: list[Any] = []  # frozen policies, oldest first
        self.steps: list[int] = []  # learner timesteps at which each snapshot was taken
        self.games_against: Counter[int] = Counter()

    def add(self, policy: Any, timesteps: int) -> None:
        frozen = copy.deepcopy(policy)
        frozen.set_training_mode(False)
        for parameter in frozen.parameters():
            parameter.requires_grad_(False)
        self.policies.append(frozen)
        self.steps.append(timesteps)
        if len(self.policies) > self.pool_size:
            self.policies.pop(0)
            self.steps.pop(0)

    def opponent(self, seed: int | None = None) -> PoolOpponent:
        return PoolOpponent(self, seed)


class PoolOpponent:
    """One env's opponent from a ``SnapshotPool``: an agent (``reset`` / ``act(view)``), so the
    wrapper hands it the game-core view and the snapshot sees exactly what the learner would in
    that seat (``agents.sb3.PPOAgent``); it plays by sampling from the snapshot's policy."""

    name = "self"

    def __init__(self, pool: SnapshotPool, seed: int | None = None):
        self.pool = pool
        self._rng = random.Random(seed)
        self._agents: dict[int, Any] = {}  # id(policy) -> PPOAgent, so codecs are built once
        self._current: Any = None

    def reset(self, seed: int | None = None) -> None:
        from agents.sb3 import PPOAgent

        pool = self.pool
        if not pool.policies:
            raise RuntimeError("self-play pool is empty: add a snapshot before the first episode")
        if seed is not None:
            self._rng.seed(seed)
        if self._rng.random() < pool.latest_prob:
            index = len(pool.policies) - 1
        else:
            index = self._rng.randrange(len(pool.policies))
        policy = pool.policies[index]
        live = {id(p) for p in pool.policies}
        self._agents = {k: a for k, a in self._agents.items() if k in live}
        if id(policy) not in self._agents:
            self._agents[id(policy)] = PPOAgent.from_policy(policy, pool.game,
                                                            deterministic=False, threads=0)
        self._current = self._agents[id(policy)]
        self._current.reset(self._rng.randrange(2**31))
        pool.games_against[pool.steps[index]] += 1

    def act(self, view) -> int:
        if self._current is None:
            raise RuntimeError("self-play opponent: reset() before act()")
        return self._current.act(view)


class MixedOpponent:
    """One of several opponents per episode, drawn with the given weights."""

    def __init__(self, opponents: list[Any], weights: list[float], seed: int | None = None):
        self.opponents = opponents
        self.weights = weights
        self.name = "+".join(getattr(o, "name", "?") for o in opponents)
        self._rng = random.Random(seed)
        self._current = opponents[0]

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)
        self._current = self._rng.choices(self.opponents, weights=self.weights)[0]
        self._current.reset(self._rng.randrange(2**31))

    def act(self, view) -> int:
        return self._current.act(view)


def build_opponent(specs: list[str], weights: list[float] | None, game: str, seed: int,
                   pool: SnapshotPool | None):
    from agents.registry import make_agent

    members = []
    for i, spec in enumerate(specs):
        if spec == "self":
            members.append(pool.opponent(seed * 1000 + i))
        else:
            members.append(make_agent(spec, seed=seed * 1000 + i, game=game))
    if len(members) == 1:
        return members[0]
    return MixedOpponent(members, weights or [1.0] * len(members), seed=seed)


# ---------------------------------------------------------------------------- environments


def make_env(args, opponent):
    from tbw_envs.wrappers import make_junqi_single, make_tbw_single

    # SB3's vector envs keep infos as dicts, so names can go into monitor.csv as they are.
    if args.game == "tbw":
        return make_tbw_single(scenario=args.scenario, opponent=opponent,
                               learner_seat=args.learner_seat,
                               opening_plies=args.opening_plies, string_infos=True)
    env = make_junqi_single(opponent=opponent, learner_seat=args.learner_seat,
                            rules=args.rules, deployment=args.deployment, string_infos=True)
    if getattr(args, "eval_prior", False):
        from agents.eval_prior import EvalPriorObservation

        env = EvalPriorObservation(env, eval_prior_settings(args))
    return env


def eval_prior_settings(args) -> dict[str, Any]:
    """The ``agents.eval_prior.EvalPrior`` settings of ``--eval-prior``."""
    return {"temperature": args.prior_temperature, "clip": args.prior_clip}


def new_game_factory(args):
    """New games for the evaluations; with ``--opening-plies`` each starts from that many
    random plies drawn from its seed, as in training."""
    from agents.arena import junqi_game, random_opening, tbw_game

    new_game = tbw_game(args.scenario) if args.game == "tbw" else junqi_game(args.rules)
    plies = getattr(args, "opening_plies", 0)
    if not plies:
        return new_game

    def opened(seed: int):
        state = new_game(seed)
        random_opening(state, plies, seed)
        return state

    return opened


# ---------------------------------------------------------------------------- evaluation


EVAL_FIELDS = ("timesteps", "opponent", "games", "wins", "draws", "losses", "score", "ci_low",
               "ci_high", "end_reasons", "seconds")


def evaluate(policy: Any, args, opponent_spec: str, games: int, seed: int) -> dict[str, Any]:
    """``games`` seat-swapped arena games of the deterministic policy against one agent."""
    from agents.arena import end_reason, run_match
    from agents.registry import make_agent
    from agents.sb3 import PPOAgent

    learner = PPOAgent.from_policy(policy, args.game, threads=0)
    learner.name = "learner"
    opponent = make_agent(opponent_spec, seed=seed, game=args.game)
    start = time.perf_counter()
    result = run_match(new_game_factory(args), learner, opponent, games, seed=seed)
    score = result.score("learner")
    reasons = Counter(end_reason(args.game, g.final_state) for g in result.games)
    return {
        "opponent": opponent_spec, "games": games, "wins": score["wins"],
        "draws": score["draws"], "losses": score["losses"], "score": round(score["score"], 4),
        "ci_low": round(score["ci_low"], 4), "ci_high": round(score["ci_high"], 4),
        "end_reasons": json.dumps(dict(sorted(reasons.items()))),
        "seconds": round(time.perf_counter() - start, 2),
    }


# ---------------------------------------------------------------------------- plots


def read_monitor(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with path.open() as f:
        lines = [line for line in f if not line.startswith("#")]
    return list(csv.DictReader(lines))


def read_eval(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with path.open() as f:
        return list(csv.DictReader(f))


def plot_learning_curve(out: Path, title: str) -> Path | None:
    """Training episodes (rolling mean return and win rate over learner timesteps) and the
    periodic evaluations with their Wilson intervals."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no learning-curve PNG (pip install matplotlib)")
        return None
    import numpy as np

    episodes = read_monitor(out / "monitor.csv")
    evals = read_eval(out / "eval.csv")
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    ax = axes[0]
    if episodes:
        returns = np.array([float(e["r"]) for e in episodes])
        steps = np.cumsum([int(e["l"]) for e in episodes])
        window = max(1, min(200, len(returns) // 10))
        kernel = np.ones(window) / window
        mean_return = np.convolve(returns, kernel, mode="valid")
        win_rate = np.convolve((returns > 0).astype(float), kernel, mode="valid")
        ax.plot(steps[window - 1:], mean_return, label=f"mean return ({window} episodes)")
        ax.plot(steps[window - 1:], win_rate, label="win rate", alpha=0.8)
    ax.set_xlabel("learner timesteps")
    ax.set_ylim(-1.05, 1.05)
    ax.set_title("training episodes")
    ax.grid(alpha=0.3)
    if episodes:
        ax.legend(loc="lower right")
    ax = axes[1]
    for opponent in dict.fromkeys(e["opponent"] for e in evals):
        rows = [e for e in evals if e["opponent"] == opponent]
        x = [int(e["timesteps"]) for e in rows]
        y = [float(e["score"]) for e in rows]
        low = [float(e["ci_low"]) for e in rows]
        high = [float(e["ci_high"]) for e in rows]
        ax.plot(x, y, marker="o", label=f"vs {opponent}")
        ax.fill_between(x, low, high, alpha=0.15)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_ylim(0, 1)
    ax.set_xlabel("learner timesteps")
    ax.set_ylabel("score (win 1, draw 1/2), 95% Wilson")
    ax.set_title("evaluation (deterministic policy, arena games)")
    ax.grid(alpha=0.3)
    if evals:
        ax.legend(loc="lower right")
    fig.suptitle(title)
    fig.tight_layout()
    path = out / "learning_curve.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# ---------------------------------------------------------------------------- arguments


# Flags that apply to one game only, one configuration only, and their defaults: parsed with a
# default of None, so a flag given where it does not apply is an error, not silently ignored.
GAME_FLAGS = {
    "scenario": ("tbw", "duel_5v5_8x8"), "opening_plies": ("tbw", 0),
    "rules": ("junqi", "ccgc"), "deployment": ("junqi", "random"),
    "eval_prior": ("junqi", False),
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


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _interval(low: float, high: float, low_in: bool, high_in: bool) -> str:
    return f"{'[' if low_in else '('}{low:g}, {high:g}{']' if high_in else ')'}"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Train MaskablePPO on TBW or Junqi (see the module docstring).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--game", choices=("tbw", "junqi"), required=True)
    p.add_argument("--scenario", default=None,
                   help="TBW: scenario name or YAML path (default duel_5v5_8x8)")
    p.add_argument("--rules", default=None, help="Junqi: rule set name or YAML path (default ccgc)")
    p.add_argument("--deployment", choices=("random", "agents"), default=None,
                   help="Junqi: random layouts (default), or the players deploy with actions")
    p.add_argument("--opponent", nargs="+", default=["random"],
                   help="agent spec(s) and/or 'self'; several: one drawn per episode")
    p.add_argument("--opponent-weights", nargs="+", type=float, default=None,
                   help="draw weights of the --opponent entries")
    p.add_argument("--learner-seat", default="alternate",
                   choices=("alternate", "random", "0", "1"))
    p.add_argument("--opening-plies", type=int, default=None, metavar="N",
                   help="TBW: start every training episode with N random plies (varied starts; "
                        "evaluate with arena --opening-plies); default 0")
    p.add_argument("--timesteps", type=int, default=100_000, help="learner steps to train")
    p.add_argument("--envs", type=int, default=1, help="environments stepped in lockstep")
    p.add_argument("--policy", choices=("mlp", "cnn"), default="cnn",
                   help="cnn: agents.nets.PlaneCNN extractor; mlp: flattened planes")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="output folder (default runs/ppo-<game>-<time>/)")
    p.add_argument("--overwrite", action="store_true",
                   help="write into an --out folder that holds an earlier run's results")
    p.add_argument("--threads", type=int, default=1,
                   help="torch threads (0: torch's default, slow on small shared machines)")
    p.add_argument("--init", default=None,
                   help="start from this policy file's weights (a policy.npz of the same "
                        "--policy and board; scripts/convert_model.py converts a model.zip)")
    p.add_argument("--eval-prior", action="store_true", default=None,
                   help="Junqi: logits = beta * move-evaluation scores + CNN correction "
                        "(agents.eval_prior_net); the untrained policy plays like greedy")
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
    return p


def _check_values(args) -> list[str]:
    """Types, finiteness, ranges and flags that do not apply: the checks that need nothing
    but the arguments. Fills in the defaults of the flags that apply."""
    problems = []
    for name, (game, default) in GAME_FLAGS.items():
        if getattr(args, name) is None:
            setattr(args, name, default if game == args.game else None)
        elif game != args.game:
            problems.append(
                "--eval-prior exists for Junqi only (the move evaluation it adds to the "
                "observation is Junqi's); TBW has no such prior" if name == "eval_prior" else
                f"{flag(name)} applies to {game}, not {args.game} (got {getattr(args, name)!r})")
    if args.game == "junqi":
        args.eval_prior = bool(args.eval_prior)
    for name, default in PRIOR_FLAGS.items():
        if getattr(args, name) is None:
            setattr(args, name, default if args.eval_prior else None)
        elif not args.eval_prior:
            problems.append(f"{flag(name)} applies with --eval-prior (Junqi) only")
    self_play = "self" in args.opponent
    for name, default in SELF_PLAY_FLAGS.items():
        if getattr(args, name) is None:
            setattr(args, name, default if self_play else None)
        elif not self_play:
            problems.append(f"{flag(name)} applies to self-play (--opponent self) only")
    for name, (low, high) in INT_RANGES.items():
        value = getattr(args, name)
        if value is not None and not low <= value <= high:
            problems.append(f"{flag(name)} must be an integer in [{low}, {high}], got {value}")
    for name, (low, high, low_in, high_in) in FLOAT_RANGES.items():
        value = getattr(args, name)
        if value is None:
            continue
        inside = ((low <= value if low_in else low < value)
                  and (value <= high if high_in else value < high))
        if not math.isfinite(value) or not inside:
            problems.append(f"{flag(name)} must be a finite number in "
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
    if "self" in args.eval_opponents:
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
    if args.learner_seat in ("0", "1"):
        args.learner_seat = int(args.learner_seat)
    problems = _check_values(args)
    args.eval_prior = bool(args.eval_prior)
    if problems:
        p.error("; ".join(problems))
    args.eval_games += args.eval_games % 2
    return args


def policy_spec(args) -> tuple[Any, dict[str, Any]]:
    """The policy class and ``policy_kwargs`` of the run."""
    from agents.nets import policy_kwargs_for

    if args.eval_prior:
        from agents.eval_prior_net import EvalPriorPolicy, eval_prior_policy_kwargs

        return EvalPriorPolicy, eval_prior_policy_kwargs(eval_prior_settings(args),
                                                         beta_init=args.prior_beta)
    return "MlpPolicy", policy_kwargs_for(args.policy)


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
    from agents.registry import make_agent
    from agents.sb3 import read_policy_file, resolve_policy_path

    variant_flag = "--scenario" if args.game == "tbw" else "--rules"
    variant = args.scenario if args.game == "tbw" else args.rules
    try:
        env = make_env(args, "random")
    except (ValueError, TypeError, OSError) as exc:
        error(f"{variant_flag} {variant!r}: {exc}")
    for option, specs in (("--opponent", args.opponent), ("--eval-opponents",
                                                          args.eval_opponents)):
        for spec in specs:
            if spec == "self":
                continue
            try:
                agent = make_agent(spec, seed=0, game=args.game)
                # The wrapper refuses an agent that declares another game or board.
                make_env(args, agent).close()
            except (ValueError, TypeError, OSError, ImportError) as exc:
                error(f"{option} {spec!r}: {exc}")
    init = None
    if args.init is not None:
        policy_class, policy_kwargs = policy_spec(args)
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


def main(argv=None) -> int:
    parser = build_parser()
    args = parse_args(argv, parser)
    try:
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback
        from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor
    except ImportError as exc:
        print(f"train_ppo.py needs the train extra: pip install -c constraints.txt -e "
              f"'.[train]' ({exc})", file=sys.stderr)
        return 2
    from agents.sb3 import GAME_INFO_ATTRIBUTE, POLICY_FILE, save_policy

    if args.threads:
        torch.set_num_threads(args.threads)
    # Every spec, file and folder is checked before anything is written or trained.
    checked = check_run(args, parser.error)
    variant = args.scenario if args.game == "tbw" else args.rules
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(args.out).expanduser() if args.out else ROOT / "runs" / f"ppo-{args.game}-{stamp}"
    out.mkdir(parents=True, exist_ok=True)

    self_play = "self" in args.opponent
    pool = SnapshotPool(args.game, args.pool_size, args.latest_prob) if self_play else None
    # Each env gets its own opponent objects (agents keep per-game memory); the snapshots are
    # shared.
    vec_env = DummyVecEnv([
        (lambda i=i: make_env(args, build_opponent(args.opponent, args.opponent_weights,
                                                   args.game, args.seed + i, pool)))
        for i in range(args.envs)
    ])
    keywords = ("learner", "end_reason") if args.game == "junqi" else ("learner", "turn")
    vec_env = VecMonitor(vec_env, filename=str(out / "monitor.csv"), info_keywords=keywords)

    policy_class, policy_kwargs = policy_spec(args)
    model = MaskablePPO(
        policy_class, vec_env, n_steps=args.n_steps, batch_size=args.batch_size,
        n_epochs=args.n_epochs, learning_rate=args.lr, gamma=args.gamma,
        gae_lambda=args.gae_lambda, ent_coef=args.ent_coef, clip_range=args.clip_range,
        policy_kwargs=policy_kwargs, seed=args.seed, device="cpu", verbose=0,
    )
    if checked["init"] is not None:
        # Read (and checked) from the policy file by check_run; never a model.zip.
        model.policy.load_state_dict(checked["init"].state_dict())
    # Saved inside every model.zip (SB3 stores plain attributes) and in every policy file.
    game_info = {
        "game": args.game, "scenario": args.scenario if args.game == "tbw" else None,
        "rules": args.rules if args.game == "junqi" else None, "flip_perspective": True,
        "policy": args.policy, "eval_prior": bool(args.eval_prior),
    }
    setattr(model, GAME_INFO_ATTRIBUTE, game_info)

    def save_both(stem: Path, timesteps: int, policy_file: str | None = None) -> None:
        """``<stem>.zip`` (SB3's, to resume) and a policy file (``<stem>.npz`` or
        ``policy_file`` beside it), which the arena, --opponent and --init load: it runs no
        code (agents.sb3)."""
        model.save(stem.with_suffix(".zip"))
        npz = stem.with_name(policy_file) if policy_file else stem.with_suffix(".npz")
        save_policy(model.policy, npz, game_info, source="scripts/train_ppo.py",
                    timesteps=timesteps)

    if pool is not None:
        pool.add(model.policy, 0)
    if args.eval_prior and not args.init:
        # The untrained policy (greedy's moves plus a near-zero correction): the baseline that
        # says what training added.
        (out / "checkpoints").mkdir(exist_ok=True)
        save_both(out / "checkpoints" / "ppo_0_steps", 0)

    eval_path = out / "eval.csv"
    with eval_path.open("w", newline="") as f:
        csv.DictWriter(f, EVAL_FIELDS).writeheader()
    eval_seed = [10_000]
    beta_history: list[tuple[int, float]] = []  # --eval-prior: the learned beta at each eval

    def run_evaluations(timesteps: int) -> list[dict[str, Any]]:
        rows = []
        if args.eval_prior:
            beta_history.append((timesteps, round(float(model.policy.beta.detach()), 4)))
        for opponent in args.eval_opponents:
            if args.eval_games == 0:
                break
            row = {"timesteps": timesteps,
                   **evaluate(model.policy, args, opponent, args.eval_games, eval_seed[0])}
            rows.append(row)
            with eval_path.open("a", newline="") as f:
                csv.DictWriter(f, EVAL_FIELDS).writerow(row)
        # Fresh seeds each round: the same games again would only measure one opening set.
        eval_seed[0] += args.eval_games
        return rows

    class TrainingLoop(BaseCallback):
        """Progress bar, self-play snapshots, periodic evaluation and plots."""

        def __init__(self):
            super().__init__()
            self.bar = None
            self.next_snapshot = args.snapshot_every
            self.next_eval = args.eval_every if args.eval_every else math.inf
            self.last_scores: dict[str, float] = {}
            self.done = 0

        def _on_training_start(self) -> None:
            if not args.no_progress:
                try:
                    from tqdm import tqdm

                    self.bar = tqdm(total=args.timesteps, unit="step", smoothing=0.05,
                                    desc=f"ppo {args.game}")
                except ImportError:  # a nicety; pip install tqdm for it
                    self.bar = None

        def _on_step(self) -> bool:
            steps = self.num_timesteps
            if pool is not None and steps >= self.next_snapshot:
                pool.add(self.model.policy, steps)
                self.next_snapshot += args.snapshot_every
            if steps >= self.next_eval:
                for row in run_evaluations(steps):
                    self.last_scores[row["opponent"]] = row["score"]
                plot_learning_curve(out, title)
                self.next_eval += args.eval_every
            if self.bar is not None:
                self.bar.update(steps - self.done)
                self.done = steps
                if self.n_calls % 50 == 0:
                    buffer = self.model.ep_info_buffer
                    postfix = {}
                    if buffer:
                        rewards = [e["r"] for e in buffer]
                        postfix["return"] = f"{sum(rewards) / len(rewards):+.2f}"
                        postfix["win"] = f"{sum(r > 0 for r in rewards) / len(rewards):.2f}"
                    for name, score in self.last_scores.items():
                        postfix[f"vs {name[:10]}"] = f"{score:.2f}"
                    self.bar.set_postfix(postfix, refresh=False)
            return True

        def _on_training_end(self) -> None:
            if self.bar is not None:
                self.bar.close()

    title = (f"MaskablePPO ({args.policy}{', eval prior' if args.eval_prior else ''}) on "
             f"{args.game} {variant} vs "
             f"{' + '.join(args.opponent)}, seed {args.seed}")

    class Checkpoints(CheckpointCallback):
        """SB3's checkpoints, each with its policy file beside it."""

        def _on_step(self) -> bool:
            if self.n_calls % self.save_freq == 0:
                save_both(Path(self._checkpoint_path(extension="zip")).with_suffix(""),
                          self.num_timesteps)
            return True

    checkpoints = Checkpoints(save_freq=max(args.checkpoint_every // args.envs, 1),
                              save_path=str(out / "checkpoints"), name_prefix="ppo")
    print(f"training {title}: {args.timesteps} steps, {args.envs} env(s), "
          f"torch threads {torch.get_num_threads()}, out {out}")
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps, callback=[checkpoints, TrainingLoop()])
    train_seconds = time.perf_counter() - start
    save_both(out / "model", model.num_timesteps, POLICY_FILE)
    eval_start = time.perf_counter()
    final = run_evaluations(model.num_timesteps)
    eval_seconds = time.perf_counter() - eval_start
    plot = plot_learning_curve(out, title)
    episodes = read_monitor(out / "monitor.csv")
    summary = {
        "args": vars(args), "timesteps": model.num_timesteps,
        "train_seconds": round(train_seconds, 1),
        "steps_per_second": round(model.num_timesteps / train_seconds, 1),
        "final_eval_seconds": round(eval_seconds, 1),
        "episodes": len(episodes), "final_eval": final,
        "eval_prior": {"settings": eval_prior_settings(args), "beta_init": args.prior_beta,
                       "beta_at_evaluations": beta_history} if args.eval_prior else None,
        "pool": None if pool is None else {"snapshot_steps": pool.steps,
                                           "episodes_per_snapshot": dict(pool.games_against)},
        "machine": {"python": platform.python_version(), "torch": torch.__version__,
                    "torch_threads": torch.get_num_threads(), "cpu": platform.processor() or
                    platform.machine()},
        "finished": datetime.now().isoformat(timespec="seconds"),
    }
    if args.game == "junqi" and episodes:
        summary["training_end_reasons"] = dict(Counter(e.get("end_reason", "?")
                                                       for e in episodes))
    (out / "run.json").write_text(json.dumps(summary, indent=2, default=str))
    print(f"{model.num_timesteps} steps in {train_seconds:.0f} s "
          f"({model.num_timesteps / train_seconds:.0f} steps/s, evaluations included), "
          f"{len(episodes)} episodes")
    for row in final:
        print(f"  vs {row['opponent']}: score {row['score']:.3f} "
              f"[{row['ci_low']:.2f}, {row['ci_high']:.2f}] over {row['games']} games "
              f"(W {row['wins']} D {row['draws']} L {row['losses']}), ends {row['end_reasons']}")
    print(f"policy: {out / POLICY_FILE} (model.zip: SB3's, to resume training)"
          + (f"\ncurve: {plot}" if plot else ""))
    print(f"arena: python scripts/arena.py --game {args.game} "
          f"{'--scenario ' + args.scenario if args.game == 'tbw' else '--rules ' + args.rules} "
          f"--agents ppo:path={out / POLICY_FILE} greedy random")
    return 0


if __name__ == "__main__":
    sys.exit(main())
