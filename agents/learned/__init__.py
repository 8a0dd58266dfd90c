"""The project's own learned agents: a policy-value network per game (``net``), stored as plain
arrays (``files``: loading runs no code) and played by ``LearnedAgent`` (``agent``,
``learned:path=...``). Training them by self-play on the batched cores is
``agents.training.selfplay`` (``scripts/train_learned.py``).

This file imports nothing, so importing the package never imports torch.
"""
