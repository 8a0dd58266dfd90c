"""A self-play network (``scripts/train_learned.py``) as an arena agent, for either seat.

``learned:path=runs/learned-junqi/net.npz`` plays the network's most likely legal move: one
forward pass a move, no search; ``learned:pretrained`` plays the shipped network of the game
(``agents.policy.pretrained``). A game may also let the network guide its search: Junqi's
``learned:pretrained,simulations=200`` (``agents.junqi.guided``).

The agent builds the planes and the legal mask from the view it is handed with the game's frame
(``Game.frame``: the encoders the envs use, so they equal what the network saw in training) and
maps the chosen action back to the core's. A Junqi view holds no hidden identity, so neither can
the agent.

torch is imported when the agent is built (the ``train`` extra).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from agents.common.params import MAX_THREADS, SEED, Int, PathText
from agents.policy.architectures import require_train_extra
from agents.policy.pretrained import pretrained_path
from tbw_envs.games import game_names, get_game

# The TBW envs turn the board for side 1 by default; the batched envs train in that frame.
FLIP = True


def take_net_path(game: str | None, kw: dict) -> None:
    """Turn a ``learned`` spec's ``pretrained`` flag into the shipped network's ``path`` (in
    ``kw``), or check that a ``path`` was given."""
    if kw.pop("pretrained", False):
        if "path" in kw:
            raise ValueError("give learned:pretrained or learned:path=..., not both")
        kw["path"] = str(pretrained_path(game, "learned"))
    elif "path" not in kw:
        raise ValueError("learned needs path=<net.npz> (scripts/train_learned.py writes one) or "
                         "pretrained (the shipped network)")


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

    def evaluate(self, view) -> tuple[dict[int, float], float]:
        """The network's probability of each legal move of ``view`` (by the core's action) and
        its value of the position for the player to move, in [-1, 1]."""
        import torch

        from agents.learned.net import legal_lists

        planes, mask = self.encode(view)
        if not mask.any():
            raise ValueError(f"{self.name}: the view has no legal action (is the game over?)")
        listed, valid = legal_lists(mask[None])
        with torch.no_grad():
            log_probs, values = self.net(torch.from_numpy(planes[None]),
                                         torch.from_numpy(listed), torch.from_numpy(valid))
        frame = self._frame(view)
        probabilities = np.exp(log_probs[0].numpy().astype(np.float64))
        by_move = {int(frame.to_core(view, int(action))): float(p)
                   for action, p, real in zip(listed[0], probabilities, valid[0], strict=True)
                   if real}
        return by_move, float(values[0])

    def move_probabilities(self, view, moves) -> list[float]:
        """The network's probability of each of ``moves`` (the core's actions) in ``view``, in
        their order (0 for a move it does not list as legal): a prior for a search."""
        by_move, _ = self.evaluate(view)
        return [by_move.get(int(move), 0.0) for move in moves]

    def act(self, view) -> int:
        from agents.learned.net import greedy_actions

        planes, mask = self.encode(view)
        if not mask.any():
            raise ValueError(f"{self.name}: the view has no legal action (is the game over?)")
        action = int(greedy_actions(self.net, planes[None], mask[None])[0])
        return int(self._frame(view).to_core(view, action))
