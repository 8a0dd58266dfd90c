"""The round robin's results as JSON-ready data (``results.json``)."""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

from agents.arena.results import RoundRobinResult
from agents.arena.stats import ELO_ANCHOR, PRIOR_GAMES
from tbw_envs.games import get_game


def result_json(result: RoundRobinResult, command: str | None = None) -> dict[str, Any]:
    """The round robin's results as JSON-ready data (``results.json``, before its file list)."""
    summary = result.end_summary()
    points, played = result.score_matrix()
    return {
        "command": command,
        "game": result.game,
        get_game(result.game).variant_flag: result.variant,
        "seed": result.seed,
        "games_per_pairing": result.games_per_pairing,
        "opening_plies": result.opening_plies,
        "games": len(result.games),
        "workers": result.workers,
        "wall_seconds": result.wall_seconds,  # of this process's games (resumed_games aside)
        "resumed_games": result.resumed_games,
        "agents": [{"label": label, "spec": spec}
                   for label, spec in zip(result.labels, result.specs, strict=True)],
        "pairings": [
            {
                "agents": list(s.agents), "games": s.games,
                "records": [
                    {"agent": s.agents[side],
                     "as_player_0": dict(zip(("wins", "draws", "losses"),
                                             s.record(side, 0), strict=True)),
                     "as_player_1": dict(zip(("wins", "draws", "losses"),
                                             s.record(side, 1), strict=True)),
                     "total": dict(zip(("wins", "draws", "losses"), s.record(side),
                                       strict=True)),
                     "score": s.score(side), "ci_95": list(s.interval(side))}
                    for side in (0, 1)
                ],
            }
            for s in result.pairing_stats()
        ],
        "score_matrix": {
            "agents": list(result.labels),
            "score": [[None if played[i, j] == 0 else points[i, j] / played[i, j]
                       for j in range(len(result.labels))] for i in range(len(result.labels))],
            "games": played.astype(int).tolist(),
        },
        "ratings": {
            "model": "Bradley-Terry (draw = half a win), maximum a posteriori by Newton's "
                     f"method with {PRIOR_GAMES} virtual drawn games per agent",
            "scale": f"Elo (400 points = odds of 10:1), mean of the agents = {ELO_ANCHOR:.0f}",
            "interval": f"95% percentile bootstrap, {result.bootstrap} resamples of paired "
                        f"games within each pairing, seed {result.bootstrap_seed}; profile "
                        f"likelihood where the bootstrap is blind (a perfect record, games "
                        f"that always end the same)",
            "agents": [
                {key: None if isinstance(value, float) and math.isnan(value) else value
                 for key, value in asdict(r).items()}
                for r in result.ratings()
            ],
        },
        "repeated_pairings": result.repeated_pairings(),
        "end_reasons": summary,
        "timing": result.timing(),
    }
