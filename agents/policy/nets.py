"""Networks for the observation planes of both games, for Stable-Baselines3 policies.

The planes are channel-first float32 in [0, 1] on small boards (TBW 8x8 to 21x21, hex boards as
offset grids, Junqi 12x5). SB3's ``CnnPolicy`` does not fit them: its NatureCNN asserts an image
space (uint8, at least 36x36 after its 8x8 stride-4 kernel) and would divide by 255. Here every
convolution is 3x3 with padding 1 and stride 1, so a board of any size keeps its shape and every
tile keeps its own column of features up to the flattening layer, which the action head needs
(actions name tiles).

Use with the "MlpPolicy" of MaskablePPO (it accepts any ``features_extractor_class``):

>>> from sb3_contrib import MaskablePPO
>>> model = MaskablePPO("MlpPolicy", env, policy_kwargs=plane_policy_kwargs())  # doctest: +SKIP

This module imports torch; ``agents`` itself does not, so the core install stays torch-free.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


class PlaneCNN(BaseFeaturesExtractor):
    """Same-padding 3x3 convolutions, then one linear layer to ``features_dim`` features.

    ``observation_space`` must be a ``(channels, rows, cols)`` Box; the planes are used as they
    are (no scaling), so build the policy with ``normalize_images=False``.
    """

    def __init__(self, observation_space: spaces.Box, features_dim: int = 256,
                 channels: Sequence[int] = (32, 32)):
        if not isinstance(observation_space, spaces.Box) or len(observation_space.shape) != 3:
            raise ValueError(
                "PlaneCNN needs a channel-first (channels, rows, cols) Box observation space, got "
                f"{observation_space!r}"
            )
        if features_dim < 1 or not channels or any(int(c) < 1 for c in channels):
            raise ValueError(
                f"PlaneCNN needs features_dim >= 1 and at least one positive channel count, got "
                f"features_dim={features_dim}, channels={tuple(channels)}"
            )
        super().__init__(observation_space, features_dim)
        in_channels, rows, cols = observation_space.shape
        layers: list[nn.Module] = []
        for out_channels in channels:
            layers += [nn.Conv2d(in_channels, int(out_channels), 3, padding=1), nn.ReLU()]
            in_channels = int(out_channels)
        self.convs = nn.Sequential(*layers, nn.Flatten())
        self.linear = nn.Sequential(nn.Linear(in_channels * rows * cols, features_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.linear(self.convs(observations))


def plane_policy_kwargs(features_dim: int = 256, channels: Sequence[int] = (32, 32),
                        net_arch: Any = None) -> dict[str, Any]:
    """``policy_kwargs`` for MaskablePPO's "MlpPolicy" with the ``PlaneCNN`` extractor.

    ``net_arch`` defaults to one shared-size hidden layer per head: the extractor already gives
    ``features_dim`` features, and SB3's default 64-unit heads would squeeze them before an action
    layer of thousands of actions.
    """
    return {
        "features_extractor_class": PlaneCNN,
        "features_extractor_kwargs": {"features_dim": int(features_dim),
                                      "channels": tuple(int(c) for c in channels)},
        "normalize_images": False,
        "net_arch": dict(pi=[256], vf=[256]) if net_arch is None else net_arch,
    }


def mlp_policy_kwargs(net_arch: Any = None) -> dict[str, Any]:
    """``policy_kwargs`` for the plain "MlpPolicy" baseline (flattened planes), the same head
    sizes as ``plane_policy_kwargs`` so the comparison is about the extractor alone."""
    return {
        "normalize_images": False,
        "net_arch": dict(pi=[256], vf=[256]) if net_arch is None else net_arch,
    }


def policy_kwargs_for(policy: str, **kwargs: Any) -> dict[str, Any]:
    """``"cnn"`` or ``"mlp"`` (the ``--policy`` of ``scripts/train_ppo.py``) as policy_kwargs."""
    if policy == "cnn":
        return plane_policy_kwargs(**kwargs)
    if policy == "mlp":
        return mlp_policy_kwargs(**kwargs)
    raise ValueError(f"unknown policy {policy!r}; expected 'cnn' or 'mlp'")
