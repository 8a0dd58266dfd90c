"""A saved MaskablePPO model (``scripts/train_ppo.py``) as an arena agent, for either seat.

The agent rebuilds from a game-core view exactly what the single-agent wrapper
(``tbw_envs.wrappers``) gave the learner during training, with the same public encoders the
environments use:

- TBW: ``ObservationEncoder(scenario, flip).encode(view, side)``; with ``flip`` (the env's
  ``flip_perspective``, on by default) side 1 sees the board turned 180 degrees and names
  destination tiles in that turned frame, so the legal mask and the chosen action are mapped
  through the tile rotation ``t -> size - 1 - t`` (``Scenario.split_action`` / ``unit_action``).
- Junqi: ``observation_planes(view)``, ``legal_mask_in_frame`` and ``action_to_absolute``.
  A deployment-phase view is played by the policy too (its planes and mask cover deployment).
- Junqi with the evaluation prior (``scripts/train_ppo.py --eval-prior``; the policy is an
  ``agents.eval_prior_net.EvalPriorPolicy``, which carries the prior's settings): the Dict
  observation of ``agents.eval_prior.EvalPriorObservation``, whose ``eval_scores`` the agent
  computes from the view it is handed (``EvalPrior.scores(view)``).

The arena builds a new agent for every game, so loaded models are cached per file (path,
size and modification time). torch and sb3-contrib are imported only when a model is loaded:
``import agents`` works without the ``train`` extra.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

GAMES = ("tbw", "junqi")
# The attribute train_ppo.py sets on the model before saving; SB3 stores every plain attribute
# in model.zip, so checkpoints and the final model both say what they were trained on.
GAME_INFO_ATTRIBUTE = "tbw_envs_game"

_MODEL_CACHE: dict[tuple[str, int, int], tuple[Any, dict[str, Any]]] = {}


def _require_train_extra(what: str):
    try:
        import sb3_contrib  # noqa: F401
        import torch
    except ImportError as exc:
        raise ImportError(
            f"{what} needs torch and sb3-contrib (the train extra): "
            f"pip install -c constraints.txt -e '.[train]' ({exc})"
        ) from None
    return torch


def load_policy(path: str | os.PathLike) -> tuple[Any, dict[str, Any]]:
    """The policy of a saved MaskablePPO model and its game info (``{}`` if it has none),
    cached per file version."""
    _require_train_extra("loading a PPO model")
    from sb3_contrib import MaskablePPO

    resolved = Path(path).expanduser()
    if not resolved.is_file():
        # SB3 appends ".zip" to a path without it; accept the same spelling.
        with_zip = resolved.with_name(resolved.name + ".zip")
        if resolved.suffix != ".zip" and with_zip.is_file():
            resolved = with_zip
        else:
            raise FileNotFoundError(f"PPO model {str(path)!r} not found (expected a model.zip "
                                    f"written by scripts/train_ppo.py)")
    resolved = resolved.resolve()
    stat = resolved.stat()
    key = (str(resolved), stat.st_size, stat.st_mtime_ns)
    if key not in _MODEL_CACHE:
        model = MaskablePPO.load(str(resolved), device="cpu")
        info = dict(getattr(model, GAME_INFO_ATTRIBUTE, None) or {})
        policy = model.policy
        policy.set_training_mode(False)
        _MODEL_CACHE[key] = (policy, info)
    return _MODEL_CACHE[key]


class _TBWCodec:
    """Observation, mask and action mapping for one TBW scenario, as tbw_v0 builds them."""

    def __init__(self, scenario, flip: bool):
        from tbw_envs.tbw.observation import ObservationEncoder

        self.encoder = ObservationEncoder(scenario, flip=flip)
        self.flip = flip
        n_actions = scenario.num_actions
        size = scenario.board.size
        rotation = np.arange(n_actions)
        for action in range(n_actions - 1):  # the last action is END_TURN, the same in both
            slot, tile, enemy = scenario.split_action(action)
            rotation[action] = scenario.unit_action(slot, size - 1 - tile, enemy)
        self.rotation = rotation  # its own inverse: frame action <-> core action

    def encode(self, view) -> tuple[np.ndarray, np.ndarray]:
        side = view.current_player
        obs = self.encoder.encode(view, side)
        mask = np.asarray(view.legal_action_mask(), dtype=bool)
        if self.flip and side == 1:
            mask = mask[self.rotation]
        return obs, mask

    def to_core(self, view, action: int) -> int:
        if self.flip and view.current_player == 1:
            return int(self.rotation[action])
        return int(action)


class _JunqiCodec:
    def __init__(self, prior: Any = None):
        self.prior = prior  # an agents.eval_prior.EvalPrior: Dict observations with its scores

    def encode(self, view) -> tuple[Any, np.ndarray]:
        from tbw_envs.junqi.encoding import legal_mask_in_frame, observation_planes

        mask = legal_mask_in_frame(view.legal_actions(), view.player).astype(bool)
        planes = observation_planes(view)
        if self.prior is None:
            return planes, mask
        from agents.eval_prior import SCORES_KEY

        return {"observation": planes, "action_mask": mask.astype(np.int8),
                SCORES_KEY: self.prior.scores(view, mask.shape[0])}, mask

    def to_core(self, view, action: int) -> int:
        from tbw_envs.junqi.encoding import action_to_absolute

        return int(action_to_absolute(int(action), view.player))


def _view_game(view) -> str:
    # A TBW view is a TBWState (it carries its scenario); a Junqi view is a JunqiView.
    if hasattr(view, "scenario") and hasattr(view, "legal_action_mask"):
        return "tbw"
    if hasattr(view, "possible") and hasattr(view, "phase"):
        return "junqi"
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

    Registry spec: ``ppo:path=runs/ppo-tbw-.../model.zip`` (add ``,deterministic=0`` to sample,
    ``,threads=N`` to change torch's thread count; 0 leaves torch's default).
    """

    name = "ppo"

    def __init__(self, path: str | os.PathLike | None = None, deterministic: Any = True,
                 seed: int | None = None, threads: int = 1, *, policy: Any = None,
                 game_info: dict[str, Any] | None = None):
        torch = _require_train_extra("PPOAgent")
        if (path is None) == (policy is None):
            raise ValueError("PPOAgent needs exactly one of path= (a saved model.zip) or policy=")
        if not isinstance(threads, int) or isinstance(threads, bool) or threads < 0:
            raise ValueError(f"PPOAgent: threads must be an int >= 0, got {threads!r}")
        self.deterministic = _as_bool(deterministic, "deterministic")
        if threads:
            # On a small shared machine torch's default threading is many times slower for
            # these tiny networks (see README, Training).
            torch.set_num_threads(threads)
        if path is not None:
            policy, saved_info = load_policy(str(path))
            game_info = {**saved_info, **(game_info or {})}
        self.path = None if path is None else str(path)
        self.policy = policy
        self.game_info = dict(game_info or {})
        game = self.game_info.get("game")
        if game is not None and game not in GAMES:
            raise ValueError(f"PPOAgent: model trained on unknown game {game!r}")
        self.flip = _as_bool(self.game_info.get("flip_perspective", True), "flip_perspective")
        # An EvalPriorPolicy carries the evaluation prior's settings (saved in model.zip).
        prior_settings = getattr(policy, "eval_prior", None)
        self.prior = None
        if prior_settings is not None:
            if game not in (None, "junqi"):
                raise ValueError(f"PPOAgent: an evaluation-prior model plays Junqi, not {game}")
            from agents.eval_prior import as_eval_prior

            self.prior = as_eval_prior(prior_settings)
            self.game_info.setdefault("game", "junqi")
            self.observation_shape = tuple(policy.observation_space["observation"].shape)
        else:
            self.observation_shape = tuple(policy.observation_space.shape)
        self.num_actions = int(policy.action_space.n)
        self._rng = np.random.default_rng(seed)
        self._codecs: dict[int, Any] = {}

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

    def _codec(self, view):
        game = _view_game(view)
        expected = self.game_info.get("game")
        if expected is not None and expected != game:
            source = f" {self.path}" if self.path else ""
            raise ValueError(f"PPOAgent: model{source} was trained on {expected}, asked to play "
                             f"{game}")
        key = id(view.scenario) if game == "tbw" else 0
        codec = self._codecs.get(key)
        if codec is None:
            codec = (_TBWCodec(view.scenario, self.flip) if game == "tbw"
                     else _JunqiCodec(self.prior))
            self._codecs[key] = codec
        return codec

    def encode(self, view) -> tuple[Any, np.ndarray]:
        """The learner's observation and boolean legal mask for ``view``, in the frame of the
        player to move (what the wrapper gives the learner in that seat): planes, or for an
        evaluation-prior model the Dict ``{"observation", "action_mask", "eval_scores"}``."""
        obs, mask = self._codec(view).encode(view)
        planes = obs["observation"] if isinstance(obs, dict) else obs
        if planes.shape != self.observation_shape or mask.shape != (self.num_actions,):
            where = f"scenario {view.scenario.name!r}" if hasattr(view, "scenario") else "this game"
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
        return codec.to_core(view, choice)
