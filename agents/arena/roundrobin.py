"""The round robin: every pair of entrants in paired games, played in parallel processes (or
as Ray tasks), every argument checked and every agent built once before the first game. An agent
at fault (it raises or returns an illegal action, runs over the move time limit, or fails in
``reset``, its layout or ``thinking()``: ``agents.arena.play``) stops the run
(``on_agent_error="stop"``, an ``AgentError`` naming it and the game) or loses that game
(``"forfeit"``: one line on stderr per forfeit, and the run goes on).

The game is resolved once, here (``check_round_robin``, ``play_schedule``): its description
goes into every task, and each spec is parsed once in this process and once in each worker
(``players.agent_maker``), never once per game."""

from __future__ import annotations

import os
import re
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agents.arena.checks import (
    MAX_BOOTSTRAP,
    MAX_GAMES,
    MAX_WORKERS,
    ArenaInputError,
    ArenaTypeError,
    check_flag,
    check_game,
    check_game_name,
    check_int,
    check_opening_plies,
    check_ray_address,
    check_specs,
    check_total_games,
    check_variant,
    even_games,
)
from agents.arena.journal import Journal, resume_journal, run_key, start_journal
from agents.arena.main_guard import unguarded_main_call
from agents.arena.play import ON_AGENT_ERROR, fault_line, play_task, warm_up
from agents.arena.players import build_entrants, entrant_spec, entrants
from agents.arena.records import ArenaGame
from agents.arena.results import RoundRobinResult
from agents.arena.runners import play_in_processes, play_on_ray
from agents.arena.scheduling import GameTask, check_move_time_limit, iter_tasks
from tbw_envs.core.contract import MAX_SEED, kind_of, short_repr
from tbw_envs.description import Game
from tbw_envs.games import get_game


def check_round_robin(game: Any, specs: Any, games_per_pairing: Any, seed: Any = 0,
                      workers: Any = None, variant: Any = None, progress: Any = False,
                      bootstrap: Any = 200, bootstrap_seed: Any = 0, opening_plies: Any = 0,
                      ray_address: Any = None, build: bool = True,
                      record_thinking: Any = False,
                      on_agent_error: Any = "stop",
                      move_time_limit: Any = None) -> dict[str, Any]:
    """Check every argument of ``run_round_robin`` (types, ranges, the caps of
    ``agents.arena.checks``), load the scenario or rule set and (``build``) build every agent
    once; returns the arguments as plain values (and ``description``, the game's ``Game``).
    Raises ``ArenaInputError`` (a ValueError;
    ``ArenaTypeError``, also a TypeError, for a value of the wrong type) naming the argument:
    nothing has been played or written yet."""
    check_game_name(game)
    entries = check_specs(specs)
    games_per_pairing = check_int(games_per_pairing, "games_per_pairing", 1, MAX_GAMES)
    seed = check_int(seed, "seed", 0, MAX_SEED)
    if ray_address is not None:
        if not isinstance(ray_address, str):
            raise ArenaTypeError(f"ray_address must be a string or None, got "
                                 f"{kind_of(ray_address)} {short_repr(ray_address)}")
        check_ray_address(ray_address)
    if workers is not None:
        workers = check_int(workers, "workers", 1, MAX_WORKERS)
    progress = check_flag(progress, "progress")
    record_thinking = check_flag(record_thinking, "record_thinking")
    if not isinstance(on_agent_error, str) or on_agent_error not in ON_AGENT_ERROR:
        raise ArenaInputError(f"on_agent_error must be one of {', '.join(ON_AGENT_ERROR)}, got "
                              f"{short_repr(on_agent_error)}")
    move_time_limit = check_move_time_limit(move_time_limit)
    bootstrap = check_int(bootstrap, "bootstrap", 0, MAX_BOOTSTRAP)
    bootstrap_seed = check_int(bootstrap_seed, "bootstrap_seed", 0, MAX_SEED)
    variant = check_variant(game, variant)
    check_game(game, variant)
    opening_plies = check_opening_plies(game, variant, opening_plies)
    _, total = check_total_games(len(entries), games_per_pairing)
    entries, labels, pairings = entrants(entries)
    description = get_game(game)
    if build:
        build_entrants(description, entries, labels,
                       pickled=ray_address is not None or workers != 1 and total > 1,
                       variant=variant)
    return {"game": game, "description": description, "entries": entries, "labels": labels,
            "pairings": pairings,
            "games_per_pairing": games_per_pairing, "total": total, "seed": seed,
            "workers": workers, "variant": variant, "progress": progress,
            "bootstrap": bootstrap, "bootstrap_seed": bootstrap_seed,
            "opening_plies": opening_plies, "ray_address": ray_address,
            "record_thinking": record_thinking, "on_agent_error": on_agent_error,
            "move_time_limit": move_time_limit}


