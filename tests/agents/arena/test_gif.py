"""GIFs of recorded games (``agents.arena.gif``): a caption naming both agents by seat and
colour, and a last frame that says who won, never whose move it would be."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("matplotlib", reason="GIFs need matplotlib (the arena extra)")


def _records(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_the_gif_figure_is_captioned_with_both_agents_and_their_seats(written_runs, game):
    import matplotlib.pyplot as plt

    from agents.arena.gif import start_figure
    from agents.arena.records import record_start_state

    record = _records(written_runs[game]["games.jsonl"])[1]
    fig, _ax = start_figure(record, record_start_state(record))
    caption = "\n".join(text.get_text() for text in fig.texts)
    plt.close(fig)
    specs = record["specs"]
    assert caption == f"player 0 (red): {specs[0]}\nplayer 1 (blue): {specs[1]}"


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_the_last_frame_says_who_won(written_runs, game):
    import matplotlib.pyplot as plt

    from agents.arena.gif import DRAWINGS, start_figure
    from agents.arena.records import record_start_state
    from agents.arena.replay import replay

    record = _records(written_runs[game]["games.jsonl"])[0]
    final = replay(record, 0)
    assert final.is_terminal()
    fig, ax = start_figure(record, record_start_state(record))
    DRAWINGS[game].draw_position(ax, final)
    title = ax.get_title()
    plt.close(fig)
    reason = str(final.end_reason).replace("_", " ")
    who = "a draw" if final.winner is None else f"player {final.winner} won"
    assert f"{who}: {reason}" in title
    assert "to move" not in title
