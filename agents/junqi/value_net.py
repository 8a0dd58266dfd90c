"""A learned value of a full Junqi state as a small network: the ``leaf="net"`` of the searches.

The logistic state value (``agents.junqi.state_value``) scores a state by a dozen counts. This
network sees every piece where it stands and what it is, and can weigh one piece against
another (a marshal is worth less once the opponent's bombs are gone; a flag is safer while its
mines stand). For ``player``, a state is read as

- the sparse one-hot of (whose piece, its type, its post), posts seen from ``player``'s side
  (``mirror_post`` for player 1), ``2 x 12 x 60`` inputs of which one per piece is set;
- the logistic value's ``STATE_FEATURES`` (counts, flag threat, guards, advance), dense.

One side's score is ``g(x) = a . onehot + b . dense + v . relu(W onehot + U dense + c)``, and the
log-odds of ``player`` winning is ``g(read for player) - g(read for the opponent)``: the value
is antisymmetric by construction (what one side gains the other loses, an even position is 0).
Like ``StateValue`` it reports in piece-value units (``balance``: the logit divided by
``scale``), and ``scale`` is chosen so that its balance matches the shipped state value's in the
least-squares sense on the training positions: a drop-in leaf on the scale the search's
exploration constant and evaluation prior were measured with.

The weights are a NumPy ``.npz`` of plain arrays plus UTF-8 JSON metadata (how they were made),
read with ``allow_pickle=False``: loading runs no code. ``agents.junqi.value_net_training``
trains and writes them (``scripts/research/train_value_net.py``);
``configs/agents/junqi_value_net.npz`` is the shipped file.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from agents.junqi.state_value import STATE_FEATURES, state_features
from tbw_envs.core.configs_path import configs_dir
from tbw_envs.junqi.board import NUM_POSTS
from tbw_envs.junqi.pieces import NUM_PIECE_TYPES

NUM_PLACED = 2 * NUM_PIECE_TYPES * NUM_POSTS  # one-hot inputs: (whose, type, post)
NUM_DENSE = len(STATE_FEATURES)
SHIPPED_NAME = "junqi_value_net.npz"  # in configs/agents/
VALUE_NET_FORMAT = "tbw-envs-junqi-value-net/1"
MAX_HIDDEN = 1024
# name -> shape, with "H" for the hidden width
ARRAY_SHAPES = {
    "placed_linear": (NUM_PLACED,),
    "dense_linear": (NUM_DENSE,),
    "placed_hidden": (NUM_PLACED, "H"),
    "dense_hidden": (NUM_DENSE, "H"),
    "hidden_bias": ("H",),
    "hidden_out": ("H",),
}


def placed_indices(owner, kind, player: int) -> tuple[list[int], list[int]]:
    """The one-hot inputs set for ``player`` and for the opponent: one index per piece,
    ``(whose * 12 + type) * 60 + post``, posts and sides seen from each reader's side."""
    mine, theirs = [], []
    side_block = NUM_PIECE_TYPES * NUM_POSTS
    last = NUM_POSTS - 1
    for post in range(NUM_POSTS):
        side = owner[post]
        if side != 0 and side != 1:
            continue
        base = kind[post] * NUM_POSTS
        if player == 0:
            ours_post, their_post = post, last - post
        else:
            ours_post, their_post = last - post, post
        if side == player:
            mine.append(base + ours_post)
            theirs.append(side_block + base + their_post)
        else:
            mine.append(side_block + base + ours_post)
            theirs.append(base + their_post)
    return mine, theirs


