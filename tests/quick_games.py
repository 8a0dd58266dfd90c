"""Game settings whose random play ends in a few steps, in wins for either side, draws and (with
unmasked actions) illegal moves: for tests that need every kind of ending, often in the same
vector step."""

from __future__ import annotations

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
