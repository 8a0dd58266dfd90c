"""Register the environments with PettingZoo's and Gymnasium's registries (on import).

Entry points are strings, so registering imports nothing heavy: ``pettingzoo.make("aec",
"tbw_envs/tbw-v0")`` or ``gymnasium.make("tbw_envs/TBWSingle-v0", scenario=...)``.
"""

from __future__ import annotations

import warnings

import gymnasium
import pettingzoo

AEC_ENVS = {
    "tbw_envs/tbw-v0": "tbw_envs.tbw_v0:env",
    "tbw_envs/junqi-v0": "tbw_envs.junqi_v0:env",
}
SINGLE_AGENT_ENVS = {
    "tbw_envs/TBWSingle-v0": "tbw_envs.wrappers:make_tbw_single",
    "tbw_envs/JunqiSingle-v0": "tbw_envs.wrappers:make_junqi_single",
}


def register_envs() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # re-imports would warn about overriding
        if hasattr(pettingzoo, "register"):
            for env_id, entry_point in AEC_ENVS.items():
                pettingzoo.register("aec", env_id, entry_point)
        for env_id, entry_point in SINGLE_AGENT_ENVS.items():
            if env_id not in gymnasium.registry:
                gymnasium.register(env_id, entry_point=entry_point)
