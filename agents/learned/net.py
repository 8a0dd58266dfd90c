"""A policy-value network over a game's observation planes.

``PolicyValueNet`` maps ``(B, C, H, W)`` float32 planes (the player to move's, as the envs give
them) to ``(B, A)`` action logits and a ``(B,)`` value in [-1, 1], the player to move's expected
result. A 3x3 same-padding stem and residual blocks keep every tile's own column of features (the
actions name tiles); the policy head is a 1x1 convolution to a few channels per tile and one
linear layer to the actions, the value head a 1x1 convolution, a small hidden layer and a tanh.

The whole architecture is its ``config`` (plain ints), which a checkpoint stores beside the
weights so that it rebuilds the same network without running any code.

This module imports torch (the ``train`` extra).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from tbw_envs.games import get_game

ARCHITECTURE_KEYS = ("observation_shape", "num_actions", "channels", "blocks", "head_channels",
                     "value_hidden", "policy_head")
# "flat": a linear layer from every tile's head features to every action. "pairs": actions
# 0 .. T*T-1 are (from tile, to tile) pairs over the board's T tiles in the planes' order (Junqi's
# moves), scored as a dot product of a from-feature and a to-feature (T*T*k multiplications
# instead of a T*k x T*T matrix); the rest of the actions from the board's mean features.
# "units": actions are (unit slot, tile, target slot or none) in TBW's order,
# ``(slot * T + tile) * (U + 1) + target``, then one last action (end the turn): each tile's 1x1
# convolution gives one logit per (slot, target); the last action is scored from the board's
# mean features.
POLICY_HEADS = ("flat", "pairs", "units")
# The head for each action structure a game declares (``Game.action_structure``); "flat" fits
# any game.
STRUCTURE_HEADS = {"tile_pairs": "pairs", "unit_tile_target": "units"}


def policy_head_for(game: str) -> str:
    """The policy head that fits ``game``'s action ids."""
    return STRUCTURE_HEADS.get(get_game(game).action_structure, "flat")
LIMITS = {"channels": 512, "blocks": 32, "head_channels": 64, "value_hidden": 1024}


def check_config(config: Any) -> dict[str, Any]:
    """``config`` as a network's architecture, or a ValueError naming what is wrong."""
    if not isinstance(config, dict) or set(config) != set(ARCHITECTURE_KEYS):
        raise ValueError(f"a PolicyValueNet config has exactly the keys "
                         f"{list(ARCHITECTURE_KEYS)}, got {config!r:.200}")
    shape = config["observation_shape"]
    if (not isinstance(shape, (list, tuple)) or len(shape) != 3
            or not all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 4096
                       for n in shape)):
        raise ValueError(f"observation_shape must be 3 positive ints (C, H, W), got {shape!r:.80}")
    actions = config["num_actions"]
    if not isinstance(actions, int) or isinstance(actions, bool) or not 2 <= actions <= 10**6:
        raise ValueError(f"num_actions must be an int in [2, 1000000], got {actions!r:.80}")
    head = config["policy_head"]
    if head not in POLICY_HEADS:
        raise ValueError(f"policy_head must be one of {POLICY_HEADS}, got {head!r:.80}")
    tiles = shape[1] * shape[2]
    if head == "pairs" and actions < tiles * tiles:
        raise ValueError(f"a pairs policy head needs at least {tiles * tiles} actions (every "
                         f"pair of the {tiles} tiles), got {actions}")
    if head == "units" and units_per_side(tiles, actions) is None:
        raise ValueError(f"a units policy head needs U * {tiles} * (U + 1) + 1 actions for some "
                         f"U, got {actions}")
    for key, top in LIMITS.items():
        value = config[key]
        low = 0 if key == "blocks" else 1
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= top:
            raise ValueError(f"{key} must be an int in [{low}, {top}], got {value!r:.80}")
    return {**config, "observation_shape": tuple(shape)}


def units_per_side(tiles: int, actions: int) -> int | None:
    """U with ``actions == U * tiles * (U + 1) + 1``, or None."""
    per_tile, rest = divmod(actions - 1, tiles)
    if rest:
        return None
    units = int(per_tile ** 0.5)
    return units if units >= 1 and units * (units + 1) == per_tile else None


def default_config(observation_shape: tuple[int, ...], num_actions: int, *, channels: int = 32,
                   blocks: int = 2, head_channels: int = 4, value_hidden: int = 64,
                   policy_head: str = "flat") -> dict[str, Any]:
    return check_config({"observation_shape": tuple(int(n) for n in observation_shape),
                         "num_actions": int(num_actions), "channels": channels,
                         "blocks": blocks, "head_channels": head_channels,
                         "value_hidden": value_hidden, "policy_head": policy_head})


class ResidualBlock(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.first = nn.Conv2d(channels, channels, 3, padding=1)
        self.second = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.second(torch.relu(self.first(x))))


