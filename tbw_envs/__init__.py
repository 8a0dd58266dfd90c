"""tbw-envs: turn-based war chess (TBW) and Junqi as PettingZoo/Gymnasium environments."""

from tbw_envs.registration import register_envs

__version__ = "0.1.0"

register_envs()
