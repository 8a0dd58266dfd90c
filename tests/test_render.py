"""RGB frames (unit types, result banner, hex tiles, Junqi legend and views) and the pygame window
of render_mode="human"."""

import math
import random
import sys
import timeit
from pathlib import Path

import numpy as np
import pytest
import yaml

from tbw_envs import junqi_v0, tbw_v0
from tbw_envs.human_window import HumanWindow
from tbw_envs.junqi import JunqiState, Layout, random_layout, validate_layout
from tbw_envs.junqi import render as junqi_render
from tbw_envs.junqi.board import parse_post
from tbw_envs.junqi.pieces import ENGINEER, PIECE_NAMES
from tbw_envs.tbw import load_scenario
from tbw_envs.tbw.render import (
    _BACKGROUND,
    _SIDE_COLORS,
    render_rgb,
    result_lines,
    terrain_color,
    text_mask,
    unit_type_codes,
)
from tbw_envs.tbw.state import LEADER_KILLED, TURN_LIMIT_HP

CONFIGS = Path(__file__).resolve().parents[1] / "configs" / "tbw"
TILE = 32


def _scenario_with(name: str, edit) -> object:
    data = yaml.safe_load((CONFIGS / f"{name}.yaml").read_text())
    edit(data)
    return load_scenario(data)


# ============================================================================ TBW


def test_tbw_frame_shows_the_unit_type():
    base = load_scenario("duel_5v5_8x8")
    assert base.units[0].type.name == "swordsman" and base.units[0].slot == 0

    def retype(data):
        data["units"][0]["type"] = "knight"  # same side, slot and position (7, 1)

    other = _scenario_with("duel_5v5_8x8", retype)
    a, b = render_rgb(base.initial_state()), render_rgb(other.initial_state())
    assert a.shape == b.shape == (8 * TILE, 8 * TILE, 3)
    changed = np.argwhere((a != b).any(axis=2))
    assert len(changed) > 10
    # Only the retyped unit's counter changes (both at full Hp, so the bars are equal).
    assert changed[:, 0].min() >= 7 * TILE and changed[:, 1].min() >= 1 * TILE
    assert changed[:, 1].max() < 2 * TILE
    # Units of one type look the same apart from the slot number: two swordsmen differ only
    # in the slot corner, while a swordsman and an archer differ in the type code too.
    sw0 = a[7 * TILE:8 * TILE, 1 * TILE:2 * TILE]  # swordsman slot 0
    sw2 = a[7 * TILE:8 * TILE, 5 * TILE:6 * TILE]  # swordsman slot 2
    ar4 = a[6 * TILE:7 * TILE, 6 * TILE:7 * TILE]  # archer slot 4
    code_rows = slice(13, 23)
    assert np.array_equal(sw0[code_rows], sw2[code_rows])
    assert not np.array_equal(sw0[code_rows], ar4[code_rows])
    assert not np.array_equal(sw0[:12], sw2[:12])  # the slot numbers 0 and 2


def test_unit_type_codes_are_short_and_unique():
    names = ["swordsman", "archer", "cavalry", "cavalier", "commander", "knight", "lord",
             "soldier", "spearman", "rider", "catapult"]
    codes = unit_type_codes(names)
    assert len(set(codes.values())) == len(names)
    assert all(2 <= len(code) <= 3 and code.isupper() for code in codes.values())
    assert codes["swordsman"] == "SW" and codes["archer"] == "AR"


def _finished(state, winner, dead_side=None):
    """A copy of ``state`` ended with ``winner``; ``dead_side``: that side's units all die."""
    end = state.clone()
    if dead_side is not None:
        for uid in end.scenario.side_units[dead_side]:
            end.occupant[end.pos[uid]] = -1
            end.hp[uid] = 0
    end.terminal, end.winner = True, winner
    return end


