"""TBW pictures (``tbw_envs.tbw.render``): RGB frames show unit types, the result banner and hex
tiles, keep one size through a game, and are quick to draw."""

from __future__ import annotations

import math
import random

import numpy as np
import yaml

from tbw_envs.tbw import TBWState, load_scenario
from tbw_envs.tbw.render import (
    _BACKGROUND,
    _LABEL_COLOR,
    _SIDE_COLORS,
    FONT_HEIGHT,
    board_origin,
    render_rgb,
    result_lines,
    terrain_color,
    text_mask,
    unit_type_codes,
)
from tbw_envs.tbw.state import LEADER_KILLED, TURN_LIMIT_HP
from tests.helpers import REPO_ROOT

CONFIGS = REPO_ROOT / "configs" / "tbw"

TILE = 32


def board_of(frame: np.ndarray, scenario) -> np.ndarray:
    """The board part of a frame, without the margin of row and column numbers."""
    top, left = board_origin(scenario, TILE)
    return frame[top:, left:]


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
    a = board_of(render_rgb(TBWState.initial(base)), base)
    b = board_of(render_rgb(TBWState.initial(other)), other)
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
    state = TBWState.initial(load_scenario("duel_5v5_8x8"))
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
    state = TBWState.initial(load_scenario("hex_skirmish"))
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
    state = TBWState.initial(load_scenario("hex_skirmish"))
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
    assert render_rgb(TBWState.initial(load_scenario("hex_skirmish"))).any()


def _label_boxes(mask: np.ndarray, gap: int = 1) -> list[np.ndarray]:
    """The label pixels of ``mask`` cut into runs of lines (axis 0) that hold some, apart by
    more than ``gap`` empty lines, each cropped to its bounding box."""
    lines = np.flatnonzero(mask.any(axis=1))
    runs = np.split(lines, np.flatnonzero(np.diff(lines) > gap) + 1)
    boxes = []
    for run in runs:
        part = mask[run[0]:run[-1] + 1]
        cols = np.flatnonzero(part.any(axis=0))
        boxes.append(part[:, cols[0]:cols[-1] + 1])
    return boxes


