"""Random-play throughput of the game cores and environments (uniform over legal actions).

    python scripts/bench/bench_envs.py              # every game on its default variant, ~3 s a row
    python scripts/bench/bench_envs.py --seconds 10 --game junqi
    python scripts/bench/bench_envs.py --scenario duel_5v5_8x8 battle_10v10_16x16

Every registered game is measured through its description (``tbw_envs.games``): ``new_state``
(the core), ``raw_env``, ``env()`` and ``single_agent_env``, on each variant its flag names
(``--scenario`` for TBW, ``--rules`` for Junqi, ...; default the game's default variant; with
only variant flags, the games they belong to). Rates are the core's actions per second on one
core (TBW: unit actions; Junqi: plies). ``raw_env`` and ``env()`` rows include building the
observation and mask of every step (``env.last()``), as a learner would. The ``single`` row is
the single-agent Gymnasium wrapper with its built-in random opponent: every ply counts, the
learner's (observation, mask and info built) and the opponent's (played inside ``step``), so it
compares with ``raw_env`` directly, and the ``overhead`` column gives its cost over ``raw_env``.
Each game's line below the table says how its random games ended. Record figures in
docs/benchmarks.md with the machine and this command.
"""

from __future__ import annotations

import argparse
import itertools
import platform
import random
import sys
import time
from collections import Counter

import numpy as np

from agents.cli.common import (
    add_game_flag,
    add_variant_flags,
    games_named_by_variants,
    given_variant,
    refuse_other_variants,
)
from tbw_envs.description import Game
from tbw_envs.games import game_names, get_game

Row = tuple[str, str, float, int]  # (game and variant, layer, steps per second, games)


def bench_core(new_state, seconds: float, seed: int = 0) -> tuple[float, int, Counter]:
    """Actions per second of random play on the core, the games played and how they ended."""
    rng = random.Random(seed)
    steps = games = 0
    ends: Counter = Counter()
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = new_state()
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])
            steps += 1
        games += 1
        ends[state.end_reason] += 1
    return steps / (time.perf_counter() - start), games, ends


def bench_aec(make_env, seconds: float, seed: int = 0) -> tuple[float, int]:
    rng = random.Random(seed)
    env = make_env()
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=games)
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
        games += 1
    return steps / (time.perf_counter() - start), games


def bench_single(make_env, seconds: float, seed: int = 0) -> tuple[float, int]:
    """Plies per second through a single-agent wrapper (the learner's and the opponent's)."""
    rng = random.Random(seed)
    env = make_env()
    plies = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _obs, info = env.reset(seed=games)
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _obs, _reward, terminated, truncated, info = env.step(
                int(legal[rng.randrange(len(legal))]))
            done = terminated or truncated
        plies += info["plies"]
        games += 1
    return plies / (time.perf_counter() - start), games


def run_game(game: Game, variant: str, seconds: float) -> list[Row]:
    """The four rows of one game on one variant; prints how its random core games ended."""
    label = f"{game.name} {variant}"
    keyword = game.variant_kwargs(variant)
    seeds = itertools.count()  # Junqi's layouts, drawn from each game's seed
    rate, games, ends = bench_core(lambda: game.new_state(variant, next(seeds)), seconds)
    rows = [(label, "core", rate, games)]
    rate, games = bench_aec(lambda: game.raw_env(**keyword), seconds)
    rows.append((label, "raw_env", rate, games))
    rate, games = bench_aec(lambda: game.env(**keyword), seconds)
    rows.append((label, "env()", rate, games))
    rate, games = bench_single(lambda: game.single_agent_env(**keyword), seconds)
    rows.append((label, "single", rate, games))
    total = sum(ends.values())
    shares = ", ".join(f"{reason} {count / total:.1%}" for reason, count in ends.most_common())
    print(f"{label}: {total} random games on the core end by: {shares}")
    return rows


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    add_game_flag(parser, help="measure this game only (default: the games whose variant flag "
                               "is given, else every game)")
    add_variant_flags(parser, several=True)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.game is not None:
        refuse_other_variants(args, args.game, parser.error)
    games = [args.game] if args.game else games_named_by_variants(args) or list(game_names())
    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"{platform.processor() or 'unknown cpu'}; {args.seconds:g} s per row")
    rows: list[Row] = []
    for name in games:
        game = get_game(name)
        for variant in given_variant(args, game) or [game.default_variant]:
            rows += run_game(game, variant, args.seconds)
    print(f"{'game':<32}{'layer':<10}{'steps/s':>12}{'games':>8}{'overhead':>10}")
    raw_rates = {label: rate for label, layer, rate, _ in rows if layer == "raw_env"}
    for label, layer, rate, count in rows:
        overhead = f"{raw_rates[label] / rate - 1:+.0%}" if layer == "single" else ""
        print(f"{label:<32}{layer:<10}{rate:>12,.0f}{count:>8}{overhead:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
