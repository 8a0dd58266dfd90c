"""How a Junqi agent deploys its army, and the deployment phase of ``junqi_v0``.

An agent that wants its own layout defines ``layout(rng, rules) -> Layout``; the arena and the
environment's ``deployment="agents"`` mode then use it instead of a uniformly random layout.
``JunqiAgentBase`` gives every Junqi agent that method when built with ``layout="heuristic"``
(or any ``LAYOUT_POLICIES`` name other than ``random``), and plays deployment actions cell by
cell from the chosen layout when an environment asks for them.

``heuristic_layout`` is a textbook shape with randomness inside it, so an opponent cannot learn
one fixed layout:

* the flag in a headquarters chosen at random, boxed in by the three mines on the posts beside
  and in front of it (the flag is lost to any piece that reaches it, and only engineers clear
  mines);
* one bomb on the back two rows near the flag, the other in the middle rows where it meets the
  attackers coming down the rail columns;
* the marshal and the general in the middle rows (strong pieces far from the front lose less
  to probing attacks, yet reach the railroad in one step);
* two engineers and the lieutenants in the front rows (cheap pieces probe; engineers clear mines
  and run the railroad), the rest at random.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping

from agents.params import (
    MAX_PATH_CHARS,
    SEED,
    Choice,
    Custom,
    ParameterTypeError,
    check_params,
    check_seed,
)
from tbw_envs.contract import short_repr
from tbw_envs.junqi.board import COLS
from tbw_envs.junqi.layout import (
    BACK_TWO_ROWS_CELLS,
    DEPLOY_CELLS,
    FRONT_ROW_CELLS,
    HEADQUARTERS_CELLS,
    LAYOUT_CELLS,
    PIECE_CELLS,
    Layout,
    random_layout,
    validate_layout,
)
from tbw_envs.junqi.pieces import (
    ARMY_COUNTS,
    BOMB,
    ENGINEER,
    FLAG,
    GENERAL,
    LIEUTENANT,
    MARSHAL,
    MINE,
    NUM_PIECE_TYPES,
)
from tbw_envs.junqi.state import DEPLOY, DEPLOY_ACTION_BASE


def _cell(row: int, col: int) -> int:
    return row * COLS + col


def heuristic_layout(rng: random.Random) -> Layout:
    """A sound layout with the shape described in the module docstring (always legal)."""
    cells: list[int | None] = [None] * LAYOUT_CELLS
    free = set(PIECE_CELLS)
    remaining = list(ARMY_COUNTS)

    def put(cell: int, kind: int) -> None:
        cells[cell] = kind
        free.discard(cell)
        remaining[kind] -= 1

    def put_some(kind: int, count: int, candidates) -> None:
        options = sorted(c for c in candidates if c in free)
        for cell in rng.sample(options, min(count, len(options))):
            put(cell, kind)

    flag = rng.choice(sorted(HEADQUARTERS_CELLS))
    put(flag, FLAG)
    row, col = divmod(flag, COLS)
    # Beside the flag on the back row and in front of it.
    for cell in (_cell(row, col - 1), _cell(row, col + 1), _cell(row - 1, col)):
        put(cell, MINE)
    near_flag = [c for c in BACK_TWO_ROWS_CELLS if abs(c % COLS - col) <= 2]
    put_some(BOMB, 1, near_flag)
    middle = [c for c in PIECE_CELLS if 1 <= c // COLS <= 3]
    put_some(BOMB, remaining[BOMB], middle)
    put_some(MARSHAL, 1, middle)
    put_some(GENERAL, 1, middle)
    front_two = [c for c in PIECE_CELLS if c // COLS <= 1]
    put_some(ENGINEER, 2, front_two)
    put_some(LIEUTENANT, 2, FRONT_ROW_CELLS)
    rest = [kind for kind in range(NUM_PIECE_TYPES) for _ in range(remaining[kind])]
    rng.shuffle(rest)
    for cell, kind in zip(sorted(free), rest, strict=True):
        cells[cell] = kind
    layout = Layout(tuple(cells))
    validate_layout(layout, "heuristic layout")
    return layout


LAYOUT_POLICIES = {"random": random_layout, "heuristic": heuristic_layout}


def _beliefs() -> tuple[str, ...]:
    from agents.junqi.belief import BELIEFS

    return tuple(sorted(BELIEFS))


def _weights(value):
    """Junqi evaluation weights: a name or YAML path (``JunqiEvaluation`` reads it), a dict or
    an ``EvalConfig``; other types are refused here, before they reach the loader."""
    from agents.junqi.evaluation import EvalConfig

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


# The parameters every Junqi agent shares (``agents.params``); each agent adds its own.
BASE_PARAMS = {
    "seed": SEED,
    "layout": Choice(names=tuple(LAYOUT_POLICIES), what="layout policy"),
}
BELIEF = Choice(names=_beliefs, what="belief", optional=True)
WEIGHTS = Custom(func=_weights, what="evaluation weights: a name or a YAML path")


class JunqiAgentBase:
    """Seeding, deployment and the budget-free parts every Junqi agent shares."""

    name = "junqi-agent"
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
