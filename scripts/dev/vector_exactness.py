"""Hold the compiled batched envs to the reference, at scale: ``vector.make(..., backend="numba")``
against ``backend="reference"`` (a loop over the game's core states), every bundled variant of
every game with a batched core, from fresh games and from mid-game positions.

    python scripts/dev/vector_exactness.py                        # 10^6 plies per game
    python scripts/dev/vector_exactness.py --plies 100000 --game junqi

Both envs get the same random legal actions; after every step their planes, masks, movers,
rewards, endings and infos must be equal, and every few hundred steps each slot's core state
too (``state(i)``). Half of each variant's plies start from mid-game positions: the reference
env plays 20 to 300 random plies first, and both continue from its states
(``reset(options={"states": ...})``). Exits 1 at the first difference, naming it.
``tests/tbw_envs/test_vector_long.py`` runs this under the ``slow`` mark.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from tbw_envs import vector
from tbw_envs.games import get_game, registered_games

NUM_ENVS = 32
STATE_CHECK_EVERY = 250


class Mismatch(AssertionError):
    """The compiled env and the reference differ (the message says where)."""


def _compare(got, want, where: str) -> None:
    names = ("obs", "rewards", "terminated", "truncated", "info")
    for name, a, b in zip(names, got, want, strict=True):
        pairs = b.items() if name == "info" else [(name, b)]
        for key, value in pairs:
            other = a[key] if name == "info" else a
            if not np.array_equal(other, value):
                rows = np.flatnonzero((np.asarray(other) != np.asarray(value))
                                      .reshape(len(value), -1).any(axis=1))
                raise Mismatch(f"{where}: {key} differs in slots {rows[:8].tolist()}")


def _same_states(fast, slow, where: str) -> None:
    for i in range(fast.num_envs):
        a, b = fast.state(i), slow.state(i)
        slots = [s for s in type(a).__slots__ if not s.startswith("_")]
        differ = [s for s in slots if getattr(a, s) != getattr(b, s)]
        if differ or a.legal_actions() != b.legal_actions():
            raise Mismatch(f"{where}: state({i}) differs in {differ or ['legal_actions()']}")


def mid_game_states(game: str, kwargs: dict, num_envs: int, seed: int) -> list:
    """Running positions 20 to 300 random plies into reference games."""
    rng = np.random.default_rng(seed)
    source = vector.make(game, num_envs, seed=seed, backend="reference", **kwargs)
    _, info = source.reset()
    target = rng.integers(20, 301, size=num_envs)
    states: list = [None] * num_envs
    for step in range(int(target.max()) + 1):
        for i in np.flatnonzero((target == step) & (info["end_reason"] == 0)):
            states[i] = source.state(int(i))
        _, _, _, _, info = source.step(vector.sample_legal(info["action_mask"], rng))
    return states


def check_variant(game: str, kwargs: dict, plies: int, seed: int, mid_game: bool) -> dict:
    """Step both backends ``plies`` env steps in all; returns counts of what happened."""
    envs = [vector.make(game, NUM_ENVS, seed=seed, backend=backend, **kwargs)
            for backend in ("numba", "reference")]
    options = ({"states": mid_game_states(game, kwargs, NUM_ENVS, seed + 1)} if mid_game
               else None)
    first = [env.reset(options=options) for env in envs]
    empty = np.zeros(NUM_ENVS)
    _compare((first[0][0], empty, empty, empty, first[0][1]),
             (first[1][0], empty, empty, empty, first[1][1]), f"{game} {kwargs} reset")
    info = first[0][1]
    rng = np.random.default_rng(seed + 2)
    steps = ends = together = 0
    while steps * NUM_ENVS < plies:
        actions = vector.sample_legal(info["action_mask"], rng)
        fast, slow = envs[0].step(actions), envs[1].step(actions)
        where = f"{game} {kwargs} {'mid-game' if mid_game else 'fresh'} step {steps}"
        _compare(fast, slow, where)
        if steps % STATE_CHECK_EVERY == 0:
            _same_states(envs[0], envs[1], where)
        info = fast[4]
        ended = int(fast[2].sum())
        ends += ended
        together += ended >= 2
        steps += 1
    return {"plies": steps * NUM_ENVS, "games ended": ends, "steps ending 2+": together}


def variants_of(game_name: str) -> list[dict]:
    game = get_game(game_name)
    return [game.variant_kwargs(variant) for variant in game.variants()]


def run(plies_per_game: int, games: list[str], seed: int = 0) -> list[tuple]:
    rows = []
    for game in games:
        variants = variants_of(game)
        share = max(NUM_ENVS, plies_per_game // (2 * len(variants)))
        for kwargs in variants:
            for mid_game in (False, True):
                start = time.perf_counter()
                counts = check_variant(game, kwargs, share, seed, mid_game)
                rows.append((game, kwargs, mid_game, counts, time.perf_counter() - start))
                print(f"{game} {kwargs} {'mid-game' if mid_game else 'fresh'}: "
                      f"{counts} equal, {time.perf_counter() - start:.0f} s", flush=True)
    return rows


def main(argv=None) -> int:
    batched = [g.name for g in registered_games() if g.has_batched_core]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=1_000_000, help="per game")
    parser.add_argument("--game", nargs="*", default=batched, choices=batched)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        rows = run(args.plies, args.game, args.seed)
    except Mismatch as exc:
        print(f"MISMATCH: {exc}")
        return 1
    for game in args.game:
        total = sum(r[3]["plies"] for r in rows if r[0] == game)
        ended = sum(r[3]["games ended"] for r in rows if r[0] == game)
        print(f"{game}: {total:,} plies, {ended:,} games ended, every array equal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
