"""``agents.junqi.material_trace`` counts each side's movable pieces, attacks and first
headquarters attacks over Junqi records, by the named agent's result: checked against counts of
its own from the named boards of a plain replay, seat by seat."""

from __future__ import annotations

from functools import partial

import pytest

from agents.arena import record_start_state
from agents.arena.records import load_records
from agents.arena.replay import replay
from agents.junqi import material_trace
from tbw_envs.junqi.board import NUM_POSTS, post_name

IMMOBILE = {"mine", "flag"}
trace_records = partial(material_trace.trace_records, replay=replay)


def reference_counts(record, seat: int, plies) -> tuple[dict[int, tuple[int, int]], tuple]:
    """Movable pieces of ``seat`` and of the other seat, from the board's named pieces."""

    def count(state, player):
        return sum(1 for owner, kind in state.pieces().values()
                   if owner == player and kind not in IMMOBILE)

    state = record_start_state(record)
    at = {}
    for played in range(len(record["actions"]) + 1):
        if played in plies:  # the board after `played` plies
            at[played] = (count(state, seat), count(state, 1 - seat))
        if played < len(record["actions"]):
            state.apply(record["actions"][played])
    return at, (count(state, seat), count(state, 1 - seat))


def test_every_side_starts_with_21_movable_pieces(opening_runs):
    record = load_records(opening_runs["junqi"])[0]
    state = record_start_state(record)
    assert [material_trace.movable_pieces(state, p) for p in (0, 1)] == [21, 21]


@pytest.mark.parametrize("agent", ["greedy", "random"])
def test_the_trace_matches_a_count_of_the_replayed_boards(opening_runs, agent):
    records = load_records(opening_runs["junqi"])
    plies = [0, 5, 9, 10_000]
    traces = trace_records(records, agent, plies)
    expected = {outcome: ({}, []) for outcome in material_trace.OUTCOMES}
    for record in records:
        seat = record["agents"].index(agent)
        score = record["result"]["returns"][seat]
        outcome = "won" if score > 0 else "lost" if score < 0 else "drawn"
        at, end = reference_counts(record, seat, plies)
        for ply, pair in at.items():
            expected[outcome][0].setdefault(ply, []).append(pair)
        expected[outcome][1].append(end)
    for outcome, trace in traces.items():
        assert trace.at_ply == expected[outcome][0]
        assert trace.at_end == expected[outcome][1]
        assert trace.games == len(expected[outcome][1])
    assert sum(t.games for t in traces.values()) == len(records)
    assert all(10_000 not in t.at_ply for t in traces.values())


def test_the_attacks_match_a_count_of_the_replayed_boards(opening_runs):
    """Each side's attacks, by result, by its three highest types and the pieces it lost, from
    a plain replay that compares the named board before and after every ply."""
    records = load_records(opening_runs["junqi"])
    attacks = {side: material_trace.AttackCount() for side in material_trace.SIDES}
    trace_records(records, "greedy", [3], attacks)
    expected = {side: [0, 0, 0, 0, 0, 0] for side in material_trace.SIDES}
    top = {"marshal", "general", "major_general"}
    for record in records:
        seat = record["agents"].index("greedy")
        state = record_start_state(record)
        for action in record["actions"]:
            mover = state.current_player
            source, target = (post_name(post) for post in divmod(action, NUM_POSTS))
            before = state.pieces()
            state.apply(action)
            after = state.pieces()
            if target not in before:
                continue  # a move onto an empty post
            side, other = ("agent", "opponent") if mover == seat else ("opponent", "agent")
            attacker_stands = after.get(target, (None,))[0] == mover
            defender_stands = after.get(target, (None,))[0] == 1 - mover
            counts = expected[side]
            counts[0] += 1
            counts[1] += attacker_stands
            counts[2] += defender_stands
            counts[3] += not attacker_stands and not defender_stands
            counts[4] += before[source][1] in top
            counts[5] += not attacker_stands
            expected[other][5] += not defender_stands
    for side, count in attacks.items():
        assert [count.attacks, count.won, count.lost, count.both, count.by_top_kinds,
                count.pieces_lost] == expected[side]
    assert all(count.attacks > 0 for count in attacks.values())


