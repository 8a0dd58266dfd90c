"""The train extra for the MaskablePPO tests: each helper skips the test, with the reason, when a
library it needs is missing (the plane CNN needs torch and stable-baselines3, a MaskablePPO
policy needs sb3-contrib too), and untrained policies to play with."""

from __future__ import annotations

import pytest


def torch_or_skip():
    """torch, on one thread (skips the test without it)."""
    torch = pytest.importorskip("torch", reason="torch is not installed (the train extra)")
    torch.set_num_threads(1)
    return torch


def nets_or_skip():
    """agents.policy.nets (the plane CNN): torch and stable-baselines3, not sb3-contrib."""
    torch_or_skip()
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed")
    from agents.policy import nets

    return nets


def maskable_ppo_or_skip():
    """sb3-contrib's MaskablePPO (skips the test without the train extra)."""
    nets_or_skip()
    return pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed").MaskablePPO


def untrained_policy(env, policy_kwargs=None, seed=0):
    """An untrained MaskablePPO policy (skips the test without sb3-contrib)."""
    maskable_ppo = maskable_ppo_or_skip()
    kwargs = policy_kwargs or nets_or_skip().plane_policy_kwargs(channels=(8,), features_dim=32)
    model = maskable_ppo("MlpPolicy", env, n_steps=32, batch_size=32, seed=seed, device="cpu",
                         policy_kwargs=kwargs)
    return model.policy


# Skips a test that needs the whole train extra at once.
needs_torch_and_sb3_contrib = pytest.mark.skipif(
    not all(__import__("importlib").util.find_spec(m) for m in ("torch", "sb3_contrib")),
    reason="needs the train extra (torch, sb3-contrib)",
)
