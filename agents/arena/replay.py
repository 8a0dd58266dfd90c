"""Replaying a record through the game core and checking everything it claims.

A record is replayed from its starting position (TBW: the scenario; Junqi: both layouts) and
checked against everything it claims: the seeds derive from the round robin's (the pair's seed,
each seat's agent seed, random layouts), the first opening_plies moves are the random opening of
the pair's seed, every action is legal, the state after every ply has the recorded digest
(``agents.arena.digests``), the result, end reason and ply count match, and the digest of the
whole record (which binds the agents to their seats) matches. A digest that differs while the
next one matches the replay (the next ply's, or the final one) was edited by itself, and the
message names that digest field rather than the move or the start. With a whole file, the two
games of each pair must swap seats, and with the file's manifest (``agents.arena.completeness``)
no record may be missing, doubled, out of order, changed or added. Records of format /1 carry
no digests: they are checked as far as they allow (``digest_note`` says so).

A forfeited game (``result.forfeit``: an agent at fault, ``records.FORFEIT_KINDS``) replays up
to the bad move; the game must not be over there, the forfeit must name the agent whose turn it
was and that ply, and the result must be its loss. A game lost before play (ply 0: a reset or a
layout choice that failed) holds no action and no opening, and starts where the pair's seed
starts when no agent chooses (Junqi: both layouts random, as ``check_seeds`` checks). A time-out
needs the record's ``move_time_limit``, a failed ``thinking()`` its recorded thinking. An
illegal action is checked to be illegal in that position; that an agent raised, ran out of time
or failed outside ``act`` cannot be checked from the record, since the verifier runs no agent
(``forfeit_note`` says so).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from agents.arena.checks import ArenaInputError
from agents.arena.completeness import Manifest, completeness_problems, listed_digests
from agents.arena.digests import PLY_DIGEST_HEX, DigestChain, record_digest
from agents.arena.openings import random_opening
from agents.arena.record_shape import check_record_shape, has_digests, record_name
from agents.arena.records import (
    BEFORE_PLAY_FORFEIT_KINDS,
    FORFEIT_END_REASON,
    FORFEIT_KINDS,
    RECORD_FORMATS,
    MalformedRecord,
    ReplayMismatch,
    forfeit_returns,
    start_state,
)
from agents.arena.scheduling import agent_seed, check_move_time_limit, pair_seed
from agents.common.params import MAX_SECONDS
from tbw_envs.core.contract import is_integer, short_repr
from tbw_envs.description import Game
from tbw_envs.games import get_game


def describe(game: Game, state: Any, action: Any) -> str:
    """An action in words, or why it is not one."""
    if not is_integer(action):
        return f"not an integer but {type(action).__name__}"
    try:
        return game.describe_action(state, action)
    except ValueError as exc:
        return str(exc)


def check_seeds(record: dict[str, Any], game: Game,
                fail: Callable[[str], ReplayMismatch]) -> None:
    """The pair's seed, the agents' seeds and random layouts (Junqi's) derive from the seeds
    the record of ``game`` names (``agents.arena.scheduling.schedule``)."""
    seed, pair = record["seed"], record["pair"]
    if has_digests(record):
        expected = pair_seed(record["base_seed"], record["pairing"], pair)
        if seed != expected:
            raise fail(f"seed differs: the record says {seed}, but base seed "
                       f"{record['base_seed']}, pairing {record['pairing']}, pair {pair} give "
                       f"{expected}")
        seatings = [record["swapped"]]
    else:
        seatings = [False, True]  # /1 records do not say which seating a game was
    found = list(record["agent_seeds"])
    candidates = [[agent_seed(seed, 2 * pair + int(swapped), seat) for seat in (0, 1)]
                  for swapped in seatings]
    if found not in candidates:
        raise fail(f"agent_seeds differ: the record says {short_repr(found)}, the seed "
                   f"{seed} and its seating give {short_repr(candidates[0])}")
    if game.has_layouts and "random" in record["start"]["layout_sources"]:
        # The layouts the seed draws for seats whose agents choose none.
        try:
            drawn = game.start(record[game.variant_flag], seed, (None, None), ("", "")).layouts
        except (KeyError, TypeError, ValueError) as exc:
            raise fail(f"cannot build the starting position: {exc}") from None
        for seat in (0, 1):
            if record["start"]["layout_sources"][seat] != "random":
                continue
            if record["start"]["layouts"][seat] != drawn[seat]:
                raise fail(f"the layout of player {seat} is marked random but is not the one "
                           f"seed {seed} draws")


def check_opening(record: dict[str, Any], state: Any,
                  fail: Callable[[str], ReplayMismatch]) -> None:
    """The first ``opening_plies`` actions are the random opening of the pair's seed."""
    played = record["start"]["opening_plies"]
    actions = record["actions"]
    if played > len(actions):
        raise fail(f"start.opening_plies is {played}, but the record has only {len(actions)} "
                   f"actions")
    if has_digests(record):
        requested = record["start"]["opening_plies_requested"]
        if played > requested:
            raise fail(f"start.opening_plies {played} is more than the "
                       f"{requested} requested (start.opening_plies_requested)")
        expected = random_opening(state.clone(), requested, record["seed"],
                                  stop_before_end=True)
    else:
        requested = played
        expected = random_opening(state.clone(), played, record["seed"])
    for ply, (want, got) in enumerate(zip(expected, actions[:played], strict=False), 1):
        if want != got:
            raise fail(f"opening ply {ply}: the record has action {got}, but the random opening "
                       f"of seed {record['seed']} plays {want}")
    if len(expected) != played:
        raise fail(f"start.opening_plies differs: the record says {played}, but the random "
                   f"opening of seed {record['seed']} ({requested} requested) plays "
                   f"{len(expected)}")


def replayed_result(state: Any, plies: int) -> dict[str, Any]:
    """A record's "result" as the replay gives it (``state``: the final one, after ``plies``
    actions)."""
    returns = [float(r) for r in state.returns()]
    winner = None if returns[0] == returns[1] else (0 if returns[0] > returns[1] else 1)
    return {"returns": returns, "winner": winner, "end_reason": str(state.end_reason),
            "plies": plies}


def check_time_limit(record: dict[str, Any], name: str) -> None:
    """A record's optional ``move_time_limit``: seconds as ``check_move_time_limit`` allows (the
    field is absent when no limit applied)."""
    if "move_time_limit" not in record:
        return
    value = record["move_time_limit"]
    try:
        valid = value is not None and check_move_time_limit(value) is not None
    except ArenaInputError:
        valid = False
    if not valid:
        raise MalformedRecord(f"{name}: field 'move_time_limit' must be a number of seconds > 0 "
                              f"and <= {MAX_SECONDS:g} (absent without a limit), got "
                              f"{short_repr(value)}")


def check_forfeit_shape(record: dict[str, Any], name: str) -> dict[str, Any]:
    """A record's ``result.forfeit``, every field present and of its type."""
    forfeit = record["result"]["forfeit"]
    shape = [("seat", lambda v: is_integer(v) and v in (0, 1), "0 or 1"),
             ("agent", lambda v: isinstance(v, str), "a string"),
             ("spec", lambda v: isinstance(v, str), "a string"),
             ("kind", lambda v: v in FORFEIT_KINDS, f"one of {', '.join(FORFEIT_KINDS)}"),
             ("reason", lambda v: isinstance(v, str) and bool(v.strip()), "a string"),
             ("ply", lambda v: is_integer(v) and v >= 0,
              "a non-negative integer (0: before play)")]
    if not isinstance(forfeit, dict):
        raise MalformedRecord(f"{name}: field 'result.forfeit' must be an object, got "
                              f"{type(forfeit).__name__} {short_repr(forfeit)}")
    for key, test, what in shape:
        if key not in forfeit:
            raise MalformedRecord(f"{name}: missing field 'result.forfeit.{key}'")
        if not test(forfeit[key]):
            raise MalformedRecord(f"{name}: field 'result.forfeit.{key}' must be {what}, got "
                                  f"{short_repr(forfeit[key])}")
    return forfeit


def check_unplayed(record: dict[str, Any], game: Game,
                   fail: Callable[[str], ReplayMismatch]) -> None:
    """A game lost before play: no action, no opening, and (Junqi) no layout of an agent's (the
    start is the seed's with no agent choosing)."""
    kind = record["result"]["forfeit"]["kind"]
    if kind not in BEFORE_PLAY_FORFEIT_KINDS:
        raise fail(f"result.forfeit.ply is 0 (before play), but kind {kind!r} is a fault on a "
                   f"move (before play: {', '.join(BEFORE_PLAY_FORFEIT_KINDS)})")
    if record["actions"] or record["start"]["opening_plies"]:
        raise fail(f"result.forfeit.ply is 0 (before play), but the record has "
                   f"{len(record['actions'])} actions and start.opening_plies "
                   f"{record['start']['opening_plies']}")
    sources = record["start"].get("layout_sources")
    if sources is not None and list(sources) != ["random", "random"]:
        raise fail(f"result.forfeit.ply is 0 (before play), so no agent chose a layout, but "
                   f"start.layout_sources is {short_repr(sources)}")
    if kind == "layout_failed" and not game.has_layouts:
        raise fail(f"result.forfeit.kind is 'layout_failed', but in {record['game']} no agent "
                   f"chooses a layout")


def check_forfeit(record: dict[str, Any], game: Game, state: Any, name: str,
                  fail: Callable[[str], ReplayMismatch]) -> dict[str, Any]:
    """The result a forfeit (``result.forfeit``) gives, after checking it against the replay:
    ``state`` is the position after the record's actions, where the bad move was to be made
    (the start, for a game lost before play: ``check_unplayed`` checked it)."""
    forfeit = check_forfeit_shape(record, name)
    seat, ply, plies = forfeit["seat"], forfeit["ply"], len(record["actions"])
    if state.is_terminal():
        raise fail(f"result.forfeit: the game was over after {plies} plies "
                   f"({state.end_reason}), so nobody could forfeit it")
    if ply != 0:
        if forfeit["kind"] in BEFORE_PLAY_FORFEIT_KINDS:
            raise fail(f"result.forfeit.kind {forfeit['kind']!r} is a fault before play, but "
                       f"result.forfeit.ply is {ply}, not 0")
        if ply != plies + 1:
            raise fail(f"result.forfeit.ply is {ply}, but the record's {plies} actions put the "
                       f"bad move on ply {plies + 1}")
        if seat != state.current_player:
            raise fail(f"result.forfeit.seat is {seat}, but ply {ply} was player "
                       f"{state.current_player}'s move")
    for key, names in (("agent", "agents"), ("spec", "specs")):
        if forfeit[key] != record[names][seat]:
            raise fail(f"result.forfeit.{key} is {short_repr(forfeit[key])}, but player {seat} "
                       f"is {short_repr(record[names][seat])}")
    if forfeit["kind"] == "time_out" and "move_time_limit" not in record:
        raise fail("result.forfeit.kind is 'time_out', but the record has no move_time_limit: "
                   "the game was played without one")
    if forfeit["kind"] == "thinking_failed" and "thinking" not in record:
        raise fail("result.forfeit.kind is 'thinking_failed', but the record holds no thinking: "
                   "the game was played without recording it")
    if forfeit["kind"] == "illegal_action":
        if "action" not in forfeit:
            raise MalformedRecord(f"{name}: missing field 'result.forfeit.action' (the illegal "
                                  f"action)")
        action = forfeit["action"]
        if is_integer(action) and action in state.legal_actions():
            raise fail(f"result.forfeit: action {action} "
                       f"({describe(game, state, action)}) is legal on ply {ply}, "
                       f"so it was no reason to forfeit")
        if not is_integer(action) and not isinstance(action, str):
            raise MalformedRecord(f"{name}: field 'result.forfeit.action' must be an integer "
                                  f"or the text of a non-integer, got {short_repr(action)}")
    return forfeit_result(seat, plies)


def forfeit_result(seat: int, plies: int) -> dict[str, Any]:
    """The result of a game player ``seat`` forfeited after ``plies`` actions."""
    return {"returns": list(forfeit_returns(seat)), "winner": 1 - seat,
            "end_reason": FORFEIT_END_REASON, "plies": plies}


def record_result(record: dict[str, Any], state: Any) -> dict[str, Any]:
    """The result of a record that ``replay`` has checked (``state``: its final one): the
    forfeit's, or the final position's."""
    result = record.get("result")
    forfeit = result.get("forfeit") if isinstance(result, dict) else None
    plies = len(record.get("actions") or [])
    return forfeit_result(forfeit["seat"], plies) if forfeit else replayed_result(state, plies)


# What an agent did, for the faults a record cannot prove (the verifier runs no agent).
UNCHECKABLE_FAULTS = {"raised": "raised", "time_out": "ran out of time",
                      "thinking_failed": "failed in thinking()",
                      "reset_failed": "failed in reset()",
                      "layout_failed": "failed to choose a layout"}


def forfeit_note(records: list[dict[str, Any]]) -> str | None:
    """What the summary says about forfeited games, if any: an illegal action was checked; a
    raise, a time-out or a failure outside ``act`` cannot be."""
    forfeits = [(i, r["result"]["forfeit"]) for i, r in enumerate(records)
                if isinstance(r, dict) and isinstance(r.get("result"), dict)
                and isinstance(r["result"].get("forfeit"), dict)]
    if not forfeits:
        return None
    note = (f"{len(forfeits)} of {len(records)} records are games an agent forfeited: their "
            f"moves up to the bad one were replayed and the loss checked")
    if any(f.get("kind") == "illegal_action" for _, f in forfeits):
        note += "; each illegal action was checked to be illegal there"
    unchecked = []
    for kind, did in UNCHECKABLE_FAULTS.items():
        indices = [i for i, f in forfeits if f.get("kind") == kind]
        if indices:
            shown = ", ".join(map(str, indices[:8])) + (", ..." if len(indices) > 8 else "")
            unchecked.append(f"{did} (records {shown})")
    if unchecked:
        note += (f"; that the agent {', '.join(unchecked)} cannot be checked from a record: "
                 f"the verifier does not run agents")
    return note


def next_digest_matches(record: dict[str, Any], chain: DigestChain, state: Any,
                        ply: int) -> bool:
    """Whether the record's digest after ply ``ply`` (digests.plies[ply], or digests.final after
    the last ply) is the one the replay gives from ``chain`` and ``state``, the replay's own
    after ``ply`` plies. If it is, a differing digest of ply ``ply`` was edited by itself: an
    action or a start that differs changes every digest after it."""
    digests, actions = record["digests"], record["actions"]
    if ply == len(actions):
        return chain.final == digests["final"]
    action = actions[ply]
    if ply >= len(digests["plies"]) or state.is_terminal() or action not in state.legal_actions():
        return False
    after = state.clone()
    after.apply(action)
    return chain.next_value(action, after)[:PLY_DIGEST_HEX // 2].hex() == digests["plies"][ply]


def replay(record: dict[str, Any], index: int | None = None,
           on_ply: Callable[[int, Any], None] | None = None,
           written_digests: Collection[str] = ()) -> Any:
    """Replay ``record`` through the game core, checking everything it claims (see the module
    docstring); returns the final state.

    ``on_ply(ply, state)`` is called with the start (ply 0) and after every action.
    ``written_digests``: the record digests its file's manifest lists (a record that hashes to
    one is as it was written, so a differing digests.record was edited by itself). Raises
    ``MalformedRecord`` for a field missing or of the wrong type, and ``ReplayMismatch`` naming
    the record and the first mismatch (with its ply): seeds, the start, the opening, an illegal
    action, a state digest, a game that ends too early or too late, the result, end reason or
    ply count, or a digest field edited by itself or the digest of the whole record.
    """
    check_record_shape(record, index)
    name = record_name(record, index)
    check_time_limit(record, name)
    before_play = ("forfeit" in record["result"]
                   and check_forfeit_shape(record, name)["ply"] == 0)

    def fail(problem: str) -> ReplayMismatch:
        return ReplayMismatch(f"{name}: {problem}")

    game = get_game(record["game"])  # the shape's check found it registered
    digests = record.get("digests") if has_digests(record) else None
    check_seeds(record, game, fail)
    try:
        state = start_state(game, record)
    except (KeyError, TypeError, ValueError) as exc:
        raise fail(f"cannot build the starting position: {exc}") from None
    chain = DigestChain(game, record[game.variant_flag], state)
    if digests is not None and chain.start != digests["start"]:
        if next_digest_matches(record, chain, state, 0):
            raise fail(f"digests.start differs from the replay ({digests['start'][:16]}... "
                       f"recorded, {chain.start[:16]}... replayed), but the digest after it "
                       f"matches: digests.start was edited, not the starting position")
        raise fail(f"the starting position differs from the recorded one (digests.start "
                   f"{digests['start'][:16]}..., the replay gives {chain.start[:16]}...): the "
                   f"scenario or rule set, or the layouts, changed")
    if before_play:
        check_unplayed(record, game, fail)
    else:
        check_opening(record, state, fail)
    actions = record["actions"]
    ply_digests = digests["plies"] if digests is not None else []
    if on_ply is not None:
        on_ply(0, state)
    for ply, action in enumerate(actions, 1):
        if state.is_terminal():
            raise fail(f"the game ended after {ply - 1} plies but the record has "
                       f"{len(actions)} actions")
        legal = state.legal_actions()
        if action not in legal:
            raise fail(f"ply {ply}: action {action!r} ({describe(game, state, action)}) is not "
                       f"legal for player "
                       f"{state.current_player}; {len(legal)} legal actions")
        state.apply(action)
        digest = chain.step(action, state)
        if ply <= len(ply_digests) and ply_digests[ply - 1] != digest:
            if next_digest_matches(record, chain, state, ply):
                raise fail(f"digests.plies[{ply - 1}] (ply {ply}) differs from the replay "
                           f"({ply_digests[ply - 1]} recorded, {digest} replayed), but the "
                           f"digest after it matches: digests.plies[{ply - 1}] was edited, not "
                           f"the move")
            raise fail(f"ply {ply}: the state digest differs (the record says "
                       f"{ply_digests[ply - 1]}, the replay gives {digest}): action {action} "
                       f"is not the move that was played, or the rules changed")
        if on_ply is not None:
            on_ply(ply, state)
    expected = record["result"]
    if "forfeit" in expected:
        found = check_forfeit(record, game, state, name, fail)
    elif not state.is_terminal():
        raise fail(f"the record's {len(actions)} actions end, but the game is not over")
    else:
        found = replayed_result(state, len(actions))
    for key in ("returns", "winner", "end_reason", "plies"):
        want = expected[key]
        if key == "returns":
            want = [float(r) for r in want]
        if want != found[key]:
            raise fail(f"result.{key} differs: the record says {want!r}, the replay gives "
                       f"{found[key]!r}")
    if digests is not None:
        if len(ply_digests) != len(actions):
            raise fail(f"digests.plies has {len(ply_digests)} entries for {len(actions)} plies")
        if chain.final != digests["final"]:
            # Every ply digest matched, the last one (or the start's) a prefix of the final.
            raise fail(f"digests.final differs from the replay ({digests['final'][:16]}... "
                       f"recorded, {chain.final[:16]}... replayed), but every ply digest "
                       f"matches: digests.final was edited, not the game")
        recomputed = record_digest(record)
        if recomputed != digests["record"]:
            if recomputed in written_digests:
                raise fail(f"digests.record differs ({digests['record'][:16]}... recorded, "
                           f"{recomputed[:16]}... recomputed), but the record hashes to the "
                           f"digest its file's manifest lists: digests.record was edited, not "
                           f"the record")
            raise fail(f"digests.record differs (the record says {digests['record'][:16]}..., "
                       f"recomputed {recomputed[:16]}...): a field it binds was edited after "
                       f"the game was written (the agents or their seats, specs, seeds, "
                       f"opening or result; the moves and states match), or digests.record "
                       f"itself was")
    return state


def lost_before_play(record: dict[str, Any]) -> bool:
    """Whether ``record`` is of a game an agent forfeited before play (ply 0: no opening)."""
    forfeit = record["result"].get("forfeit")
    return isinstance(forfeit, dict) and forfeit.get("ply") == 0


def check_pairs(records: list[dict[str, Any]]) -> list[str]:
    """The two games of each pair (same game, scenario or rules, pairing, pair and seed) must
    seat the same two agents the other way round and share the opening (unless one was lost
    before play, and so played none)."""
    groups: dict[tuple, list[int]] = {}
    for index, record in enumerate(records):
        variant = record.get(get_game(record["game"]).variant_flag)
        key = (record["game"], variant, record["pairing"], record["pair"], record["seed"])
        groups.setdefault(key, []).append(index)
    problems = []
    for (*_, pairing, pair, _), indices in groups.items():
        if len(indices) != 2:
            continue
        first, second = (records[i] for i in indices)
        where = (f"records {indices[0]} and {indices[1]} are the two games of pair {pair} of "
                 f"pairing {pairing}")
        if first["agents"] != second["agents"][::-1]:
            problems.append(f"{record_name(second, indices[1])}: {where}, but do not swap "
                            f"seats: {short_repr(first['agents'])} and "
                            f"{short_repr(second['agents'])}")
        elif has_digests(first) and has_digests(second) and first["swapped"] == second["swapped"]:
            problems.append(f"{record_name(second, indices[1])}: {where}, but both say "
                            f"swapped={first['swapped']}")
        elif not (lost_before_play(first) or lost_before_play(second)) and (
                first["start"]["opening_plies"] != second["start"]["opening_plies"]
                or first["actions"][:first["start"]["opening_plies"]]
                != second["actions"][:second["start"]["opening_plies"]]):
            problems.append(f"{record_name(second, indices[1])}: {where}, but their random "
                            f"openings differ")
    return problems


def verify_records(records: list[dict[str, Any]],
                   manifest: Manifest | None = None) -> list[str]:
    """Check every record's shape, then replay each well-formed one and check the pairs, and
    with the file's ``manifest`` that the file is complete (``completeness_problems``); the
    problems, each naming its record and the first mismatch (empty when all match). Without a
    manifest, records removed, doubled or reordered go unnoticed."""
    written = set() if manifest is None else listed_digests(manifest)
    problems = []
    well_formed = []
    for index, record in enumerate(records):
        try:
            check_record_shape(record, index)
            well_formed.append(index)
        except MalformedRecord as exc:
            problems.append(str(exc))
    for index in well_formed:
        try:
            replay(records[index], index, written_digests=written)
        except ReplayMismatch as exc:
            problems.append(str(exc))
    if len(well_formed) == len(records):
        problems += check_pairs(records)
    if manifest is not None:
        problems += completeness_problems(records, manifest)
    return problems


def digest_note(records: list[dict[str, Any]]) -> str | None:
    """What the summary says about records without digests (format /1), if any."""
    old = [i for i, r in enumerate(records) if isinstance(r, dict) and not has_digests(r)]
    if not old:
        return None
    shown = ", ".join(map(str, old[:8])) + (", ..." if len(old) > 8 else "")
    return (f"{len(old)} of {len(records)} records carry no digests (format "
            f"{RECORD_FORMATS[0]}; records {shown}): their seeds, opening, moves and result "
            f"were checked, but not the state after each ply nor which agent sat in which seat")
