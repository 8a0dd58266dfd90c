"""Network files as plain arrays: loading one runs no code.

A file is a NumPy ``.npz`` of

- ``metadata``: UTF-8 JSON as a uint8 array: the format and its version, the game and variant,
  the network's architecture (``agents.learned.net.check_config``), and for a training
  checkpoint the run's settings, seed and progress;
- ``param/<name>``: each parameter of the network, float32;
- a training checkpoint's optimizer and generator state besides
  (``agents.training.selfplay_checkpoints``).

It is read with ``np.load(allow_pickle=False)``, and every parameter is checked (name, dtype,
shape, finite) against the network the metadata describes before it is copied in. A
*weights-only* file is what an agent plays.

This module imports torch (the ``train`` extra).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.learned.net import PolicyValueNet, check_config

FORMAT = "tbw-envs-selfplay"
FORMAT_VERSION = 1


class NetFileError(ValueError):
    """A file that is not a network file, or does not fit the network it describes."""


def write_arrays(path: str | os.PathLike, metadata: dict[str, Any],
                 arrays: dict[str, np.ndarray]) -> Path:
    """``arrays`` and ``metadata`` (with the format added) to ``path``, through a temporary
    file, so a run killed while writing leaves the previous file whole."""
    meta = json.dumps({"format": FORMAT, "version": FORMAT_VERSION, **metadata},
                      sort_keys=True).encode()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb") as handle:
        np.savez(handle, metadata=np.frombuffer(meta, np.uint8), **arrays)
    os.replace(partial, path)
    return path


def net_arrays(net: PolicyValueNet) -> dict[str, np.ndarray]:
    return {f"param/{name}": param.detach().numpy().astype(np.float32)
            for name, param in net.named_parameters()}


def net_metadata(net: PolicyValueNet) -> dict[str, Any]:
    config = dict(net.config)
    config["observation_shape"] = list(config["observation_shape"])
    return {"net": config}


def open_file(path: str | os.PathLike) -> tuple[Any, dict[str, Any]]:
    """The archive and metadata of a network file, its format checked."""
    try:
        archive = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise NetFileError(f"{path}: not a network file ({exc})") from None
    if "metadata" not in archive.files:
        raise NetFileError(f"{path}: no metadata entry: not a tbw-envs network file")
    try:
        meta = json.loads(archive["metadata"].tobytes().decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NetFileError(f"{path}: unreadable metadata ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise NetFileError(f"{path}: not a {FORMAT} file")
    if meta.get("version") != FORMAT_VERSION:
        raise NetFileError(f"{path}: format version {meta.get('version')!r}, this code reads "
                           f"{FORMAT_VERSION}")
    return archive, meta


def load_params(net: PolicyValueNet, archive: Any, path: Any) -> None:
    """Copy the file's parameters into ``net``, each checked first."""
    expected = {f"param/{name}": param for name, param in net.named_parameters()}
    found = {name for name in archive.files if name.startswith("param/")}
    if found != set(expected):
        missing, extra = sorted(set(expected) - found), sorted(found - set(expected))
        raise NetFileError(f"{path}: parameters do not fit the network (missing {missing[:3]}, "
                           f"unexpected {extra[:3]})")
    with torch.no_grad():
        for name, param in expected.items():
            array = archive[name]
            if array.dtype != np.float32 or array.shape != tuple(param.shape):
                raise NetFileError(f"{path}: {name} is {array.dtype} {array.shape}, the network "
                                   f"needs float32 {tuple(param.shape)}")
            if not np.isfinite(array).all():
                raise NetFileError(f"{path}: {name} holds NaN or infinite weights")
            param.copy_(torch.from_numpy(array))


def load_net(path: str | os.PathLike) -> tuple[PolicyValueNet, dict[str, Any]]:
    """The network of a file (a checkpoint or weights only) and its metadata."""
    archive, meta = open_file(path)
    described = meta.get("net")
    if not isinstance(described, dict):
        raise NetFileError(f"{path}: the metadata describes no network")
    try:
        config = check_config({**described, "observation_shape": tuple(
            described.get("observation_shape") or ())})
    except ValueError as exc:
        raise NetFileError(f"{path}: {exc}") from None
    net = PolicyValueNet(config)
    load_params(net, archive, path)
    net.eval()
    return net, meta


def copy_net(net: PolicyValueNet) -> PolicyValueNet:
    """A frozen copy of ``net`` (an opponent that later updates do not move)."""
    twin = PolicyValueNet(net.config)
    twin.load_state_dict(net.state_dict())
    twin.eval()
    return twin
