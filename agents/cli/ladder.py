"""Pinned ladder: rate one agent against a fixed reference pool on a fixed Elo scale.

    tbw-ladder --game tbw --agent ucbmcts:iterations=50
    tbw-ladder --game junqi --agent examples/my_agent.py:MyAgent --games 20
    tbw-ladder --game tbw --agent greedy --ladder my_ladder.yaml --json rating.json

(``python scripts/ladder.py`` from a clone is the same command.)
The ladder (configs/ladder/<game>.yaml, or --ladder) names the scenario or rule set, the games
per opponent, the opening plies, the seed and the reference pool with its pinned ratings. The
agent plays each pool member in the arena's paired games (agents.arena.ladder); its rating is
fitted with the pool's ratings held fixed, with a 95% profile-likelihood interval. Files
(games.jsonl for tbw-replay, ladder.png) go to --out; --json writes the rating. Without
--game, the game is the one whose variant flag is given, else the --ladder file's, else the one
--agent plays, else the first game; the variant flag (--scenario, --rules, ...) only confirms
the ladder's, since its ratings hold there alone.

Every option is checked, every agent built once and every output path checked before the
first game; an existing, non-empty --out is refused unless --overwrite.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from pathlib import Path

from agents.arena import ArenaInputError, check_out_dir, import_ray
from agents.arena.ladder import check_ladder_run, run_ladder
from agents.arena.ladder_config import LadderConfigError, ladder_path
from agents.cli.common import (
    RUNS_FOLDER,
    add_game_flag,
    add_variant_flags,
    games_count,
    games_named_by_variants,
    given_variant,
    non_empty,
    option,
    option_message,
    pick_game,
    ray_address,
    refuse_other_variants,
    seed_value,
    workers_count,
)
from tbw_envs.core.contract import short_repr
from tbw_envs.core.yaml_loader import load_yaml
from tbw_envs.games import game_names, get_game

LADDER_FILES = ("games.jsonl", "games.manifest.json", "ladder.png")
# The messages of agents.arena.ladder name API arguments; the command line names its options.
LADDER_OPTIONS = (("games_per_opponent", "--games"), ("candidate", "--agent"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_game_flag(parser, help="the game (default: the one whose variant flag is given, else "
                               "the --ladder file's, else the one --agent plays, else the "
                               "first game)")
    parser.add_argument("--agent", type=non_empty, required=True, metavar="SPEC",
                        help="the agent to rate: a registry spec (greedy, "
                             "ucbmcts:iterations=50) or your own, path/to/file.py:Name or "
                             "package.module:Name, with ,key=value arguments")
    parser.add_argument("--ladder", type=non_empty, default=None, metavar="PATH",
                        help="ladder file, or a bundled ladder's name (default: "
                             "configs/ladder/<game>.yaml)")
    parser.add_argument("--games", type=games_count, default=None, metavar="N",
                        help="games against each pool member, rounded up to even (default: "
                             "the ladder's games_per_opponent)")
    parser.add_argument("--seed", type=seed_value, default=None,
                        help="base seed of every game (default: the ladder's)")
    parser.add_argument("--workers", type=workers_count, default=None,
                        help="processes playing games (default: all cores); 1 plays in this "
                             "process; with --ray, games in flight at once; results do not "
                             "depend on it")
    parser.add_argument("--ray", type=ray_address, default=None, metavar="ADDRESS",
                        help="play each game as a Ray task ('local', 'auto', "
                             "ray://head:10001); same results as without")
    parser.add_argument("--out", type=non_empty, default=None, metavar="DIR",
                        help="output folder for games.jsonl and ladder.png (default "
                             "runs/ladder-<game>-<YYYYmmdd-HHMMSS>/ under the current folder); "
                             "refused if it exists and is not empty, unless --overwrite")
    parser.add_argument("--json", type=non_empty, default=None, metavar="PATH",
                        help="write the rating as JSON: game, agent, elo, elo_low, elo_high, "
                             "games, scores (refused if the file exists, unless --overwrite)")
    parser.add_argument("--overwrite", action="store_true",
                        help="write into an existing --out folder and over an existing --json")
    add_variant_flags(parser)
    return parser


def check_json_path(text: str, overwrite: bool) -> Path:
    path = Path(text)
    if path.is_dir():
        raise ArenaInputError(f"--json: {short_repr(text)} is a folder")
    if path.exists() and not overwrite:
        raise ArenaInputError(f"--json: {short_repr(text)} exists; pass --overwrite to "
                              f"replace it")
    parent = path.parent
    if not parent.is_dir():
        raise ArenaInputError(f"--json: the folder {short_repr(str(parent))} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ArenaInputError(f"--json: no permission to write in {short_repr(str(parent))}")
    return path


def check_variant_flag(args: argparse.Namespace, variant: str, error) -> None:
    """The game's variant flag, if given, must name the ladder's variant."""
    given = given_variant(args, args.game)
    if given is None or given == variant or Path(given).resolve() == Path(variant).resolve():
        return
    game = get_game(args.game)
    error(f"{args.game}: {option(game.variant_flag)} {short_repr(given)}: the ladder is pinned "
          f"on the {game.variant_noun} {short_repr(variant)} (its ratings hold there only); "
          f"give a ladder of that {game.variant_noun} with --ladder")


def ladder_file_game(ladder: str) -> str | None:
    """The registered game a ladder file names, read even when another of its fields is wrong,
    so that error is given as that game's; None if the file names none (it is checked, and its
    problem named, with the rest of the run)."""
    with contextlib.suppress(ValueError):
        data = load_yaml(ladder_path("", ladder), error=LadderConfigError)
        game = data.get("game") if isinstance(data, dict) else None
        if isinstance(game, str) and game in game_names():
            return game
    return None


def plan(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict:
    """Every input checked before the first game (argparse errors): the game and its variant
    flag, the ladder file, the agent and the pool (built once), the caps, the output folder and
    the JSON path."""
    if args.game is None and args.ladder is not None and not games_named_by_variants(args):
        args.game = ladder_file_game(args.ladder)
    args.game = pick_game(args, parser.error, [args.agent], "--agent")
    refuse_other_variants(args, args.game, parser.error)
    if args.overwrite and args.out is None and args.json is None:
        parser.error("--overwrite needs --out or --json (the default folder is always a new "
                     "one)")
    if args.ray is not None:
        try:
            import_ray()
        except ImportError as exc:
            parser.error(f"--ray: {exc}")
    try:
        checked = check_ladder_run(args.game, args.agent, args.ladder, args.games,
                                   args.workers, args.ray, args.seed)
        check_variant_flag(args, checked["variant"], parser.error)
        if args.out is None:
            base = RUNS_FOLDER / f"ladder-{args.game}-{time.strftime('%Y%m%d-%H%M%S')}"
            out, number = base, 2
            while out.exists():
                out = base.with_name(f"{base.name}-{number}")
                number += 1
        else:
            out = check_out_dir(args.out, args.overwrite, what="--out")
            for name in LADDER_FILES:
                if (out / name).is_dir():
                    raise ArenaInputError(f"--out: {short_repr(str(out / name))} is a folder, "
                                          f"where the ladder writes a file")
        json_path = None if args.json is None else check_json_path(args.json, args.overwrite)
    except ArenaInputError as exc:
        parser.error(f"{args.game}: {option_message(str(exc), LADDER_OPTIONS)}")
    except ValueError as exc:  # the scenario or rule set (its loader names the problem)
        parser.error(f"{args.game}: {exc}")
    return {"out": out, "json": json_path, "games": checked["games_per_opponent"]}


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
    run = plan(args, parser)
    if args.games is not None and args.games % 2:
        print(f"note: {args.games} games per opponent rounded up to {run['games']} "
              f"(paired games)")
    result = run_ladder(args.game, args.agent, ladder=args.ladder, games_per_opponent=args.games,
                        workers=args.workers, ray_address=args.ray, seed=args.seed)
    print()
    print(result.table())
    out: Path = run["out"]
    out.mkdir(parents=True, exist_ok=True)
    manifest = result.write_games(out / "games.jsonl")
    written = ["games.jsonl", manifest.name]
    try:
        result.plot(out / "ladder.png")
        written.append("ladder.png")
    except ImportError:  # the chart is a nicety: matplotlib is optional
        print("(no chart: matplotlib is not installed)")
    if run["json"] is not None:
        run["json"].write_text(json.dumps(result.to_json(), indent=2) + "\n", encoding="utf-8")
        print(f"rating written to {run['json']}")
    print(f"\n{result.agent}: {result.elo:.1f} Elo [{result.elo_low:.1f}, "
          f"{result.elo_high:.1f}]; files: {out}/ ({', '.join(written)})")
    return 0

