"""The round robin's chart (``agents.arena.plot``): long labels do not squeeze the heatmap, no
text leaves the figure, and every rating interval lies inside its axis."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from agents.arena.plot import (  # noqa: E402
    LABEL_WIDTH,
    ZERO_WIDTH_LABEL,
    numbered_label,
    plot_round_robin,
    round_robin_figure,
)
from agents.arena.results import Rating  # noqa: E402

LONG_LABELS = [
    "ucbmcts:iterations=400,weights=tuned",
    "ppo:path=runs/ppo-junqi-20261121-101010/policy.npz",
    "random",
    "ismcts:iterations=2000,determinizations=16,exploration=0.7",
]


class _Result:
    """What the chart reads of a round robin, with chosen ratings."""

    def __init__(self, labels, intervals):
        self.labels = labels
        self._ratings = [
            Rating(agent=label, elo=elo, low=low, high=high, games=8, score=0.5)
            for label, (elo, low, high) in zip(labels, intervals, strict=True)
        ]

    def score_matrix(self):
        n = len(self.labels)
        played = np.full((n, n), 8.0) - 8.0 * np.eye(n)
        points = played * np.linspace(0.1, 0.9, n)[:, None]
        return points, played

    def ratings(self):
        return self._ratings

    def title(self):
        return ("junqi: --rules ccgc, 4 agents, 6 pairing(s) x 4 paired games = 48 games, "
                "seed 12345, 8 random opening plies")


CASES = {
    "long labels": _Result(LONG_LABELS, [(1700, 1600, 1800), (1500, 1500, 1500),
                                         (900, 200, 1100), (2400, 2300, 3100)]),
    "two agents": _Result(LONG_LABELS[:2], [(1510, 1510, 1510), (1490, math.nan, math.nan)]),
    "short labels": _Result(["a", "b", "c"], [(1500, 1400, 1600), (1600, 1590, 1610),
                                               (1400, 1400, 1400)]),
}


@pytest.fixture(params=list(CASES))
def drawn(request):
    result = CASES[request.param]
    fig = round_robin_figure(result)
    renderer = fig.canvas.get_renderer()
    fig.canvas.draw()  # runs the layout
    yield result, fig, renderer
    plt.close(fig)


def _shown_texts(fig):
    """The texts the figure draws: titles, axis labels, cell numbers and the tick labels of
    ticks inside the axis limits."""
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    for ax in fig.axes:
        for labels, lim, coord in ((ax.get_xticklabels(), ax.get_xlim(), 0),
                                   (ax.get_yticklabels(), ax.get_ylim(), 1)):
            for label in labels:
                if not min(lim) <= label.get_position()[coord] <= max(lim):
                    texts = [t for t in texts if t is not label]
    return texts


def test_long_labels_leave_the_heatmap_room(drawn):
    _result, fig, _renderer = drawn
    heat_ax = fig.axes[0]
    assert heat_ax.get_position().width >= 0.4


def test_every_text_is_inside_the_figure(drawn):
    _result, fig, renderer = drawn
    width, height = fig.bbox.width, fig.bbox.height
    texts = _shown_texts(fig)
    assert len(texts) > 10
    for text in texts:
        box = text.get_window_extent(renderer)
        assert box.x0 >= -0.5 and box.y0 >= -0.5, text
        assert box.x1 <= width + 0.5 and box.y1 <= height + 0.5, text


def test_every_interval_is_inside_the_axis_and_zero_width_ones_are_marked(drawn):
    result, fig, _renderer = drawn
    rating_ax = fig.axes[1]
    left, right = rating_ax.get_xlim()
    for rating in result.ratings():
        for end in (rating.low, rating.high, rating.elo):
            if math.isfinite(end):
                assert left < end < right
    segments = [seg for c in rating_ax.collections if isinstance(c, LineCollection)
                for seg in c.get_segments()]
    assert segments
    for segment in segments:
        assert all(left < x < right for x in segment[:, 0])
    zero_width = [r for r in result.ratings() if r.low == r.high]
    marked = [line for line in rating_ax.get_lines() if line.get_label() == ZERO_WIDTH_LABEL]
    assert len(zero_width) == sum(len(line.get_xdata()) for line in marked)


def test_labels_are_numbered_and_wrapped_to_a_fixed_width():
    for index, label in enumerate(LONG_LABELS):
        text = numbered_label(index, label)
        assert text.startswith(f"{index + 1}. ")
        assert all(len(line) <= LABEL_WIDTH for line in text.split("\n"))
    longer = "ppo:path=runs/ppo-junqi-20261121-101010/checkpoints/final/policy.npz"
    shortened = numbered_label(0, longer)
    assert shortened.count("\n") == 2 and shortened.endswith("final/policy.npz")


def test_the_chart_is_written_as_a_png(tmp_path):
    plot_round_robin(CASES["long labels"], tmp_path / "arena.png")
    assert (tmp_path / "arena.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
