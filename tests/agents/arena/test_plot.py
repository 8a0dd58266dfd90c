"""The round robin's chart (``agents.arena.plot``): long labels do not squeeze the heatmap, no
text leaves the figure, every rating interval lies inside its axis, the agents' numbers follow
the rating order everywhere, and labels wrap only between tokens."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from agents.arena.plot import (  # noqa: E402
    LABEL_WIDTH,
    ZERO_WIDTH_LABEL,
    chart_layout,
    label_pieces,
    numbered_label,
    plot_round_robin,
    round_robin_figure,
    wrap_label,
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

    # What the chart's title (``tables.result_title``) reads: a long title, which must wrap.
    game, variant, seed, opening_plies, games_per_pairing = "junqi", "ccgc", 12345, 8, 4

    def __init__(self, labels, intervals):
        self.labels = labels
        self.pairings = [(i, j) for i in range(len(labels)) for j in range(i + 1, len(labels))]
        # The title reads each game's move time limit (none here).
        game = SimpleNamespace(move_time_limit=None)
        self.games = [game] * (2 * self.games_per_pairing * len(self.pairings))
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


def _number(label: str) -> int:
    return int(label.split(".", 1)[0])


def test_the_numbers_follow_the_rating_order():
    layout = chart_layout(["low", "top", "mid", "bottom"], [1500, 1700, 1600, 1200])
    assert layout.order == [1, 2, 0, 3]
    assert [_number(label) for label in layout.labels] == [1, 2, 3, 4]
    assert [label.split(". ", 1)[1] for label in layout.labels] == ["top", "mid", "low", "bottom"]
    assert layout.numbers() == [3, 1, 2, 4]
    with pytest.raises(ValueError, match="one rating per label"):
        chart_layout(["a", "b"], [1500])


def test_the_drawn_numbers_follow_the_rating_order(drawn):
    result, fig, _renderer = drawn
    heat_ax, rating_ax = fig.axes[:2]
    ratings = result.ratings()
    # the ratings, read from the top: numbers 1, 2, ... and falling ratings
    ticks = sorted(zip(rating_ax.get_yticks(), rating_ax.get_yticklabels(), strict=True),
                   key=lambda tick: -tick[0])
    numbers = [_number(label.get_text()) for _, label in ticks]
    assert numbers == list(range(1, len(ratings) + 1))
    by_number = {_number(label.get_text()): position for position, label in ticks}
    points = rating_ax.get_lines()[0]  # the errorbar's markers
    drawn_elos = dict(zip(points.get_ydata(), points.get_xdata(), strict=True))
    elos = [drawn_elos[by_number[k]] for k in numbers]
    assert elos == sorted(elos, reverse=True)
    assert sorted(elos) == sorted(r.elo for r in ratings)
    # the heatmap's rows, from the top, and its columns carry the same numbers in order
    rows = [_number(label.get_text()) for label in heat_ax.get_yticklabels()]
    assert rows == numbers and all(heat_ax.get_yticks() == range(len(rows)))
    assert [label.get_text() for label in heat_ax.get_xticklabels()] == [str(k) for k in numbers]
    # ... and each cell shows the score of its row's agent against its column's agent
    order = sorted(range(len(ratings)), key=lambda i: -ratings[i].elo)
    points_matrix, played = result.score_matrix()
    for cell in heat_ax.texts:
        column, row = (round(v) for v in cell.get_position())
        a, b = order[row], order[column]
        assert cell.get_text().startswith(f"{points_matrix[a, b] / played[a, b]:.2f}\n")


SPEC_LABELS = [
    *LONG_LABELS,
    "ucbmcts:iterations=50",
    "ucbmcts:iterations=50,weights=tuned,exploration=1.4",
    "tree:solves=16,depth=3 (2)",
    "ppo:path=runs/ppo-junqi-20261121-101010/checkpoints/final/policy.npz",
    "a-very-long-agent-name-without-separators-at-all",
]


def _cuts(text, lines):
    """Where ``lines`` cut ``text``: the indices at which a line ends (spaces dropped)."""
    cuts, position = [], 0
    for line in lines:
        start = text.index(line, position)
        assert text[position:start].strip() == "", (text, lines)  # only spaces dropped
        position = start + len(line)
        cuts.append(position)
    assert text[position:].strip() == ""
    return cuts[:-1]


@pytest.mark.parametrize("label", SPEC_LABELS)
def test_wrapping_never_splits_a_token(label):
    text = f"3. {label}"
    for width in (10, 16, LABEL_WIDTH, 30):
        lines = wrap_label(text, width)
        for cut in _cuts(text, lines):
            # a cut follows a separator or falls on a space
            assert text[cut - 1] in ",:=/" or text[cut] == " ", (width, lines)
            # ... and only cuts an item at "=" or "/" when the item does not fit a line
            if text[cut - 1] in "=/":
                start = max(text.rfind(c, 0, cut) for c in " ,:") + 1
                ends = [text.find(c, cut) + (c != " ") for c in " ,:" if c in text[cut:]]
                item = text[start:min(ends, default=len(text))]
                assert len(item) > width, (width, item, lines)
        for line in lines:  # a line is too long only when it is a single unbreakable piece
            assert len(line) <= width or label_pieces(line, width) == [line], (width, lines)


def test_a_short_item_stays_whole():
    assert numbered_label(0, "ucbmcts:iterations=50") == "1. ucbmcts:\niterations=50"
    assert wrap_label("ucbmcts:iterations=400,weights=tuned", 22) == [
        "ucbmcts:", "iterations=400,", "weights=tuned"]


def test_labels_are_numbered_and_wrapped_to_a_fixed_width():
    for index, label in enumerate(LONG_LABELS):
        text = numbered_label(index, label)
        assert text.startswith(f"{index + 1}. ")
        assert all(len(line) <= LABEL_WIDTH or label_pieces(line) == [line]
                   for line in text.split("\n"))
    longer = "ppo:path=runs/ppo-junqi-20261121-101010/checkpoints/final/policy.npz"
    shortened = numbered_label(0, longer)
    assert shortened.count("\n") == 2 and shortened.endswith("...final/policy.npz")
    assert shortened.split("\n")[:2] == ["1. ppo:path=runs/", "ppo-junqi-20261121-101010/"]


def test_the_chart_is_written_as_a_png(tmp_path):
    plot_round_robin(CASES["long labels"], tmp_path / "arena.png")
    assert (tmp_path / "arena.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
