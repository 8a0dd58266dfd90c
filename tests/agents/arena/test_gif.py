"""GIFs of recorded games (``agents.arena.gif``): a caption naming both agents by seat and
colour, and a last frame that says who won, never whose move it would be; each game drawn by the
drawing its description names, and a game with none (the minigame) as its text render."""

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

    from agents.arena.gif import board_drawing, start_figure
    from agents.arena.records import record_start_state
    from agents.arena.replay import replay
    from tbw_envs.games import get_game

    record = _records(written_runs[game]["games.jsonl"])[0]
    final = replay(record, 0)
    assert final.is_terminal()
    fig, ax = start_figure(record, record_start_state(record))
    board_drawing(get_game(game)).draw_position(ax, final)
    title = ax.get_title()
    plt.close(fig)
    reason = str(final.end_reason).replace("_", " ")
    who = "a draw" if final.winner is None else f"player {final.winner} won"
    assert f"{who}: {reason}" in title
    assert "to move" not in title


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_a_game_is_drawn_by_the_drawing_its_description_names(game):
    import importlib

    from agents.arena.gif import board_drawing
    from tbw_envs.games import get_game

    description = get_game(game)
    assert description.drawing == f"agents.{game}.drawing"
    assert board_drawing(description) is importlib.import_module(description.drawing).DRAWING


def test_a_game_without_a_drawing_is_drawn_as_its_text(registered_minigame, tmp_path):
    import matplotlib.pyplot as plt
    from PIL import Image

    from agents.arena import run_round_robin, write_result
    from agents.arena.gif import board_drawing, start_figure, write_gif
    from agents.arena.records import record_start_state
    from agents.arena.replay import replay

    game = registered_minigame
    assert game.drawing is None
    result = run_round_robin("nim", ["random", "random"], games_per_pairing=2, workers=1,
                             bootstrap=0, variant="large")
    record = _records(write_result(result, tmp_path, chart=False)["games.jsonl"])[0]
    plies = len(record["actions"])
    # A frame per ply, the first position's included, and the last held three more times.
    assert write_gif(record, tmp_path / "nim.gif", every=1) == plies + 1 + 3
    with Image.open(tmp_path / "nim.gif") as gif:
        assert gif.n_frames >= 2  # Pillow merges the held, identical last frames

    drawing = board_drawing(game)
    start = record_start_state(record)
    fig, ax = start_figure(record, start)
    drawing.draw_board(ax, start)
    assert [t.get_text() for t in drawing.draw_position(ax, start)] == [game.render_text(start)]
    assert ax.get_title() == "Nim: player 0 to move"
    final = replay(record, 0)
    shown = drawing.draw_position(ax, final)
    title = ax.get_title()
    caption = "\n".join(text.get_text() for text in fig.texts)
    plt.close(fig)
    assert [t.get_text() for t in shown] == [game.render_text(final)]
    assert shown[0].get_fontfamily() == ["monospace"]
    assert title == f"Nim: player {final.winner} won: last stone"
    assert caption == "player 0 (red): random\nplayer 1 (blue): random"
