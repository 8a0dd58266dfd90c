"""The policy architectures a policy file may hold: described from a policy, counted, and
rebuilt with the project's own classes.

``kind`` names the architecture: ``mlp`` (SB3's flattening extractor), ``cnn``
(``agents.policy.nets.PlaneCNN``) or ``eval_prior``
(``agents.junqi.eval_prior_net.EvalPriorPolicy`` over a ``PlaneCNN``). torch and sb3-contrib
are imported only when a policy is described or built, so that the agent that plays a policy
can be imported without the ``train`` extra.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from agents.junqi.eval_prior import as_eval_prior, dict_observation_space

ARCHITECTURES = ("mlp", "cnn", "eval_prior")
ACTIVATIONS = ("tanh", "relu", "elu", "leaky_relu")


def require_train_extra(what: str):
    """torch, after checking that torch and sb3-contrib import; else an ImportError that names
    the ``train`` extra."""
    try:
        import sb3_contrib  # noqa: F401
        import torch
    except ImportError as exc:
        raise ImportError(
            f"{what} needs torch and sb3-contrib (the train extra): "
            f"pip install -c constraints.txt -e '.[train]' ({exc})"
        ) from None
    return torch


def _activations() -> dict[str, Any]:
    from torch import nn

    return dict(zip(ACTIVATIONS, (nn.Tanh, nn.ReLU, nn.ELU, nn.LeakyReLU), strict=True))


def _head_layers(net_arch: Any) -> dict[str, list[int]]:
    """SB3's ``net_arch`` (a list for both heads, or ``{"pi": [...], "vf": [...]}``) as a dict."""
    if isinstance(net_arch, dict):
        return {"pi": [int(w) for w in net_arch.get("pi", [])],
                "vf": [int(w) for w in net_arch.get("vf", [])]}
    return {"pi": [int(w) for w in net_arch], "vf": [int(w) for w in net_arch]}


def describe_policy(policy: Any) -> tuple[dict[str, Any], tuple[int, ...], int]:
    """``(architecture, observation_shape, num_actions)`` of a policy this module can rebuild;
    any other policy (another class, extractor or activation) raises ``ValueError``."""
    require_train_extra("describing a PPO policy")
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from agents.policy.nets import PlaneCNN

    if not isinstance(policy.action_space, spaces.Discrete):
        raise ValueError(f"only Discrete action spaces are supported, got {policy.action_space}")
    activation = next((name for name, cls in _activations().items()
                       if policy.activation_fn is cls), None)
    if activation is None:
        raise ValueError(f"unsupported activation {policy.activation_fn!r}; supported: "
                         f"{sorted(_activations())}")
    arch: dict[str, Any] = {
        "net_arch": _head_layers(policy.net_arch), "activation": activation,
        "share_features_extractor": bool(policy.share_features_extractor),
        "normalize_images": bool(policy.normalize_images),
    }
    extractor = policy.features_extractor
    if type(policy).__name__ == "EvalPriorPolicy":
        from agents.junqi.eval_prior_net import EvalPriorPolicy, PriorPlanesExtractor

        if type(policy) is not EvalPriorPolicy or type(extractor) is not PriorPlanesExtractor:
            raise ValueError(f"unsupported policy {type(policy).__qualname__} with extractor "
                             f"{type(extractor).__qualname__}")
        arch.update(kind="eval_prior", beta_init=float(policy.beta_init),
                    learn_beta=bool(policy.learn_beta),
                    correction_init=float(policy.correction_init),
                    eval_prior=policy.eval_prior)
        extractor = extractor.cnn
        observation_shape = tuple(policy.observation_space["observation"].shape)
    elif type(policy) is MaskableActorCriticPolicy:
        if type(extractor) is FlattenExtractor:
            arch["kind"] = "mlp"
        elif type(extractor) is not PlaneCNN:
            raise ValueError(f"unsupported features extractor {type(extractor).__qualname__}; "
                             "supported: SB3's FlattenExtractor, agents.policy.nets.PlaneCNN")
        observation_shape = tuple(policy.observation_space.shape)
    else:
        raise ValueError(f"unsupported policy class {type(policy).__qualname__}; supported: "
                         "MaskableActorCriticPolicy, "
                         "agents.junqi.eval_prior_net.EvalPriorPolicy")
    if type(extractor) is PlaneCNN:
        arch.setdefault("kind", "cnn")
        arch["features_dim"] = int(extractor.features_dim)
        arch["channels"] = [int(m.out_channels) for m in extractor.convs
                            if hasattr(m, "out_channels")]
    return arch, tuple(int(d) for d in observation_shape), int(policy.action_space.n)


def parameter_count(arch: dict[str, Any], shape: tuple[int, ...], num_actions: int) -> int:
    """How many numbers the policy of ``arch`` holds (to bound it before building it)."""
    planes, rows, cols = shape
    if arch["kind"] == "mlp":
        extractor, features = 0, planes * rows * cols
    else:
        extractor, width = 0, planes
        for channels in arch["channels"]:
            extractor += width * channels * 9 + channels
            width = channels
        features = arch["features_dim"]
        extractor += width * rows * cols * features + features
    count = extractor * (1 if arch["share_features_extractor"] else 2)
    for head, outputs in (("pi", num_actions), ("vf", 1)):
        width = features
        for layer in arch["net_arch"][head]:
            count += width * layer + layer
            width = layer
        count += width * outputs + outputs
    return count + (arch["kind"] == "eval_prior")


def build_policy(arch: dict[str, Any], observation_shape: tuple[int, ...], num_actions: int):
    """A fresh policy of a checked architecture (``policy_metadata.check_metadata``): our own
    classes only."""
    torch = require_train_extra("building a PPO policy")
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    planes = spaces.Box(0.0, 1.0, tuple(observation_shape), np.float32)
    action_space = spaces.Discrete(num_actions)
    kwargs: dict[str, Any] = {
        "net_arch": {"pi": list(arch["net_arch"]["pi"]), "vf": list(arch["net_arch"]["vf"])},
        "activation_fn": _activations()[arch["activation"]],
        "share_features_extractor": arch["share_features_extractor"],
        "normalize_images": arch["normalize_images"],
        "ortho_init": False,  # the weights are replaced anyway
    }
    cnn_kwargs = ({"features_dim": arch["features_dim"], "channels": tuple(arch["channels"])}
                  if arch["kind"] != "mlp" else None)

    def lr_schedule(_progress: float) -> float:
        return 0.0

    with torch.no_grad():
        if arch["kind"] == "eval_prior":
            from agents.junqi.eval_prior_net import EvalPriorPolicy, PriorPlanesExtractor

            prior = as_eval_prior(arch["eval_prior"])
            space = dict_observation_space(planes, num_actions, prior)
            policy = EvalPriorPolicy(
                space, action_space, lr_schedule, beta_init=arch["beta_init"],
                learn_beta=arch["learn_beta"], correction_init=arch["correction_init"],
                eval_prior=arch["eval_prior"], features_extractor_class=PriorPlanesExtractor,
                features_extractor_kwargs=cnn_kwargs, **kwargs)
        elif arch["kind"] == "cnn":
            from agents.policy.nets import PlaneCNN

            policy = MaskableActorCriticPolicy(
                planes, action_space, lr_schedule, features_extractor_class=PlaneCNN,
                features_extractor_kwargs=cnn_kwargs, **kwargs)
        else:
            policy = MaskableActorCriticPolicy(planes, action_space, lr_schedule, **kwargs)
    policy.set_training_mode(False)
    return policy
