"""Training: MaskablePPO runs (``training``, ``callbacks``, ``pools``: ``scripts/train_ppo.py``),
RLlib's multi-agent PPO (``rllib``, ``rllib_training``: ``scripts/train_rllib.py``), SuperSuit's
vector envs for sb3-contrib (``sb3_vec``, imports stable-baselines3), and Q-learning of the
evaluation weights (``linear_q``, ``weight_tuner``, ``tbw_tuning``, ``junqi_tuning``:
``scripts/tune_weights.py``). The policies it makes are played by ``agents.policy``.

This file imports nothing, so importing the package never imports torch.
"""
