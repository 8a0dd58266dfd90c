"""The Junqi move evaluation as a prior for a learned policy (torch-free part).

A policy that learns *on top of* the move evaluation (``agents.junqi.evaluation``) sees, beside
its observation planes, the evaluation's score of every legal move; its logits are
``beta * eval_scores + net(planes)`` (``agents.junqi.eval_prior_net.EvalPriorPolicy``), so
it starts at the one-ply evaluation agent's (``greedy``'s) strength and PPO learns a
correction (residual policy learning; cf. AlphaGo's feature-based move priors).

The scores
----------
``EvalPrior.scores(view)`` is a float32 vector with one entry per env action (3612), in the
frame of the player of ``view`` (``tbw_envs.junqi.observation``: the top player's move actions are
mirrored, ``a -> 3599 - a``), built from that player's view only, exactly as ``GreedyAgent``
scores moves: ``JunqiEvaluation(weights).context(view, make_belief(belief, view)).scores(legal)``
with the default belief (``count``) and weights (``default``). Each legal move's raw score ``s``
(piece-value units) becomes

    (s - max_legal_s) / temperature, clipped below at -clip

so the best legal move scores 0 and the others are negative: with the default temperature of 2
piece-value units a move one step of ``progress`` worse (2 units) is one logit lower, a lost
lieutenant (3 units) 1.5 logits; ``clip`` (default 15 logits, 30 units) bounds the flag's 5000
and the no-collision rule's 300 so the network's correction can still matter. The policy's
``beta`` (learned; 2 at the start) sharpens this further. Illegal actions, the deployment phase
and finished games give 0 (they are masked anyway). Whatever the scale, the policy's most
likely action at ``beta > 0`` with a zero correction is greedy's move.

``EvalPriorObservation`` wraps the Junqi single-agent env (``tbw_envs.wrappers``) to give the
learner Dict observations ``{"observation": planes, "action_mask": int8 mask, "eval_scores":
float32 scores}`` from the public ``env.aec.view(learner)``; ``EvalPriorFrame`` builds the same
from a view (for ``agents.policy.agent.PPOAgent``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from agents.junqi.belief import BELIEFS, DEFAULT_BELIEF, make_belief
from agents.junqi.evaluation import JunqiEvaluation
from tbw_envs import junqi_v0
from tbw_envs.description import Frame
from tbw_envs.games import get_game
from tbw_envs.junqi.env.single import make_junqi_single
from tbw_envs.junqi.observation import action_to_absolute
from tbw_envs.junqi.state import DEPLOY, NUM_ACTIONS

PRIOR_GAME = get_game("junqi")  # the game whose move evaluation the prior is
DEFAULT_TEMPERATURE = 2.0
DEFAULT_CLIP = 15.0
SCORES_KEY = "eval_scores"


@dataclass(frozen=True)
class EvalPrior:
    """How the move evaluation's scores are computed and normalised.

    ``weights``: an evaluation config for ``JunqiEvaluation`` (a name such as ``default``, a
    YAML path or a dict as in ``EvalConfig.to_dict()``); ``belief``: a key of
    ``agents.junqi.belief.BELIEFS`` (None: the default, as for ``greedy``); ``temperature``:
    piece-value units per logit; ``clip``: the lowest normalised score, in logits.
    """

    weights: Any = "default"
    belief: str | None = None
    temperature: float = DEFAULT_TEMPERATURE
    clip: float = DEFAULT_CLIP

    def __post_init__(self):
        if self.belief is None:
            object.__setattr__(self, "belief", DEFAULT_BELIEF)
        if self.belief not in BELIEFS:
            raise ValueError(f"unknown belief {self.belief!r}; known: {sorted(BELIEFS)}")
        for name in ("temperature", "clip"):
            value = getattr(self, name)
            if (isinstance(value, bool) or not isinstance(value, (int, float))
                    or not math.isfinite(value) or value <= 0):
                raise ValueError(f"eval prior: {name} must be a positive number, got {value!r}")
        # Fails here on unknown weights; kept for scoring (not a dataclass field).
        object.__setattr__(self, "_evaluation", JunqiEvaluation(self.weights))

    @property
    def evaluation(self):
        return self._evaluation

    def to_dict(self) -> dict[str, Any]:
        """Plain data (saved with a model): the weights in full, so a later edit of a named
        config file does not change what a saved model sees."""
        return {"weights": self.evaluation.config.to_dict(), "belief": self.belief,
                "temperature": float(self.temperature), "clip": float(self.clip)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvalPrior:
        if not isinstance(data, dict):
            raise ValueError(f"eval prior settings must be a dict, got {type(data).__name__}")
        unknown = sorted(set(data) - {"weights", "belief", "temperature", "clip"})
        if unknown:
            raise ValueError(f"eval prior settings: unknown key(s) {unknown}")
        return cls(**data)

    def raw_scores(self, view) -> tuple[np.ndarray, np.ndarray]:
        """``(env_actions, scores)``: the legal moves of ``view``'s player in that player's
        frame and their raw evaluation scores (piece-value units), as ``GreedyAgent``
        computes them. Empty arrays in the deployment phase or without a legal move."""
        legal = [] if view.phase == DEPLOY else view.legal_actions()
        if not legal:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
        context = self.evaluation.context(view, make_belief(self.belief, view))
        scores = np.asarray(context.scores(legal), dtype=np.float64)
        actions = np.array([action_to_absolute(a, view.player) for a in legal], dtype=np.int64)
        return actions, scores

    def normalise(self, raw: np.ndarray) -> np.ndarray:
        """``(raw - max) / temperature`` clipped to ``[-clip, 0]`` (see the module docstring)."""
        raw = np.asarray(raw, dtype=np.float64)
        if raw.size == 0:
            return raw.astype(np.float32)
        return np.maximum((raw - raw.max()) / self.temperature, -self.clip).astype(np.float32)

    def scores(self, view, num_actions: int | None = None) -> np.ndarray:
        """The ``eval_scores`` observation of ``view``: normalised scores at the legal env
        actions of its player, 0 elsewhere."""
        out = np.zeros(NUM_ACTIONS if num_actions is None else num_actions, dtype=np.float32)
        actions, raw = self.raw_scores(view)
        if actions.size:
            out[actions] = self.normalise(raw)
        return out

    def scores_space(self, num_actions: int) -> spaces.Box:
        return spaces.Box(-float(self.clip), 0.0, (num_actions,), np.float32)


def as_eval_prior(prior: Any) -> EvalPrior:
    """An ``EvalPrior`` from itself, a settings dict (``EvalPrior.to_dict()``) or None
    (defaults)."""
    if prior is None:
        return EvalPrior()
    if isinstance(prior, EvalPrior):
        return prior
    if isinstance(prior, dict):
        return EvalPrior.from_dict(prior)
    raise TypeError(f"expected EvalPrior settings (an EvalPrior or a dict), got {prior!r}")


def dict_observation_space(planes_space: spaces.Box, num_actions: int,
                           prior: EvalPrior) -> spaces.Dict:
    return spaces.Dict({
        "observation": planes_space,
        "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
        SCORES_KEY: prior.scores_space(num_actions),
    })


class EvalPriorObservation(gymnasium.Wrapper):
    """A Junqi ``SingleAgentEnv`` (``make_junqi_single``) whose observations are Dicts
    ``{"observation", "action_mask", "eval_scores"}`` (module docstring). ``action_masks()`` is
    the inner env's, for MaskablePPO."""

    def __init__(self, env, prior: Any = None):
        super().__init__(env)
        inner = env.unwrapped
        aec = getattr(inner, "aec", None)
        if aec is None or not hasattr(inner, "learner") or not hasattr(aec, "view"):
            raise TypeError(f"EvalPriorObservation wraps a tbw_envs SingleAgentEnv (from "
                            f"make_junqi_single), got {type(env).__name__}")
        if not isinstance(aec, junqi_v0.raw_env):
            raise ValueError("the evaluation prior exists for Junqi only (the wrapped env is "
                             f"{type(aec).__module__})")
        self.prior = as_eval_prior(prior)
        self.num_actions = int(env.action_space.n)
        planes = env.observation_space
        if isinstance(planes, spaces.Dict):
            planes = planes["observation"]
        self.observation_space = dict_observation_space(planes, self.num_actions, self.prior)

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()

    def _observation(self, obs, info) -> dict[str, np.ndarray]:
        inner = self.env.unwrapped
        planes = obs["observation"] if isinstance(obs, dict) else obs
        mask = np.asarray(info.get("action_mask", inner.action_masks()), dtype=bool)
        if inner._done:
            scores = np.zeros(self.num_actions, dtype=np.float32)
        else:
            scores = self.prior.scores(inner.aec.view(inner.learner), self.num_actions)
        return {"observation": planes, "action_mask": mask.astype(np.int8), SCORES_KEY: scores}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        return self._observation(obs, info), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._observation(obs, info), reward, terminated, truncated, info


class EvalPriorFrame:
    """A Junqi frame (``Game.frame``) whose observations are the Dicts of
    ``EvalPriorObservation``, the scores computed from the view it encodes."""

    def __init__(self, frame: Frame, prior: EvalPrior):
        self.frame = frame
        self.prior = prior
        self.shape = frame.shape
        self.num_actions = frame.num_actions

    def encode(self, view) -> tuple[dict[str, np.ndarray], np.ndarray]:
        planes, mask = self.frame.encode(view)
        return {"observation": planes, "action_mask": mask.astype(np.int8),
                SCORES_KEY: self.prior.scores(view, mask.shape[0])}, mask

    def to_core(self, view, action: int) -> int:
        return self.frame.to_core(view, action)


def make_junqi_eval_prior(opponent: Any = "random", learner_seat: int | str = 0,
                          prior: Any = None, **env_kwargs) -> EvalPriorObservation:
    """``make_junqi_single(...)`` with the evaluation prior in its observations."""
    return EvalPriorObservation(make_junqi_single(opponent=opponent, learner_seat=learner_seat,
                                                  **env_kwargs), prior)
