"""A MaskablePPO policy whose logits are ``beta * eval_scores + net(planes)`` (needs torch).

Observations are the Dicts of ``agents.junqi.eval_prior.EvalPriorObservation``: ``observation``
(Junqi's 39 x 12 x 5 planes), ``action_mask`` and ``eval_scores`` (the move evaluation's
normalised score of every legal move, 0 at the best one, negative elsewhere).

- ``PriorPlanesExtractor`` feeds the planes alone to ``agents.policy.nets.PlaneCNN``; the
  policy and value heads (SB3's ``mlp_extractor``) read its features, so the value head sees
  the planes.
- ``EvalPriorPolicy`` (a ``MaskableActorCriticPolicy``) adds ``beta * eval_scores`` to the action
  net's logits. ``beta = exp(log_beta)`` is one learned scalar (positive), ``beta_init`` (2) at
  the start; the action net (the correction's last layer) starts orthogonal with gain
  ``correction_init`` (0.01, SB3's usual gain for it; 0 starts it at exactly zero), so the
  correction starts near zero and the initial policy's most likely move is greedy's.
  ``learn_beta=False`` freezes ``beta``.
- The prior's settings (``agents.junqi.eval_prior.EvalPrior.to_dict()``) are a constructor
  argument, so they are saved in the policy file (``agents.policy.policy_files.save_policy``:
  the architecture's ``eval_prior`` entry, with ``beta_init``, ``learn_beta`` and
  ``correction_init``) and ``agents.policy.agent.PPOAgent`` rebuilds the same policy and
  scores from it.

>>> model = MaskablePPO(EvalPriorPolicy, make_junqi_eval_prior(opponent=...),
...                     policy_kwargs=eval_prior_policy_kwargs())  # doctest: +SKIP
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from agents.junqi.eval_prior import SCORES_KEY, as_eval_prior
from agents.policy.nets import PlaneCNN, plane_policy_kwargs

DEFAULT_BETA = 2.0


class PriorPlanesExtractor(BaseFeaturesExtractor):
    """``PlaneCNN`` over the ``observation`` entry of the Dict (the scores reach the logits
    directly, in ``EvalPriorPolicy``)."""

    def __init__(self, observation_space: spaces.Dict, features_dim: int = 256,
                 channels: Sequence[int] = (32, 32)):
        if not isinstance(observation_space, spaces.Dict) or not {
                "observation", SCORES_KEY} <= set(observation_space.spaces):
            raise ValueError("PriorPlanesExtractor needs the Dict observations of "
                             "agents.junqi.eval_prior.EvalPriorObservation ('observation' and "
                             f"'{SCORES_KEY}'), got {observation_space!r}")
        super().__init__(observation_space, features_dim)
        self.cnn = PlaneCNN(observation_space["observation"], features_dim, channels)

    def forward(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.cnn(observations["observation"])


class EvalPriorPolicy(MaskableActorCriticPolicy):
    """Action logits ``beta * eval_scores + action_net(latent_pi)`` (module docstring)."""

    def __init__(self, observation_space, action_space, lr_schedule, *args,
                 beta_init: float = DEFAULT_BETA, learn_beta: bool = True,
                 correction_init: float = 0.01, eval_prior: dict[str, Any] | None = None,
                 **kwargs):
        if (isinstance(beta_init, bool) or not isinstance(beta_init, (int, float))
                or not math.isfinite(beta_init) or beta_init <= 0):
            raise ValueError(f"EvalPriorPolicy: beta_init must be a positive number, "
                             f"got {beta_init!r}")
        if not isinstance(correction_init, (int, float)) or correction_init < 0:
            raise ValueError(f"EvalPriorPolicy: correction_init must be >= 0, "
                             f"got {correction_init!r}")
        if (not isinstance(observation_space, spaces.Dict)
                or SCORES_KEY not in observation_space.spaces):
            raise ValueError(f"EvalPriorPolicy needs Dict observations with '{SCORES_KEY}' "
                             "(wrap the env in agents.junqi.eval_prior.EvalPriorObservation)")
        if observation_space[SCORES_KEY].shape != (int(action_space.n),):
            raise ValueError(f"EvalPriorPolicy: '{SCORES_KEY}' has shape "
                             f"{observation_space[SCORES_KEY].shape}, the action space "
                             f"{int(action_space.n)} actions")
        self.beta_init = float(beta_init)
        self.learn_beta = bool(learn_beta)
        self.correction_init = float(correction_init)
        # Checked and completed (weights in full) now, so the saved model is self-contained.
        self.eval_prior = as_eval_prior(eval_prior).to_dict()
        kwargs.setdefault("features_extractor_class", PriorPlanesExtractor)
        kwargs.setdefault("normalize_images", False)
        super().__init__(observation_space, action_space, lr_schedule, *args, **kwargs)

    def _build(self, lr_schedule) -> None:
        # Before super()._build, which creates the optimizer over self.parameters().
        self.log_beta = nn.Parameter(torch.tensor(math.log(self.beta_init)),
                                     requires_grad=self.learn_beta)
        super()._build(lr_schedule)
        # Whatever ortho_init says: the correction starts small (or exactly zero).
        if self.correction_init > 0:
            self.action_net.apply(partial(self.init_weights, gain=self.correction_init))
        else:
            nn.init.zeros_(self.action_net.weight)
            nn.init.zeros_(self.action_net.bias)

    @property
    def beta(self) -> torch.Tensor:
        return self.log_beta.exp()

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(beta_init=self.beta_init, learn_beta=self.learn_beta,
                    correction_init=self.correction_init, eval_prior=self.eval_prior)
        return data

    # -- the logits
    def correction_logits(self, latent_pi: torch.Tensor) -> torch.Tensor:
        return self.action_net(latent_pi)

    def _distribution(self, latent_pi: torch.Tensor, obs: dict[str, torch.Tensor],
                      action_masks=None):
        logits = self.correction_logits(latent_pi) + self.beta * obs[SCORES_KEY]
        distribution = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution

    def _latents(self, obs):
        features = self.extract_features(obs)
        if self.share_features_extractor:
            return self.mlp_extractor(features)
        pi_features, vf_features = features
        return (self.mlp_extractor.forward_actor(pi_features),
                self.mlp_extractor.forward_critic(vf_features))

    def forward(self, obs, deterministic: bool = False, action_masks: np.ndarray | None = None):
        latent_pi, latent_vf = self._latents(obs)
        values = self.value_net(latent_vf)
        distribution = self._distribution(latent_pi, obs, action_masks)
        actions = distribution.get_actions(deterministic=deterministic)
        log_prob = distribution.log_prob(actions)
        actions = actions.reshape((-1, *self.action_space.shape))
        return actions, values, log_prob

    def evaluate_actions(self, obs, actions: torch.Tensor, action_masks=None):
        latent_pi, latent_vf = self._latents(obs)
        distribution = self._distribution(latent_pi, obs, action_masks)
        log_prob = distribution.log_prob(actions)
        values = self.value_net(latent_vf)
        return values, log_prob, distribution.entropy()

    def get_distribution(self, obs, action_masks: np.ndarray | None = None):
        features = super(MaskableActorCriticPolicy, self).extract_features(
            obs, self.pi_features_extractor)
        latent_pi = self.mlp_extractor.forward_actor(features)
        return self._distribution(latent_pi, obs, action_masks)


def eval_prior_policy_kwargs(eval_prior: Any = None, beta_init: float = DEFAULT_BETA,
                             learn_beta: bool = True, features_dim: int = 256,
                             channels: Sequence[int] = (32, 32),
                             net_arch: Any = None) -> dict[str, Any]:
    """``policy_kwargs`` for ``MaskablePPO(EvalPriorPolicy, ...)``: the same CNN and heads as
    ``agents.policy.nets.plane_policy_kwargs`` over the planes, plus the prior's settings."""
    return plane_policy_kwargs(features_dim, channels, net_arch) | {
        "features_extractor_class": PriorPlanesExtractor,
        "beta_init": float(beta_init),
        "learn_beta": bool(learn_beta),
        "eval_prior": as_eval_prior(eval_prior).to_dict(),
    }
