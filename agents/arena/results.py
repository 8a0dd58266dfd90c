"""What a round robin found: its games, and the tallies of them (records by seat, the score
matrix, Bradley-Terry ratings with bootstrap intervals, how games ended, thinking time).

A ``RoundRobinResult`` is plain data with computations on its own games only; the modules that
present it take it as an argument, so none of them is imported here: the tables and title are
``tables.result_tables`` and ``tables.result_title``, the JSON summary
``results_json.result_json``, the run folder ``files.write_result`` and the chart
``plot.plot_round_robin``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.arena.records import ArenaGame
from agents.arena.stats import bradley_terry, elo_ratings, rating_intervals, wilson_interval


@dataclass
class PairingStats:
    pairing: int
    agents: tuple[str, str]
    games: int
    # (wins, draws, losses) of agents[0], as player 0 and as player 1; agents[1] mirrors them.
    first_as_player_0: tuple[int, int, int]
    first_as_player_1: tuple[int, int, int]

    def record(self, side: int, as_player: int | None = None) -> tuple[int, int, int]:
        """(wins, draws, losses) of ``agents[side]``, in one seat or (None) both."""
        if as_player is None:
            parts = [self.record(side, 0), self.record(side, 1)]
            return tuple(sum(values) for values in zip(*parts, strict=True))  # type: ignore
        # agents[1] as player p is agents[0] as player 1 - p, seen from the other side.
        if side == 0:
            return self.first_as_player_0 if as_player == 0 else self.first_as_player_1
        wins, draws, losses = self.first_as_player_1 if as_player == 0 else self.first_as_player_0
        return losses, draws, wins

    def score(self, side: int) -> float:
        wins, draws, _ = self.record(side)
        return (wins + 0.5 * draws) / max(self.games, 1)

    def interval(self, side: int) -> tuple[float, float]:
        return wilson_interval(self.score(side) * self.games, self.games)


@dataclass
class Rating:
    agent: str
    elo: float
    low: float
    high: float
    games: int
    score: float


def wdl_record(games: Sequence[ArenaGame], seat: int) -> tuple[int, int, int]:
    """(wins, draws, losses) of whoever sat in ``seat`` in ``games``."""
    wins = sum(1 for g in games if g.winner_seat == seat)
    draws = sum(1 for g in games if g.winner_seat is None)
    return wins, draws, len(games) - wins - draws


@dataclass
class RoundRobinResult:
    game: str
    variant: str
    seed: int
    games_per_pairing: int
    labels: list[str]
    specs: list[str]
    pairings: list[tuple[int, int]]
    games: list[ArenaGame]  # ordered by game_id
    workers: int = 1
    wall_seconds: float = 0.0
    bootstrap: int = 200
    bootstrap_seed: int = 0
    opening_plies: int = 0
    resumed_games: int = 0  # games read back from the journal of an interrupted run
    journal: Path | None = None  # removed by write_result once games.jsonl holds them
    _ratings: list[Rating] | None = field(default=None, repr=False)

    # ------------------------------------------------------------------ tallies
    def pairing_games(self, pairing: int) -> list[ArenaGame]:
        return [g for g in self.games if g.pairing == pairing]

    def repeated_pairings(self) -> list[str]:
        """Pairings whose games all repeat one game per seating (deterministic agents on a
        deterministic start): their games are not independent evidence."""
        repeated = []
        for index, (a, b) in enumerate(self.pairings):
            games = self.pairing_games(index)
            if len(games) <= 2:
                continue
            distinct = {(g.swapped, g.layouts, tuple(g.actions)) for g in games}
            if len(distinct) <= 2:
                repeated.append(f"{self.labels[a]} v {self.labels[b]}")
        return repeated

    def pairing_stats(self) -> list[PairingStats]:
        stats = []
        for index, (a, b) in enumerate(self.pairings):
            games = self.pairing_games(index)
            first_p0 = [g for g in games if not g.swapped]
            first_p1 = [g for g in games if g.swapped]
            stats.append(PairingStats(
                pairing=index, agents=(self.labels[a], self.labels[b]), games=len(games),
                first_as_player_0=wdl_record(first_p0, 0),
                first_as_player_1=wdl_record(first_p1, 1),
            ))
        return stats

    def entrant_seats(self, g: ArenaGame) -> tuple[int, int]:
        """The entrants in ``g``'s seats (player 0, player 1)."""
        a, b = self.pairings[g.pairing]
        return (b, a) if g.swapped else (a, b)

    def score_matrix(self, games: Sequence[ArenaGame] | None = None) -> tuple[np.ndarray,
                                                                              np.ndarray]:
        """``points[i][j]``: what entrant i scored against j; ``played[i][j]``: their games."""
        n = len(self.labels)
        points = np.zeros((n, n))
        played = np.zeros((n, n))
        for g in self.games if games is None else games:
            seats = self.entrant_seats(g)
            for seat in (0, 1):
                me, other = seats[seat], seats[1 - seat]
                points[me, other] += g.points(seat)
                played[me, other] += 1
        return points, played

    def ratings(self) -> list[Rating]:
        """Bradley-Terry ratings on the Elo scale (mean of the agents anchored at 1500), with
        95% intervals from a bootstrap over the paired games of each pairing (a pair of games
        from one seed is resampled as a unit, since its two games share a start). With a single
        seed in some pairing a resample can only repeat the data, so the interval is NaN
        (shown as n/a) rather than a misleading zero width."""
        if self._ratings is not None:
            return self._ratings
        points, played = self.score_matrix()
        elo = elo_ratings(bradley_terry(points, played))
        units = self._pair_units()
        low = high = np.full(len(self.labels), np.nan)
        if self.bootstrap > 0 and min(self.seeds_per_pairing(), default=0) >= 2:
            rng = np.random.default_rng(self.bootstrap_seed)
            samples = []
            for _ in range(self.bootstrap):
                boot_points = np.zeros_like(points)
                boot_played = np.zeros_like(played)
                for unit_points, unit_played in units:
                    picks = rng.integers(0, len(unit_points), len(unit_points))
                    boot_points += unit_points[picks].sum(axis=0)
                    boot_played += unit_played[picks].sum(axis=0)
                samples.append(elo_ratings(bradley_terry(boot_points, boot_played)))
            low, high = rating_intervals(points, played, samples)
        total_games = played.sum(axis=1)
        self._ratings = [
            Rating(agent=label, elo=float(elo[i]), low=float(low[i]), high=float(high[i]),
                   games=int(total_games[i]),
                   score=float(points[i].sum() / total_games[i]) if total_games[i] else 0.0)
            for i, label in enumerate(self.labels)
        ]
        return self._ratings

    def seeds_per_pairing(self) -> list[int]:
        """How many distinct starting seeds (game pairs) each pairing played."""
        return [len({g.pair for g in self.pairing_games(index)})
                for index in range(len(self.pairings))]

    def _pair_units(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per pairing, each seed's two games as (points, played) matrices to resample."""
        units = []
        for index in range(len(self.pairings)):
            by_pair: dict[int, list[ArenaGame]] = {}
            for g in self.pairing_games(index):
                by_pair.setdefault(g.pair, []).append(g)
            matrices = [self.score_matrix(games) for _, games in sorted(by_pair.items())]
            if matrices:
                units.append((np.array([m[0] for m in matrices]),
                              np.array([m[1] for m in matrices])))
        return units

    def end_summary(self) -> dict[str, Any]:
        """End-reason counts and ply statistics, per pairing and overall."""
        def summarize(games: Sequence[ArenaGame]) -> dict[str, Any]:
            plies = [g.plies for g in games]
            return {
                "games": len(games),
                "end_reasons": dict(Counter(g.end_reason for g in games)),
                "plies_mean": sum(plies) / len(plies) if plies else 0.0,
                "plies_min": min(plies, default=0),
                "plies_max": max(plies, default=0),
            }

        return {
            "pairings": [
                {"agents": [self.labels[a], self.labels[b]],
                 **summarize(self.pairing_games(index))}
                for index, (a, b) in enumerate(self.pairings)
            ],
            "all": summarize(self.games),
        }

    def timing(self) -> list[dict[str, Any]]:
        """Thinking time per agent: moves, mean and longest milliseconds per move."""
        seconds = [0.0] * len(self.labels)
        longest = [0.0] * len(self.labels)
        moves = [0] * len(self.labels)
        for g in self.games:
            for seat, entrant in enumerate(self.entrant_seats(g)):
                seconds[entrant] += g.move_seconds[seat]
                longest[entrant] = max(longest[entrant], g.max_move_seconds[seat])
                moves[entrant] += g.moves[seat]
        return [
            {"agent": label, "moves": moves[i],
             "ms_per_move_mean": 1000.0 * seconds[i] / moves[i] if moves[i] else 0.0,
             "ms_per_move_max": 1000.0 * longest[i]}
            for i, label in enumerate(self.labels)
        ]
