"""Two-player Junqi's PettingZoo env under its versioned name, as PettingZoo names its own
(``from tbw_envs import junqi_v0``; ``junqi_v0.env()``). The env is ``tbw_envs.junqi.env.aec``;
a change of its rules or spaces makes a new version here."""

from tbw_envs.junqi.env.aec import env, parallel_env, raw_env

__all__ = ["env", "parallel_env", "raw_env"]
