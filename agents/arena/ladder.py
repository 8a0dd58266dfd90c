"""A pinned ladder: one candidate agent rated against a fixed reference pool on a fixed scale.

``run_ladder`` plays the candidate against each pool member of a ladder config
(``agents.arena.ladder_config``) in the arena's seat-swapped paired games: the same schedule,
seeds, openings, runners and records as ``run_round_robin``, restricted to the candidate's
pairings. It then fits the candidate's Elo rating with the pool's pinned ratings held fixed and
gives its 95% profile-likelihood interval (``agents.arena.ladder_fit``), so ratings from
different runs and different candidates sit on the ladder's one scale.
"""

from __future__ import annotations

import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.arena.checks import (
    MAX_GAMES,
    MAX_WORKERS,
    ArenaInputError,
    ArenaTypeError,
    check_flag,
    check_int,
    check_ray_address,
    check_specs,
    even_games,
)
from agents.arena.ladder_config import Ladder, load_ladder
from agents.arena.ladder_fit import rating_interval
from agents.arena.players import build_entrants, entrant_spec, entrants
from agents.arena.plot import wrap_label
from agents.arena.records import ArenaGame, write_records
from agents.arena.roundrobin import play_schedule, progress_labels
from agents.arena.stats import WinDrawLoss
from tbw_envs.core.contract import MAX_SEED, kind_of, short_repr


@dataclass(frozen=True)
class OpponentRecord(WinDrawLoss):
    """The candidate's games against one pool member (its wins, draws and losses)."""

    spec: str
    label: str  # the member's label in the records (``spec (2)`` if the candidate has its spec)
    elo: float  # its pinned rating


@dataclass
class LadderResult:
    game: str
    variant: str
    agent: str  # the candidate's spec
    label: str  # its label in the records
    ladder: Ladder
    seed: int
    games_per_opponent: int
    opponents: list[OpponentRecord]
    elo: float
    elo_low: float
    elo_high: float
    records: list[ArenaGame] = field(repr=False)  # every game, in schedule order
    workers: int | None = None
    wall_seconds: float = 0.0

    @property
    def games(self) -> int:
        return len(self.records)

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "agent": self.agent, "elo": self.elo,
                "elo_low": self.elo_low, "elo_high": self.elo_high, "games": self.games,
                "scores": {o.spec: o.score for o in self.opponents}}

    def table(self) -> str:
        width = max(24, *(len(o.spec) + 2 for o in self.opponents))
        header = (f"{'opponent':<{width}}{'pinned elo':>11}{'games':>7}{'W-D-L':>13}"
                  f"{'score':>8}{'95% CI':>16}")
        lines = [f"{self.agent} on the {self.game} ladder ({self.variant}, "
                 f"{self.games_per_opponent} games per opponent, seed {self.seed})",
                 header, "-" * len(header)]
        for o in sorted(self.opponents, key=lambda o: -o.elo):
            low, high = o.interval
            record = f"{o.wins}-{o.draws}-{o.losses}"
            lines.append(f"{o.spec:<{width}}{o.elo:>11.1f}{o.games:>7}{record:>13}"
                         f"{o.score:>8.3f}{f'[{low:.2f}, {high:.2f}]':>16}")
        lines.append(f"rating: {self.elo:.1f} Elo, 95% interval [{self.elo_low:.1f}, "
                     f"{self.elo_high:.1f}] (profile likelihood, pool ratings pinned), "
                     f"{self.games} games")
        return "\n".join(lines)

    def write_games(self, path: str | Path) -> Path:
        """Every game as ``games.jsonl``, with its manifest beside it (``scripts/replay.py``
        replays and verifies both); returns the manifest's path."""
        return write_records(self.records, Path(path))

    def plot(self, path: str | Path) -> None:
        """The pool's pinned ratings as points and the candidate's rating with its 95%
        interval, on one Elo axis, saved as a PNG (needs matplotlib)."""
        import matplotlib

        matplotlib.use("Agg")  # files only: never open a window, never need a display
        import matplotlib.pyplot as plt

        rows = sorted([(o.elo, o.spec, False) for o in self.opponents]
                      + [(self.elo, f"{self.agent} (candidate)", True)])
        labels = ["\n".join(wrap_label(spec, 28, max_lines=3)) for _, spec, _ in rows]
        fig, ax = plt.subplots(figsize=(7.5, 1.6 + 0.45 * len(rows)), layout="constrained")
        for position, (elo, _, candidate) in enumerate(rows):
            if candidate:
                ax.errorbar([elo], [position], xerr=[[elo - self.elo_low],
                                                     [self.elo_high - elo]],
                            fmt="o", color="C3", capsize=5, label="candidate, 95% interval")
            else:
                ax.plot([elo], [position], "s", color="C0")
        ax.plot([], [], "s", color="C0", label="pool (pinned)")
        ax.set_yticks(range(len(rows)), labels, fontsize=8)
        ax.set_xlabel("Elo (the ladder's pinned scale)")
        ax.set_title(textwrap.shorten(f"{self.agent}: {self.elo:.0f} Elo on the {self.game} "
                                      f"ladder ({self.games} games)", 90), fontsize=10)
        ax.margins(y=0.2)
        ax.legend(fontsize=8, loc="best")
        fig.savefig(path, dpi=110)
        plt.close(fig)


