"""The round robin's chart (``arena.png``); needs matplotlib.

Agent labels can be long (``ucbmcts:iterations=400,weights=tuned``, a model's path), so the
chart numbers the agents: the heatmap's columns show only the numbers, its rows and the ratings
show the number and the label wrapped to ``LABEL_WIDTH`` characters, and the figure is sized
from the longest wrapped line so that the labels never squeeze the heatmap.
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from agents.arena.stats import ELO_ANCHOR

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from agents.arena.results import RoundRobinResult

LABEL_WIDTH = 22  # characters per line of an agent's label
LABEL_LINES = 3  # a longer label keeps its start and end around an ellipsis
ZERO_WIDTH_LABEL = "zero-width interval"  # the artist that marks them
_TICK_FONT = 8
_INCHES_PER_CHAR = 0.075  # a generous width of one character at _TICK_FONT points


def numbered_label(index: int, label: str) -> str:
    """``index + 1`` and ``label`` wrapped to ``LABEL_WIDTH`` characters a line, at most
    ``LABEL_LINES`` lines (the middle of a longer label is left out: its start and end tell
    agents apart)."""
    text = f"{index + 1}. {label}"
    lines = textwrap.wrap(text, LABEL_WIDTH, break_long_words=True, break_on_hyphens=False)
    if len(lines) > LABEL_LINES:
        head = lines[: LABEL_LINES - 1]
        tail = text[-(LABEL_WIDTH - 3):]
        lines = [*head, "..." + tail]
    return "\n".join(lines)


def round_robin_figure(result: RoundRobinResult) -> Figure:
    """The score matrix as a heatmap with the numbers in the cells, and the ratings with their
    95% intervals (a zero-width interval drawn as a bar, an unknown one left out), side by
    side; the figure is laid out so that every text lies inside it."""
    import matplotlib

    matplotlib.use("Agg")  # files only: never open a window, never need a display
    import matplotlib.pyplot as plt

    points, played = result.score_matrix()
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(played > 0, points / np.maximum(played, 1), np.nan)
    n = len(result.labels)
    labels = [numbered_label(i, label) for i, label in enumerate(result.labels)]
    label_inches = _INCHES_PER_CHAR * max(len(line) for text in labels for line in text.split("\n"))
    heat_inches = max(5.5, 0.9 * n)
    rating_inches = 3.5
    width = heat_inches + rating_inches + 2 * label_inches + 1.0
    line_count = max(text.count("\n") + 1 for text in labels)
    height = 2.2 + n * max(0.6, 0.16 * line_count + 0.1)
    fig, (heat_ax, rating_ax) = plt.subplots(
        1, 2, figsize=(width, height), layout="constrained",
        gridspec_kw={"width_ratios": [heat_inches, rating_inches]},
    )
    cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#dddddd")  # grey diagonal
    heat_ax.imshow(np.ma.masked_invalid(score), cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
    heat_ax.set_xticks(range(n), [str(i + 1) for i in range(n)])
    heat_ax.set_yticks(range(n), labels, fontsize=_TICK_FONT)
    heat_ax.set_xlabel("opponent (by number)")
    heat_ax.set_title("score of row agent v column agent")
    for i in range(n):
        for j in range(n):
            if played[i, j]:
                # white on the dark ends of the colour map, black in the pale middle
                color = "white" if abs(score[i, j] - 0.5) > 0.35 else "black"
                heat_ax.text(j, i, f"{score[i, j]:.2f}\n({int(played[i, j])} g)", ha="center",
                             va="center", fontsize=9, color=color)
    _plot_ratings(rating_ax, result, labels)
    title_chars = max(20, int(width / (_INCHES_PER_CHAR * 1.1)))
    fig.suptitle("\n".join(textwrap.wrap(result.title(), title_chars)), fontsize=9)
    return fig


def _plot_ratings(ax, result: RoundRobinResult, labels: list[str]) -> None:
    """Each rating with its interval, lowest at the bottom; the axis spans every interval."""
    all_ratings = result.ratings()
    ranked = sorted(range(len(all_ratings)), key=lambda i: all_ratings[i].elo)
    ratings = [all_ratings[i] for i in ranked]
    positions = list(range(len(ratings)))
    elos = np.array([r.elo for r in ratings])
    lows = np.array([r.low if math.isfinite(r.low) else r.elo for r in ratings])
    highs = np.array([r.high if math.isfinite(r.high) else r.elo for r in ratings])
    errors = np.maximum([elos - lows, highs - elos], 0.0)
    ax.errorbar(elos, positions, xerr=errors, fmt="o", capsize=4)
    known = np.array([math.isfinite(r.low) and math.isfinite(r.high) for r in ratings])
    point = known & ((highs - lows) <= 0)
    if point.any():  # a zero-width interval would hide under its point: a bar shows it
        ax.plot(elos[point], np.array(positions)[point], marker="|", markersize=14,
                linestyle="none", color="C0", label=ZERO_WIDTH_LABEL)
    ax.set_yticks(positions, [labels[i] for i in ranked], fontsize=_TICK_FONT)
    ax.axvline(ELO_ANCHOR, color="#999999", linewidth=0.8, linestyle="--")
    left = min(lows.min(), elos.min(), ELO_ANCHOR)
    right = max(highs.max(), elos.max(), ELO_ANCHOR)
    pad = max(0.08 * (right - left), 10.0)
    ax.set_xlim(left - pad, right + pad)
    ax.set_xlabel(f"Elo (mean = {ELO_ANCHOR:.0f}),\n95% bootstrap interval")
    ax.set_title("Bradley-Terry ratings")
    ax.margins(y=0.3)


def plot_round_robin(result: RoundRobinResult, path: str | Path) -> None:
    """``round_robin_figure`` saved as a PNG."""
    fig = round_robin_figure(result)
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=110)
    plt.close(fig)
