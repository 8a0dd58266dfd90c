"""Checkpoints of a self-play run (``agents.training.selfplay``) in the network file format of
``agents.learned.files`` (plain arrays: loading runs no code), with what a resume needs besides
the weights: ``adam/<i>/exp_avg``, ``adam/<i>/exp_avg_sq`` and ``adam/<i>/step`` per
parameter, ``generator``, the trainer's ``torch.Generator`` state, and the league's snapshots
(``league/<k>/param/<name>``). ``save(...,
weights_only=True)`` writes the weights alone: what an agent plays.

This module imports torch (the ``train`` extra).
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import torch

from agents.learned.files import (
    NetFileError,
    load_params,
    net_arrays,
    net_metadata,
    open_file,
    write_arrays,
)
from agents.learned.net import PolicyValueNet
from agents.training.selfplay import SelfPlayConfig, SelfPlayTrainer


class _Prefixed:
    """The entries of ``archive`` under ``prefix``, named without it (a league snapshot's
    parameters as ``load_params`` reads a network's)."""

    def __init__(self, archive, prefix: str):
        self.archive, self.prefix = archive, prefix
        self.files = [name[len(prefix):] for name in archive.files if name.startswith(prefix)]

    def __getitem__(self, name: str):
        return self.archive[self.prefix + name]


def save(trainer: SelfPlayTrainer, path: str | os.PathLike, *, weights_only: bool = False
         ) -> Path:
    metadata = {**net_metadata(trainer.net), "weights_only": weights_only,
                "game": trainer.config.game, "variant": trainer.config.variant,
                "train": dataclasses.asdict(trainer.config), "seed": trainer.seed,
                "updates_done": trainer.updates_done, "env_steps": trainer.env_steps}
    arrays = net_arrays(trainer.net)
    if not weights_only:
        state = trainer.optimizer.state_dict()["state"]
        for index in range(len(list(trainer.net.parameters()))):
            if index in state:
                for key in ("exp_avg", "exp_avg_sq"):
                    arrays[f"adam/{index}/{key}"] = state[index][key].numpy()
                arrays[f"adam/{index}/step"] = np.array([float(state[index]["step"])])
        arrays["generator"] = trainer.generator.get_state().numpy()
        for number, snapshot in enumerate(trainer.league):
            arrays.update({f"league/{number}/{name}": array
                           for name, array in net_arrays(snapshot).items()})
        metadata["league"] = len(trainer.league)
    return write_arrays(path, metadata, arrays)


def resume(path: str | os.PathLike, backend: str = "auto") -> SelfPlayTrainer:
    """A trainer that carries on from a full checkpoint as if it had never stopped (at a
    checkpoint boundary, where the games restart)."""
    archive, meta = open_file(path)
    if meta.get("weights_only"):
        raise NetFileError(f"{path}: a weights-only file cannot resume training")
    fields = {field.name for field in dataclasses.fields(SelfPlayConfig)}
    train = meta.get("train")
    if not isinstance(train, dict) or set(train) != fields:
        raise NetFileError(f"{path}: its training settings do not fit this code's "
                           f"SelfPlayConfig")
    trainer = SelfPlayTrainer(SelfPlayConfig(**train), seed=int(meta["seed"]), backend=backend)
    load_params(trainer.net, archive, path)
    state: dict[int, dict[str, torch.Tensor]] = {}
    for index, param in enumerate(trainer.net.parameters()):
        if f"adam/{index}/exp_avg" not in archive.files:
            continue
        entry = {}
        for key in ("exp_avg", "exp_avg_sq"):
            array = archive[f"adam/{index}/{key}"]
            if array.shape != tuple(param.shape) or array.dtype != np.float32:
                raise NetFileError(f"{path}: adam/{index}/{key} does not fit its parameter")
            entry[key] = torch.from_numpy(array.copy())
        entry["step"] = torch.tensor(float(archive[f"adam/{index}/step"][0]))
        state[index] = entry
    optimizer_state = trainer.optimizer.state_dict()
    optimizer_state["state"] = state
    trainer.optimizer.load_state_dict(optimizer_state)
    trainer.generator.set_state(torch.from_numpy(archive["generator"].copy()))
    for number in range(int(meta.get("league", 0))):
        prefix = f"league/{number}/"
        snapshot = PolicyValueNet(trainer.net.config)
        load_params(snapshot, _Prefixed(archive, prefix), f"{path} ({prefix})")
        snapshot.eval()
        trainer.league.append(snapshot)
    trainer.updates_done = int(meta["updates_done"])
    trainer.env_steps = int(meta["env_steps"])
    return trainer
