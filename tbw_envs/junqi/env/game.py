"""Junqi described for the layers above its core (``tbw_envs.description.Game``)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from tbw_envs.core.canonical import canonical_json, int64s
from tbw_envs.core.seeding import derive_seed
from tbw_envs.description import Game, GameStart
from tbw_envs.junqi.actions import as_action, describe_action
from tbw_envs.junqi.batched import make_batched
from tbw_envs.junqi.env import aec
from tbw_envs.junqi.env.single import make_junqi_single
from tbw_envs.junqi.layout import coerce_layout, format_layout, random_layout
from tbw_envs.junqi.observation import (
    OBSERVATION_SHAPE,
    action_to_absolute,
    legal_mask_in_frame,
    observation_planes,
)
from tbw_envs.junqi.render import render_ansi
from tbw_envs.junqi.state import END_REASONS, NUM_ACTIONS, JunqiState, JunqiView
from tbw_envs.junqi.variant import JunqiRules, available_rule_sets, load_rules


@lru_cache(maxsize=16)
def _rules_named(variant: str) -> JunqiRules:
    return load_rules(variant)


def layout_seed(game_seed: int, seat: int) -> int:
    """Seed of seat ``seat``'s layout: the random layout, or the ``random.Random`` handed to an
    agent's own ``layout(rng, rules)`` (the same stream, so an agent that just draws
    ``random_layout(rng)`` reproduces the default)."""
    return derive_seed(game_seed, "layout", seat)


class JunqiFrame:
    """Planes and mask of the player to move in its own frame (its pieces at the bottom), as
    ``junqi_v0`` builds them."""

    shape = OBSERVATION_SHAPE
    num_actions = NUM_ACTIONS

    def encode(self, view: JunqiView) -> tuple[np.ndarray, np.ndarray]:
        mask = legal_mask_in_frame(view.legal_actions(), view.player).astype(bool)
        return observation_planes(view), mask

    def to_core(self, view: JunqiView, action: int) -> int:
        return action_to_absolute(int(action), view.player)


class JunqiGame(Game):
    name = "junqi"
    title = "Junqi"
    variant_flag = "rules"
    env_variant_keyword = "rules"  # junqi_v0's keyword, whatever a subclass names its flag
    variant_noun = "rule set"
    default_variant = "ccgc"
    end_reasons = tuple(END_REASONS)
    agents = ("random", "greedy", "mcts", "ucbmcts", "ismcts", "ppo", "learned")
    action_structure = "tile_pairs"
    agent_catalog = "agents.junqi.catalog"
    web_board = "agents.junqi.web_board"
    drawing = "agents.junqi.drawing"
    arena_agents = ("ppo:pretrained", "ucbmcts:iterations=50,weights=tuned",
                    "greedy:weights=tuned", "random")
    arena_games = 12
    arena_opening_plies = 0
    has_layouts = True
    frame_depends_on_variant = False  # every rule set: the same board, planes and actions

    def variants(self) -> list[str]:
        return available_rule_sets()

    def load_variant(self, variant: Any) -> JunqiRules:
        if isinstance(variant, str):
            return _rules_named(variant)
        return load_rules(variant)

    def variant_context(self, variant: Any) -> dict[str, Any]:
        rules = self.load_variant(variant)
        return {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)
                if f.name != "description"}

    def longest_game(self, variant: Any) -> tuple[int, str]:
        return self.load_variant(variant).longest_game()

    def new_state(self, variant: Any, seed: int | None = None,
                  layouts: Sequence[Any] | None = None) -> JunqiState:
        rules = self.load_variant(variant)
        if layouts is None:
            return JunqiState.random_initial(random.Random(seed), rules=rules)
        if len(layouts) != 2:
            raise ValueError("a Junqi game starts from two layouts, one per seat")
        return JunqiState.initial(tuple(layouts), rules=rules)

    def start(self, variant: Any, seed: int, agents: Sequence[Any],
              labels: Sequence[str]) -> GameStart:
        """Each seat's layout: the agent's own ``layout(rng, rules)`` if it has one, else a
        uniformly random one, each drawn from the seat's ``layout_seed``."""
        rules = self.load_variant(variant)
        chosen = [self._seat_layout(agents[seat], labels[seat], seat, seed, rules)
                  for seat in (0, 1)]
        state = self.new_state(variant, layouts=[layout for layout, _ in chosen])
        layouts = (format_layout(chosen[0][0]), format_layout(chosen[1][0]))
        sources = (chosen[0][1], chosen[1][1])
        return GameStart(state, {"layouts": list(layouts), "layout_sources": list(sources)},
                         layouts=layouts, layout_sources=sources)

    @staticmethod
    def _seat_layout(agent: Any, label: str, seat: int, game_seed: int, rules: JunqiRules):
        rng = random.Random(layout_seed(game_seed, seat))
        chooser = getattr(agent, "layout", None)
        if callable(chooser):
            chosen = chooser(rng, rules)
            return coerce_layout(chosen, source=f"layout of {label} (player {seat})"), "agent"
        return random_layout(rng), "random"

    def start_from_record(self, variant: Any, start: dict[str, Any]) -> JunqiState:
        return self.new_state(variant, layouts=start["layouts"])

    def state_encoding(self, state: JunqiState) -> bytes:
        """Owner, kind, moved and both sides' deductions as int64s after the scalars' canonical
        JSON; the history enters as its length and its last ply (the chain of digests binds
        the rest)."""
        arrays = int64s(state.owner + state.kind + state.moved + state.possible[0]
                        + state.possible[1])
        last = list(state.history[-1]) if state.history else None
        scalars = ["junqi/1", len(state.owner), state.flag_revealed, state.flag_revealed_ply,
                   len(state.history), last, state.current_player, state.phase, state.ply,
                   state.quiet_plies, state.winner, state.end_reason]
        return canonical_json(scalars) + b"\0" + arrays

    def describe_action(self, state: JunqiState, action: int) -> str:
        return describe_action(as_action(action))

    def render_text(self, state: JunqiState | JunqiView) -> str:
        return render_ansi(state)

    def raw_env(self, **kwargs):
        return aec.raw_env(**self.env_kwargs(kwargs))

    def single_agent_env(self, **kwargs):
        return make_junqi_single(**self.env_kwargs(kwargs))

    def batched_core(self, num_envs: int, backend: str = "auto", threads: int | None = None,
                     **env_kwargs):
        """Junqi's batched core (``tbw_envs.junqi.batched``) of ``junqi_v0``'s keywords: the
        rule set, and deployment "random" (batched games start in play)."""
        kwargs = self.env_kwargs(env_kwargs)
        rules = kwargs.pop("rules", self.default_variant)
        deployment = kwargs.pop("deployment", "random")
        if deployment != "random":
            raise ValueError(f"the batched Junqi env starts every game from random layouts "
                             f"(deployment='random'), got deployment={deployment!r}")
        if kwargs:
            raise ValueError(f"the batched Junqi env takes rules= and deployment=, not "
                             f"{', '.join(sorted(kwargs))} (renders and info formats are the "
                             f"AEC env's: state(i) gives a game to render)")
        return make_batched(num_envs, self.load_variant(rules), backend, threads)

    @property
    def single_env_kwargs(self) -> dict[str, Any]:
        return self.keyword_defaults(make_junqi_single)

    def frame(self, variant: Any = None, flip: bool = True) -> JunqiFrame:
        if not flip:
            raise ValueError("Junqi observations are always in the player's own frame")
        return JunqiFrame()

    def frame_size_error(self, shape: Sequence[int], num_actions: int) -> str | None:
        # Every rule set plays on the same board with the same actions.
        expected = (list(OBSERVATION_SHAPE), NUM_ACTIONS)
        if (list(shape), num_actions) != expected:
            return (f"a Junqi policy has observation_shape {expected[0]} and {expected[1]} "
                    f"actions, not {list(shape)} and {num_actions}")
        return None

    def is_view(self, view: Any) -> bool:
        return hasattr(view, "possible") and hasattr(view, "phase")

    def view_variant(self, view: JunqiView) -> JunqiRules:
        return view.rules


JUNQI = JunqiGame()
