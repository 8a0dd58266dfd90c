"""The command lines: one module per command, each with ``main(argv=None) -> int``.

Installed as console scripts (``pyproject.toml``, ``[project.scripts]``): ``tbw-arena``
(``arena``), ``tbw-ladder``, ``tbw-replay``, ``tbw-serve``, ``tbw-train`` (``train``,
MaskablePPO), ``tbw-train-rllib``, ``tbw-convert-model``, ``tbw-tune-weights``,
``tbw-budget-curve`` and ``tbw-reproduce-table2``; ``python scripts/<command>.py`` runs the same
``main`` from a clone. What the commands share (argparse types, ``--game``, one variant flag per
registered game, how a command names itself) is in ``agents.cli.common``.

This is the top layer: a command imports the arena, the registry, training and the games, and
nothing imports a command.
"""