def test_the_margin_numbers_rows_and_columns_as_the_log_names_tiles():
    # The log names a tile (row, column) from 0: "-> (2, 5)". Each row's number stands at
    # its row's height, each column's above it, in order, and nothing else is drawn there.
    for name in ("duel_5v5_8x8", "battle_10v10_16x16", "hex_skirmish"):
        scenario = load_scenario(name)
        frame = render_rgb(TBWState.initial(scenario))
        top, left = board_origin(scenario, TILE)
        scale = max(1, TILE // 24)
        assert top == (FONT_HEIGHT + 4) * scale
        label = (frame == _LABEL_COLOR).all(axis=2)
        assert not label[top:, left:].any()
        rows, cols = scenario.board.rows, scenario.board.cols
        row_boxes = _label_boxes(label[top:, :left])
        assert [box.shape for box in row_boxes] == [text_mask(str(r), scale).shape
                                                    for r in range(rows)], name
        assert all(np.array_equal(box, text_mask(str(r), scale))
                   for r, box in enumerate(row_boxes)), name
        column_boxes = _label_boxes(label[:top, left:].T, gap=4 * scale)  # digits 1 apart
        assert len(column_boxes) == cols, name
        assert all(np.array_equal(box.T, text_mask(str(c), scale))
                   for c, box in enumerate(column_boxes)), name
        if scenario.board.topology != "hex":  # each number over its own tile column
            xs = np.flatnonzero(label[:top, left:].any(axis=0))
            assert sorted(set(xs // TILE)) == list(range(cols))


def _has_block(mask: np.ndarray, height: int, width: int) -> bool:
    """Whether ``mask`` is True on some whole ``height x width`` rectangle."""
    windows = np.lib.stride_tricks.sliding_window_view(mask, (height, width))
    return bool(windows.all(axis=(2, 3)).any())


def test_hex_board_is_drawn_as_hexagons():
    scenario = load_scenario("hex_skirmish")
    state = TBWState.initial(scenario)
    frame = board_of(render_rgb(state), scenario)
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


def count_calls(monkeypatch, module, name: str, calls: dict[str, int]) -> None:
    """Count the calls of ``module.name`` in ``calls[name]``."""
    real = getattr(module, name)
    calls[name] = 0

    def counted(*args, **kwargs):
        calls[name] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)


def test_the_terrain_is_drawn_once_per_board_not_per_frame(monkeypatch):
    # What keeps a frame cheap (0.4 ms on the biggest board; python scripts/bench/bench_render.py):
    # the terrain picture and the units' labels are made once per scenario and copied, so
    # playing on colours no terrain and codes no unit type again.
    from tbw_envs.tbw import render

    calls: dict[str, int] = {}
    for name in ("terrain_color", "unit_type_codes"):
        count_calls(monkeypatch, render, name, calls)
    for scenario in ("battle_10v10_16x16", "hex_skirmish"):
        state = TBWState.initial(load_scenario(scenario))
        before = dict(calls)
        render_rgb(state)
        drawn = dict(calls)
        assert all(drawn[name] > before[name] for name in calls), scenario  # the first frame
        rand = random.Random(0)
        for _ in range(20):
            state.apply(rand.choice(state.legal_actions()))
            render_rgb(state)
        assert calls == drawn, scenario


# ============================================================================ text key


def _tbw_boards():
    """Text boards of every bundled scenario: the start, mid-turn (acted units) and game over."""
    rand = random.Random(5)
    for path in sorted(CONFIGS.glob("*.yaml")):
        state = TBWState.initial(load_scenario(path.stem))
        yield state.render_text()
        plies = 0
        while not state.is_terminal():
            state.apply(rand.choice(state.legal_actions()))
            plies += 1
            if plies in (3, 25):
                yield state.render_text()
        yield state.render_text()


def test_every_symbol_on_a_tbw_text_board_is_in_its_key():
    seen: set[str] = set()
    for text in _tbw_boards():
        lines = text.splitlines()
        key_lines = [line for line in lines if line.startswith(("key:", "     "))]
        assert key_lines and lines[-len(key_lines):] == key_lines  # the key closes the board
        assert all(len(line) <= 100 for line in key_lines)
        key = " " + " ".join(line.strip() for line in key_lines) + " "
        board_rows = [line for line in lines[2:] if line[:2].strip().isdigit()]
        for row in board_rows:
            for token in row[4:].split():
                unit = token[1:].rstrip("*").isdigit() and len(token) > 1
                symbol = token[0].upper() if unit else token
                assert f" {symbol} " in key, (token, key)
                seen.add("unit" if unit else "terrain")
                if token.endswith("*"):
                    assert " * leader" in key
                    seen.add("*")
                if unit:
                    assert "type initial + slot" in key
                    assert "upper case side 0" in key and "lower case side 1" in key
        assert "hp = hit points" in key
    assert seen == {"unit", "terrain", "*"}


def test_tbw_key_names_each_symbol_from_the_scenario():
    scenario = load_scenario("hex_skirmish")
    key = " ".join(TBWState.initial(scenario).render_text().split("\nkey:")[1].split())
    for name in set(scenario.terrain_grid):
        char = scenario.terrain_types[name].char or name[0]
        assert f"{char} {name}" in key
    for spec in scenario.units:
        assert f"{spec.type.name[0].upper()} {spec.type.name}" in key


def _played_to_the_turn_limit(turn_limit_result: str, hps: tuple[int, int]):
    """Two units out of each other's reach, with ``hps`` Hp, both sides ending their turns
    until the one-turn limit ends the game by the rules."""
    scenario = load_scenario({
        "name": f"turn_limit_{turn_limit_result}_{hps[0]}_{hps[1]}",
        "board": {"topology": "square4", "terrain": ["......"], "legend": {".": "plain"}},
        "terrain": {"plain": {"cost": 1}},
        "unit_types": {f"u{hp}": {"hp": hp, "atk": 1, "move": 0, "range": [1, 1]}
                       for hp in set(hps)},
        "units": [{"side": 0, "type": f"u{hps[0]}", "pos": [0, 0]},
                  {"side": 1, "type": f"u{hps[1]}", "pos": [0, 5]}],
        "max_turns": 1,
        "win": "annihilation",
        "rules": {"turn_limit_result": turn_limit_result},
    })
    state = TBWState.initial(scenario)
    while not state.terminal:
        state.apply(scenario.end_turn_action)
    return state


def test_turn_limit_banner_says_how_the_limit_was_scored():
    """A draw by the "draw" rule is not "even Hp" (it said so at Hp 3 against 7); the "hp" rule
    shows the totals that decided it."""
    plain = _played_to_the_turn_limit("draw", (3, 7))
    assert plain.winner is None
    assert result_lines(plain) == ("DRAW", "TURN LIMIT: DRAW, TURN 1")
    even = _played_to_the_turn_limit("hp", (5, 5))
    assert even.winner is None
    assert result_lines(even) == ("DRAW", "TURN LIMIT: EVEN HP 5-5, TURN 1")
    more = _played_to_the_turn_limit("hp", (3, 7))
    assert more.winner == 1
    assert result_lines(more)[1] == "TURN LIMIT: MORE HP 3-7, TURN 1"
    assert render_rgb(plain).shape == render_rgb(more).shape