@dataclass(frozen=True)
class ValueNet:
    """The network's arrays (``ARRAY_SHAPES``) and ``scale`` (logit per piece-value unit)."""

    placed_linear: np.ndarray
    dense_linear: np.ndarray
    placed_hidden: np.ndarray
    dense_hidden: np.ndarray
    hidden_bias: np.ndarray
    hidden_out: np.ndarray
    scale: float
    metadata: dict

    def __post_init__(self):
        # The linear weights ride along as one more column, so that one gather and one sum
        # serve both parts (the logit is the search's per-leaf cost).
        object.__setattr__(self, "_placed", np.hstack(
            [self.placed_hidden, self.placed_linear[:, None]]))
        object.__setattr__(self, "_dense", np.hstack(
            [self.dense_hidden, self.dense_linear[:, None]]))

    @property
    def hidden(self) -> int:
        return len(self.hidden_bias)

    def logit(self, owner, kind, player: int) -> float:
        """The log-odds of ``player`` winning the full state (``owner``, ``kind`` by post)."""
        mine, theirs = placed_indices(owner, kind, player)
        dense = np.asarray(state_features(owner, kind, player), dtype=float) @ self._dense
        sums = self._placed[mine + theirs].reshape(2, len(mine), -1).sum(axis=1)
        ours, other = sums[0] + dense, sums[1] - dense
        h = self.hidden
        hidden = (np.maximum(ours[:h] + self.hidden_bias, 0.0)
                  - np.maximum(other[:h] + self.hidden_bias, 0.0))
        return float(ours[h] - other[h] + hidden @ self.hidden_out)

    def balance(self, owner, kind, player: int) -> float:
        """The value for ``player`` in piece-value units (0 for an even position)."""
        return self.logit(owner, kind, player) / self.scale

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in ARRAY_SHAPES}


def save_value_net(net: ValueNet, path: str | Path) -> None:
    """Write ``net`` as an ``.npz`` of float64 arrays and its metadata as UTF-8 JSON."""
    metadata = {**net.metadata, "format": VALUE_NET_FORMAT, "scale": net.scale,
                "hidden": net.hidden, "dense_features": list(STATE_FEATURES)}
    text = np.frombuffer(json.dumps(metadata, sort_keys=True).encode(), dtype=np.uint8)
    with open(path, "wb") as handle:
        np.savez(handle, metadata=text,
                 **{name: np.asarray(a, dtype=np.float64) for name, a in net.arrays().items()})


def load_value_net(path: str | Path | None = None) -> ValueNet:
    """A ``ValueNet`` from an ``.npz`` (default: the shipped file), with no pickle; a file with a
    missing, extra, misshapen or non-finite array, or foreign metadata, is refused."""
    if path is None:
        path = configs_dir() / "agents" / SHIPPED_NAME
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise ValueError(f"{path}: not a value-network file ({error})") from error
    text = arrays.pop("metadata", None)
    if text is None or text.dtype != np.uint8 or text.ndim != 1:
        raise ValueError(f"{path}: no metadata (a UTF-8 JSON uint8 array)")
    try:
        metadata = json.loads(text.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: metadata is not UTF-8 JSON ({error})") from error
    if not isinstance(metadata, dict) or metadata.get("format") != VALUE_NET_FORMAT:
        raise ValueError(f"{path}: metadata format is not {VALUE_NET_FORMAT!r}")
    if metadata.get("dense_features") != list(STATE_FEATURES):
        raise ValueError(f"{path}: made for other dense features than {list(STATE_FEATURES)}")
    hidden, scale = metadata.get("hidden"), metadata.get("scale")
    if not isinstance(hidden, int) or isinstance(hidden, bool) or not 1 <= hidden <= MAX_HIDDEN:
        raise ValueError(f"{path}: hidden must be an int in [1, {MAX_HIDDEN}], got {hidden!r}")
    if not isinstance(scale, (int, float)) or not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"{path}: scale must be a positive finite number, got {scale!r}")
    missing = sorted(set(ARRAY_SHAPES) - set(arrays))
    extra = sorted(set(arrays) - set(ARRAY_SHAPES))
    if missing or extra:
        raise ValueError(f"{path}: arrays missing {missing}, unknown {extra}")
    for name, shape in ARRAY_SHAPES.items():
        expected = tuple(hidden if d == "H" else d for d in shape)
        array = arrays[name]
        if array.shape != expected or array.dtype.kind != "f":
            raise ValueError(f"{path}: {name} must be a float array of shape {expected}, "
                             f"got {array.dtype} {array.shape}")
        if not np.all(np.isfinite(array)):
            raise ValueError(f"{path}: {name} holds a non-finite number")
    return ValueNet(**{name: arrays[name].astype(np.float64) for name in ARRAY_SHAPES},
                    scale=float(scale), metadata=metadata)


@lru_cache(maxsize=1)
def shipped_value_net() -> ValueNet:
    """The shipped network, read once per process."""
    return load_value_net()