def test_the_first_headquarters_attacks_match_a_plain_replay(opening_runs):
    """Each side's first move onto an enemy piece in a headquarters (A1, A3, L1, L3), read off
    the named board: whether that piece was the flag, its ply, and greedy's result."""
    records = load_records(opening_runs["junqi"])
    probes = {side: material_trace.HeadquartersProbes() for side in material_trace.SIDES}
    trace_records(records, "greedy", [3], None, probes)
    expected = {side: ({}, {}) for side in material_trace.SIDES}
    for record in records:
        seat = record["agents"].index("greedy")
        score = record["result"]["returns"][seat]
        outcome = "won" if score > 0 else "lost" if score < 0 else "drawn"
        state = record_start_state(record)
        first = {}
        for ply, action in enumerate(record["actions"]):
            side = "agent" if state.current_player == seat else "opponent"
            target = post_name(action % NUM_POSTS)
            piece = state.pieces().get(target)
            if (target in ("A1", "A3", "L1", "L3") and piece is not None
                    and piece[0] != state.current_player and side not in first):
                first[side] = (ply, piece[1] == "flag")
            state.apply(action)
        for side in material_trace.SIDES:
            games, plies = expected[side]
            ply, on_flag = first.get(side, (None, False))
            hit = "none" if ply is None else "the flag" if on_flag else "another piece"
            games[hit, outcome] = games.get((hit, outcome), 0) + 1
            if ply is not None:
                plies.setdefault(hit, []).append(ply)
    for side, probe in probes.items():
        assert dict(probe.games) == expected[side][0]
        assert probe.plies == expected[side][1]
    hits = {hit for probe in probes.values() for hit, _ in probe.games}
    assert hits == set(material_trace.PROBES)  # the records hold every kind of first attack


def test_the_two_agents_traces_mirror_each_other(opening_runs):
    records = load_records(opening_runs["junqi"])
    assert {r["swapped"] for r in records} == {False, True}  # both seats are traced
    greedy = trace_records(records, "greedy", [4, 8])
    random = trace_records(records, "random", [4, 8])
    flip = {"won": "lost", "lost": "won", "drawn": "drawn"}
    for outcome, trace in greedy.items():
        mirror = random[flip[outcome]]
        assert trace.games == mirror.games
        assert trace.at_end == [(b, a) for a, b in mirror.at_end]
        assert trace.at_ply == {p: [(b, a) for a, b in pairs]
                                for p, pairs in mirror.at_ply.items()}


def test_records_it_cannot_trace_are_refused_naming_why(opening_runs):
    record = load_records(opening_runs["junqi"])[0]
    with pytest.raises(ValueError, match="agent 'exact' did not play this game: its agents are"):
        trace_records([record], "exact")
    same = {**record, "agents": [record["agents"][0]] * 2}
    with pytest.raises(ValueError, match="both seats are"):
        material_trace.agent_seat(same, record["agents"][0])
    tbw = load_records(opening_runs["tbw"])[0]
    with pytest.raises(ValueError, match="only Junqi records can be traced, got a 'tbw' record"):
        trace_records([tbw], tbw["agents"][0])
    illegal = {**record, "actions": [*record["actions"][:-1], 10**6]}
    with pytest.raises(ValueError, match="is not legal"):
        trace_records([illegal], "greedy")


def test_the_table_gives_the_means_of_each_outcome():
    won = material_trace.OutcomeTrace(games=2, at_ply={10: [(20, 19), (21, 18)]},
                                      at_end=[(12, 3), (9, 0)], plies=[100, 151])
    won.end_reasons.update(["flag_captured", "flag_captured", "no_movable_pieces"])
    traces = {"won": won, "drawn": material_trace.OutcomeTrace(),
              "lost": material_trace.OutcomeTrace(games=1, at_end=[(1, 5)], plies=[7])}
    lines = material_trace.format_table(traces, "greedy", [30, 10]).splitlines()
    assert lines[1] == ("| agent's result | games | plies (mean) | ply 10 | ply 30 | end "
                        "| how the games ended |")
    assert lines[3] == ("| won | 2 | 126 | 20.5 v 18.5 (2) | - | 10.5 v 1.5 (2) "
                        "| flag_captured 2, no_movable_pieces 1 |")
    assert lines[4] == "| lost | 1 | 7 | - | - | 1.0 v 5.0 (1) |  |"
    assert len(lines) == 5  # no drawn game, no row
