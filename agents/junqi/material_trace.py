"""How many movable pieces each side of Junqi games keeps, ply by ply, split by an agent's result.

``trace_records`` replays arena records through the game core. At each asked ply that a game
reached, and at its end, the movable pieces (every piece but mines and the flag) of the named
agent and of its opponent are counted, by the agent's result (won, drawn, lost), with how those
games ended: where an agent loses its material, and whether its losses are runs out of pieces or
captured flags (``format_table``).

It can also count the attacks each side made (moves onto an enemy piece) by the referee's
result: won (the defender removed), lost (the attacker removed) or both removed; the pieces each
side lost in its own attacks and in the other side's; and how many of its attacks its three
highest-ranked types (marshal, general, major generals) made (``AttackCount``,
``format_attacks``). And how each side's first attack on a headquarters of the other went (the
flag stands in one of the two): none in the game, onto the flag, or onto another piece (after
which the flag's post is known), with the named agent's results in those games and the mean ply
of that attack (``HeadquartersProbes``, ``format_probes``).

The replay that checks each record is the arena's (``agents.arena.replay.replay``, a layer above
this one), so the caller passes it in. ``scripts/research/material_trace.py`` is the command
line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache, partial
from typing import Any

from tbw_envs.core.contract import short_repr
from tbw_envs.junqi.board import HEADQUARTERS
from tbw_envs.junqi.env.game import JunqiGame
from tbw_envs.junqi.pieces import (
    ATTACKER_LOST,
    ATTACKER_WON,
    BOTH_REMOVED,
    FLAG,
    GENERAL,
    MAJOR_GENERAL,
    MARSHAL,
    MOBILE_MASK,
    MOVED,
)

OUTCOMES = ("won", "drawn", "lost")
SIDES = ("agent", "opponent")
TOP_KINDS = (MARSHAL, GENERAL, MAJOR_GENERAL)
DEFAULT_PLIES = (20, 40, 60)
PROBES = ("none", "the flag", "another piece")  # what a side's first headquarters attack hit
# ``replay(record, index, on_ply)``: checks the record (its shape first) while replaying it,
# calls ``on_ply(ply, state)`` at the start (ply 0) and after every action, and returns the
# final state; raises ``ValueError`` naming the record and the first problem.
Replay = Callable[[dict[str, Any], int, Callable[[int, Any], None]], Any]


def movable_pieces(state: Any, player: int) -> int:
    """The pieces of ``player`` that can move by type (not its mines and flag), wherever they
    stand."""
    counts = state.piece_counts(player)
    return sum(n for kind, n in enumerate(counts) if MOBILE_MASK >> kind & 1)


@dataclass
class OutcomeTrace:
    """The counts of one outcome's games: at each asked ply, (agent's, opponent's) per game."""

    games: int = 0
    at_ply: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    at_end: list[tuple[int, int]] = field(default_factory=list)
    end_reasons: Counter = field(default_factory=Counter)
    plies: list[int] = field(default_factory=list)


@dataclass
class AttackCount:
    """One side's attacks over the games: by the referee's result, by its top three types, and
    the pieces it lost (in its attacks and in the other side's)."""

    attacks: int = 0
    won: int = 0
    lost: int = 0
    both: int = 0
    by_top_kinds: int = 0
    pieces_lost: int = 0


@dataclass
class HeadquartersProbes:
    """One side's first attack on a headquarters in each game: games by (what it hit, the
    named agent's outcome), and the plies of those attacks by what they hit."""

    games: Counter = field(default_factory=Counter)
    plies: dict[str, list[int]] = field(default_factory=dict)


def agent_seat(record: dict[str, Any], agent: str) -> int:
    """The seat the agent labelled ``agent`` took in this record (``agents`` lists the labels by
    seat)."""
    labels = record["agents"]
    if agent not in labels:
        raise ValueError(f"agent {short_repr(agent)} did not play this game: its agents are "
                         f"{', '.join(labels)}")
    if labels[0] == labels[1]:
        raise ValueError(f"both seats are {short_repr(agent)}: the trace needs the agent to "
                         f"play someone else")
    return labels.index(agent)


