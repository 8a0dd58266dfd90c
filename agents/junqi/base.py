"""What every Junqi agent shares: its parameters (seed, layout policy, belief, evaluation
weights), seeding, deployment from its layout policy, and the move loop of ``act``."""

from __future__ import annotations

import os
import random
from collections.abc import Mapping

from agents.common.params import (
    MAX_PATH_CHARS,
    SEED,
    Choice,
    Custom,
    ParameterTypeError,
    check_params,
    check_seed,
)
from agents.junqi.belief import BELIEFS
from agents.junqi.deployment import LAYOUT_POLICIES
from agents.junqi.eval_config import EvalConfig
from tbw_envs.core.contract import short_repr
from tbw_envs.junqi.layout import DEPLOY_CELLS, Layout
from tbw_envs.junqi.state import DEPLOY, DEPLOY_ACTION_BASE


def _belief_names() -> tuple[str, ...]:
    # Read when a parameter is checked, so a tracker added to BELIEFS later is accepted too.
    return tuple(sorted(BELIEFS))


def _weights(value):
    """Junqi evaluation weights: a name or YAML path (``JunqiEvaluation`` reads it), a dict or
    an ``EvalConfig``; other types are refused here, before they reach the loader."""
    if value is None or isinstance(value, (Mapping, EvalConfig)):
        return value
    if isinstance(value, (str, os.PathLike)):
        text = os.fspath(value)
        if not isinstance(text, str) or not text or len(text) > MAX_PATH_CHARS:
            raise ValueError(f"must be a name or a YAML path of 1 to {MAX_PATH_CHARS} "
                             f"characters, got {short_repr(value)}")
        return value
    raise ParameterTypeError(f"must be a name (default, tuned), a YAML path, a dict or an "
                             f"EvalConfig, got {type(value).__name__} {short_repr(value)}")


# The parameters every Junqi agent shares (``agents.common.params``); each agent adds its own.
BASE_PARAMS = {
    "seed": SEED,
    "layout": Choice(names=tuple(LAYOUT_POLICIES), what="layout policy"),
}
BELIEF = Choice(names=_belief_names, what="belief", optional=True)
WEIGHTS = Custom(func=_weights, what="evaluation weights: a name or a YAML path")


class JunqiAgentBase:
    """Seeding, deployment and the budget-free parts every Junqi agent shares."""

    name = "junqi-agent"
    game = "junqi"  # an env of another game refuses it as an opponent when it is built
    PARAMS = BASE_PARAMS

    def __init__(self, seed: int | None = None, layout: str = "random"):
        checked = check_params(BASE_PARAMS, type(self).__name__, seed=seed, layout=layout)
        self.layout_policy = layout
        if layout != "random":
            # Only agents with a preference expose ``layout``; the arena then lets them deploy.
            self.layout = self._own_layout
        self._rng = random.Random(checked["seed"])
        self._deploying: Layout | None = None

    def reset(self, seed: int | None = None) -> None:
        seed = check_seed(seed, f"{type(self).__name__}.reset")
        if seed is not None:
            self._rng.seed(seed)
        self._deploying = None

    def _own_layout(self, rng: random.Random, rules=None) -> Layout:
        return LAYOUT_POLICIES[self.layout_policy](rng)

    def act(self, view) -> int:
        if view.phase == DEPLOY:
            return self._deploy(view)
        actions = view.legal_actions()
        if not actions:
            raise ValueError(f"{self.name}: the view has no legal action (is the game over?)")
        if len(actions) == 1:
            return actions[0]
        return self.choose(view, actions)

    def choose(self, view, actions: list[int]) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def _deploy(self, view) -> int:
        """The environment's deployment phase: play our layout cell by cell, in the public
        order ``DEPLOY_CELLS``."""
        if self._deploying is None or not view.placed:
            self._deploying = LAYOUT_POLICIES[self.layout_policy](self._rng)
        cell = DEPLOY_CELLS[len(view.placed)]
        return DEPLOY_ACTION_BASE + self._deploying.cells[cell]