def test_game_over_banner_names_the_winner_and_the_reason():
    state = load_scenario("duel_5v5_8x8").initial_state()
    playing = render_rgb(state)
    frames = {
        0: render_rgb(_finished(state, 0, dead_side=1)),
        1: render_rgb(_finished(state, 1, dead_side=0)),
        None: render_rgb(_finished(state, None)),
    }
    assert result_lines(_finished(state, 0, dead_side=1)) == (
        "RED (SIDE 0) WINS", "ARMY DESTROYED, TURN 1"
    )
    assert result_lines(_finished(state, None))[0] == "DRAW"
    for winner, frame in frames.items():
        assert frame.shape == playing.shape  # same size during and after the game
        band = frame[110:146]  # the banner sits across the middle of the board
        assert not np.array_equal(band, playing[110:146]), winner
        mean = band.reshape(-1, 3).mean(axis=0)
        if winner == 0:
            assert mean[0] > mean[2] + 40
        elif winner == 1:
            assert mean[2] > mean[0] + 40
        else:
            assert abs(mean[0] - mean[2]) < 25
        # The banner carries white text.
        assert (band == 255).all(axis=2).sum() > 100
    assert not np.array_equal(frames[0], frames[1])
    assert not np.array_equal(frames[0], frames[None])
    assert not np.array_equal(frames[1], frames[None])
    # Same winner, different reason: a different second line.
    by_hp = _finished(state, 0)
    assert by_hp.end_reason == TURN_LIMIT_HP
    assert not np.array_equal(render_rgb(by_hp)[110:146], frames[0][110:146])


def test_leader_kill_reason_is_shown():
    state = load_scenario("hex_skirmish").initial_state()
    end = state.clone()
    leader = next(u.id for u in state.scenario.units if u.side == 1 and u.leader)
    end.occupant[end.pos[leader]] = -1
    end.hp[leader] = 0
    end.terminal, end.winner = True, 0
    assert end.end_reason == LEADER_KILLED
    assert result_lines(end)[1].startswith("LEADER KILLED")
    frame = render_rgb(end)
    assert frame.shape == render_rgb(state).shape


def test_frames_keep_one_size_through_a_game_and_are_fresh_arrays():
    state = load_scenario("hex_skirmish").initial_state()
    first = render_rgb(state)
    first[:] = 0  # the caller owns the frame: scribbling on it must not reach the cache
    rand = random.Random(3)
    shapes = set()
    for _ in range(40):
        shapes.add(render_rgb(state).shape)
        if state.terminal:
            break
        state.apply(rand.choice(state.legal_actions()))
    assert shapes == {first.shape}
    assert render_rgb(load_scenario("hex_skirmish").initial_state()).any()


def _has_block(mask: np.ndarray, height: int, width: int) -> bool:
    """Whether ``mask`` is True on some whole ``height x width`` rectangle."""
    windows = np.lib.stride_tricks.sliding_window_view(mask, (height, width))
    return bool(windows.all(axis=(2, 3)).any())


