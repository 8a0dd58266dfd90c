"""Learned policies at play: policy files, checked and read without running code
(``policy_metadata``, ``policy_files``), the architectures they may hold (``architectures``,
``nets``; the latter imports torch), the shipped policies by game (``pretrained``) and
``PPOAgent``, a policy as an agent (``agent``). Training them is ``agents.training``.

This file imports nothing, so importing the package never imports torch.
"""
