"""Play and watch in the browser: a local web app (install the ``web`` extra).

    tbw-serve                          # http://127.0.0.1:8000
    tbw-serve --runs runs --port 8001  # watch the games recorded under runs/
    tbw-serve --agents my_agent.py:MyAgent 'ppo:path=runs/ppo-junqi/policy.npz'

(``python scripts/serve.py`` from a clone is the same command.)
Play: choose the game, the scenario or rule set, the opponent (any registry spec, such as
``ppo:pretrained`` or ``ismcts:iterations=400``) and your seat. Watch: pick an arena file
(``games.jsonl``) under the runs folder and step, scrub or autoplay it.

The server binds to 127.0.0.1 unless told otherwise, and answers only requests addressed to
this machine (or to ``--host`` / ``--allow-host``) and, for a state-changing request, from its
own page (docs/web.md, "Security"). A page may name registry agents only, within this server's
caps (``--max-seconds`` of thinking a move, iteration and other counts scaled to it, ``threads``
at most ``--threads``); agents that load files (your own ``file.py:Name``, a model by path) are
offered when listed with ``--agents`` here, because the server would otherwise load any file a
page names. Learned agents play on one torch thread each (their ``threads`` default).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agents.cli.common import missing_extra
from agents.common.params import MAX_SECONDS
from agents.registry import make_agent
from tbw_envs.games import game_names

DEFAULT_MAX_SECONDS = 10.0  # agents.web.limits's (that module needs the web extra)
ANY_ADDRESS = ("0.0.0.0", "::", "")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--runs", default="runs",
                        help="the folder whose recorded games the page may open, or a "
                             "games.jsonl file (then the folder it is in; default runs)")
    parser.add_argument("--agents", nargs="*", default=[], metavar="SPEC",
                        help="extra opponents the page offers, files allowed: file.py:Name, "
                             "ppo:path=policy.npz, ... (each is built once now, to check it)")
    parser.add_argument("--threads", type=int, default=2,
                        help="agents thinking at once, over all games, and the most torch "
                             "threads a page may give a learned agent (default 2)")
    parser.add_argument("--max-seconds", type=float, default=DEFAULT_MAX_SECONDS,
                        help="the most an agent may think a move; a page's iteration, solve, "
                             "generation and population caps scale with it (default "
                             f"{DEFAULT_MAX_SECONDS:g})")
    parser.add_argument("--max-games", type=int, default=32,
                        help="games held at once; a new game past it is refused while all "
                             "are in play (default 32)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="another host name the server answers to (a name this machine "
                             "is reached by, with --host 0.0.0.0); repeatable")
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not 0 < args.port < 65536:
        parser.error(f"--port must be 1 to 65535, got {args.port}")
    if args.threads < 1:
        parser.error(f"--threads must be at least 1, got {args.threads}")
    if not 0 < args.max_seconds <= MAX_SECONDS:  # NaN fails this too
        parser.error(f"--max-seconds must be above 0 and at most {MAX_SECONDS:g}, got "
                     f"{args.max_seconds:g}")
    if args.max_games < 1:
        parser.error(f"--max-games must be at least 1, got {args.max_games}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        import uvicorn

        from agents.web.app import create_app
    except ImportError as exc:
        return missing_extra("tbw-serve", "web", exc)
    for spec in args.agents:
        errors = []
        for game in game_names():
            try:
                make_agent(spec, seed=0, game=game)
                break
            except ValueError as exc:
                errors.append(f"{game}: {exc}")
        else:
            print(f"--agents {spec}: plays no game here: {'; '.join(errors)}", file=sys.stderr)
            return 2
    hosts = tuple(h for h in (args.host, *args.allow_host) if h not in ANY_ADDRESS)
    app = create_app(runs_dir=args.runs, allowed_specs=tuple(args.agents), threads=args.threads,
                     max_seconds=args.max_seconds, max_sessions=args.max_games, hosts=hosts)
    print(f"tbw-envs: open http://{args.host}:{args.port}/ (play), "
          f"http://{args.host}:{args.port}/#watch (games under {Path(args.runs).resolve()})")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0

