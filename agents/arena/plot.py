"""The round robin's chart (``arena.png``); needs matplotlib.

Agent labels can be long (``ucbmcts:iterations=400,weights=tuned``, a model's path), so the
chart numbers the agents by rank, 1 the highest rated (``chart_layout``): the heatmap's rows and
columns and the ratings run in that order, top to bottom; the heatmap's columns show only the
numbers, its rows and the ratings show the number and the label wrapped to ``LABEL_WIDTH``
characters between tokens (``wrap_label``), and the figure is sized from the longest wrapped
line so that the labels never squeeze the heatmap.
"""

from __future__ import annotations

import math
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from agents.arena.results import Rating, RoundRobinResult
from agents.arena.stats import ELO_ANCHOR
from agents.arena.tables import result_title

if TYPE_CHECKING:
    from matplotlib.figure import Figure

LABEL_WIDTH = 22  # characters per line of an agent's label
LABEL_LINES = 3  # a longer label keeps its start and end around an ellipsis
ZERO_WIDTH_LABEL = "zero-width interval"  # the artist that marks them
_TICK_FONT = 8
_INCHES_PER_CHAR = 0.075  # a generous width of one character at _TICK_FONT points


# A label breaks after a space or a spec's separators (``name:key=value,key=value``); only a
# piece that does not fit a line breaks again, after an ``=`` or a path's ``/``. A piece longer
# than a line stays whole: a line too long is better than a token cut in two.
ITEM_BREAKS = " ,:"
VALUE_BREAKS = "=/"


def _split_after(text: str, breaks: str) -> list[str]:
    """``text`` cut after every character of ``breaks`` (the pieces join back to ``text``)."""
    return [piece for piece in re.split(f"(?<=[{re.escape(breaks)}])", text) if piece]


def label_pieces(text: str, width: int = LABEL_WIDTH) -> list[str]:
    """The unbreakable pieces of ``text``: cut between items, and within an item longer than
    ``width`` between key and value and a path's folders."""
    pieces = []
    for piece in _split_after(text, ITEM_BREAKS):
        pieces += _split_after(piece, VALUE_BREAKS) if len(piece.rstrip()) > width else [piece]
    return pieces


def _fill(pieces: list[str], width: int) -> list[str]:
    lines: list[str] = []
    for piece in pieces:
        if lines and len((lines[-1] + piece).rstrip()) <= width:
            lines[-1] += piece
        else:
            lines.append(piece.lstrip(" ") if lines else piece)
    return [line.rstrip() for line in lines]


def wrap_label(text: str, width: int = LABEL_WIDTH, max_lines: int | None = None) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken only between the pieces of
    ``label_pieces`` (a piece longer than ``width`` gets a line of its own). With more than
    ``max_lines`` lines the middle is left out: the first ``max_lines - 1`` lines, then "..."
    and as many of the last pieces as fit."""
    pieces = label_pieces(text, width)
    lines = _fill(pieces, width)
    if max_lines is None or len(lines) <= max_lines:
        return lines
    tail = [pieces.pop()]
    while pieces and len("".join([pieces[-1], *tail])) <= width - 3:
        tail.insert(0, pieces.pop())
    return [*lines[: max_lines - 1], "..." + "".join(tail).strip()]


def numbered_label(index: int, label: str) -> str:
    """``index + 1`` and ``label`` wrapped to ``LABEL_WIDTH`` characters a line, at most
    ``LABEL_LINES`` lines (the middle of a longer label is left out: its start and end tell
    agents apart)."""
    return "\n".join(wrap_label(f"{index + 1}. {label}", LABEL_WIDTH, LABEL_LINES))


@dataclass(frozen=True)
class ChartLayout:
    """Where the chart puts each agent: ``order[k]`` is the agent (an index into the round
    robin's labels) of rank ``k + 1``, highest rating first; ``labels[k]`` its numbered label."""

    order: list[int]
    labels: list[str]

    def numbers(self) -> list[int]:
        """The number each agent carries on the chart, by agent index."""
        numbers = [0] * len(self.order)
        for rank, agent in enumerate(self.order):
            numbers[agent] = rank + 1
        return numbers


def chart_layout(labels: list[str], elos: list[float]) -> ChartLayout:
    """The agents ranked by rating (ties in the round robin's order), numbered 1 (the highest)
    to n in that order: the heatmap's rows and columns and the ratings all follow it."""
    if len(labels) != len(elos):
        raise ValueError(f"one rating per label: {len(labels)} labels, {len(elos)} ratings")
    order = sorted(range(len(labels)), key=lambda i: -elos[i])
    return ChartLayout(order=order,
                       labels=[numbered_label(rank, labels[i]) for rank, i in enumerate(order)])


def round_robin_figure(result: RoundRobinResult) -> Figure:
    """The score matrix as a heatmap with the numbers in the cells, and the ratings with their
    95% intervals (a zero-width interval drawn as a bar, an unknown one left out), side by
    side; the figure is laid out so that every text lies inside it."""
    import matplotlib

    matplotlib.use("Agg")  # files only: never open a window, never need a display
    import matplotlib.pyplot as plt

    points, played = result.score_matrix()
    ratings = result.ratings()
    layout = chart_layout(list(result.labels), [r.elo for r in ratings])
    rank = np.ix_(layout.order, layout.order)
    points, played = points[rank], played[rank]
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(played > 0, points / np.maximum(played, 1), np.nan)
    n = len(result.labels)
    labels = layout.labels
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
    _plot_ratings(rating_ax, [ratings[i] for i in layout.order], labels)
    title_chars = max(20, int(width / (_INCHES_PER_CHAR * 1.1)))
    fig.suptitle("\n".join(textwrap.wrap(result_title(result), title_chars)), fontsize=9)
    return fig


def _plot_ratings(ax, ratings: list[Rating], labels: list[str]) -> None:
    """Each rating with its interval, in rank order from the top (``ratings`` and ``labels``
    highest first); the axis spans every interval."""
    positions = list(range(len(ratings)))[::-1]  # rank 1 at the top
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
    ax.set_yticks(positions, labels, fontsize=_TICK_FONT)
    ax.axvline(ELO_ANCHOR, color="#999999", linewidth=0.8, linestyle="--")
    left = min(lows.min(), elos.min(), ELO_ANCHOR)
    right = max(highs.max(), elos.max(), ELO_ANCHOR)
    pad = max(0.08 * (right - left), 10.0)
    ax.set_xlim(left - pad, right + pad)
    ax.set_xlabel(f"Elo (mean = {ELO_ANCHOR:.0f}), 95% interval\n"
                  f"(bootstrap; profile likelihood where it is blind)")
    ax.set_title("Bradley-Terry ratings")
    ax.margins(y=0.3)


def plot_round_robin(result: RoundRobinResult, path: str | Path) -> None:
    """``round_robin_figure`` saved as a PNG."""
    fig = round_robin_figure(result)
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=110)
    plt.close(fig)