def traced_seat(record: dict[str, Any], agent: str) -> int:
    """``agent_seat`` of a Junqi record; ``ValueError`` for a record of another game."""
    if record["game"] != JunqiGame.name:
        raise ValueError(f"only Junqi records can be traced, got a {record['game']!r} record")
    return agent_seat(record, agent)


def outcome_of(score: float) -> str:
    """``OUTCOMES``' name of a return."""
    return "won" if score > 0 else "lost" if score < 0 else "drawn"


def trace_records(records: Sequence[dict[str, Any]], agent: str,
                  plies: Sequence[int] = DEFAULT_PLIES,
                  attacks: dict[str, AttackCount] | None = None,
                  probes: dict[str, HeadquartersProbes] | None = None, *,
                  replay: Replay) -> dict[str, OutcomeTrace]:
    """Movable-piece counts of ``agent`` and its opponent over ``records``, by the agent's
    outcome; with ``attacks`` (``{side: AttackCount()}`` for ``SIDES``), each side's attacks are
    counted into it as well, and with ``probes`` (``{side: HeadquartersProbes()}``) each side's
    first attack on a headquarters. Each record is replayed and checked by ``replay``
    (``agents.arena.replay.replay``). Raises ``ValueError`` for a record that does not replay
    (naming it and the ply), one of another game or one the agent did not play."""
    traces = {outcome: OutcomeTrace() for outcome in OUTCOMES}
    wanted = sorted(set(plies))
    for index, record in enumerate(records):
        # Read once the replay has checked the record's shape, before it counts anything.
        read_seat = cache(partial(traced_seat, record, agent))
        first: dict[str, tuple[int, bool]] = {}
        counts, state = replay_counts(record, index, read_seat, wanted, attacks, first,
                                      replay=replay)
        seat = read_seat()
        result = record["result"]
        outcome = outcome_of(result["returns"][seat])
        trace = traces[outcome]
        if probes is not None:
            for side in SIDES:
                ply, on_flag = first.get(side, (None, False))
                probe = PROBES[0] if ply is None else PROBES[1] if on_flag else PROBES[2]
                probes[side].games[probe, outcome] += 1
                if ply is not None:
                    probes[side].plies.setdefault(probe, []).append(ply)
        trace.games += 1
        for ply, pair in counts.items():
            trace.at_ply.setdefault(ply, []).append(pair)
        trace.at_end.append((movable_pieces(state, seat), movable_pieces(state, 1 - seat)))
        trace.end_reasons[result["end_reason"]] += 1
        trace.plies.append(len(record["actions"]))
    return traces


def replay_counts(record: dict[str, Any], index: int, seat_of: Callable[[], int],
                  wanted: Sequence[int], attacks: dict[str, AttackCount] | None,
                  first_on_headquarters: dict[str, tuple[int, bool]] | None = None, *,
                  replay: Replay) -> tuple[dict, Any]:
    """Replay one record: the (seat's, other's) movable pieces at each ``wanted`` ply it
    reached, and its final state; its attacks are counted into ``attacks`` (unless None), and
    each side's first attack on a headquarters is put in ``first_on_headquarters`` (unless
    None) as ``{side: (its ply, whether it hit the flag)}``. ``seat_of()`` gives the seat
    traced; it is first asked at ply 0."""
    counts: dict[int, tuple[int, int]] = {}
    kinds_before: list[int] = []

    def count_at(ply: int, state: Any) -> None:
        seat = seat_of()
        if ply in wanted:
            counts[ply] = (movable_pieces(state, seat), movable_pieces(state, 1 - seat))
        if ply > 0:
            last = state.history[-1]
            if attacks is not None:
                count_attack(attacks, last, kinds_before, seat)
            side = SIDES[0] if last.player == seat else SIDES[1]
            if (first_on_headquarters is not None and last.result != MOVED
                    and last.to_post in HEADQUARTERS and side not in first_on_headquarters):
                first_on_headquarters[side] = (ply - 1, kinds_before[last.to_post] == FLAG)
        kinds_before[:] = state.kind

    return counts, replay(record, index, count_at)


