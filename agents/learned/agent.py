"""A self-play network (``scripts/train_learned.py``) as an arena agent, for either seat.

``learned:path=runs/learned-junqi/net.npz`` plays the network's most likely legal move: one
forward pass a move, no search. The agent builds the planes and the legal mask from the view it
is handed with the game's frame (``Game.frame``: the encoders the envs use, so they equal what
the network saw in training) and maps the chosen action back to the core's. A Junqi view holds
no hidden identity, so neither can the agent.

torch is imported when the agent is built (the ``train`` extra).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from agents.common.params import MAX_THREADS, SEED, Int, PathText
from agents.policy.architectures import require_train_extra
from tbw_envs.games import game_names, get_game

# The TBW envs turn the board for side 1 by default; the batched envs train in that frame.
FLIP = True


class LearnedAgent:
    name = "learned"
    PARAMS = {"path": PathText(), "threads": Int(low=0, high=MAX_THREADS), "seed": SEED}

    def __init__(self, path: str | os.PathLike, threads: int = 1, seed: int | None = None, *,
                 game: str | None = None, variant: Any = None):
        torch = require_train_extra("LearnedAgent")
        from agents.learned.files import load_net

        if not isinstance(path, (str, os.PathLike)):
            raise ValueError(f"LearnedAgent: path must be a file path, got {path!r:.80}")
        if (not isinstance(threads, int) or isinstance(threads, bool)
                or not 0 <= threads <= MAX_THREADS):
            raise ValueError(f"LearnedAgent: threads must be an int in [0, {MAX_THREADS}], got "
                             f"{threads!r:.80}")
        if threads:
            torch.set_num_threads(threads)
        self.net, self.metadata = load_net(path)
        self.path = str(path)
        trained = self.metadata.get("game")
        if trained not in game_names():
            raise ValueError(f"LearnedAgent: {path} was trained on an unknown game {trained!r}")
        if game is not None and game != trained:
            raise ValueError(f"LearnedAgent: {path} was trained on {trained}, cannot play {game}")
        self.game = trained
        self._description = get_game(trained)
        shape = tuple(self.net.config["observation_shape"])
        actions = self.net.config["num_actions"]
        if variant is not None:
            frame = self._description.frame(self._description.load_variant(variant), FLIP)
            if tuple(frame.shape) != shape or frame.num_actions != actions:
                raise ValueError(f"LearnedAgent: {path} expects planes {shape} and {actions} "
                                 f"actions; that {self._description.variant_noun} gives "
                                 f"{tuple(frame.shape)} and {frame.num_actions}")
        self.observation_shape, self.num_actions = shape, actions
        self._frames: dict[int, Any] = {}
        del seed  # the agent is deterministic; the arena passes every agent a seed

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: the agent is a function of the view."""

    def _frame(self, view):
        variant = self._description.view_variant(view)
        frame = self._frames.get(id(variant))
        if frame is None:
            frame = self._frames[id(variant)] = self._description.frame(variant, FLIP)
        return frame

    def encode(self, view) -> tuple[np.ndarray, np.ndarray]:
        """The planes and the boolean legal mask of ``view`` in the mover's frame."""
        planes, mask = self._frame(view).encode(view)
        if isinstance(planes, dict):
            planes = planes["observation"]
        return np.asarray(planes, np.float32), np.asarray(mask, bool)

    def act(self, view) -> int:
        from agents.learned.net import greedy_actions

        planes, mask = self.encode(view)
        if not mask.any():
            raise ValueError(f"{self.name}: the view has no legal action (is the game over?)")
        action = int(greedy_actions(self.net, planes[None], mask[None])[0])
        return int(self._frame(view).to_core(view, action))