def run_round_robin(game: str, specs: Sequence[Any], games_per_pairing: int, seed: int = 0,
                    workers: int | None = None, variant: str | None = None,
                    progress: bool = False, bootstrap: int = 200,
                    bootstrap_seed: int = 0, opening_plies: int = 0,
                    ray_address: str | None = None,
                    record_thinking: bool = False, journal: str | Path | None = None,
                    resume: bool = False, command: str | None = None,
                    on_agent_error: str = "stop",
                    move_time_limit: float | None = None) -> RoundRobinResult:
    """Every pair of ``specs`` (spec strings: registry agents or your own, ``file.py:Name``;
    or picklable ``factory(seed)`` callables)
    plays ``games_per_pairing`` paired games (rounded up to even) of ``game`` (``"tbw"`` or
    ``"junqi"``) on ``variant`` (TBW scenario or Junqi rule set; default ``duel_5v5_8x8`` /
    ``ccgc``). ``workers`` processes play the games (default ``os.cpu_count()``; 1 plays in this
    process; a call from the top level of a script, outside ``if __name__ == "__main__":``,
    plays in this process with a warning, since every spawned worker would run the script
    again); the results do not depend on it. ``opening_plies`` random plies, the same for both
    games of a pair, start every game (``random_opening``): on a fixed TBW scenario,
    deterministic agents otherwise replay one game per seating. ``ray_address`` (``"local"``,
    ``"auto"``, ``"ray://host:10001"``: ``connect_ray``) plays each game as a Ray task instead,
    at most ``workers`` at a time (default: all the cluster's CPUs), with the same results.
    ``record_thinking`` keeps, per ply, what the mover's ``thinking()`` said (the Junqi
    searches: their most visited moves and their belief), in each game's record.

    ``move_time_limit`` (seconds, at most ``agents.common.params.MAX_SECONDS``; None, the
    default: no limit) bounds each ``act``: the agent's searches are asked to stop just short
    of it (``agents.common.budget.stop_when``), and a move that takes longer is a time-out (one
    that never returns is abandoned after twice the limit, its thread left running). Results
    then depend on the machine's speed and load; each record says which limit applied, and a
    journal resumes only with the same one. Without a limit no thread is started and the
    records are the same, bit for bit, as ever.

    ``on_agent_error``: what a game does in which an agent is at fault: it raises or returns an
    illegal action, times out, or fails before play (its ``reset``, or its Junqi layout raises
    or is refused) or, with ``record_thinking``, in ``thinking()``. ``"stop"`` (the default)
    stops the run with an ``AgentError`` naming the agent, the game and the error;
    ``"forfeit"`` scores the game as that agent's loss (``ArenaGame.forfeit`` and the record's
    ``result.forfeit`` say why; its moves before the bad one are kept and replay), prints one
    line on stderr and goes on. An agent that cannot be built is no forfeit: it is refused
    before the first game.

    ``journal`` (a file path, ``agents.arena.journal``) appends each game as it finishes, so an
    interrupted run can go on: ``resume=True`` reads the games the journal holds (each replayed
    and checked against the schedule) and plays only the rest; the run's arguments must be the
    ones it was started with (``workers``, ``ray_address`` and ``on_agent_error`` aside, but a
    journal holding forfeited games resumes with ``"forfeit"`` only). ``command`` is kept in a
    new journal's first line. ``RoundRobinResult.write`` removes the journal once its files
    are written.

    Every argument is checked and every agent built once before the first game
    (``check_round_robin``; the caps are in ``agents.arena.checks``), and the games are
    scheduled lazily."""
    args = check_round_robin(game, specs, games_per_pairing, seed, workers, variant, progress,
                             bootstrap, bootstrap_seed, opening_plies, ray_address,
                             record_thinking=record_thinking, on_agent_error=on_agent_error,
                             move_time_limit=move_time_limit)
    variant, seed, workers = args["variant"], args["seed"], args["workers"]
    move_time_limit = args["move_time_limit"]
    entries, labels, pairings = args["entries"], args["labels"], args["pairings"]
    games_per_pairing, opening_plies, total = (args["games_per_pairing"], args["opening_plies"],
                                               args["total"])
    key = run_key(game, variant, [entrant_spec(entry) for entry in entries],
                  even_games(games_per_pairing), seed, opening_plies, args["record_thinking"],
                  move_time_limit)
    description = args["description"]
    opened, done = open_journal(journal, resume, key, command, lambda: list(iter_tasks(
        description, variant, entries, labels, pairings, games_per_pairing, seed,
        opening_plies, args["record_thinking"], move_time_limit=move_time_limit)))
    forfeited = sorted(game_id for game_id, g in done.items() if g.forfeit is not None)
    if forfeited and on_agent_error != "forfeit":
        opened.close()
        raise ArenaInputError(
            f"journal: {short_repr(str(opened.path))} holds {len(forfeited)} forfeited game(s) "
            f"(game {', '.join(map(str, forfeited[:5]))}{', ...' if len(forfeited) > 5 else ''})"
            f"; resume it with on_agent_error='forfeit' (scripts/arena.py --on-agent-error "
            f"forfeit), as it was started")
    start = time.perf_counter()
    try:
        games, workers = play_schedule(description, variant, entries, labels, pairings,
                                       games_per_pairing, seed, opening_plies, total, workers,
                                       ray_address, args["progress"], "run_round_robin",
                                       f"{game} round robin",
                                       record_thinking=args["record_thinking"],
                                       journal=opened, done=done,
                                       on_agent_error=on_agent_error,
                                       move_time_limit=move_time_limit)
    finally:
        if opened is not None:
            opened.close()
    return RoundRobinResult(
        game=game, variant=variant, seed=seed, games_per_pairing=even_games(games_per_pairing),
        labels=labels, specs=[entrant_spec(entry) for entry in entries], pairings=pairings,
        games=games, workers=workers,
        wall_seconds=time.perf_counter() - start, bootstrap=args["bootstrap"],
        bootstrap_seed=args["bootstrap_seed"], opening_plies=opening_plies,
        resumed_games=len(done), journal=None if opened is None else opened.path,
    )


