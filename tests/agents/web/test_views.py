"""What the page is sent (``agents.web.views``): a player's position holds nothing its view does
not, so two games that differ only in what the player cannot see give the same bytes; the whole
board is another function, used only once a game is over. TBW's grouped options are exactly the
legal actions."""

from __future__ import annotations

import json
import random

from agents.tbw.web_board import tbw_options
from agents.web.views import board_json, position_json, revealed_json
from tbw_envs.games import get_game
from tbw_envs.junqi import JunqiState
from tbw_envs.junqi.pieces import PIECE_CODES
from tbw_envs.tbw.state import END_TURN
from tests.helpers.junqi_games import hidden_swap_pairs


def _bytes(data) -> bytes:
    return json.dumps(data, sort_keys=True).encode()


def test_junqi_positions_are_the_same_bytes_under_hidden_swaps():
    compared = revealed_differ = 0
    for observer, real, other in hidden_swap_pairs(seed=5, games=6, plies=40):
        for legal in (False, True):
            assert (_bytes(position_json("junqi", real.view(observer), legal))
                    == _bytes(position_json("junqi", other.view(observer), legal)))
        compared += 1
        revealed_differ += (_bytes(revealed_json("junqi", real))
                            != _bytes(revealed_json("junqi", other)))
    # The swaps are real (the whole boards differ) and the comparison ran deep into games.
    assert compared > 60 and revealed_differ == compared


def test_junqi_position_shows_own_pieces_and_only_deductions_of_the_opponents():
    state = JunqiState.random_initial(random.Random(3))
    for player in (0, 1):
        position = position_json("junqi", state.view(player), legal=True)
        own = [p for p in position["posts"] if p and p["owner"] == player]
        theirs = [p for p in position["posts"] if p and p["owner"] != player]
        assert len(own) == len(theirs) == 25
        assert all(p["piece"] in PIECE_CODES for p in own)
        assert all(p["piece"] is None and len(p["possible"]) > 1 for p in theirs)
        # Moves: exactly the view's legal actions, each as [from, to, action].
        moves = position["moves"]
        assert sorted(m[2] for m in moves) == sorted(state.view(player).legal_actions())
        assert all(m[0] * 60 + m[1] == m[2] for m in moves)
    revealed = revealed_json("junqi", state)
    assert sum(p is not None and p["piece"] in PIECE_CODES for p in revealed["posts"]) == 50


def test_tbw_options_are_exactly_the_legal_actions_grouped_by_unit_and_tile():
    game = get_game("tbw")
    for scenario in ("duel_5v5_8x8", "hex_skirmish", "fire_emblem_5v5"):
        state = game.new_state(scenario)
        rand = random.Random(1)
        for _ply in range(25):
            options = tbw_options(state)
            grouped = [(int(uid), tuple(o["tile"]), act["action"], act["target"])
                       for uid, tiles in options.items() for o in tiles for act in o["actions"]]
            legal = [a for a in state.legal_actions() if state.decode_action(a) != END_TURN]
            assert sorted(g[2] for g in grouped) == sorted(legal)
            for uid, tile, action, target in grouped:
                assert state.decode_action(action) == (uid, tile, target)
            # The move-only action comes first at each tile.
            assert all(o["actions"][0]["target"] is None for tiles in options.values()
                       for o in tiles)
            state.apply(rand.choice(state.legal_actions()))
            if state.is_terminal():
                break


def test_boards_describe_the_variant():
    tbw = board_json("tbw", "hex_skirmish")
    assert tbw["topology"] == "hex" and len(tbw["terrain"]) == tbw["rows"] * tbw["cols"]
    assert set(tbw["terrain"]) <= set(tbw["terrain_types"])
    junqi = board_json("junqi", "ccgc")
    assert len(junqi["posts"]) == 60 and junqi["no_collision_limit"] == 31
    assert sum(p["count"] for p in junqi["pieces"]) == 25
    # The page picks its board by kind, never by the game's name.
    assert (tbw["game"], tbw["kind"], tbw["hidden_information"]) == ("tbw", "tiles", False)
    assert (junqi["game"], junqi["kind"], junqi["hidden_information"]) == ("junqi", "posts", True)
