"""Training the Junqi value network (``agents.junqi.value_net``) on the outcomes of recorded games.

Every ``every``-th position of each finished game, from the side to move, is a sample
(``position_samples``) labelled with that side's result (a win 1, a loss 0, a draw 1/2), or with
``lookahead`` N the logistic state value's winning chance N plies later (``lookahead_targets``,
fitted on the same games; the result where the game ends sooner). A share of the games
(``validation``, whole games, chosen by the seed) is held out to pick the epoch; test games only
report. ``train_value_net`` is seeded (the same games, seed and options give the same weights on
the same machine) and resumable: each epoch writes ``checkpoint.pt`` (tensors only, read back
with ``weights_only=True``) in its folder, and a later call carries on from it. The folder also
gets the learning curves (``history.csv``, ``learning_curve.png``) and the best epoch's weights
as ``junqi_value_net.npz`` (copy it to ``configs/agents/`` to ship it).

Needs torch (the ``train`` extra); ``scripts/research/train_value_net.py`` is the command line.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.junqi.state_value import (
    fit_logistic,
    log_loss,
    played_positions,
    shipped_state_value,
    state_features,
)
from agents.junqi.value_net import (
    NUM_DENSE,
    NUM_PLACED,
    SHIPPED_NAME,
    ValueNet,
    placed_indices,
    save_value_net,
)

PAD = NUM_PLACED  # the index of the all-zero embedding row that pads a position's pieces
MAX_PIECES = 50  # both armies' 25
CHECKPOINT_NAME = "checkpoint.pt"
LOGIT_BATCH = 4096  # positions a forward pass when scoring


@dataclass(frozen=True)
class TrainingOptions:
    """What a run is trained with (the command line's options)."""

    hidden: int = 32  # hidden units
    epochs: int = 30
    batch: int = 256  # positions a step
    lr: float = 1e-3  # Adam's step size
    weight_decay: float = 1e-4  # AdamW's
    validation: float = 0.1  # share of the games held out to pick the epoch
    every: int = 2  # sample every N-th ply
    lookahead: int = 0  # plies; 0: learn the result
    seed: int = 0


def position_samples(games: Iterable, every: int) -> dict[str, np.ndarray]:
    """Per sampled position: both readers' one-hot indices (padded with ``PAD``), the dense
    features for the side to move, its result in [0, 1], the game's index and the ply."""
    mine, theirs, dense, target, game_of, plies = [], [], [], [], [], []
    for index, ply, player, owner, kind, result in played_positions(games, every):
        ours, other = placed_indices(owner, kind, player)
        mine.append(ours + [PAD] * (MAX_PIECES - len(ours)))
        theirs.append(other + [PAD] * (MAX_PIECES - len(other)))
        dense.append(state_features(owner, kind, player))
        target.append(result)
        game_of.append(index)
        plies.append(ply)
    if not target:
        raise ValueError("no finished games to learn from")
    return {"mine": np.asarray(mine, dtype=np.int64), "theirs": np.asarray(theirs, dtype=np.int64),
            "dense": np.asarray(dense, dtype=np.float32),
            "target": np.asarray(target, dtype=np.float32),
            "game": np.asarray(game_of, dtype=np.int64), "ply": np.asarray(plies, dtype=np.int64)}


def lookahead_targets(samples: Mapping[str, np.ndarray], weights, plies: int) -> np.ndarray:
    """Each sample's target replaced by the logistic value's winning chance ``plies`` later in
    its game, for the same side (the game's result where the game ends sooner). Unlike the
    result, it differs between the positions of one game, so a network cannot learn a game's
    layout instead of its positions."""
    logits = samples["dense"].astype(float) @ np.asarray(weights, dtype=float)
    later = {(int(g), int(p)): 1.0 / (1.0 + np.exp(-z))
             for g, p, z in zip(samples["game"], samples["ply"], logits, strict=True)}
    target = samples["target"].copy()
    for i, (game, ply) in enumerate(zip(samples["game"], samples["ply"], strict=True)):
        value = later.get((int(game), int(ply) + plies))
        if value is not None:
            target[i] = value
    return target


def subset(samples: Mapping[str, np.ndarray], keep: np.ndarray) -> dict[str, np.ndarray]:
    """The samples ``keep`` selects (a mask or indices), every array alike."""
    return {name: array[keep] for name, array in samples.items()}


def build_model(hidden: int):
    """The torch twin of ``ValueNet`` with ``hidden`` units, embeddings drawn from torch's
    generator (seed it first)."""
    import torch
    from torch import nn

    class SideScore(nn.Module):
        """``g`` of ``agents.junqi.value_net``; ``forward`` is the log-odds g(mine) - g(theirs)."""

        def __init__(self):
            super().__init__()
            self.placed_linear = nn.Embedding(NUM_PLACED + 1, 1, padding_idx=PAD)
            self.placed_hidden = nn.Embedding(NUM_PLACED + 1, hidden, padding_idx=PAD)
            self.dense_linear = nn.Linear(NUM_DENSE, 1, bias=False)
            self.dense_hidden = nn.Linear(NUM_DENSE, hidden, bias=False)
            self.hidden_bias = nn.Parameter(torch.zeros(hidden))
            self.hidden_out = nn.Linear(hidden, 1, bias=False)
            for table in (self.placed_linear, self.placed_hidden):
                nn.init.normal_(table.weight, std=0.02)
                with torch.no_grad():
                    table.weight[PAD].zero_()

        def side(self, placed, dense):
            hidden = torch.relu(self.placed_hidden(placed).sum(1) + self.dense_hidden(dense)
                                + self.hidden_bias)
            return (self.placed_linear(placed).sum(1) + self.dense_linear(dense)
                    + self.hidden_out(hidden)).squeeze(1)

        def forward(self, mine, theirs, dense):
            return self.side(mine, dense) - self.side(theirs, -dense)

    return SideScore()


def to_value_net(model, scale: float, metadata: dict) -> ValueNet:
    """The NumPy ``ValueNet`` of a ``build_model`` network (the padding row left out)."""
    def array(tensor):
        return tensor.detach().double().numpy().copy()

    return ValueNet(
        placed_linear=array(model.placed_linear.weight[:NUM_PLACED, 0]),
        dense_linear=array(model.dense_linear.weight[0]),
        placed_hidden=array(model.placed_hidden.weight[:NUM_PLACED]),
        dense_hidden=array(model.dense_hidden.weight.T),
        hidden_bias=array(model.hidden_bias),
        hidden_out=array(model.hidden_out.weight[0]),
        scale=scale, metadata=metadata)


def all_logits(model, samples: Mapping[str, np.ndarray], batch: int = LOGIT_BATCH) -> np.ndarray:
    """The model's log-odds of every sample, in batches, without gradients."""
    import torch

    parts = []
    with torch.no_grad():
        for start in range(0, len(samples["target"]), batch):
            part = slice(start, start + batch)
            parts.append(model(torch.from_numpy(samples["mine"][part]),
                               torch.from_numpy(samples["theirs"][part]),
                               torch.from_numpy(samples["dense"][part])).numpy())
    return np.concatenate(parts).astype(float)


def mean_log_loss(model, samples: Mapping[str, np.ndarray]) -> float:
    """The mean log-loss of ``samples``' targets under the model."""
    logits, target = all_logits(model, samples), samples["target"].astype(float)
    return float(np.mean(np.logaddexp(0.0, logits) - target * logits))


def matched_scale(model, samples: Mapping[str, np.ndarray]) -> float:
    """Logit per piece-value unit such that the network's balance matches the shipped state
    value's (``leaf="value"``) in the least-squares sense over ``samples``: a leaf drop-in on
    the scale the search's exploration constant and evaluation prior were measured with."""
    shipped = shipped_state_value()
    balance = samples["dense"].astype(float) @ np.asarray(shipped.weights) / shipped.scale
    logits = all_logits(model, samples)
    scale = float(logits @ balance / (balance @ balance))
    if not scale > 0:
        raise ValueError("the network's values do not rise with the state value's: no scale")
    return scale


def plot_history(history: list[dict], path: Path, lookahead: int) -> None:
    """The learning curves (training, held-out and test log-loss by epoch, the logistic value's
    as lines). Needs matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = [row["epoch"] for row in history]
    figure, axes = plt.subplots(figsize=(6, 4))
    train_label = (f"training games (target: {lookahead} plies later)" if lookahead
                   else "training games")
    for key, label in (("train", train_label), ("validation", "held-out games (picks the epoch)"),
                       ("test", "test games")):
        values = [row[key] for row in history if row.get(key) is not None]
        if values:
            axes.plot(epochs[:len(values)], values, marker="o", label=label)
    for key, label in (("logistic_validation", "logistic, held out"),
                       ("logistic_test", "logistic, test")):
        if history and history[0].get(key) is not None:
            axes.axhline(history[0][key], linestyle="--", linewidth=1, label=label)
    axes.set_xlabel("epoch")
    axes.set_ylabel("log-loss (held-out and test: of the result)")
    axes.set_title("Junqi value network")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def train_value_net(games: Iterable, test_games: Iterable | None, out: Path,
                    options: TrainingOptions, made_by: Mapping) -> dict:
    """Train on ``games`` (``(starting state, actions)`` pairs), report on ``test_games``, and
    write the checkpoint, the curves and the best epoch's ``junqi_value_net.npz`` (its metadata:
    ``made_by``, the seed and the report) into the folder ``out``; carries on from
    ``out/checkpoint.pt`` when there is one. Returns the report: the samples of each part, the
    best epoch, and its log-losses next to the logistic value's."""
    import torch
    from tqdm import tqdm

    checkpoint_path = out / CHECKPOINT_NAME
    samples = position_samples(games, options.every)
    game_numbers = np.unique(samples["game"])
    held = np.random.default_rng(options.seed).choice(
        game_numbers, size=max(1, round(options.validation * len(game_numbers))), replace=False)
    is_held = np.isin(samples["game"], held)
    train, validation = subset(samples, ~is_held), subset(samples, is_held)
    test = position_samples(test_games, options.every) if test_games else None

    logistic = fit_logistic(train["dense"].astype(float), train["target"].astype(float))
    logistic_losses = {
        "logistic_validation": log_loss(validation["dense"], validation["target"], logistic),
        "logistic_test": (log_loss(test["dense"], test["target"], logistic)
                          if test else None)}

    if options.lookahead:
        train["target"] = lookahead_targets(train, logistic, options.lookahead)

    torch.manual_seed(options.seed)
    model = build_model(options.hidden)
    optimizer = torch.optim.AdamW(model.parameters(), lr=options.lr,
                                  weight_decay=options.weight_decay)
    history: list[dict] = []
    best: dict | None = None
    first_epoch = 1
    if checkpoint_path.exists():
        saved = torch.load(checkpoint_path, weights_only=True)
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        history = json.loads(saved["history"])
        best = {"epoch": int(saved["best_epoch"]), "state": saved["best_model"]}
        first_epoch = len(history) + 1

    tensors = {name: torch.from_numpy(train[name]) for name in ("mine", "theirs", "dense",
                                                                "target")}
    count = len(train["target"])
    for epoch in tqdm(range(first_epoch, options.epochs + 1), initial=first_epoch - 1,
                      total=options.epochs, desc="value net", unit="epoch"):
        order = torch.from_numpy(np.random.default_rng([options.seed, epoch]).permutation(count))
        model.train()
        for start in range(0, count, options.batch):
            rows = order[start:start + options.batch]
            logits = model(tensors["mine"][rows], tensors["theirs"][rows], tensors["dense"][rows])
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits,
                                                                        tensors["target"][rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()
        row = {"epoch": epoch, "train": mean_log_loss(model, train),
               "validation": mean_log_loss(model, validation),
               "test": mean_log_loss(model, test) if test else None, **logistic_losses}
        history.append(row)
        if best is None or row["validation"] < history[best["epoch"] - 1]["validation"]:
            best = {"epoch": epoch,
                    "state": {k: v.clone() for k, v in model.state_dict().items()}}
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "history": json.dumps(history), "best_epoch": best["epoch"],
                    "best_model": best["state"]}, checkpoint_path)
        with open(out / "history.csv", "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(row))
            writer.writeheader()
            writer.writerows(history)
        plot_history(history, out / "learning_curve.png", options.lookahead)

    model.load_state_dict(best["state"])
    chosen = history[best["epoch"] - 1]
    report = {"samples": {"train": int(count), "validation": int(len(validation["target"])),
                          "test": int(len(test["target"])) if test else 0},
              "best_epoch": best["epoch"], **{k: chosen[k] for k in (
                  "train", "validation", "test", "logistic_validation", "logistic_test")}}
    metadata = {**made_by, "seed": options.seed, **report}
    save_value_net(to_value_net(model, matched_scale(model, train), metadata),
                   out / SHIPPED_NAME)
    return report