def test_hex_board_is_drawn_as_hexagons():
    scenario = load_scenario("hex_skirmish")
    state = scenario.initial_state()
    frame = render_rgb(state)
    rows, cols = scenario.board.rows, scenario.board.cols
    s = TILE / math.sqrt(3)  # circumradius of a hexagon TILE pixels wide
    assert frame.shape == (math.ceil((rows - 1) * 1.5 * s + 2 * s), cols * TILE + TILE // 2, 3)
    # No filler cells: offset squares left a half-tile-wide, tile-tall block of background at
    # the start of every odd row; hexagons leave only the tapering gaps of a hex board's jagged
    # outline (and 1-pixel outlines).
    background = (frame == _BACKGROUND).all(axis=2)
    assert not _has_block(background, TILE - 1, TILE // 2 - 1)
    assert background.mean() < 0.1
    # Background only outside the hexagons: ``norm`` is each pixel's hex distance to the
    # nearest tile centre (1 on a hexagon's outline).
    centres = np.array([(s + r * 1.5 * s, TILE / 2 + c * TILE + (TILE / 2 if r & 1 else 0))
                        for r in range(rows) for c in range(cols)])
    ys, xs = np.mgrid[:frame.shape[0], :frame.shape[1]] + 0.5
    dy = np.abs(ys[..., None] - centres[:, 0])
    dx = np.abs(xs[..., None] - centres[:, 1])
    norm = np.maximum(dx / (TILE / 2), (dy + dx / math.sqrt(3)) / s).min(axis=2)
    assert not background[norm < 0.97].any()
    # (Leaders' gold frames may poke out of an edge hexagon: leave units' squares out.)
    near_unit = np.zeros(background.shape, dtype=bool)
    for tile in state.pos:
        cy, cx = centres[tile]
        top, left = int(cy) - TILE // 2, int(cx) - TILE // 2
        near_unit[top:top + TILE, left:left + TILE] = True
    assert background[(norm > 1.03) & ~near_unit].all()

    hill = terrain_color("hill")
    row, col = 1, 4  # a hill, surrounded by plain
    assert scenario.terrain_grid[row * cols + col] == "hill"
    neighbors = scenario.board.neighbors[row * cols + col]
    assert all(scenario.terrain_grid[n] != "hill" for n in neighbors)
    cy = s + row * 1.5 * s
    cx = TILE / 2 + col * TILE + (TILE / 2 if row & 1 else 0)

    def is_hill(dy: float, dx: float) -> bool:
        return bool((frame[int(cy + dy), int(cx + dx)] == hill).all())

    assert is_hill(0, 0)
    assert is_hill(-0.8 * s, 0) and is_hill(0.8 * s, 0)  # pointy top and bottom
    assert is_hill(0, -0.42 * TILE) and is_hill(0, 0.42 * TILE)  # flat left and right sides
    assert is_hill(-0.4 * s, -0.4 * TILE) and is_hill(0.4 * s, 0.4 * TILE)
    for dy in (-0.8 * s, 0.8 * s):  # the corners of the bounding box are not part of the tile
        for dx in (-0.42 * TILE, 0.42 * TILE):
            assert not is_hill(dy, dx)
    # The tile's pixels fill a hexagon (area 2 sqrt(3) r^2 for inradius r, outline excluded),
    # not a square.
    box = frame[int(cy - s) - 2:int(cy + s) + 3, int(cx - TILE / 2) - 2:int(cx + TILE / 2) + 3]
    area = (box == hill).all(axis=2).sum()
    inradius = TILE / 2 - 1
    assert abs(area - 2 * math.sqrt(3) * inradius**2) < 60
    # Units stand on their hexagon: a side-0 unit's counter is red.
    uid = 0
    r, c = scenario.board.rc(state.pos[uid])
    uy, ux = s + r * 1.5 * s, TILE / 2 + c * TILE + (TILE / 2 if r & 1 else 0)
    counter = frame[int(uy) - 9:int(uy) + 9, int(ux) - 9:int(ux) + 9].reshape(-1, 3)
    assert ((counter == _SIDE_COLORS[0]).all(axis=1)).mean() > 0.4


def test_tbw_frame_time():
    state = load_scenario("battle_10v10_16x16").initial_state()
    render_rgb(state)
    seconds = min(timeit.repeat(lambda: render_rgb(state), number=10, repeat=5)) / 10
    assert seconds < 0.004


# ============================================================================ Junqi


def _find_text(image: np.ndarray, color, text: str) -> bool:
    """Whether ``text`` (font scale 2) appears in ``color`` somewhere in ``image``."""
    ink = (image == np.asarray(color)).all(axis=2)
    mask = text_mask(text, 2)
    windows = np.lib.stride_tricks.sliding_window_view(ink, mask.shape)
    return bool((windows == mask).all(axis=(2, 3)).any())


def test_junqi_frame_has_a_legend_of_the_glyphs():
    state = JunqiState.random_initial(0)
    frame = junqi_render.render_rgb(state)
    panel = frame[:, junqi_render._BOARD_WIDTH:]
    for kind in (0, 8, ENGINEER, 9, 10, 11):
        assert _find_text(panel, junqi_render._INK, PIECE_NAMES[kind].replace("_", " ").upper())
    assert _find_text(panel, junqi_render._INK, "HIDDEN")
    assert _find_text(panel, junqi_render._INK, "CAMP")
    # The legend is static: another position has the same legend.
    other = JunqiState.random_initial(1)
    for _ in range(10):
        other.apply(other.legal_actions()[0])
    legend_rows = slice(10 + 7 * junqi_render._LINE, None)
    assert np.array_equal(
        junqi_render.render_rgb(other)[legend_rows, junqi_render._BOARD_WIDTH:],
        panel[legend_rows],
    )
    # The status names the side to move.
    assert _find_text(panel, junqi_render._PLAYER_COLORS[0], "RED (P0) TO MOVE")


def _post_box(frame: np.ndarray, post: str) -> np.ndarray:
    y, x = junqi_render._center(parse_post(post))
    return frame[y - 11:y + 12, x - 15:x + 16]


def test_junqi_view_frame_shows_only_what_the_player_knows():
    pieces = {"K0": (0, "engineer"), "L1": (0, "flag"), "A1": (1, "flag"),
              "B0": (1, "major"), "C0": (1, "bomb")}
    swapped = dict(pieces, B0=(1, "bomb"), C0=(1, "major"))
    a, b = JunqiState.from_pieces(pieces), JunqiState.from_pieces(swapped)
    full_a, full_b = junqi_render.render_rgb(a), junqi_render.render_rgb(b)
    assert not np.array_equal(full_a, full_b)  # the omniscient frames tell them apart
    view_a = junqi_render.render_rgb(a.view(0))
    assert np.array_equal(view_a, junqi_render.render_rgb(b.view(0)))
    assert not np.array_equal(view_a, full_a)
    # Hidden pieces all look alike; own pieces are shown as they are.
    assert np.array_equal(_post_box(view_a, "B0"), _post_box(view_a, "C0"))
    assert np.array_equal(_post_box(view_a, "A1"), _post_box(view_a, "B0"))  # flag hidden
    assert not np.array_equal(_post_box(full_a, "B0"), _post_box(full_a, "C0"))
    assert np.array_equal(_post_box(view_a, "K0"), _post_box(full_a, "K0"))
    # Player 1 sees its own pieces, so its view frames differ.
    assert not np.array_equal(
        junqi_render.render_rgb(a.view(1)), junqi_render.render_rgb(b.view(1))
    )
    # A revealed flag is shown, as the owner's flag.
    revealed = JunqiState.from_pieces(pieces, revealed_flags=(1,))
    shown = junqi_render.render_rgb(revealed.view(0))
    assert np.array_equal(_post_box(shown, "A1"), _post_box(full_a, "A1"))
    assert np.array_equal(_post_box(shown, "B0"), _post_box(view_a, "B0"))
    # Parity with the text render: the same posts are hidden.
    text = junqi_render.render_ansi(revealed.view(0))
    assert text.count("??") == 2 and " fl" in text


def _swap_ranked(layout: Layout, rand: random.Random) -> Layout:
    """``layout`` with two ranked pieces of different types swapped (always still legal)."""
    cells = list(layout.cells)
    ranked = [i for i, kind in enumerate(cells) if kind is not None and kind <= ENGINEER]
    while True:
        i, j = rand.sample(ranked, 2)
        if cells[i] != cells[j]:
            break
    cells[i], cells[j] = cells[j], cells[i]
    swapped = Layout(tuple(cells))
    validate_layout(swapped)
    return swapped


def test_junqi_view_frames_ignore_hidden_swaps_during_play():
    rand = random.Random(11)
    compared = differing = 0
    for _game in range(4):
        layouts = [random_layout(rand), random_layout(rand)]
        observer = rand.randrange(2)
        alternative = list(layouts)
        for _ in range(3):
            alternative[1 - observer] = _swap_ranked(alternative[1 - observer], rand)
        real, other = JunqiState.initial(layouts), JunqiState.initial(alternative)
        for _ply in range(30):
            if real.history and (
                real.history[-1] != other.history[-1] or real.flag_revealed != other.flag_revealed
            ):
                break  # the public record diverged
            assert np.array_equal(
                junqi_render.render_rgb(real.view(observer)),
                junqi_render.render_rgb(other.view(observer)),
            )
            compared += 1
            differing += not np.array_equal(
                junqi_render.render_rgb(real), junqi_render.render_rgb(other)
            )
            if real.is_terminal():
                break
            action = rand.choice(real.legal_actions())
            if action not in other.legal_actions():
                break
            real.apply(action)
            other.apply(action)
    assert compared > 20 and differing > 20


def test_junqi_frame_time():
    state = JunqiState.random_initial(2)
    view = state.view(1)
    junqi_render.render_rgb(state)
    for subject in (state, view):
        seconds = min(
            timeit.repeat(lambda s=subject: junqi_render.render_rgb(s), number=10, repeat=5)
        ) / 10
        assert seconds < 0.004


# ============================================================================ human mode


def test_missing_pygame_names_the_render_extra(monkeypatch):
    from gymnasium.error import DependencyNotInstalled

    monkeypatch.setitem(sys.modules, "pygame", None)  # "import pygame" now fails
    window = HumanWindow("test", fps=30)
    with pytest.raises(DependencyNotInstalled, match=r'pip install "tbw-envs\[render\]"'):
        window.show(np.zeros((4, 4, 3), np.uint8))
    window.close()
    window.close()


def test_human_window_checks_its_input():
    with pytest.raises(ValueError, match="fps"):
        HumanWindow("test", fps=0)
    window = HumanWindow("test", fps=30)
    with pytest.raises(ValueError, match="H x W x 3 uint8"):
        window.show(np.zeros((4, 4), np.uint8))
    window.close()  # never opened: still fine


@pytest.fixture
def pygame_dummy(monkeypatch):
    """pygame on SDL's dummy video driver (no display needed); frames are not throttled."""
    try:
        import pygame
    except ImportError:
        pytest.skip("pygame is not installed (the render extra)")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    pygame.display.quit()  # a display opened before would keep its driver
    monkeypatch.setitem(tbw_v0.raw_env.metadata, "render_fps", 1000)
    monkeypatch.setitem(junqi_v0.raw_env.metadata, "render_fps", 1000)
    shown = []
    original = HumanWindow.show

    def counting_show(self, frame):
        shown.append(frame.copy())
        original(self, frame)

    monkeypatch.setattr(HumanWindow, "show", counting_show)
    yield pygame, shown
    pygame.display.quit()


def _play(env, steps: int) -> None:
    env.reset(seed=0)
    for i, agent in enumerate(env.agent_iter()):
        obs, _reward, terminated, truncated, _info = env.last()
        done = terminated or truncated
        env.step(None if done else env.action_space(agent).sample(obs["action_mask"]))
        if i + 1 >= steps:
            break


def _screen_frame(pygame) -> np.ndarray:
    """What the window shows, at the frame's own resolution."""
    surface = pygame.display.get_surface()
    pixels = pygame.surfarray.array3d(surface).swapaxes(0, 1)
    return pixels


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_human_mode_shows_frames_in_a_pygame_window(pygame_dummy, capsys, game):
    pygame, shown = pygame_dummy
    if game == "tbw":
        env = tbw_v0.env(scenario="duel_5v5_8x8", render_mode="human")
    else:
        env = junqi_v0.env(render_mode="human", render_perspective="player_0")
    _play(env, steps=5)
    assert capsys.readouterr().out == ""  # no board printed any more
    assert len(shown) == 6  # one frame at reset and one per step
    assert pygame.display.get_init() and pygame.display.get_driver() == "dummy"
    screen = _screen_frame(pygame)
    last = shown[-1]
    scale = screen.shape[0] // last.shape[0]
    assert scale >= 1 and screen.shape[:2] == (last.shape[0] * scale, last.shape[1] * scale)
    assert np.array_equal(screen[::scale, ::scale], last)
    # render() in human mode draws the current position and returns None.
    assert env.render() is None and len(shown) == 7
    if game == "tbw":
        assert np.array_equal(shown[-1], render_rgb(env.unwrapped._state))
    else:
        game_state = env.unwrapped.game
        assert np.array_equal(shown[-1], junqi_render.render_rgb(game_state.view(0)))
    env.close()
    assert pygame.display.get_surface() is None
    env.close()  # idempotent
    # The env can render again after close: a new window opens.
    assert env.render() is None and pygame.display.get_surface() is not None
    env.close()
    assert capsys.readouterr().out == ""


def test_human_window_resizes_and_survives_the_user_closing_it(pygame_dummy):
    pygame, _shown = pygame_dummy
    window = HumanWindow("resize", fps=1000, scale=1)
    window.show(np.zeros((20, 30, 3), np.uint8))
    assert pygame.display.get_surface().get_size() == (30, 20)
    frame = np.zeros((40, 10, 3), np.uint8)
    frame[..., 0] = 200
    window.show(frame)
    assert pygame.display.get_surface().get_size() == (10, 40)
    assert (_screen_frame(pygame)[..., 0] == 200).all()
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    window.show(frame)  # the user closed the window: it closes and later frames are dropped
    assert not window.is_open and window.closed_by_user
    window.show(frame)
    assert pygame.display.get_surface() is None
    window.close()
    window.show(frame)  # after close() a new frame opens a new window
    assert window.is_open
    window.close()
    window.close()

