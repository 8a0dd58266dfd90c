"""Round-robin arena: measure agent strength in paired games (the README's main job).

    tbw-arena                                        # TBW round robin, then the Junqi one
    tbw-arena --agents exact alg5:budget=200000 greedy --games 40
    tbw-arena --scenario hex_skirmish --agents greedy random --games 50 --no-render
    tbw-arena --game junqi --agents random random --games 100 --workers 2
    tbw-arena --game tbw --agents exact greedy random --ray auto   # a Ray cluster
    tbw-arena --game tbw --agents examples/tbw_view_agent.py:WeakestFirst greedy

(``python scripts/arena.py`` from a clone is the same command.) An agent is a registry spec
(greedy, ucbmcts:iterations=50, ppo:pretrained) or your own: path/to/file.py:Name or
package.module:Name, with ,key=value arguments (agents.user_agents; loading the file runs its
code).

Every pair of agents plays --games paired games (both seat assignments from the same start);
games run in --workers processes (or as Ray tasks with --ray) and every seed depends on the
game alone. Tables: wins, draws and losses by seat with Wilson intervals, Bradley-Terry ratings
(Elo scale) with bootstrap intervals, how games ended, time per move. Files (results.json,
games.csv, pairings.csv, ratings.csv, arena.png, games.jsonl for tbw-replay) go to --out.
Each game takes its own variant flag (``Game.variant_flag``: --scenario for TBW, --rules for
Junqi), and its defaults (agents, games per pairing, opening plies) come from its description.

Every option is checked, every agent built once and every output folder checked before the
first game; an existing, non-empty --out is refused unless --overwrite. Caps: at most
100,000 games in one round robin, --workers at most 256, --seed below 2**63, --opening-plies at
most a quarter of the longest game the scenario or rule set allows (duel_5v5_8x8: 100, ccgc:
500; agents.arena.max_opening_plies).

Each game is appended to --out's journal.jsonl as it finishes (the files above replace it at the
end): after Ctrl-C or a lost machine, --resume DIR replays and checks those games and plays only
the rest, to the same files as an uninterrupted run.

An agent that raises or returns an illegal action stops the run with a line naming it, the game
and the error (--on-agent-error stop, the default), or loses that game and the run goes on
(--on-agent-error forfeit: one line per forfeit; the record, the tables and games.csv say why,
and tbw-replay --verify checks the forfeit). Without --move-time-limit a move may take as long
as the agent likes, and results do not depend on the machine; with it, a slower move is a
time-out.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from agents.arena import (
    MAX_GAMES,
    MAX_WORKERS,
    ArenaInputError,
    check_out_dir,
    check_round_robin,
    import_ray,
    result_tables,
    run_round_robin,
    write_result,
)
from agents.arena import replay_record as replay_final_state
from agents.arena.journal import JOURNAL_NAME, read_journal_header
from agents.arena.play import ON_AGENT_ERROR, AgentError
from agents.arena.players import agents_game
from agents.arena.records import MalformedRecord
from agents.cli.common import (
    RUNS_FOLDER,
    add_game_flag,
    add_variant_flags,
    command_words,
    games_count,
    games_named_by_variants,
    given_variant,
    label,
    non_empty,
    non_negative_int,
    option,
    option_message,
    positive_seconds,
    ray_address,
    refuse_other_variants,
    registered,
    seed_value,
    variant_flags,
    workers_count,
)
from agents.registry import make_agent
from tbw_envs.games import game_names, get_game

DEFAULT_SEED = 0  # --seed is None on the command line only so that --resume can refuse it


def build_parser() -> argparse.ArgumentParser:
    games = registered()
    first = games[0]
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Without --game: the game whose variant flag is given ("
               + ", ".join(f"{option(g.variant_flag)}: {label(g)}" for g in games)
               + "); with only --agents, the game they play (a registry agent of one game, or "
               f"an agent file that declares GAME or a class attribute game), else "
               f"{label(first)}; every game ({', '.join(map(label, games))}, in turn) when "
               "none is given. An agent of another game than the one played is refused.",
    )
    add_game_flag(parser)
    parser.add_argument("--agents", nargs="+", type=non_empty, default=None, metavar="AGENT",
                        help="agent specs; every pair plays (one spec plays itself), e.g. exact "
                             "greedy random alg5:budget=100000, or your own agent: "
                             "path/to/file.py:Name or package.module:Name, with ,key=value "
                             "arguments (default: "
                             + "; ".join(f"{' '.join(g.arena_agents)} for {label(g)}"
                                         for g in games) + ")")
    parser.add_argument("--games", type=games_count, default=None,
                        help="games per pairing, rounded up to even (default "
                             + ", ".join(f"{g.arena_games} {label(g)}" for g in games)
                             + f"); at most {MAX_GAMES:,} games in all pairings together")
    parser.add_argument("--seed", type=seed_value, default=None,
                        help=f"base seed of every game, 0 to 2**63 - 1 (default {DEFAULT_SEED})")
    parser.add_argument("--opening-plies", type=non_negative_int, default=None, metavar="N",
                        help="start every game with N random plies, the same for both games "
                             "of a pair (deterministic agents from a fixed start otherwise "
                             "replay one game per seating); at most a quarter of the longest "
                             "game (duel_5v5_8x8: 100, ccgc: 500), and the opening stops before "
                             "a ply that would end the game (default: "
                             + ", ".join(f"{g.arena_opening_plies} for {label(g)}" for g in games)
                             + ")")
    parser.add_argument("--move-time-limit", type=positive_seconds, default=None,
                        metavar="SECONDS",
                        help="the most an agent may think a move: searches stop just short of "
                             "it and a slower move loses the game as a time-out; results then "
                             "depend on the machine's speed (default: no limit)")
    parser.add_argument("--workers", type=workers_count, default=None,
                        help="processes playing games (default: all cores); 1 plays in this "
                             "process; with --ray, games in flight at once (default: all the "
                             f"cluster's CPUs); results do not depend on it; at most "
                             f"{MAX_WORKERS}")
    parser.add_argument("--ray", type=ray_address, default=None, metavar="ADDRESS",
                        help="play each game as a Ray task: 'local' starts Ray on this "
                             "machine, 'auto' joins the cluster 'ray start' set up here, "
                             "ray://head:10001 connects through Ray Client; same results as "
                             "without (needs ray: pip install -e \".[rllib]\")")
    parser.add_argument("--out", type=non_empty, default=None,
                        help="output folder (default runs/arena-<game>-<YYYYmmdd-HHMMSS>/ "
                             "under the current folder; with several games, DIR/<game> for "
                             "each); refused if it exists and is not empty, unless --overwrite")
    parser.add_argument("--overwrite", action="store_true",
                        help="write into an existing --out folder, replacing the arena's files")
    parser.add_argument("--resume", type=non_empty, default=None, metavar="DIR",
                        help="go on with the interrupted run in DIR: its games so far are read "
                             f"back from DIR/{JOURNAL_NAME} (replayed and checked) and only "
                             "the rest are played; the run's options come from the journal "
                             "(--workers, --ray, --on-agent-error and --no-render may be "
                             "given)")
    parser.add_argument("--record-thinking", action="store_true",
                        help="keep, per move, what a search agent thought (the Junqi searches: "
                             "their most visited moves and their belief over hidden pieces) in "
                             "games.jsonl, for the web viewer (tbw-serve)")
    parser.add_argument("--on-agent-error", choices=list(ON_AGENT_ERROR), default=None,
                        help="when an agent raises or returns an illegal action: stop the run "
                             "with a message naming the agent, the game and the error (stop, "
                             "the default), or score that game as its loss and go on (forfeit: "
                             "the reason goes to games.jsonl and games.csv); may be given with "
                             "--resume")
    parser.add_argument("--no-render", action="store_true",
                        help="skip the final board of the last game")
    add_variant_flags(parser)
    return parser


def games_to_run(args: argparse.Namespace) -> list[str]:
    """--game; else the games whose variant flag is given; else with only --agents the game
    the agents play (``agents_game``: a registry agent of one game, a user agent that declares
    its game), or the first game when they play any; else every game. Raises
    ``ArenaInputError`` for agents of different games."""
    if args.game:
        return [args.game]
    named = games_named_by_variants(args)
    if named:
        return named
    if args.agents is not None:
        return [agents_game(args.agents) or game_names()[0]]
    return list(game_names())


def fresh_default_out(game: str, stamp: str) -> Path:
    """runs/arena-<game>-<stamp>, numbered -2, -3, ... if a run of the same second has it."""
    out = RUNS_FOLDER / f"arena-{game}-{stamp}"
    number = 2
    while out.exists():
        out = RUNS_FOLDER / f"arena-{game}-{stamp}-{number}"
        number += 1
    return out


def default_agents(game: str) -> list[str]:
    """The game's default entrants (``Game.arena_agents``) that can be built for it: one that
    cannot (a description subclassed under another name keeps its parent's ``ppo:pretrained``,
    and no policy is shipped for the new name) is left out with a note instead of refusing a
    run the user asked no agent of. Agents given with ``--agents`` are checked as given."""
    kept = []
    for spec in get_game(game).arena_agents:
        try:
            make_agent(spec, seed=0, game=game)
        except ValueError as exc:
            print(f"note: {game}: the default agent {spec} is left out (it cannot be built for "
                  f"{game}): {exc}")
            continue
        kept.append(spec)
    return kept


def plan(args: argparse.Namespace, parser: argparse.ArgumentParser) -> list[dict]:
    """One entry per game to run, every input checked up front (argparse errors, not
    tracebacks from a worker process, and never after a game was played): options that do
    not apply to the game, the scenario or rule set, the caps, every agent (built once) and
    every output folder. Nothing is written here."""
    if args.game:
        refuse_other_variants(args, args.game, parser.error)
    if args.overwrite and args.out is None:
        parser.error("--overwrite needs --out (the default folder is always a new one)")
    if args.ray is not None:
        try:
            import_ray()
        except ImportError as exc:
            parser.error(f"--ray: {exc}")
    runs = []
    stamp = time.strftime("%Y%m%d-%H%M%S")
    try:
        games = games_to_run(args)
    except ArenaInputError as exc:
        parser.error(f"--agents: {exc}; name the game with --game")
    for game in games:
        description = get_game(game)
        variant = given_variant(args, game)
        specs = args.agents or default_agents(game)
        count = args.games or description.arena_games
        opening = (description.arena_opening_plies if args.opening_plies is None
                   else args.opening_plies)
        try:
            checked = check_round_robin(
                game, list(specs), count, seed=args.seed, workers=args.workers,
                variant=variant, opening_plies=opening, ray_address=args.ray,
                move_time_limit=args.move_time_limit)
            if args.out is None:
                out = fresh_default_out(game, stamp)
            else:
                out = Path(args.out) / game if len(games) > 1 else Path(args.out)
                check_out_dir(out, args.overwrite, what="--out")
        except ArenaInputError as exc:
            parser.error(f"{game}: {option_message(str(exc))}")
        except ValueError as exc:  # the scenario or rule set (its loader names the problem)
            parser.error(f"{game}: {exc}")
        runs.append({"game": game, "variant": checked["variant"], "specs": list(specs),
                     "games": count, "out": out, "opening_plies": opening,
                     "move_time_limit": checked["move_time_limit"]})
    return runs


def run_options() -> tuple[str, ...]:
    """What --resume takes from the journal instead of the command line."""
    return ("game", *variant_flags(), "agents", "games", "seed", "opening_plies",
            "move_time_limit", "out", "overwrite", "record_thinking")


def resume_plan(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict:
    """The run to continue with --resume DIR, from its journal's first line."""
    given = [name for name in run_options() if getattr(args, name) not in (None, False)]
    if given:
        parser.error(f"--resume continues a run with the options it was started with (they are "
                     f"in its journal); drop {option(given[0])}")
    folder = Path(args.resume)
    if not (folder / JOURNAL_NAME).is_file():
        if (folder / "results.json").is_file():
            parser.error(f"--resume: {folder} holds a finished run (results.json), nothing to "
                         f"resume")
        nested = sorted(str(folder / name) for name in game_names()
                        if (folder / name / JOURNAL_NAME).is_file())
        hint = f"; resume each game's folder: {', '.join(nested)}" if nested else ""
        parser.error(f"--resume: no {JOURNAL_NAME} in {folder}{hint}")
    try:
        header = read_journal_header(folder / JOURNAL_NAME)
        run = header["run"]
        checked = check_round_robin(run.get("game"), run.get("specs"),
                                    run.get("games_per_pairing"), seed=run.get("seed"),
                                    workers=args.workers, variant=run.get("variant"),
                                    opening_plies=run.get("opening_plies"),
                                    ray_address=args.ray,
                                    record_thinking=run.get("record_thinking"),
                                    move_time_limit=run.get("move_time_limit"))
    except ArenaInputError as exc:
        parser.error(f"--resume: {exc}")
    except ValueError as exc:  # the scenario or rule set the journal names
        parser.error(f"--resume: {exc}")
    command = header.get("command")
    return {"game": checked["game"], "variant": checked["variant"], "specs": run["specs"],
            "games": checked["games_per_pairing"], "seed": checked["seed"],
            "out": folder, "opening_plies": checked["opening_plies"],
            "move_time_limit": checked["move_time_limit"],
            "record_thinking": checked["record_thinking"], "resume": True,
            "command": command if isinstance(command, str) else None}


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    started_as = command_words("arena")
    if args.resume is not None:
        runs = [resume_plan(args, parser)]
    else:
        if args.seed is None:
            args.seed = DEFAULT_SEED
        command = shlex.join([*started_as, *argv])
        runs = [run | {"seed": args.seed, "record_thinking": args.record_thinking,
                       "resume": False, "command": command} for run in plan(args, parser)]
    for index, run in enumerate(runs):
        if index:
            print("\n" + "=" * 100 + "\n")
        if run["games"] % 2:
            print(f"note: {run['games']} games per pairing rounded up to {run['games'] + 1} "
                  f"(paired games)")
        journal = Path(run["out"]) / JOURNAL_NAME
        resume = shlex.join([*started_as, "--resume", str(run["out"])])
        if args.overwrite:
            journal.unlink(missing_ok=True)  # a stale journal is one of the arena's files
        try:
            result = run_round_robin(
                run["game"], run["specs"], run["games"], seed=run["seed"],
                workers=args.workers, variant=run["variant"], progress=True,
                opening_plies=run["opening_plies"], ray_address=args.ray,
                record_thinking=run["record_thinking"], journal=journal,
                resume=run["resume"], command=run["command"],
                on_agent_error=args.on_agent_error or "stop",
                move_time_limit=run["move_time_limit"])
        except AgentError as exc:  # one line to read before the traceback
            print(f"\nerror: {exc.line}; the games finished so far are in {journal}: go on "
                  f"with {resume} --on-agent-error forfeit to score such a game as its loss",
                  file=sys.stderr)
            raise
        except (ArenaInputError, MalformedRecord) as exc:  # the journal, before any game
            parser.error(f"--resume: {exc}" if run["resume"] else str(exc))
        except KeyboardInterrupt:
            print(f"\ninterrupted: the games finished so far are in {journal}; go on with "
                  f"{resume}", file=sys.stderr)
            return 130
        print()
        print(result_tables(result))
        paths = write_result(result, run["out"], command=run["command"],
                             overwrite=args.overwrite)
        if not args.no_render:
            last = result.games[-1]
            print(f"\nfinal board of the last game ({last.labels[0]} as player 0, "
                  f"{last.labels[1]} as player 1; {last.end_reason}):")
            final = replay_final_state(last.to_record())
            print(get_game(run["game"]).render_text(final).rstrip())
        print(f"\nresults: {paths['results.json'].parent}/ "
              f"({', '.join(sorted(path.name for path in paths.values()))})")
    return 0
