"""Game settings whose random play ends in a few steps, in wins for either side, draws and (with
unmasked actions) illegal moves: for tests that need every kind of ending, often in the same vector
step. Also the short games of the input-contract tests, which still end by a rule of the game."""

from __future__ import annotations

from tbw_envs.core.configs_path import configs_dir
from tbw_envs.core.yaml_loader import load_yaml

# Two units each on a 1 x 5 strip, all able to move and strike next door, two rounds per game.
SKIRMISH = {
    "name": "quick_skirmish",
    "board": {"topology": "square4", "terrain": ["....."], "legend": {".": "plain"}},
    "terrain": {"plain": {"cost": 1}},
    "unit_types": {"scout": {"hp": 1, "atk": 1, "move": 1, "range": [1, 1]}},
    "units": [
        {"side": 0, "type": "scout", "pos": [0, 0]},
        {"side": 0, "type": "scout", "pos": [0, 1]},
        {"side": 1, "type": "scout", "pos": [0, 3]},
        {"side": 1, "type": "scout", "pos": [0, 4]},
    ],
    "first_side": 0,
    "max_turns": 2,
    "win": "annihilation",
}
# Junqi from random layouts: the side to move loses after 6 quiet plies, and a game is drawn at
# 12 plies.
QUICK_JUNQI = {"no_collision_limit": 6, "total_ply_limit": 12}

TBW_SCENARIO = "paper_figure3"  # small and quick: 4 v 4, 1281 actions

# Short games keep the ~130 cases quick: each plays six (partial) games. Both still end by a
# rule of the game, so "plays a full game" means what it says.
SHORT_TBW = {**load_yaml(configs_dir() / "tbw" / f"{TBW_SCENARIO}.yaml"), "max_turns": 6}

SHORT_JUNQI = {"total_ply_limit": 60}
