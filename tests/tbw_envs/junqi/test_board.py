"""The board graph (``tbw_envs.junqi.board``) against the rules' figures, an independent parse of
the ASCII board, and the links listed by hand from the diagram."""

from collections import Counter

import pytest

from tbw_envs.junqi import (
    CAMPS,
    HEADQUARTERS,
    board_graph,
    mirror_post,
    parse_post,
    post_name,
)
from tests.helpers.junqi_hand import HAND_LINKS, ROWS
from tests.helpers.junqi_reference import CAMP_POSTS, HQ_POSTS, LINKS, RAIL_NEIGHBORS, SYMBOLS


def test_check_figures_of_the_spec():
    graph = board_graph()
    assert len(graph.neighbors) == 60
    assert len(HEADQUARTERS) == 4 and sum(graph.is_headquarters) == 4
    assert len(CAMPS) == 10 and sum(graph.is_camp) == 10
    assert sum(graph.is_rail) == 32
    assert len(graph.links) == 133
    assert Counter(kind for _, _, kind in graph.links) == {"rail": 35, "road": 66, "diagonal": 32}


def test_graph_equals_independent_parse_of_ascii_board():
    graph = board_graph()
    ours = {frozenset({a, b}): kind for a, b, kind in graph.links}
    assert ours == LINKS
    assert {p for p in range(60) if graph.is_camp[p]} == CAMP_POSTS
    assert {p for p in range(60) if graph.is_headquarters[p]} == HQ_POSTS
    assert {p for p in range(60) if graph.is_rail[p]} == {p for p in range(60) if SYMBOLS[p] == "R"}
    assert {p: set(graph.rail_neighbors[p]) for p in range(60)} == RAIL_NEIGHBORS


def test_named_posts_and_special_sets():
    assert parse_post("A0") == 0 and parse_post("l4") == 59 and parse_post("K0") == 50
    assert post_name(0) == "A0" and post_name(59) == "L4"
    assert {post_name(p) for p in HEADQUARTERS} == {"A1", "A3", "L1", "L3"}
    assert {post_name(p) for p in CAMPS} == {
        "C1", "C3", "D2", "E1", "E3", "H1", "H3", "I2", "J1", "J3"
    }  # fmt: skip


def test_front_line_crossings_and_mountains():
    graph = board_graph()
    f, g = parse_post("F0"), parse_post("G0")
    assert graph.link_kind(f, g) == "rail"
    assert graph.link_kind(parse_post("F2"), parse_post("G2")) == "rail"
    assert graph.link_kind(parse_post("F1"), parse_post("G1")) is None
    assert graph.link_kind(parse_post("F3"), parse_post("G3")) is None


def test_camps_have_four_diagonals_and_rail_never_touches_camps():
    graph = board_graph()
    for camp in CAMPS:
        diagonals = [n for n in graph.neighbors[camp] if graph.link_kind(camp, n) == "diagonal"]
        assert len(diagonals) == 4
        assert not graph.is_rail[camp]


def test_half_turn_symmetry():
    graph = board_graph()
    links = {(min(a, b), max(a, b)): kind for a, b, kind in graph.links}
    for (a, b), kind in links.items():
        ma, mb = mirror_post(a), mirror_post(b)
        assert links[(min(ma, mb), max(ma, mb))] == kind


def test_rail_rays_are_straight_and_maximal():
    graph = board_graph()
    b0 = parse_post("B0")
    rays = {ray[-1] for ray in graph.rail_rays[b0]}
    assert rays == {parse_post("K0"), parse_post("B4")}
    # Column 2 is railroad only between F and G: the ray from F2 downward is one post long.
    assert (parse_post("G2"),) in graph.rail_rays[parse_post("F2")]


@pytest.mark.parametrize("bad", ["M0", "A5", "", "A", 60, -1, True, 1.5])
def test_bad_post_names(bad):
    with pytest.raises(ValueError):
        parse_post(bad)


@pytest.mark.audit
def test_audit_board_links_match_the_diagram():
    graph = board_graph()
    got = {
        frozenset((f"{ROWS[a // 5]}{a % 5}", f"{ROWS[b // 5]}{b % 5}")): kind
        for a, b, kind in graph.links
    }
    assert got == HAND_LINKS
    kinds = list(HAND_LINKS.values())
    assert (len(kinds), kinds.count("rail"), kinds.count("road"), kinds.count("diagonal")) == (
        133, 35, 66, 32,
    )  # fmt: skip

    def kind(a: str, b: str) -> str | None:
        return graph.link_kind(parse_post(a), parse_post(b))

    assert kind("B0", "A0") == "road" and kind("K4", "L4") == "road"
    assert kind("F0", "G0") == kind("F2", "G2") == kind("F4", "G4") == "rail"
    assert kind("F1", "G1") is None and kind("F3", "G3") is None
    assert kind("B1", "C2") is None  # no diagonal between two non-camp posts
    assert sum(graph.is_rail) == 32 and sum(graph.is_camp) == 10 and sum(graph.is_headquarters) == 4
