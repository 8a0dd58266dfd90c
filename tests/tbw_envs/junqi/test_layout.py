"""Junqi layouts (``tbw_envs.junqi.layout``): the text format, validation by constraint, the
random sampler and the deployment phase."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from tbw_envs.junqi import (
    JunqiState,
    available_layouts,
    deploy_action,
    load_layout,
    parse_layout,
    parse_post,
    random_layout,
)
from tbw_envs.junqi.layout import DEPLOY_CELLS, cell_to_post, deployment_choices
from tbw_envs.junqi.pieces import FLAG, MINE, PIECE_NAMES
from tbw_envs.junqi.state import DEPLOY, PLAY

GOOD = """\
# front row first
LI  CA  EN  MJ  CO
BR  .   GE  .   MG
CA  BO  .   LI  MA
MJ  .   EN  .   CO
MI  BO  LI  CA  MG
MI  FL  MI  EN  BR
"""


def test_bundled_layouts_parse_and_round_trip():
    names = available_layouts()
    assert len(names) >= 3
    for name in names:
        layout = load_layout(name)
        assert parse_layout(layout.to_text()) == layout
        assert parse_layout(layout.to_text(chinese=True)) == layout


def test_tokens_names_codes_and_chinese_are_equivalent():
    long = GOOD.replace("EN", "engineer").replace("MI", "地雷").replace("FL", "Flag")
    assert parse_layout(long) == parse_layout(GOOD)


def test_layout_is_written_from_the_owners_point_of_view():
    layout = parse_layout(GOOD)
    bottom, top = layout.pieces(0), layout.pieces(1)
    assert bottom[parse_post("G0")] == top[parse_post("F4")] == PIECE_NAMES.index("lieutenant")
    assert bottom[parse_post("L1")] == top[parse_post("A3")] == FLAG
    assert set(bottom) == {cell_to_post(c, 0) for c in range(30)} - {
        parse_post(n) for n in ("H1", "H3", "I2", "J1", "J3")
    }  # fmt: skip
    state = JunqiState.initial({"player_0": GOOD, "player_1": GOOD})
    assert state.piece_at("L1") == (0, "flag") and state.piece_at("A3") == (1, "flag")
    assert state.piece_counts(0) == state.piece_counts(1) == [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 2, 1]


def _swap_line(text, row, new_line):
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    lines[row] = new_line
    return "\n".join(lines)


@pytest.mark.parametrize(
    "text, message",
    [
        ("\n".join(GOOD.splitlines()[:-1]), "a layout has 6 rows, got 5"),
        (_swap_line(GOOD, 0, "LI CA EN MJ"), "row 1 must have 5 tokens, got 4"),
        (_swap_line(GOOD, 0, "LI . EN MJ CO"), "row 1 column 1: '.' marks a camp"),
        (_swap_line(GOOD, 1, "BR CA GE . MG"), "row 2 column 1 is a camp"),
        (_swap_line(GOOD, 0, "LI CA XX MJ CO"), "row 1 column 2: unknown piece name 'XX'"),
        (_swap_line(GOOD, 0, "LI CA EN EN CO"), "2 x major, the layout has 1"),
        (_swap_line(GOOD, 5, "MI MG MI EN BR").replace("MA", "FL"), "flag must stand in a head"),
        (_swap_line(GOOD, 3, "MI . EN . CO").replace("MI  BO  LI", "MJ  BO  LI"), "mines only"),
        (_swap_line(GOOD, 0, "LI BO EN MJ CO").replace("CA  BO  .", "CA  CA  ."), "front row"),
    ],
)
def test_each_broken_constraint_is_named(text, message):
    with pytest.raises(ValueError, match=message):
        parse_layout(text)


def test_initial_rejects_bad_layout_arguments():
    with pytest.raises(ValueError, match="layout of player 1"):
        JunqiState.initial((GOOD, _swap_line(GOOD, 0, "LI CA EN EN CO")))
    with pytest.raises(ValueError, match="keys 0 and 1"):
        JunqiState.initial({"a": GOOD, "b": GOOD})
    with pytest.raises(ValueError, match="unknown layout 'nonexistent'"):
        JunqiState.initial(("nonexistent", GOOD))
    with pytest.raises(ValueError, match="expected a Layout"):
        JunqiState.initial((42, GOOD))


def test_random_layouts_are_legal_seeded_and_spread():
    assert random_layout(7) == random_layout(random.Random(7))
    assert random_layout(np.random.default_rng(3)) == random_layout(np.random.default_rng(3))
    rand = random.Random(11)
    flag_cells = Counter()
    mine_cells = Counter()
    for _ in range(600):
        layout = random_layout(rand)
        parse_layout(layout.to_text())  # validates
        flag_cells[layout.cells.index(FLAG)] += 1
        mine_cells.update(c for c, k in enumerate(layout.cells) if k == MINE)
    assert set(flag_cells) == {26, 28} and min(flag_cells.values()) > 240
    # Mines land on every last-two-rows cell (the flag's headquarters excepted sometimes).
    assert set(mine_cells) == set(range(20, 30))


def test_deployment_choices_never_dead_end_and_accept_every_legal_layout():
    rand = random.Random(5)
    for _ in range(200):
        placed = []
        while len(placed) < 25:
            choices = deployment_choices(placed)
            assert choices, f"dead end after {placed}"
            placed.append(rand.choice(choices))
    for layout in [random_layout(rand) for _ in range(100)] + [
        load_layout(n) for n in available_layouts()
    ]:
        order = [layout.cells[cell] for cell in DEPLOY_CELLS]
        for index, kind in enumerate(order):
            assert kind in deployment_choices(order[:index])


def test_deployment_phase_builds_the_chosen_layouts():
    first, second = load_layout("flag_left_mined"), load_layout("bombs_forward")
    state = JunqiState.new_deployment()
    assert state.phase == DEPLOY and state.current_player == 0
    orders = [[first.cells[c] for c in DEPLOY_CELLS], [second.cells[c] for c in DEPLOY_CELLS]]
    for step in range(50):
        player = state.current_player
        assert player == step % 2
        state.apply(deploy_action(orders[player][step // 2]))
    assert state.phase == PLAY and state.current_player == 0
    expected = JunqiState.initial((first, second))
    assert state.pieces() == expected.pieces()
    assert state.legal_actions() == expected.legal_actions()
    assert state.possible == expected.possible


def test_deployment_phase_rejects_illegal_placements():
    state = JunqiState.new_deployment()
    # The first post filled is L0, not a headquarters: the flag may not go there.
    with pytest.raises(ValueError, match="deploy flag"):
        state.apply(deploy_action("flag"))
    with pytest.raises(ValueError, match="illegal action 0"):
        state.apply(0)  # a move during deployment
    assert state.kind[parse_post("L0")] == -1 and state.current_player == 0
