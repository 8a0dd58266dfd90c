"""A trained MaskablePPO policy (``scripts/train_ppo.py``) as an arena agent, for either seat.

The agent rebuilds from a game-core view exactly what the single-agent wrapper
(``tbw_envs.wrappers``) gave the learner during training, with the game's frame
(``Game.frame``: the encoders the environments use):

- TBW: with ``flip`` (the env's ``flip_perspective``, on by default) side 1 sees the board
  turned 180 degrees and names destination tiles in that turned frame, so the legal mask and
  the chosen action are mapped through the tile rotation.
- Junqi: the planes and mask in the player's own frame; a deployment-phase view is played by
  the policy too (its planes and mask cover deployment).
- Junqi with the evaluation prior (``scripts/train_ppo.py --eval-prior``; the policy is an
  ``agents.junqi.eval_prior_net.EvalPriorPolicy``, which carries the prior's settings): the
  Dict observation of ``agents.junqi.eval_prior.EvalPriorObservation``, whose
  ``eval_scores`` the agent computes from the view it is handed (``EvalPriorFrame``).

The policy comes from a policy file (``agents.policy.policy_files``: loading runs no code),
cached per file because the arena builds a new agent for every game. torch and sb3-contrib are
imported only when a policy is loaded: ``import agents`` works without the ``train`` extra.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np

from agents.common.params import MAX_THREADS
from agents.junqi.eval_prior import PRIOR_GAME, EvalPriorFrame, as_eval_prior
from agents.policy.architectures import require_train_extra
from agents.policy.policy_files import load_policy
from tbw_envs.games import Game, game_names, get_game, registered_games


def _view_game(view) -> Game:
    for game in registered_games():
        if game.has_frame and game.is_view(view):
            return game
    raise TypeError(f"PPOAgent cannot tell which game a {type(view).__name__} view is from")


def _as_bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no"):
        return value.lower() in ("true", "yes")
    raise ValueError(f"PPOAgent: {name} must be true/false (or 1/0), got {value!r}")


class PPOAgent:
    """Plays a MaskablePPO policy: the most likely legal action (``deterministic=True``) or one
    sampled from the masked distribution with its own seeded generator (``False``).

    Registry spec: ``ppo:path=runs/ppo-tbw-.../policy.npz`` (a policy file, or the run folder
    that holds one; add ``,deterministic=0`` to sample, ``,threads=N`` to change torch's thread
    count, 0 leaves torch's default). ``deterministic`` defaults to the file's setting.
    ``game`` (a registered game's name) and ``variant`` (its scenario or rule set: a name, a
    path or a loaded one) say what the agent is about to play: a policy for another game or
    board is refused here, when the agent is built, not at its first move. ``self.game``,
    ``observation_shape`` and ``num_actions`` say what it plays (``tbw_envs.wrappers`` checks
    an opponent's).
    """

    name = "ppo"

    def __init__(self, path: str | os.PathLike | None = None, deterministic: Any = None,
                 seed: int | None = None, threads: int = 1, *, game: str | None = None,
                 variant: Any = None, policy: Any = None,
                 game_info: dict[str, Any] | None = None):
        torch = require_train_extra("PPOAgent")
        if (path is None) == (policy is None):
            raise ValueError("PPOAgent needs exactly one of path= (a policy.npz) or policy=")
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise ValueError(f"PPOAgent: path must be a file path, got {path!r:.80}")
        if (not isinstance(threads, int) or isinstance(threads, bool)
                or not 0 <= threads <= MAX_THREADS):
            raise ValueError(
                f"PPOAgent: threads must be an int in [0, {MAX_THREADS}], got {threads!r:.80}"
            )
        if game is not None and game not in game_names():
            raise ValueError(f"PPOAgent: game must be one of {list(game_names())}, got "
                             f"{game!r:.80}")
        chosen = None if deterministic is None else _as_bool(deterministic, "deterministic")
        if threads:
            # On a small shared machine torch's default threading is slower for these tiny
            # networks (see README, Training).
            torch.set_num_threads(threads)
        if path is not None:
            policy, saved_info = load_policy(path)
            game_info = {**saved_info, **(game_info or {})}
        self.path = None if path is None else str(path)
        self.policy = policy
        self.game_info = dict(game_info or {})
        self.deterministic = (_as_bool(self.game_info.get("deterministic", True),
                                       "deterministic") if chosen is None else chosen)
        model_game = self.game_info.get("game")
        if model_game is not None and model_game not in game_names():
            raise ValueError(f"PPOAgent: model trained on unknown game {model_game!r}")
        source = f" {self.path}" if self.path else ""
        if game is not None and model_game not in (None, game):
            raise ValueError(f"PPOAgent: model{source} was trained on {model_game}, cannot play "
                             f"{game}")
        self.flip = _as_bool(self.game_info.get("flip_perspective", True), "flip_perspective")
        # An EvalPriorPolicy carries the evaluation prior's settings (in its policy file).
        prior_settings = getattr(policy, "eval_prior", None)
        self.prior = None
        if prior_settings is not None:
            if model_game not in (None, PRIOR_GAME.name) or game not in (None, PRIOR_GAME.name):
                raise ValueError(f"PPOAgent: an evaluation-prior model plays {PRIOR_GAME.title}, "
                                 f"not {game or model_game}")
            self.prior = as_eval_prior(prior_settings)
            self.game_info.setdefault("game", PRIOR_GAME.name)
            self.observation_shape = tuple(policy.observation_space["observation"].shape)
        else:
            self.observation_shape = tuple(policy.observation_space.shape)
        self.num_actions = int(policy.action_space.n)
        self.game = self.game_info.get("game") or game
        if variant is not None:
            played = game or model_game
            if played is None:
                raise ValueError("PPOAgent: variant= needs game= (or a policy file that names "
                                 "its game) to say whose variant it is")
            self._check_variant(get_game(played), variant, source)
        self._rng = np.random.default_rng(seed)
        self._codecs: dict[tuple[str, int], Any] = {}

    def _check_variant(self, game: Game, variant: Any, source: str) -> None:
        """Refuse a board the policy's sizes do not fit; warn about another one of the same
        sizes, which it plays without having seen it."""
        loaded = game.load_variant(variant)
        frame = game.frame(loaded, self.flip)
        # What the policy file names (agents.policy.policy_metadata: a bundled one, checked
        # to fit, or a file path).
        trained = self.game_info.get(game.variant_flag)
        trained_on = (f" (trained on {game.variant_noun} {trained!r})"
                      if isinstance(trained, str) else "")
        if frame.shape != self.observation_shape or frame.num_actions != self.num_actions:
            raise ValueError(
                f"PPOAgent: model{source}{trained_on} expects observations "
                f"{self.observation_shape} and {self.num_actions} actions; "
                f"{game.variant_noun} {loaded.name!r} gives {frame.shape} and "
                f"{frame.num_actions}")
        if isinstance(trained, str) and trained in game.variants() and trained != loaded.name:
            warnings.warn(
                f"PPOAgent: model{source} was trained on {game.variant_noun} {trained!r} and "
                f"is to play {game.variant_noun} {loaded.name!r}: the sizes fit, but it has "
                f"never seen this {game.variant_noun}", UserWarning, stacklevel=3)

    @classmethod
    def from_policy(cls, policy: Any, game: str, flip_perspective: bool = True,
                    deterministic: bool = True, seed: int | None = None,
                    threads: int = 1) -> PPOAgent:
        """An agent over an in-memory policy (``model.policy``), e.g. to evaluate while training."""
        return cls(policy=policy, game_info={"game": game, "flip_perspective": flip_perspective},
                   deterministic=deterministic, seed=seed, threads=threads)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def _played_game(self, view) -> Game:
        """The game ``view`` is played in: the policy's own game where it names one (two games
        may share a view type, as a description subclassed under another name does), else the
        first game that knows the view."""
        expected = self.game_info.get("game")
        if expected is None:
            return _view_game(view)
        game = get_game(expected)
        if not game.is_view(view):
            source = f" {self.path}" if self.path else ""
            raise ValueError(f"PPOAgent: model{source} was trained on {expected}, asked to play "
                             f"{_view_game(view).name}")
        return game

    def _codec(self, view):
        """The frame (observation, mask and action mapping) of ``view``'s game and variant."""
        game = self._played_game(view)
        variant = game.view_variant(view)
        key = (game.name, id(variant))
        codec = self._codecs.get(key)
        if codec is None:
            codec = game.frame(variant, self.flip)
            if self.prior is not None:
                codec = EvalPriorFrame(codec, self.prior)
            self._codecs[key] = codec
        return codec

    def encode(self, view) -> tuple[Any, np.ndarray]:
        """The learner's observation and boolean legal mask for ``view``, in the frame of the
        player to move (what the wrapper gives the learner in that seat): planes, or for an
        evaluation-prior model the Dict ``{"observation", "action_mask", "eval_scores"}``."""
        obs, mask = self._codec(view).encode(view)
        planes = obs["observation"] if isinstance(obs, dict) else obs
        if planes.shape != self.observation_shape or mask.shape != (self.num_actions,):
            game = self._played_game(view)
            where = f"{game.variant_noun} {game.view_variant(view).name!r}"
            raise ValueError(
                f"PPOAgent: the model expects observations {self.observation_shape} and "
                f"{self.num_actions} actions; {where} gives {planes.shape} and {mask.shape[0]}"
            )
        return obs, mask

    def action_probabilities(self, view) -> np.ndarray:
        """The policy's masked action distribution for ``view`` (in the player's frame)."""
        return self._probabilities(*self.encode(view))

    def _probabilities(self, obs: Any, mask: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            device = self.policy.device
            if isinstance(obs, dict):
                tensor = {key: torch.as_tensor(value[None], device=device).float()
                          for key, value in obs.items()}
            else:
                tensor = torch.as_tensor(obs[None], device=device)
            distribution = self.policy.get_distribution(tensor, action_masks=mask[None])
            return distribution.distribution.probs[0].cpu().numpy().astype(np.float64)

    def move_probabilities(self, view, moves) -> list[float]:
        """The policy's probability of each of ``moves`` (the game core's actions) in
        ``view``, in their order: a prior for a search (``ismcts:policy=...``)."""
        codec = self._codec(view)
        obs, mask = self.encode(view)
        probs = self._probabilities(obs, mask)
        by_move = {int(codec.to_core(view, int(a))): float(probs[a]) for a in np.flatnonzero(mask)}
        return [by_move.get(int(move), 0.0) for move in moves]

    def act(self, view) -> int:
        codec = self._codec(view)
        obs, mask = self.encode(view)
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError(f"{self.name}: the view has no legal action (is the game over?)")
        probs = self._probabilities(obs, mask)[legal]
        if self.deterministic:
            choice = int(legal[int(np.argmax(probs))])
        else:
            total = probs.sum()
            # Masked logits leave illegal actions at exactly zero; renormalising over the legal
            # ones only absorbs float rounding.
            p = probs / total if total > 0 else np.full(legal.size, 1.0 / legal.size)
            choice = int(self._rng.choice(legal, p=p))
        return int(codec.to_core(view, choice))
