"""Junqi pictures (``tbw_envs.junqi.render``): the RGB frame's legend of glyphs, views that show
only what their player knows, during play too, and an announced flag in its owner's case in the text
picture."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tbw_envs.junqi import JunqiState
from tbw_envs.junqi import render as junqi_render
from tbw_envs.junqi.board import parse_post
from tbw_envs.junqi.pieces import ENGINEER, PIECE_CODES, PIECE_NAMES
from tbw_envs.tbw.render import text_mask
from tests.helpers.junqi_games import hidden_swap_pairs


def _find_text(image: np.ndarray, color, text: str) -> bool:
    """Whether ``text`` (font scale 2) appears in ``color`` somewhere in ``image``."""
    ink = (image == np.asarray(color)).all(axis=2)
    mask = text_mask(text, 2)
    windows = np.lib.stride_tricks.sliding_window_view(ink, mask.shape)
    return bool((windows == mask).all(axis=(2, 3)).any())


def test_junqi_frame_has_a_legend_of_the_glyphs():
    state = JunqiState.random_initial(0)
    frame = junqi_render.render_rgb(state)
    panel = frame[:, junqi_render._BOARD_WIDTH:]
    for kind in (0, 8, ENGINEER, 9, 10, 11):
        assert _find_text(panel, junqi_render._INK, PIECE_NAMES[kind].replace("_", " ").upper())
    assert _find_text(panel, junqi_render._INK, "HIDDEN")
    assert _find_text(panel, junqi_render._INK, "CAMP")
    # The legend is static: another position has the same legend.
    other = JunqiState.random_initial(1)
    for _ in range(10):
        other.apply(other.legal_actions()[0])
    legend_rows = slice(10 + 7 * junqi_render._LINE, None)
    assert np.array_equal(
        junqi_render.render_rgb(other)[legend_rows, junqi_render._BOARD_WIDTH:],
        panel[legend_rows],
    )
    # The status names the side to move.
    assert _find_text(panel, junqi_render._PLAYER_COLORS[0], "RED (P0) TO MOVE")


def _post_box(frame: np.ndarray, post: str) -> np.ndarray:
    y, x = junqi_render._center(parse_post(post))
    return frame[y - 11:y + 12, x - 15:x + 16]


def test_junqi_view_frame_shows_only_what_the_player_knows():
    pieces = {"K0": (0, "engineer"), "L1": (0, "flag"), "A1": (1, "flag"),
              "B0": (1, "major"), "C0": (1, "bomb")}
    swapped = dict(pieces, B0=(1, "bomb"), C0=(1, "major"))
    a, b = JunqiState.from_pieces(pieces), JunqiState.from_pieces(swapped)
    full_a, full_b = junqi_render.render_rgb(a), junqi_render.render_rgb(b)
    assert not np.array_equal(full_a, full_b)  # the omniscient frames tell them apart
    view_a = junqi_render.render_rgb(a.view(0))
    assert np.array_equal(view_a, junqi_render.render_rgb(b.view(0)))
    assert not np.array_equal(view_a, full_a)
    # Hidden pieces all look alike; own pieces are shown as they are.
    assert np.array_equal(_post_box(view_a, "B0"), _post_box(view_a, "C0"))
    assert np.array_equal(_post_box(view_a, "A1"), _post_box(view_a, "B0"))  # flag hidden
    assert not np.array_equal(_post_box(full_a, "B0"), _post_box(full_a, "C0"))
    assert np.array_equal(_post_box(view_a, "K0"), _post_box(full_a, "K0"))
    # Player 1 sees its own pieces, so its view frames differ.
    assert not np.array_equal(
        junqi_render.render_rgb(a.view(1)), junqi_render.render_rgb(b.view(1))
    )
    # A revealed flag is shown, as the owner's flag.
    revealed = JunqiState.from_pieces(pieces, revealed_flags=(1,))
    shown = junqi_render.render_rgb(revealed.view(0))
    assert np.array_equal(_post_box(shown, "A1"), _post_box(full_a, "A1"))
    assert np.array_equal(_post_box(shown, "B0"), _post_box(view_a, "B0"))
    # Parity with the text render: the same posts are hidden.
    board = junqi_render.render_ansi(revealed.view(0)).split("\nkey:")[0]  # not the key
    assert board.count("??") == 2 and " fl" in board


def test_junqi_view_frames_ignore_hidden_swaps_during_play():
    compared = differing = 0
    for observer, real, other in hidden_swap_pairs(seed=11, games=4, plies=30):
        assert np.array_equal(
            junqi_render.render_rgb(real.view(observer)),
            junqi_render.render_rgb(other.view(observer)),
        )
        compared += 1
        differing += not np.array_equal(
            junqi_render.render_rgb(real), junqi_render.render_rgb(other)
        )
    assert compared > 20 and differing > 20


def test_the_board_and_legend_are_drawn_once_not_per_frame(monkeypatch):
    # What keeps a frame cheap (0.2 ms, was 13 ms; python scripts/bench/bench_render.py): the board,
    # its railroads and posts, and the legend are drawn once and copied, so no frame after the
    # first reads the board's graph again; only pieces and status are drawn per frame.
    state = JunqiState.random_initial(2)
    junqi_render.render_rgb(state)
    real, calls = junqi_render.board_graph, [0]

    def counted():
        calls[0] += 1
        return real()

    monkeypatch.setattr(junqi_render, "board_graph", counted)
    rand = random.Random(0)
    for _ in range(20):
        for subject in (state, state.view(0), state.view(1)):
            junqi_render.render_rgb(subject)
        state.apply(rand.choice(state.legal_actions()))
    assert calls == [0]
    junqi_render.render_ansi(state)  # the text board reads it each time: the counter counts
    assert calls == [1]


# ============================================================================ text


@pytest.mark.input_contract
def test_an_announced_flag_shows_in_its_owners_case_from_either_side():
    state = JunqiState.from_pieces(
        {"L1": (0, "flag"), "K0": (0, "engineer"), "A1": (1, "flag"), "B0": (1, "engineer")},
        revealed_flags=(0, 1),
    )

    def row(text: str, letter: str) -> list[str]:
        return next(line.split()[1:] for line in text.splitlines() if line.startswith(letter))

    for viewer in (0, 1):
        text = state.render_text(viewer)
        # Player 0 is upper case, player 1 lower case, for an announced flag as for any piece.
        assert row(text, "L")[1] == "FL" and row(text, "A")[1] == "fl"
    assert row(state.render_text(1), "K")[0] == "??"  # hidden opponent piece stays hidden


def _junqi_boards():
    """Text boards: the start, omniscient and from either side, mid-game, game over, and a
    sparse position whose headquarters and road posts are empty."""
    rand = random.Random(4)
    state = JunqiState.random_initial(random.Random(0))
    for ply in range(2000):
        if ply in (0, 40) or state.is_terminal():
            yield from (state.render_text(), state.render_text(0), state.render_text(1))
        if state.is_terminal():
            break
        state.apply(rand.choice(state.legal_actions()))
    assert state.is_terminal()
    sparse = JunqiState.from_pieces(
        {"L1": (0, "flag"), "K0": (0, "engineer"), "A1": (1, "flag"), "B0": (1, "engineer")},
        revealed_flags=(1,),
    )
    yield from (sparse.render_text(), sparse.render_text(0), sparse.render_text(1))


def test_every_symbol_on_a_junqi_text_board_is_in_its_key():
    seen: set[str] = set()
    for text in _junqi_boards():
        lines = text.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("key: "))
        key_lines = lines[start:]  # the key closes the board
        assert all(line.startswith("     ") and len(line) <= 100 for line in key_lines[1:])
        assert all(len(line) <= 100 for line in key_lines)
        key = " " + " ".join(line.strip() for line in key_lines) + " "
        rows = [line for line in lines if line[:1] in "ABCDEFGHIJKL" and line[1:5] == "    "]
        assert len(rows) == 12
        for row in rows:
            for token in row.split()[1:]:
                if token.isalpha():
                    kind = PIECE_NAMES[PIECE_CODES.index(token.upper())]
                    assert f" {token.upper()} {kind.replace('_', ' ')}" in key
                    case = "upper case player 0" if token.isupper() else "lower case player 1"
                    assert case in key
                    seen.add("piece")
                else:
                    assert f" {token} " in key, (token, key)
                    seen.add(token)
        if "view of player" not in lines[0]:
            assert "??" not in key  # nothing is hidden on the omniscient board
    assert seen == {"piece", "??", "()", "[]", "==", ".."}


def test_the_frame_labels_rows_and_columns_as_post_names_are_written():
    from tbw_envs.junqi.board import ROW_LETTERS, post_name

    frame = junqi_render.render_rgb(JunqiState.random_initial(0))
    board = frame[:, :junqi_render._BOARD_WIDTH]
    left = board[:, :junqi_render._MARGIN]
    for row, letter in enumerate(ROW_LETTERS):
        y, _x = junqi_render._center(row * 5)
        # Each letter beside its row: "G0" is in row G.
        assert _find_text(left[y - 6:y + 6], junqi_render._INK, letter), post_name(row * 5)
    top = board[:junqi_render._MARGIN - 12]
    for col in range(5):
        _y, x = junqi_render._center(col)
        assert _find_text(top[:, x - 6:x + 6], junqi_render._INK, str(col))
