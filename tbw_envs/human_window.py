"""A pygame window for ``render_mode="human"``: shows the envs' RGB frames, as PettingZoo's
classic envs do. pygame is optional (the ``render`` extra) and imported on the first frame::

    window = HumanWindow("TBW", fps=4)
    window.show(frame)  # an H x W x 3 uint8 array; opens or resizes the window
    window.close()

Small frames are shown enlarged by a whole factor (``scale``; by default the largest that keeps
the window within about 800 pixels, at most 3). If the user closes the window, later frames are
dropped until ``close()`` (after which the next frame opens a new window). pygame drives a
single display per process, so one ``HumanWindow`` should be open at a time. On a machine
without a display, set ``SDL_VIDEODRIVER=dummy`` before the first frame (tests do).
"""

from __future__ import annotations

import os

import numpy as np
from gymnasium.error import DependencyNotInstalled

_INSTALL_HINT = 'pip install "tbw-envs[render]"'


def _import_pygame():
    # pygame prints a banner to stdout on import unless told not to.
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
    except ImportError as exc:
        raise DependencyNotInstalled(
            f"render_mode='human' opens a pygame window, but pygame is not installed; "
            f"install it with: {_INSTALL_HINT} (or use render_mode='rgb_array')"
        ) from exc
    return pygame


class HumanWindow:
    """A window showing RGB frames at up to ``fps`` frames per second."""

    def __init__(self, title: str, fps: int, scale: int | None = None):
        if not isinstance(fps, int) or isinstance(fps, bool) or fps <= 0:
            raise ValueError(f"fps must be a positive int, got {fps!r}")
        if scale is not None and (not isinstance(scale, int) or scale < 1):
            raise ValueError(f"scale must be None or a positive int, got {scale!r}")
        self.title = str(title)
        self.fps = fps
        self.scale = scale
        self.closed_by_user = False
        self._pygame = None
        self._screen = None
        self._clock = None
        self._size: tuple[int, int] | None = None

    @property
    def is_open(self) -> bool:
        return self._screen is not None

    def _scale_for(self, height: int, width: int) -> int:
        if self.scale is not None:
            return self.scale
        return max(1, min(3, 800 // max(height, width, 1)))

    def show(self, frame: np.ndarray) -> None:
        """Show ``frame`` (``H x W x 3`` uint8), opening or resizing the window as needed,
        handle window events and wait so frames come at most ``fps`` per second."""
        frame = np.asarray(frame)
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(
                f"a frame must be an H x W x 3 uint8 array, got shape {frame.shape} "
                f"dtype {frame.dtype}"
            )
        if self.closed_by_user:
            return
        pygame = self._pygame
        if pygame is None:
            pygame = self._pygame = _import_pygame()
        height, width = frame.shape[:2]
        scale = self._scale_for(height, width)
        size = (width * scale, height * scale)
        if self._screen is None or size != self._size:
            try:
                pygame.display.init()
                self._screen = pygame.display.set_mode(size)
            except pygame.error as exc:
                raise RuntimeError(
                    f"render_mode='human' could not open a window ({exc}); on a machine "
                    "without a display set SDL_VIDEODRIVER=dummy, or use render_mode='rgb_array'"
                ) from exc
            pygame.display.set_caption(self.title)
            self._size = size
            if self._clock is None:
                self._clock = pygame.time.Clock()
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                self._close_display()
                self.closed_by_user = True
                return
        surface = pygame.surfarray.make_surface(frame.swapaxes(0, 1))
        if scale != 1:
            surface = pygame.transform.scale(surface, size)
        self._screen.blit(surface, (0, 0))
        pygame.display.flip()
        self._clock.tick(self.fps)

    def _close_display(self) -> None:
        if self._screen is not None and self._pygame is not None:
            self._pygame.display.quit()
        self._screen = None
        self._size = None

    def close(self) -> None:
        """Close the window; safe to call any number of times."""
        self._close_display()
        self.closed_by_user = False
