"""TBW described for the layers above its core (``tbw_envs.description.Game``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from functools import lru_cache
from typing import Any

import numpy as np

from tbw_envs.core.canonical import canonical_json, int64s
from tbw_envs.description import Game
from tbw_envs.tbw.batched import make_batched
from tbw_envs.tbw.env import aec
from tbw_envs.tbw.env.single import make_tbw_single
from tbw_envs.tbw.observation import ObservationEncoder, action_rotation
from tbw_envs.tbw.render import render_ansi
from tbw_envs.tbw.state import END_REASONS, TBWState
from tbw_envs.tbw.variant import (
    MAX_BOARD_TILES,
    MAX_UNITS_PER_SIDE,
    Scenario,
    available_scenarios,
    load_scenario,
)


@lru_cache(maxsize=16)
def _scenario_named(variant: str) -> Scenario:
    return load_scenario(variant)


class TBWFrame:
    """Planes from the point of view of the side to move, and with ``flip`` player 1's board
    rotated 180 degrees, as ``tbw_v0`` builds them."""

    def __init__(self, scenario: Scenario, flip: bool = True):
        self.encoder = ObservationEncoder(scenario, flip=flip)
        self.flip = flip
        self.shape = self.encoder.shape
        self.num_actions = scenario.num_actions
        self.rotation = action_rotation(scenario)  # its own inverse: frame <-> core action

    def encode(self, view: TBWState) -> tuple[np.ndarray, np.ndarray]:
        side = view.current_player
        planes = self.encoder.encode(view, side)
        mask = np.asarray(view.legal_action_mask(), dtype=bool)
        if self.flip and side == 1:
            mask = mask[self.rotation]
        return planes, mask

    def to_core(self, view: TBWState, action: int) -> int:
        if self.flip and view.current_player == 1:
            return int(self.rotation[action])
        return int(action)


class TBWGame(Game):
    name = "tbw"
    title = "TBW"
    variant_flag = "scenario"
    env_variant_keyword = "scenario"  # tbw_v0's keyword, whatever a subclass names its flag
    variant_noun = "scenario"
    default_variant = "duel_5v5_8x8"
    end_reasons = tuple(END_REASONS)
    agents = ("random", "greedy", "search", "exact", "alg5", "alg2", "oep", "tree", "ppo",
              "learned")
    action_structure = "unit_tile_target"
    agent_catalog = "agents.tbw.catalog"
    web_board = "agents.tbw.web_board"
    drawing = "agents.tbw.drawing"
    arena_agents = ("ppo:pretrained", "exact", "greedy", "random")
    arena_games = 30
    arena_opening_plies = 10

    def variants(self) -> list[str]:
        return available_scenarios()

    def load_variant(self, variant: Any) -> Scenario:
        if isinstance(variant, str):
            return _scenario_named(variant)
        return load_scenario(variant)

    def variant_context(self, variant: Any) -> dict[str, Any]:
        sc = self.load_variant(variant)
        return {
            "name": sc.name, "board": [sc.board.topology, sc.board.rows, sc.board.cols],
            "terrain_grid": list(sc.terrain_grid),
            "terrain_types": {name: asdict(t) for name, t in sc.terrain_types.items()},
            "unit_types": {name: asdict(t) for name, t in sc.unit_types.items()},
            "units": [asdict(u) for u in sc.units], "first_side": sc.first_side,
            "max_turns": sc.max_turns, "win": sc.win, "line_of_sight": sc.line_of_sight,
            "turn_limit_result": sc.turn_limit_result,
        }

    def longest_game(self, variant: Any) -> tuple[int, str]:
        return self.load_variant(variant).longest_game()

    def new_state(self, variant: Any, seed: int | None = None, layouts=None) -> TBWState:
        if layouts is not None:
            raise ValueError("a TBW game has no layouts: its scenario places the units")
        return TBWState.initial(self.load_variant(variant))

    def state_encoding(self, state: TBWState) -> bytes:
        """Hp, tiles and acted flags as int64s after the scalars' canonical JSON."""
        arrays = int64s(state.hp + state.pos + state.acted)
        scalars = ["tbw/1", len(state.hp), state.current_player, state.turn, state.winner,
                   state.terminal, state.last_side]
        return canonical_json(scalars) + b"\0" + arrays

    def describe_action(self, state: TBWState, action: int) -> str:
        return state.describe_action(action)

    def render_text(self, state: TBWState) -> str:
        return render_ansi(state)

    def raw_env(self, **kwargs):
        return aec.raw_env(**self.env_kwargs(kwargs))

    def single_agent_env(self, **kwargs):
        return make_tbw_single(**self.env_kwargs(kwargs))

    @property
    def single_env_kwargs(self) -> dict[str, Any]:
        return self.keyword_defaults(make_tbw_single)

    def batched_core(self, num_envs: int, backend: str = "auto", threads: int | None = None,
                     **env_kwargs):
        """TBW's batched core (``tbw_envs.tbw.batched``) of ``tbw_v0``'s keywords: the scenario
        and ``flip_perspective``."""
        kwargs = self.env_kwargs(env_kwargs)
        scenario = kwargs.pop("scenario", self.default_variant)
        flip_perspective = kwargs.pop("flip_perspective", True)
        if kwargs:
            raise ValueError(f"the batched TBW env takes scenario= and flip_perspective=, not "
                             f"{', '.join(sorted(kwargs))} (renders and info formats are the "
                             f"AEC env's: state(i) gives a game to render)")
        return make_batched(num_envs, self.load_variant(scenario), flip_perspective, backend,
                            threads)

    def frame(self, variant: Any, flip: bool = True) -> TBWFrame:
        return TBWFrame(self.load_variant(variant), flip)

    def frame_size_error(self, shape: Sequence[int], num_actions: int) -> str | None:
        # units_per_side * tiles * (units_per_side + 1) + 1 actions (Scenario.num_actions).
        rows, cols = shape[1], shape[2]
        tiles = rows * cols
        if tiles > MAX_BOARD_TILES or not any(n * tiles * (n + 1) + 1 == num_actions
                                              for n in range(1, MAX_UNITS_PER_SIDE + 1)):
            return (f"num_actions {num_actions} does not fit a TBW board of {rows} x {cols} "
                    f"(at most {MAX_BOARD_TILES:,} tiles and {MAX_UNITS_PER_SIDE} units a side)")
        return None

    def is_view(self, view: Any) -> bool:
        # A TBW view is a TBWState: it carries its scenario.
        return hasattr(view, "scenario") and hasattr(view, "legal_action_mask")

    def view_variant(self, view: TBWState) -> Scenario:
        return view.scenario


TBW = TBWGame()
