"""The pygame window of ``render_mode="human"`` (``tbw_envs.human_window``) for both games, on
SDL's dummy video driver."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from tbw_envs import junqi_v0, tbw_v0
from tbw_envs.human_window import HumanWindow
from tbw_envs.junqi import render as junqi_render
from tbw_envs.tbw.render import render_rgb


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
        game_state = env.unwrapped.core_state
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