def open_journal(journal: Any, resume: Any, key: dict[str, Any], command: str | None,
                 tasks: Callable[[], list[GameTask]]) -> tuple[Journal | None, dict]:
    """The run's journal, new or resumed (``tasks()`` gives the schedule to check a resumed
    one against), and the games it already holds; ``(None, {})`` without a journal."""
    resume = check_flag(resume, "resume")
    if journal is None:
        if resume:
            raise ArenaInputError("resume=True needs the journal of the run to resume "
                                  "(journal=path)")
        return None, {}
    if isinstance(journal, os.PathLike):
        journal = os.fspath(journal)
    if not isinstance(journal, str) or not journal.strip():
        raise ArenaTypeError(f"journal must be a file path or None, got {kind_of(journal)} "
                             f"{short_repr(journal)}")
    if resume:
        return resume_journal(journal, key, tasks())
    return start_journal(journal, key, command), {}


def play_schedule(game: str | Game, variant: str, entries: Sequence[Any],
                  labels: Sequence[str],
                  pairings: Sequence[tuple[int, int]], games_per_pairing: int, seed: int,
                  opening_plies: int, total: int, workers: int | None,
                  ray_address: str | None, progress: bool, caller: str,
                  description: str, record_thinking: bool = False,
                  journal: Journal | None = None, done: dict[int, ArenaGame] | None = None,
                  on_agent_error: str = "stop",
                  move_time_limit: float | None = None,
                  summary: Callable[..., str] | None = None) -> tuple[list[ArenaGame], int]:
    """Play the paired games of ``pairings`` (``scheduling.iter_tasks``) of ``game`` (a name or
    its description, resolved once here) in this process, in worker processes or on Ray, with a
    progress bar (``description`` its text); returns the games in game-id order and the
    workers used. ``caller`` names the public function in the unguarded-script warning. Games
    in ``done`` (by id, from a resumed journal) are not played again; each game played is
    appended to ``journal``; each forfeited game (``on_agent_error="forfeit"``) prints one line
    on stderr. ``move_time_limit`` (checked: ``check_move_time_limit``) bounds every move.
    ``summary(labels, pairings, games)`` is the bar's postfix (default ``running_summary``)."""
    summary = summary or running_summary
    if ray_address is None and workers is None:
        workers = min(os.cpu_count() or 1, MAX_WORKERS)
    if ray_address is None and workers > 1 and total > 1:
        script = unguarded_main_call()
        if script is not None:
            warnings.warn(
                f"{caller} was called from the top level of {script} outside an "
                f"'if __name__ == \"__main__\":' block; each spawned worker process would run "
                f"the script again, so the games are played in this process. Put the call "
                f"under that block to use {workers} workers (the results are the same).",
                RuntimeWarning, stacklevel=3)
            workers = 1
    game = get_game(game)
    finished: dict[int, ArenaGame] = dict(done or {})
    tasks = (task for task in iter_tasks(game, variant, entries, labels, pairings,
                                         games_per_pairing, seed, opening_plies, record_thinking,
                                         on_agent_error, move_time_limit)
             if task.game_id not in finished)
    bar = progress_bar(total, description, initial=len(finished)) if progress else None

    def record(result: ArenaGame) -> None:
        finished[result.game_id] = result
        if journal is not None:
            journal.append(result)
        if result.forfeit is not None:
            line = forfeit_message(result)
            if bar is not None:
                bar.write(line, file=sys.stderr)
            else:
                print(line, file=sys.stderr)
        if bar is not None:
            bar.update(1)
            bar.set_postfix_str(summary(labels, pairings, finished.values()),
                                refresh=False)

    try:
        if ray_address is not None:
            workers = play_on_ray(tasks, ray_address, workers, record)
        elif total == len(finished):
            pass  # the journal held every game
        elif workers == 1 or total <= 1:
            warm_up(game, variant, entries, move_time_limit)
            for task in tasks:
                record(play_task(task))
        else:
            play_in_processes(tasks, min(workers, total - len(finished)), game, variant,
                              entries, record, move_time_limit)
    finally:
        if bar is not None:
            bar.close()
    return [finished[game_id] for game_id in range(total)], workers


