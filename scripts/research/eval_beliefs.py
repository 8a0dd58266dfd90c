"""How well each Junqi belief tracker predicts the opponent's hidden piece types.

    python scripts/research/eval_beliefs.py [--games 500] [--seed 0] [--plies 20 50 100]
    python scripts/research/eval_beliefs.py --games-from runs/arena-junqi-.../ [--plies 50 100]
    python scripts/research/eval_beliefs.py --fit-model --games-from runs/beliefs/games-fit
    python scripts/research/eval_beliefs.py --games-from runs/arena-junqi-.../ \\
        --pieces-of ppo:pretrained

Records ``--games`` games of uniform random play from uniformly random layouts (or, with
``--games-from``, reads the games the arena recorded in those ``games.jsonl`` files or run
folders: games played by real agents, each under its own rule set), then at each ply count of
``--plies``, from both players' views (with ``--pieces-of LABEL``, only from the view of the
player facing the agent of that label, in the games it played), scores every tracker of
``agents.junqi.belief``: log-loss, flag and marshal top-1, build and sample times, and the
reductions of count vs paper and model vs count with bootstrap intervals
(``agents.junqi.belief.scoring`` says how each is measured).

``--model-temperatures``/``--model-betas``/``--model-weights``: also score the ``model`` tracker
at every combination (its T, beta and the evaluation weights of the opponent model) on the same
views, and print the grid with the combination of lowest log-loss (pooled over the ply counts).

``--fit-model``: instead of scoring, fit the ``model`` tracker's feature weights by maximum
likelihood on the moves of both players of the ``--games-from`` games
(``agents.junqi.belief.model_fit``), print them (with their standard errors) and write them as
JSON; deterministic (Newton's method from zero weights).

``--ceiling-views N``: the references ``independent`` and ``exact``
(``agents.junqi.belief.references``) on the first N views of each ply count (default 0:
skipped).

Prints a markdown table and writes the figures as JSON to ``runs/beliefs/``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

from agents.arena.records import game_records, start_and_actions
from agents.junqi.belief import DEFAULT_BELIEF
from agents.junqi.belief.model_fit import fit_markdown, fit_opponent_model
from agents.junqi.belief.scoring import (
    random_play_games,
    reading_seats,
    results_markdown,
    score_trackers,
)

ROOT = Path(__file__).resolve().parents[2]
COMMAND = "python scripts/research/eval_beliefs.py "


def run_label(paths: list[str]) -> str:
    """The name of the first run folder given (a games file's folder)."""
    source = Path(paths[0])
    return (source if source.is_dir() else source.parent).name


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plies", type=int, nargs="+", default=[20, 50, 100])
    parser.add_argument("--rules", default="ccgc")
    parser.add_argument("--timing-views", type=int, default=20)
    parser.add_argument("--timing-samples", type=int, default=200)
    parser.add_argument(
        "--ceiling-views",
        type=int,
        default=0,
        help="views per ply count for the independent/exact references",
    )
    parser.add_argument("--chain-steps", type=int, default=60_000)
    parser.add_argument(
        "--games-from",
        nargs="+",
        metavar="PATH",
        help="score views of the games in these arena games.jsonl files or run folders instead "
        "of random play (each game under its own rules; --games and --rules are then unused, "
        "--seed still seeds the bootstraps)",
    )
    parser.add_argument(
        "--pieces-of",
        metavar="LABEL",
        help="with --games-from: score only the views facing the agent of this label (as the "
        "records name it, e.g. ppo:pretrained), in the games it played",
    )
    parser.add_argument("--model-temperatures", type=float, nargs="+", metavar="T")
    parser.add_argument("--model-betas", type=float, nargs="+", metavar="BETA")
    parser.add_argument("--model-weights", nargs="+", metavar="NAME")
    parser.add_argument(
        "--fit-model",
        action="store_true",
        help="fit the model tracker's feature weights by maximum likelihood on the moves of the "
        "--games-from games and write them, instead of scoring the trackers",
    )
    parser.add_argument("--out", default=str(ROOT / "runs" / "beliefs"))
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if args.games < 1 or any(p < 0 for p in args.plies):
        parser.error("--games must be positive and --plies nonnegative")
    if any(t <= 0 for t in args.model_temperatures or []) or any(
        b < 0 for b in args.model_betas or []
    ):
        parser.error("--model-temperatures must be > 0 and --model-betas >= 0")
    plies = sorted(set(args.plies))
    progress = not args.no_progress
    command = COMMAND + " ".join(sys.argv[1:] if argv is None else argv)

    started = time.perf_counter()
    if args.fit_model and not args.games_from:
        parser.error("--fit-model needs --games-from")
    if args.pieces_of is not None and (not args.games_from or args.fit_model):
        parser.error("--pieces-of needs --games-from and scores trackers (not --fit-model)")
    if args.games_from:
        try:
            records = game_records(args.games_from, "junqi")
            games = [start_and_actions(record) for record in records]
            readers = (reading_seats(records, args.pieces_of)
                       if args.pieces_of is not None else [(0, 1)] * len(games))
        except (OSError, ValueError) as exc:
            parser.error(str(exc))
        if args.fit_model:
            fit = fit_opponent_model(games)
            fit["command"] = command
            print(fit_markdown(fit))
            out = Path(args.out)
            out.mkdir(parents=True, exist_ok=True)
            path = out / f"fit_model_{run_label(args.games_from)}.json"
            path.write_text(json.dumps(fit, indent=2) + "\n", encoding="utf-8")
            print(f"\nwrote {path} ({time.perf_counter() - started:.0f} s)")
            return fit
    else:
        games = random_play_games(args.games, args.seed, args.rules, max(plies), progress)
        readers = [(0, 1)] * len(games)
    scored = score_trackers(
        games, readers, plies, seed=args.seed, timing_views=args.timing_views,
        timing_samples=args.timing_samples, ceiling_views=args.ceiling_views,
        chain_steps=args.chain_steps, model_temperatures=args.model_temperatures,
        model_betas=args.model_betas, model_weights=args.model_weights, progress=progress)
    results = {
        "command": command,
        "games": sum(1 for seats in readers if seats),
        "games_from": args.games_from,
        "pieces_of": args.pieces_of,
        "seed": args.seed,
        "rules": args.rules,
        "plies": plies,
        "default_belief": DEFAULT_BELIEF,
        "machine": f"{platform.machine()}, {platform.python_implementation()} "
        f"{platform.python_version()}",
        **scored,
        "seconds": time.perf_counter() - started,
    }

    print(results_markdown(results, plies))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.games_from:
        reading = ("" if args.pieces_of is None else "_pieces_of_"
                   + "".join(c if c.isalnum() else "-" for c in args.pieces_of))
        path = out / f"eval_games_{run_label(args.games_from)}{reading}.json"
    else:
        path = out / f"eval_{args.rules}_g{args.games}_s{args.seed}.json"
    path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {path} ({results['seconds']:.0f} s)")
    return results


if __name__ == "__main__":
    main()
