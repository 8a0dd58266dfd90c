"""Learning: MaskablePPO policies and their files, the evaluation prior, training, and the
weight tuners.

- ``nets``: the plane CNN for Stable-Baselines3 policies (imports torch);
- ``architectures``: the policy architectures a policy file may hold, described and rebuilt;
- ``policy_metadata`` / ``policy_files``: ``policy.npz`` files, checked, written and read
  without running code;
- ``agent``: ``PPOAgent``, a trained policy as an arena agent;
- ``eval_prior`` / ``eval_prior_net``: Junqi's move evaluation as a prior for a policy (the
  latter imports torch);
- ``pretrained``: the shipped policies, by game;
- ``sb3_vec``: SuperSuit's vector envs for sb3-contrib's MaskablePPO (imports
  stable-baselines3);
- ``training``, ``callbacks``, ``pools``: the parts of a MaskablePPO run
  (``scripts/train_ppo.py``); ``rllib``, ``rllib_training``: multi-agent PPO on RLlib
  (``scripts/train_rllib.py``);
- ``linear_q``, ``weight_tuner``, ``tbw_tuning``, ``junqi_tuning``: Q-learning of the
  evaluation weights (``scripts/tune_weights.py``).

This file imports nothing, so importing the package never imports torch.
"""