def forfeit_message(game: ArenaGame) -> str:
    """The one line a forfeited game prints."""
    forfeit = game.forfeit
    return ("forfeit: " + fault_line(game.game, game.game_id, game.labels, game.seed,
                                     forfeit["seat"], forfeit["ply"], forfeit["reason"])
            + "; scored as its loss")


def progress_bar(total: int, description: str, initial: int = 0):
    """A tqdm progress bar (``initial`` games already done), or None without tqdm."""
    try:
        from tqdm import tqdm
    except ImportError:  # the progress bar is a nicety, never a requirement
        return None
    return tqdm(total=total, desc=description, unit="game", initial=initial)


def running_summary(labels: Sequence[str], pairings: Sequence[tuple[int, int]],
                    games: Any) -> str:
    """Each agent's score so far (draw = half), for the progress bar."""
    points = [0.0] * len(labels)
    played = [0] * len(labels)
    for g in games:
        a, b = pairings[g.pairing]
        seats = (b, a) if g.swapped else (a, b)
        for seat in (0, 1):
            points[seats[seat]] += g.points(seat)
            played[seats[seat]] += 1
    short = progress_labels(labels)
    parts = [f"{short[i]} {points[i] / played[i]:.2f}"
             for i in range(len(labels)) if played[i]]
    return ", ".join(parts[:6])