def check_ladder_run(game: Any, candidate: Any, ladder: Any = None,
                     games_per_opponent: Any = None, workers: Any = None,
                     ray_address: Any = None, seed: Any = None, progress: Any = True,
                     build: bool = True) -> dict[str, Any]:
    """Check every argument of ``run_ladder``, load the ladder and (``build``) build the
    candidate and every pool member once; nothing is played. Raises ``ArenaInputError`` (a
    ValueError; ``LadderConfigError`` for the ladder file) naming the argument."""
    checked = load_ladder(ladder, game=game if isinstance(game, str) else repr(game))
    if isinstance(candidate, (list, tuple)):
        raise ArenaTypeError(f"candidate must be one agent spec (a string) or factory, got "
                             f"{kind_of(candidate)} {short_repr(candidate)}")
    candidate = check_specs([candidate])[0]
    if games_per_opponent is None:
        games_per_opponent = checked.games_per_opponent
    games_per_opponent = even_games(check_int(games_per_opponent, "games_per_opponent", 1,
                                              MAX_GAMES))
    total = games_per_opponent * len(checked.pool)
    if total > MAX_GAMES:
        raise ArenaInputError(f"{len(checked.pool)} pool members x {games_per_opponent:,} games "
                              f"= {total:,} games: more than the cap of {MAX_GAMES:,}")
    seed = checked.seed if seed is None else check_int(seed, "seed", 0, MAX_SEED)
    if ray_address is not None:
        if not isinstance(ray_address, str):
            raise ArenaTypeError(f"ray_address must be a string or None, got "
                                 f"{kind_of(ray_address)} {short_repr(ray_address)}")
        check_ray_address(ray_address)
    if workers is not None:
        workers = check_int(workers, "workers", 1, MAX_WORKERS)
    progress = check_flag(progress, "progress")
    entries, labels, _ = entrants([candidate, *checked.specs])
    pairings = [(0, member) for member in range(1, len(entries))]
    if build:
        build_entrants(checked.game, entries, labels,
                       pickled=ray_address is not None or workers != 1 and total > 1,
                       variant=checked.variant)
    return {"ladder": checked, "game": checked.game, "variant": checked.variant,
            "entries": entries, "labels": labels, "pairings": pairings,
            "games_per_opponent": games_per_opponent, "total": total, "seed": seed,
            "workers": workers, "ray_address": ray_address, "progress": progress}


def run_ladder(game: str, candidate_spec: Any, ladder: Any = None,
               games_per_opponent: int | None = None, workers: int | None = None,
               ray_address: str | None = None, seed: int | None = None,
               progress: bool = True) -> LadderResult:
    """Rate ``candidate_spec`` (any spec the arena accepts: a registry agent or your own,
    ``file.py:Name``) on ``game``'s ladder: ``ladder`` is None (``configs/ladder/<game>.yaml``),
    a bundled ladder's name or a ladder file's path. It plays ``games_per_opponent`` paired
    games (default the ladder's; rounded up to even) against each pool member on the ladder's
    scenario or rule set and opening plies, from the ladder's seed unless ``seed`` is given.
    ``workers`` and ``ray_address`` work as in ``run_round_robin``, and the results do not
    depend on them. Every argument is checked and every agent built before the first game."""
    args = check_ladder_run(game, candidate_spec, ladder, games_per_opponent, workers,
                            ray_address, seed, progress)
    checked: Ladder = args["ladder"]
    variant, entries, labels, pairings = (args["variant"], args["entries"], args["labels"],
                                          args["pairings"])
    total, seed, workers = args["total"], args["seed"], args["workers"]
    start = time.perf_counter()
    records, workers = play_schedule(checked.game, variant, entries, labels, pairings,
                                     args["games_per_opponent"], seed, checked.opening_plies,
                                     total, workers, ray_address, args["progress"],
                                     "run_ladder", f"{checked.game} ladder",
                                     summary=candidate_summary)
    opponents = tally_opponents(checked, labels, records, len(pairings))
    low, elo, high = rating_interval([o.wins + 0.5 * o.draws for o in opponents],
                                     [o.games for o in opponents], checked.elos)
    return LadderResult(
        game=checked.game, variant=variant, agent=entrant_spec(entries[0]), label=labels[0],
        ladder=checked, seed=seed, games_per_opponent=args["games_per_opponent"],
        opponents=opponents, elo=float(elo), elo_low=float(low), elo_high=float(high),
        records=records, workers=workers, wall_seconds=time.perf_counter() - start)



def candidate_summary(labels: list[str], pairings: list[tuple[int, int]],
                      games: Any) -> str:
    """The candidate's score so far, overall and against each pool member, for the progress
    bar: the round robin's summary (each agent's own score) would show a pool member's score
    against the candidate beside the candidate's, the reverse of the table's, and drop members
    past the sixth."""
    points = [0.0] * len(pairings)
    played = [0] * len(pairings)
    for g in games:
        points[g.pairing] += g.points(1 if g.swapped else 0)
        played[g.pairing] += 1
    if not sum(played):
        return ""
    short = progress_labels(labels)
    against = [f"v {short[b]} {points[i] / played[i]:.2f}"
               for i, (_, b) in enumerate(pairings) if played[i]]
    return f"{short[0]} {sum(points) / sum(played):.2f}: " + ", ".join(against)


def tally_opponents(checked: Ladder, labels: list[str], records: list[ArenaGame],
                    pool_size: int) -> list[OpponentRecord]:
    """The candidate's wins, draws and losses against each pool member (pairing i is the
    candidate, entrant 0, against pool member i: it sits in seat 1 of a swapped game)."""
    tallies = [[0, 0, 0] for _ in range(pool_size)]
    for g in records:
        points = g.points(1 if g.swapped else 0)
        tallies[g.pairing][0 if points == 1.0 else 1 if points == 0.5 else 2] += 1
    return [OpponentRecord(spec=member.spec, label=labels[index + 1], elo=member.elo,
                           wins=wins, draws=draws, losses=losses)
            for index, (member, (wins, draws, losses)) in enumerate(zip(checked.pool, tallies,
                                                                        strict=True))]
