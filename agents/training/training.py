"""The reusable parts of a MaskablePPO training run (``scripts/train_ppo.py``): the single-agent
training env, the policy class, the model and policy files, the periodic arena evaluations and
the learning curve.

Nothing here imports torch or Stable-Baselines3 when imported (``agents.training.callbacks``
holds the SB3 callbacks), so a command line can check its arguments without them.
"""

from __future__ import annotations

import csv
import json
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.arena import GameSetup, game_factory, run_match
from agents.junqi.eval_prior import EvalPriorObservation
from agents.policy.agent import PPOAgent
from agents.policy.policy_files import save_policy
from agents.registry import make_agent
from tbw_envs.games import get_game

__all__ = [
    "EVAL_FIELDS", "PeriodicEvaluation", "evaluate", "eval_prior_settings", "make_training_env",
    "new_game_factory", "plot_learning_curve", "policy_spec", "read_eval", "read_monitor",
    "save_model_and_policy",
]

EVAL_FIELDS = ("timesteps", "opponent", "games", "wins", "draws", "losses", "score", "ci_low",
               "ci_high", "end_reasons", "seconds")
FIRST_EVAL_SEED = 10_000


# ---------------------------------------------------------------------------- env and policy


def eval_prior_settings(temperature: float, clip: float) -> dict[str, Any]:
    """The ``agents.junqi.eval_prior.EvalPrior`` settings of a run."""
    return {"temperature": temperature, "clip": clip}


def make_training_env(game: str, variant: Any, opponent: Any, learner_seat: int | str,
                      eval_prior: dict[str, Any] | None = None, **options):
    """The game's single-agent env against ``opponent``, naming the learner and the end reason
    in its infos (SB3's vector envs keep infos as dicts, so names can go into monitor.csv as
    they are); ``options`` are the game's own env keywords (TBW's ``opening_plies``, Junqi's
    ``deployment``). With ``eval_prior`` settings, the observation gains the move evaluation's
    scores (Junqi)."""
    description = get_game(game)
    env = description.single_agent_env(**description.variant_kwargs(variant), opponent=opponent,
                                       learner_seat=learner_seat, string_infos=True, **options)
    if eval_prior is not None:
        env = EvalPriorObservation(env, eval_prior)
    return env


def policy_spec(policy: str, eval_prior: dict[str, Any] | None = None,
                prior_beta: float | None = None) -> tuple[Any, dict[str, Any]]:
    """The policy class and ``policy_kwargs`` of MaskablePPO: ``"MlpPolicy"`` with the ``mlp``
    or ``cnn`` feature extractor, or with ``eval_prior`` settings the policy whose logits add
    the move evaluation's scores (``beta`` starting at ``prior_beta``)."""
    if eval_prior is not None:
        from agents.junqi.eval_prior_net import EvalPriorPolicy, eval_prior_policy_kwargs

        return EvalPriorPolicy, eval_prior_policy_kwargs(eval_prior, beta_init=prior_beta)
    from agents.policy.nets import policy_kwargs_for

    return "MlpPolicy", policy_kwargs_for(policy)


def save_model_and_policy(model: Any, stem: Path, game_info: dict[str, Any], timesteps: int,
                          policy_file: str | None = None, source: str | None = None) -> None:
    """``<stem>.zip`` (SB3's, to resume) and a policy file (``<stem>.npz``, or ``policy_file``
    beside it), which the arena and the training opponents load: it runs no code
    (``agents.policy.policy_files``)."""
    model.save(stem.with_suffix(".zip"))
    npz = stem.with_name(policy_file) if policy_file else stem.with_suffix(".npz")
    save_policy(model.policy, npz, game_info, source=source, timesteps=timesteps)


# ---------------------------------------------------------------------------- evaluation


def new_game_factory(game: str, variant: Any, opening_plies: int = 0) -> GameSetup:
    """The evaluations' games (``run_match``'s ``GameSetup``); with ``opening_plies`` each
    starts from that many random plies drawn from its seed, as in training."""
    return game_factory(game, variant, opening_plies)


def evaluate(policy: Any, game: str, new_game: GameSetup, opponent_spec: str,
             games: int, seed: int) -> dict[str, Any]:
    """``games`` seat-swapped arena games of the deterministic policy against one agent."""
    learner = PPOAgent.from_policy(policy, game, threads=0)
    learner.name = "learner"
    opponent = make_agent(opponent_spec, seed=seed, game=game)
    start = time.perf_counter()
    result = run_match(new_game, learner, opponent, games, seed=seed)
    score = result.score("learner")
    reasons = Counter(g.end_reason for g in result.games)
    return {
        "opponent": opponent_spec, "games": games, "wins": score["wins"],
        "draws": score["draws"], "losses": score["losses"], "score": round(score["score"], 4),
        "ci_low": round(score["ci_low"], 4), "ci_high": round(score["ci_high"], 4),
        "end_reasons": json.dumps(dict(sorted(reasons.items()))),
        "seconds": round(time.perf_counter() - start, 2),
    }


class PeriodicEvaluation:
    """A run's evaluations, each round ``games`` games against every opponent: one ``eval.csv``
    row per opponent (the file is started here), fresh seeds each round (the same games again
    would only measure one opening set), and with ``track_beta`` the eval-prior policy's
    learned beta at each round."""

    def __init__(self, path: Path, game: str, new_game: GameSetup,
                 opponents: Sequence[str], games: int, track_beta: bool = False,
                 first_seed: int = FIRST_EVAL_SEED):
        self.path = path
        self.game = game
        self.new_game = new_game
        self.opponents = list(opponents)
        self.games = games
        self.track_beta = track_beta
        self.seed = first_seed
        self.beta_history: list[tuple[int, float]] = []
        with path.open("w", newline="") as f:
            csv.DictWriter(f, EVAL_FIELDS).writeheader()

    def run(self, policy: Any, timesteps: int) -> list[dict[str, Any]]:
        rows = []
        if self.track_beta:
            self.beta_history.append((timesteps, round(float(policy.beta.detach()), 4)))
        for opponent in self.opponents:
            if self.games == 0:
                break
            row = {"timesteps": timesteps,
                   **evaluate(policy, self.game, self.new_game, opponent, self.games,
                              self.seed)}
            rows.append(row)
            with self.path.open("a", newline="") as f:
                csv.DictWriter(f, EVAL_FIELDS).writerow(row)
        self.seed += self.games
        return rows


# ---------------------------------------------------------------------------- learning curve


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
    periodic evaluations with their Wilson intervals, from ``out``'s monitor.csv and eval.csv
    to its learning_curve.png."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no learning-curve PNG (pip install matplotlib)")
        return None
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