FILE_AGENT = re.compile(r"^[^:]*\.py:(?=.)")  # the file of a path/to/file.py:Name spec
AGENT_NAME = re.compile(r"[^:,]*")  # name:arguments, or a file agent's Name,arguments


def progress_labels(labels: Sequence[str], width: int = 14) -> list[str]:
    """Labels short enough for a progress bar that still tell the agents apart.

    Agents of one name whose labels do not all fit in ``width`` (``ismcts:iterations=25,
    weights=tuned`` and ``ismcts:iterations=400,weights=tuned``) keep their name and only what
    differs between them (``ismcts:25``, ``ismcts:400``), cut at separators of the spec syntax;
    a label still too long drops its parameter names (``greedy:tuned``) and then ends in an
    ellipsis, so a cut never passes for another value. An agent from a file
    (``path/to/my_agent.py:MyAgent``) goes by what follows the file (``MyAgent``) unless two
    agents would then read alike: the path would fill the bar and cut the name off."""
    named = [FILE_AGENT.sub("", label) for label in labels]
    if len(set(named)) == len(set(labels)):
        labels = named
    short = list(labels)
    families: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        families.setdefault(AGENT_NAME.match(label).group(), []).append(i)
    for name, members in families.items():
        group = [labels[i] for i in members]
        if len(members) < 2 or all(len(label) <= width for label in group):
            continue
        head = _shared_edge(group, from_end=False)
        tail = _shared_edge(group, from_end=True)
        for i, label in zip(members, group, strict=True):
            middle = label[head:len(label) - tail] if head + tail < len(label) else label
            short[i] = middle if middle.startswith(name) else f"{name}:{middle}"
    # A label still too long drops its parameter names (greedy:weights=tuned -> greedy:tuned),
    # unless that makes two labels alike.
    values = [_values_only(label) if len(label) > width else label for label in short]
    if len(set(values)) == len(set(short)):
        short = values
    return [label if len(label) <= width else label[:width - 1] + "\u2026" for label in short]


def _values_only(label: str) -> str:
    """``name:key=value,...`` written ``name:value,...``; a label whose items hold quotes or
    no ``=`` is left alone."""
    name, colon, rest = label.partition(":")
    if not colon or any(quote in rest for quote in "\"'"):
        return label
    items = rest.split(",")
    if not all("=" in item for item in items):
        return label
    return f"{name}:" + ",".join(item.split("=", 1)[1] for item in items)


def _shared_edge(labels: Sequence[str], from_end: bool) -> int:
    """How many characters all ``labels`` share at their start (or end), up to a separator."""
    texts = [label[::-1] for label in labels] if from_end else list(labels)
    n = 0
    while all(len(t) > n for t in texts) and len({t[n] for t in texts}) == 1:
        n += 1
    # Back off to just after a separator, so a number is never split (25 and 250).
    while n > 0 and texts[0][n - 1] not in ":,=":
        n -= 1
    return n
