"""Two-player Junqi's env layer: the PettingZoo env (``aec``, public as
``tbw_envs.junqi_v0``) and the game's description (``game``) for the layers above.
Everything else in ``tbw_envs.junqi`` is the game core, free of Gymnasium and PettingZoo."""
