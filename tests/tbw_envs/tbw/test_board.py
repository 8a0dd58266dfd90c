"""Board geometry of the TBW core (``tbw_envs.tbw.board``): neighbours, distances, tile indexing
and the tiles a line of sight crosses, on all three topologies, worked out by hand."""

from __future__ import annotations

import pytest

from tests.helpers.tbw_builders import TOPOLOGIES, board
from tests.helpers.tbw_reference import reference_hop_distances, reference_neighbors


def neighbor_rcs(b, r, c):
    return {divmod(t, b.cols) for t in b.neighbors[r * b.cols + c]}


@pytest.mark.parametrize(
    "topology, cell, expected",
    [
        ("square4", (0, 0), 2), ("square4", (0, 4), 2), ("square4", (4, 4), 2),
        ("square4", (0, 2), 3), ("square4", (2, 0), 3), ("square4", (2, 2), 4),
        ("square8", (0, 0), 3), ("square8", (4, 0), 3), ("square8", (0, 2), 5),
        ("square8", (2, 4), 5), ("square8", (2, 2), 8),
        # hex, odd-r: even-row corners (0, 0) and (4, 0) lose the left diagonals too.
        ("hex", (0, 0), 2), ("hex", (0, 4), 3), ("hex", (4, 0), 2), ("hex", (4, 4), 3),
        ("hex", (0, 2), 4), ("hex", (2, 0), 3), ("hex", (2, 4), 5), ("hex", (1, 0), 5),
        ("hex", (1, 4), 3), ("hex", (2, 2), 6), ("hex", (1, 2), 6),
    ],
)
def test_neighbor_counts(topology, cell, expected):
    assert len(board(topology).neighbors[cell[0] * 5 + cell[1]]) == expected


@pytest.mark.parametrize(
    "topology, cell, expected",
    [
        ("square4", (2, 2), {(1, 2), (3, 2), (2, 1), (2, 3)}),
        ("square8", (2, 2), {(1, 1), (1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2), (3, 3)}),
        ("square8", (0, 0), {(0, 1), (1, 0), (1, 1)}),
        ("hex", (2, 2), {(1, 1), (1, 2), (2, 1), (2, 3), (3, 1), (3, 2)}),  # even row
        ("hex", (1, 2), {(0, 2), (0, 3), (1, 1), (1, 3), (2, 2), (2, 3)}),  # odd row
        ("hex", (1, 4), {(0, 4), (1, 3), (2, 4)}),
        ("hex", (0, 0), {(0, 1), (1, 0)}),
    ],
)
def test_neighbor_sets(topology, cell, expected):
    assert neighbor_rcs(board(topology), *cell) == expected


def test_neighbors_are_symmetric():
    for topology in TOPOLOGIES:
        b = board(topology, 6, 7)
        for t in range(b.size):
            for n in b.neighbors[t]:
                assert t in b.neighbors[n], (topology, b.rc(t), b.rc(n))


@pytest.mark.parametrize(
    "topology, a, b, expected",
    [
        ("square4", (0, 0), (0, 0), 0), ("square4", (0, 0), (2, 3), 5),
        ("square4", (1, 4), (3, 1), 5), ("square4", (4, 4), (0, 0), 8),
        ("square4", (0, 0), (1, 1), 2),
        ("square8", (0, 0), (2, 3), 3), ("square8", (1, 4), (3, 1), 3),
        ("square8", (4, 4), (0, 0), 4), ("square8", (0, 0), (1, 1), 1),
        ("hex", (0, 0), (0, 3), 3), ("hex", (0, 0), (1, 0), 1), ("hex", (1, 0), (0, 1), 1),
        ("hex", (0, 0), (1, 1), 2), ("hex", (0, 0), (2, 1), 2), ("hex", (0, 0), (2, 2), 3),
        ("hex", (2, 0), (0, 2), 3), ("hex", (4, 4), (0, 0), 6), ("hex", (2, 2), (1, 3), 2),
        ("hex", (2, 2), (0, 0), 3),
    ],
)
def test_distances(topology, a, b, expected):
    brd = board(topology)
    ta, tb = brd.tile(*a), brd.tile(*b)
    assert brd.distance(ta, tb) == expected
    assert brd.distance(tb, ta) == expected


def test_tile_indexing_is_row_major():
    b = board("hex", 4, 6)
    assert b.tile(2, 3) == 15
    assert b.rc(15) == (2, 3)
    assert b.size == 24


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_distance_equals_hop_count(topology):
    rows, cols = 6, 7
    b = board(topology, rows, cols)
    for r in range(rows):
        for c in range(cols):
            hops = reference_hop_distances(topology, rows, cols, (r, c))
            for (r2, c2), d in hops.items():
                assert b.distance(b.tile(r, c), b.tile(r2, c2)) == d
            assert neighbor_rcs(b, r, c) == set(reference_neighbors(topology, rows, cols, r, c))


def test_square_line_of_sight_counts_every_crossed_tile():
    """(0, 0) -> (1, 2): the straight line crosses (0, 1) and (1, 1); a hill on either blocks."""
    from tbw_envs.tbw import Board

    board = Board("square4", 3, 3)
    crossed = {board.rc(t) for t in board.tiles_between(board.tile(0, 0), board.tile(1, 2))}
    assert crossed == {(0, 1), (1, 1)}
    diagonal = {board.rc(t) for t in board.tiles_between(board.tile(0, 0), board.tile(2, 2))}
    assert diagonal == {(1, 1)}  # grazing the corners of (0, 1) and (1, 0) does not count
