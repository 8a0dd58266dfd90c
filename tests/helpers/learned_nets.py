"""Small self-play networks trained for a test, written as ``net.npz`` files."""

from __future__ import annotations

from agents.learned.net import policy_head_for
from agents.training import selfplay_checkpoints as checkpoints
from agents.training.selfplay import SelfPlayConfig, SelfPlayTrainer

VARIANTS = {"junqi": {"rules": "ccgc"}, "tbw": {"scenario": "duel_5v5_8x8"}}


def trained_file(tmp_path, game, updates=1):
    """A network of ``game`` after ``updates`` tiny self-play updates: its file and trainer."""
    config = SelfPlayConfig(game=game, variant=VARIANTS[game], num_envs=8, rollout_steps=8,
                            minibatch=32, channels=8, blocks=1, head_channels=4,
                            value_hidden=16, policy_head=policy_head_for(game))
    trainer = SelfPlayTrainer(config, seed=3)
    for _ in range(updates):
        trainer.update()
    return checkpoints.save(trainer, tmp_path / f"{game}.npz", weights_only=True), trainer
