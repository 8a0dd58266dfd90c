"""The page's colours, read from ``agents/web/static/app.js`` and ``style.css`` as shipped: the
marks a click may act on (reachable tiles, attackable enemies) stand apart from every terrain
colour, the hash colours of unknown terrains included, and from both players' colours; and each
player has one colour everywhere: the page, the RGB frames of both games and the GIFs."""

from __future__ import annotations

import colorsys
import re

import pytest

from agents.web.app import STATIC_DIR
from tbw_envs.tbw.render import PLAYER_COLORS

APP_JS = (STATIC_DIR / "app.js").read_text()
STYLE_CSS = (STATIC_DIR / "style.css").read_text()

MIN_DISTANCE = 40.0  # CIE76 Delta E: 2.3 is a just noticeable difference, 40 a different colour
MIN_RING_CONTRAST = 3.0  # WCAG 2's minimum for a graphical object against what is next to it


def _rgb(hex_color: str) -> tuple[int, int, int]:
    return tuple(int(hex_color[i:i + 2], 16) for i in (1, 3, 5))


def _js_object(name: str) -> dict[str, tuple[int, int, int]]:
    body = re.search(rf"const {name} = \{{(.*?)\}};", APP_JS, re.S)
    assert body, f"app.js defines no {name}"
    return {key: _rgb(value) for key, value in re.findall(r'(\w+): "(#[0-9a-f]{6})"', body[1])}


def _js_array(name: str) -> list[tuple[int, int, int]]:
    body = re.search(rf"const {name} = \[(.*?)\];", APP_JS, re.S)
    assert body, f"app.js defines no {name}"
    return [_rgb(value) for value in re.findall(r'"(#[0-9a-f]{6})"', body[1])]


def _hash_colors() -> list[tuple[int, int, int]]:
    """Every colour ``terrainColor`` can give an unknown terrain: one per hue."""
    saturation = int(re.search(r"HASH_SATURATION = (\d+)", APP_JS)[1])
    lightness = int(re.search(r"HASH_LIGHTNESS = (\d+)", APP_JS)[1])
    assert "hsl(${hash % 360}, ${HASH_SATURATION}%, ${HASH_LIGHTNESS}%)" in APP_JS
    return [tuple(round(255 * v) for v in colorsys.hls_to_rgb(hue / 360, lightness / 100,
                                                               saturation / 100))
            for hue in range(360)]


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _luminance(rgb) -> float:
    r, g, b = (_linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a, b) -> float:
    """WCAG 2's contrast ratio, 1 (the same luminance) to 21 (black on white)."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _lab(rgb) -> tuple[float, float, float]:
    r, g, b = (_linear(c) for c in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def color_distance(a, b) -> float:
    """CIE76 Delta E: the distance of two colours in CIELAB."""
    return sum((p - q) ** 2 for p, q in zip(_lab(a), _lab(b), strict=True)) ** 0.5


def test_the_helpers_measure_known_pairs():
    assert contrast_ratio((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert contrast_ratio((118, 118, 118), (255, 255, 255)) == pytest.approx(4.54, abs=0.01)
    assert color_distance((255, 255, 255), (0, 0, 0)) == pytest.approx(100.0, abs=0.01)
    assert color_distance((159, 208, 245), (159, 208, 245)) == 0.0


def test_the_marks_stand_apart_from_every_terrain_and_both_players():
    terrains = _js_object("TERRAIN_COLORS")
    marks = _js_object("MARK_COLORS")
    sides = _js_array("SIDE_COLORS")
    assert len(terrains) > 10 and set(marks) == {"reach", "attack"} and len(sides) == 2
    backgrounds = {**{f"terrain {k}": v for k, v in terrains.items()},
                   **{f"unknown terrain {i}": v for i, v in enumerate(_hash_colors())},
                   **{f"player {i}": v for i, v in enumerate(sides)}}
    for mark, color in marks.items():
        nearest = min(backgrounds, key=lambda name: color_distance(color, backgrounds[name]))
        distance = color_distance(color, backgrounds[nearest])
        assert distance >= MIN_DISTANCE, f"{mark} is {distance:.0f} from {nearest}"
    assert color_distance(marks["reach"], marks["attack"]) >= MIN_DISTANCE
    # The attack ring lies on an enemy's disc: it contrasts with either player's colour.
    for side, color in enumerate(sides):
        assert contrast_ratio(marks["attack"], color) >= MIN_RING_CONTRAST, side


def test_each_player_has_one_colour_everywhere():
    from agents.common.drawing import SEAT_FILLS
    from tbw_envs.junqi import render as junqi_render
    from tbw_envs.tbw import render as tbw_render

    page = _js_array("SIDE_COLORS")
    css = [_rgb(re.search(rf"--p{side}: (#[0-9a-f]{{6}})", STYLE_CSS)[1]) for side in (0, 1)]
    assert page == css == [tuple(c) for c in PLAYER_COLORS]
    assert [tuple(int(v) for v in c) for c in tbw_render._SIDE_COLORS] == page
    assert [tuple(c) for c in junqi_render._PLAYER_COLORS] == page
    assert [_rgb(c) for c in SEAT_FILLS] == page
    # Player 0 is the red one, as the frames' banners and the GIF captions say.
    red, blue = page
    assert red[0] > 150 > max(red[1:]) and blue[2] > 150 > max(blue[:2])
