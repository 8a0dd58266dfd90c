"""tbw-envs: turn-based war chess (TBW) and Junqi as PettingZoo/Gymnasium environments.

Importing the package registers the games (``tbw_envs.games``) and their envs with PettingZoo
and Gymnasium: ``gymnasium.make("tbw_envs/TBWSingle-v0")`` after ``import tbw_envs``.
"""

from tbw_envs import games  # noqa: F401 - registers the games' envs

__version__ = "0.1.0"