class PairsHead(nn.Module):
    """Logits of (from, to) tile pairs as dot products of per-tile features, then ``extra``
    logits from the board's mean features (see ``POLICY_HEADS``), computed for the listed
    actions only."""

    def __init__(self, width: int, features: int, tiles: int, extra: int):
        super().__init__()
        self.features, self.tiles = features, tiles
        self.project = nn.Conv2d(width, 2 * features, 1)
        self.extra = nn.Linear(width, extra) if extra else None

    def forward(self, x: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        tiles, pair_actions = self.tiles, self.tiles * self.tiles
        # (B, T, k) each: a tile's from-features and to-features.
        sources, targets = self.project(x).flatten(2).transpose(1, 2).split(self.features, -1)
        is_pair = actions < pair_actions
        pair = torch.where(is_pair, actions, 0)
        width = (-1, -1, self.features)
        chosen_from = sources.gather(1, (pair // tiles)[..., None].expand(*width))
        chosen_to = targets.gather(1, (pair % tiles)[..., None].expand(*width))
        logits = (chosen_from * chosen_to).sum(-1) * self.features ** -0.5
        if self.extra is not None:
            extra = self.extra(x.mean(dim=(2, 3)))
            other = torch.where(is_pair, 0, actions - pair_actions).clamp(max=extra.shape[1] - 1)
            logits = torch.where(is_pair, logits, extra.gather(1, other))
        return logits


class UnitsHead(nn.Module):
    """One logit per (unit slot, target) on every tile from a 1x1 convolution, and the last
    action (end the turn) from the board's mean features (see ``POLICY_HEADS``), read at the
    listed actions."""

    def __init__(self, width: int, tiles: int, units: int):
        super().__init__()
        self.tiles, self.units = tiles, units
        self.per_tile = nn.Conv2d(width, units * (units + 1), 1)
        self.last = nn.Linear(width, 1)

    def forward(self, x: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        tiles, choices = self.tiles, self.units + 1
        last_action = self.units * tiles * choices
        table = self.per_tile(x).flatten(2)  # (B, U * (U + 1), T)
        unit_action = torch.where(actions < last_action, actions, 0)
        rest, target = unit_action // choices, unit_action % choices
        slot, tile = rest // tiles, rest % tiles
        logits = table.flatten(1).gather(1, (slot * choices + target) * tiles + tile)
        last = self.last(x.mean(dim=(2, 3)))  # (B, 1)
        return torch.where(actions < last_action, logits, last)


class PolicyValueNet(nn.Module):
    def __init__(self, config: dict[str, Any]):
        super().__init__()
        self.config = check_config(config)
        planes, rows, cols = self.config["observation_shape"]
        width, head = self.config["channels"], self.config["head_channels"]
        tiles = rows * cols
        self.stem = nn.Sequential(nn.Conv2d(planes, width, 3, padding=1), nn.ReLU())
        self.blocks = nn.Sequential(*(ResidualBlock(width)
                                      for _ in range(self.config["blocks"])))
        actions = self.config["num_actions"]
        if self.config["policy_head"] == "pairs":
            self.policy_head = PairsHead(width, head, tiles, actions - tiles * tiles)
        elif self.config["policy_head"] == "units":
            self.policy_head = UnitsHead(width, tiles, units_per_side(tiles, actions))
        else:
            self.policy_head = FlatHead(width, head, tiles, actions)
        self.value_head = nn.Sequential(
            nn.Conv2d(width, 2, 1), nn.ReLU(), nn.Flatten(),
            nn.Linear(2 * tiles, self.config["value_hidden"]), nn.ReLU(),
            nn.Linear(self.config["value_hidden"], 1), nn.Tanh())

    def forward(self, planes: torch.Tensor, actions: torch.Tensor, valid: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
        """Log-probabilities ``(B, L)`` of the listed ``actions`` ``(B, L)`` (a row's legal
        actions, padded where ``valid`` is False: those get -inf) and the values ``(B,)``."""
        features = self.blocks(self.stem(planes))
        logits = self.policy_head(features, actions)
        logits = logits.masked_fill(~valid, float("-inf"))
        return torch.log_softmax(logits, dim=-1), self.value_head(features).squeeze(-1)


class FlatHead(nn.Module):
    """A linear layer from every tile's head features to every action, read at the listed
    actions."""

    def __init__(self, width: int, features: int, tiles: int, actions: int):
        super().__init__()
        self.layers = nn.Sequential(nn.Conv2d(width, features, 1), nn.ReLU(), nn.Flatten(),
                                    nn.Linear(features * tiles, actions))

    def forward(self, x: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        return self.layers(x).gather(1, actions)


def legal_lists(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's legal action ids of ``mask`` ``(B, A)`` bool, ascending, as ``(B, L)`` int64
    padded with 0 to the longest row, and ``(B, L)`` bool saying which entries are real. A row
    with no legal action (a finished game's) lists action 0 as real, so its softmax is defined;
    nothing is ever played or learnt from such a row."""
    mask = np.asarray(mask, bool)
    counts = mask.sum(axis=1)
    empty = counts == 0
    if empty.any():
        mask = mask.copy()
        mask[empty, 0] = True
        counts = np.maximum(counts, 1)
    width = int(counts.max(initial=1))
    rows, actions = np.nonzero(mask)
    starts = np.cumsum(counts) - counts
    columns = np.arange(rows.size) - starts[rows]
    listed = np.zeros((mask.shape[0], width), np.int64)
    valid = np.zeros((mask.shape[0], width), bool)
    listed[rows, columns] = actions
    valid[rows, columns] = True
    return listed, valid


def greedy_actions(net: PolicyValueNet, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The most likely legal action of every row of ``obs`` ``(B, C, H, W)`` and ``mask``
    ``(B, A)``: one forward pass, no search."""
    listed, valid = legal_lists(mask)
    with torch.no_grad():
        log_probs, _ = net(torch.from_numpy(obs), torch.from_numpy(listed),
                           torch.from_numpy(valid))
    return listed[np.arange(listed.shape[0]), log_probs.argmax(dim=1).numpy()]
