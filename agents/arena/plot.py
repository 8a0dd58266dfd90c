"""The round robin's chart (``arena.png``); needs matplotlib."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from agents.arena.stats import ELO_ANCHOR

if TYPE_CHECKING:
    from agents.arena.results import RoundRobinResult


def plot_round_robin(result: RoundRobinResult, path: str | Path) -> None:
    """The score matrix as a heatmap with the numbers in the cells, and the ratings with their
    95% intervals, side by side in one PNG."""
    import matplotlib

    matplotlib.use("Agg")  # files only: never open a window, never need a display
    import matplotlib.pyplot as plt

    points, played = result.score_matrix()
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(played > 0, points / np.maximum(played, 1), np.nan)
    n = len(result.labels)
    fig, (heat_ax, rating_ax) = plt.subplots(
        1, 2, figsize=(6 + 1.6 * n, 1.5 + 0.75 * n + 2), gridspec_kw={"width_ratios": [1.2, 1]}
    )
    cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#dddddd")  # grey diagonal
    heat_ax.imshow(np.ma.masked_invalid(score), cmap=cmap, vmin=0.0, vmax=1.0)
    heat_ax.set_xticks(range(n), result.labels, rotation=30, ha="right")
    heat_ax.set_yticks(range(n), result.labels)
    heat_ax.set_xlabel("opponent")
    heat_ax.set_title("score of row agent v column agent")
    for i in range(n):
        for j in range(n):
            if played[i, j]:
                # white on the dark ends of the colour map, black in the pale middle
                color = "white" if abs(score[i, j] - 0.5) > 0.35 else "black"
                heat_ax.text(j, i, f"{score[i, j]:.2f}\n({int(played[i, j])} g)", ha="center",
                             va="center", fontsize=9, color=color)
    ranked = sorted(result.ratings(), key=lambda r: r.elo)
    positions = range(len(ranked))
    elos = [r.elo for r in ranked]
    errors = np.nan_to_num([[r.elo - r.low for r in ranked], [r.high - r.elo for r in ranked]])
    rating_ax.errorbar(elos, positions, xerr=np.maximum(errors, 0.0), fmt="o", capsize=4)
    rating_ax.set_yticks(list(positions), [r.agent for r in ranked])
    rating_ax.axvline(ELO_ANCHOR, color="#999999", linewidth=0.8, linestyle="--")
    rating_ax.set_xlabel(f"Elo (mean = {ELO_ANCHOR:.0f}), 95% bootstrap interval")
    rating_ax.set_title("Bradley-Terry ratings")
    rating_ax.margins(y=0.3)
    fig.suptitle(result.title(), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