def count_attack(attacks: dict[str, AttackCount], ply_record, kinds: list[int],
                 seat: int) -> None:
    """Count one ply (``PlyRecord``) into ``attacks`` if it was an attack; ``kinds`` are the
    pieces' types before it."""
    result = ply_record.result
    if result == MOVED:
        return
    mover, defender = SIDES if ply_record.player == seat else SIDES[::-1]
    count = attacks[mover]
    count.attacks += 1
    count.by_top_kinds += kinds[ply_record.from_post] in TOP_KINDS
    if result == ATTACKER_WON:
        count.won += 1
        attacks[defender].pieces_lost += 1
    elif result == ATTACKER_LOST:
        count.lost += 1
        count.pieces_lost += 1
    elif result == BOTH_REMOVED:
        count.both += 1
        count.pieces_lost += 1
        attacks[defender].pieces_lost += 1


def format_attacks(attacks: dict[str, AttackCount], agent: str, games: int) -> str:
    lines = [f"attacks over the {games} games (moves onto an enemy piece), by the referee's "
             f"result",
             "| side | attacks | a game | won | lost | both removed | by MA, GE, MG | "
             "pieces it lost |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for side, count in attacks.items():
        name = agent if side == SIDES[0] else "its opponent"
        lines.append(f"| {name} | {count.attacks} | {count.attacks / max(games, 1):.1f} | "
                     f"{count.won} | {count.lost} | {count.both} | {count.by_top_kinds} | "
                     f"{count.pieces_lost} |")
    return "\n".join(lines)


def format_probes(probes: dict[str, HeadquartersProbes], agent: str) -> str:
    lines = [f"each side's first attack on a headquarters, by {agent}'s result",
             "| side | hit | games | won | drawn | lost | ply (mean) |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for side, probe in probes.items():
        name = agent if side == SIDES[0] else "its opponent"
        for hit in PROBES:
            results = [probe.games[hit, outcome] for outcome in OUTCOMES]
            plies = probe.plies.get(hit, [])
            mean = f"{sum(plies) / len(plies):.0f}" if plies else "-"
            lines.append(f"| {name} | {hit} | {sum(results)} | "
                         + " | ".join(map(str, results)) + f" | {mean} |")
    return "\n".join(lines)


def mean_pair(pairs: list[tuple[int, int]]) -> str:
    """``"mine v theirs (games)"``, the means to one decimal; ``-`` for none."""
    if not pairs:
        return "-"
    mine = sum(a for a, _ in pairs) / len(pairs)
    theirs = sum(b for _, b in pairs) / len(pairs)
    return f"{mine:.1f} v {theirs:.1f} ({len(pairs)})"


def format_table(traces: dict[str, OutcomeTrace], agent: str, plies: Sequence[int]) -> str:
    wanted = sorted(set(plies))
    header = (["agent's result", "games", "plies (mean)"] + [f"ply {p}" for p in wanted]
              + ["end", "how the games ended"])
    lines = [f"movable pieces, {agent} v its opponent (games that reached the ply)",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for outcome, trace in traces.items():
        if not trace.games:
            continue
        ends = ", ".join(f"{reason} {n}" for reason, n in trace.end_reasons.most_common())
        cells = ([outcome, str(trace.games), f"{sum(trace.plies) / trace.games:.0f}"]
                 + [mean_pair(trace.at_ply.get(p, [])) for p in wanted]
                 + [mean_pair(trace.at_end), ends])
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
