"""Search across turns for TBW: a game tree whose moves are whole turns.

The TBW paper (section 3.2) calls the game "combinatorial optimisation laterally and game tree
search vertically" and builds only the lateral layer, the single-turn search. This module
builds the vertical one on top of it. A node is a position at the start of a side's turn (or in
the middle of one, at the root); its children are *whole-turn plans* of the side to move,
opponent included, each produced by the exact single-turn solver (``plan_turn(..., "exact")``):

* child 0 is the solver's best plan under the evaluation (what the single-turn agent plays);
* ``other`` children: the best plan whose enemy-Hp outcome (who got hit, who died) differs
  from every earlier child's. The solver is asked for it with the evaluation *shaped*: every
  Hp vector already taken costs ``FORBIDDEN``. The shaping only changes ``base(hp)`` of the
  evaluation's decomposition, so the solver stays exact for it (see ``ShapedEvaluation``);
* ``advance:W`` / ``retreat:W`` children: the best plan when each unit also scores
  ``-W`` (``+W``) per tile of distance to the nearest living enemy, the turn's postures when
  no attack is on offer (standoffs);
* ``noise:S`` children: the best plan under seeded Gaussian noise (standard deviation ``S``)
  on every unit's tile values (the agent's seed drives it).

Children are made lazily, one solve each, in the order of the node's *recipe* list, and a plan
whose end state repeats an earlier child's is dropped. The values the search compares are
always the plain evaluation's, never the shaped one's.

The tree is searched by depth-first alpha-beta in turns (negamax values, always from our point
of view) with iterative deepening up to ``depth`` turns (3, 5, ..., or 2, 4, ... for an even
``depth``). A leaf is a position with one turn left: its value is the best plan's evaluation
for the side to move there (one solve, exact over all its plans), negated when that side is
the opponent. Deeper, our nodes take the maximum over their first ``width`` (root) or
``inner_width`` children, the opponent's the minimum over its first ``replies`` children,
ranked by *its* evaluation: with ``replies=1`` (the default) the opponent is modelled as a
single-turn planner with the same evaluation. Finished games score ``+-WIN`` (a win seen
earlier beats one seen at a leaf, which scores the evaluation's own win value), a draw 0.

The root makes its first two children, then the first iteration makes the others as it
reaches them (recipe order is roughly best first), so a budget that runs out early has still
searched the likeliest plans deeper; later iterations search the root's children best first by
the previous iteration's values. With ``tolerance`` > 0 the root plays, among the children
within ``tolerance`` of the best value, the one that ends nearest the enemy (off by default).
The agent keeps its nodes from one turn to the next (``reuse``): when the opponent plays the
predicted reply, the new root was searched two turns shallower already.

The search is anytime: a budget of wall seconds and/or of solves (single-turn searches, the
deterministic unit), checked before every solve. Without seconds every solve gets an ops1 cap
(``solve_nodes``), so a budget in solves reproduces exactly on any machine; with seconds the
clock bounds each solve (as the single-turn agent's ``budget=1.0`` does). With seconds, the
solves stop ``RESERVE`` of the budget early (the root's first solve ``ROOT_RESERVE``), a solve
is not started when twice the mean solve so far would cross that point, and a solve cut by the
clock is thrown away. When the budget
runs out inside an iteration, the root keeps the best plan among the children that iteration
finished (the previous iteration's best is searched first), else the previous iteration's
choice. The root's first solve is always made (it is the fallback plan); with a time budget it
may take the whole budget on a big map, and if it is cut short its plan is played as the
single-turn agent would play it, without a deeper search.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from agents.common.budget import Deadline, OutOfBudget
from agents.common.params import (
    MAX_COUNT,
    MAX_NODES,
    MAX_TREE_DEPTH,
    OPTIONAL_SECONDS,
    SEED,
    AnyOf,
    Bool,
    CallableParam,
    Choice,
    Custom,
    Float,
    Int,
    Text,
    check_params,
    check_seed,
)
from agents.tbw.evaluation import Decomposition, DefaultEvaluation, decomposition_of
from agents.tbw.search.agent import TurnPlanAgent, plan_turn
from agents.tbw.search.budget import Budget
from tbw_envs.core.contract import short_repr

WIN = 1e12  # a finished game, far above any evaluation (DefaultEvaluation's win is 1e6)
FORBIDDEN = 1e15  # the shaping penalty of an Hp outcome an earlier child already took
DEFAULT_SOLVE_NODES = 1_000_000  # ops1 cap per solve: the single-turn agent's default budget
RESERVE = 0.15  # the part of a time budget kept back from the solves
ROOT_RESERVE = 0.05  # the same for the root's first solve (the fallback plan)

# Recipes: how the i-th child of a node is asked for (see the module docstring).
# Postures first: without them (only new Hp outcomes) every child of a standoff is the same
# idle plan, and the search only drew against the single-turn agent (docs/tbw_tree.md).
DEFAULT_RECIPES = ("best", "advance:3", "other", "advance:1", "advance:10", "other",
                   "retreat:3", "other")
DEFAULT_REPLY_RECIPES = ("best", "other", "advance:3", "other")


MAX_RECIPES = 1000


def _parse_recipe(text: str) -> tuple[str, float]:
    kind, _, arg = text.partition(":")
    if kind in ("best", "other"):
        if arg:
            raise ValueError(f"recipe {short_repr(text)}: {kind!r} takes no argument")
        return kind, 0.0
    if kind in ("advance", "retreat", "noise"):
        try:
            weight = float(arg)
        except ValueError:
            raise ValueError(f"recipe {short_repr(text)}: expected {kind}:<positive number>"
                             ) from None
        if not (weight > 0 and math.isfinite(weight)):
            raise ValueError(f"recipe {short_repr(text)}: the weight must be a positive finite "
                             "number")
        return kind, weight
    raise ValueError(
        f"unknown recipe {short_repr(text)}; recipes are best, other, advance:W, retreat:W, "
        "noise:S"
    )


def parse_recipes(recipes, what: str = "recipes") -> tuple[tuple[str, float], ...]:
    """A recipe list from a sequence of strings or one string joined by ``+`` (a registry spec
    may quote a value, but ``+`` needs no quotes): ``"best+other+advance:3"``. At most
    ``MAX_RECIPES`` recipes."""
    shown = short_repr(recipes)
    if isinstance(recipes, str):
        recipes = [r for r in recipes.split("+") if r]
    if not isinstance(recipes, Sequence) or not recipes:
        raise ValueError(f"{what} must be a non-empty list of recipes, got {shown}")
    if len(recipes) > MAX_RECIPES:
        raise ValueError(f"{what}: at most {MAX_RECIPES} recipes, got {len(recipes)}")
    for r in recipes:
        if not isinstance(r, str):
            raise TypeError(f"{what}: each recipe is a string such as 'advance:3', got "
                            f"{type(r).__name__} {short_repr(r)}")
    parsed = tuple(_parse_recipe(r.strip()) for r in recipes)
    if parsed[0][0] != "best":
        raise ValueError(f"{what} must start with 'best' (the fallback plan), got {shown}")
    return parsed


# ================================================================== shaped evaluation


class ShapedEvaluation:
    """``evaluate`` plus a shaping term that keeps the exact solver exact.

    * ``forbidden``: Hp vectors (``tuple(state.hp)``) that cost ``FORBIDDEN``: a term of the
      decomposition's ``base(hp)``;
    * ``advance``: ``-advance x`` the board distance from each of our living units to the
      nearest living enemy (negative ``advance``: a retreat), and ``noise``: a fixed random
      value per (unit, tile, living enemies). Both are per-unit tile values given the living
      enemies, i.e. terms of the decomposition's ``unit_table``.

    ``self(state, side)`` equals ``evaluate(state, side) + shaping(state, side)``, and
    ``decompose(root, side)`` returns the evaluation's own decomposition with the same terms
    added, so either solver path (decomposed or not) optimises the same function.
    """

    def __init__(self, evaluate, forbidden=frozenset(), advance: float = 0.0,
                 noise: float = 0.0, noise_seed: int = 0):
        self.evaluate = evaluate
        self.forbidden = frozenset(forbidden)
        self.advance = float(advance)
        self.noise = float(noise)
        self.noise_seed = int(noise_seed)
        self.decomposable = bool(getattr(evaluate, "decomposable", False)) and hasattr(
            evaluate, "decompose"
        )

    def shaping(self, state, side: int) -> float:
        sc = state.scenario
        total = -FORBIDDEN if tuple(state.hp) in self.forbidden else 0.0
        if self.advance or self.noise:
            alive = frozenset(e for e in sc.side_units[1 - side] if state.hp[e] > 0)
            enemy_pos = {e: state.pos[e] for e in alive}
            dist = sc.board.distance_table
            for u in sc.side_units[side]:
                if state.hp[u] <= 0:
                    continue
                tile = state.pos[u]
                if self.advance and alive:
                    total -= self.advance * min(dist[tile][p] for p in enemy_pos.values())
                if self.noise:
                    total += _noise_table(self, sc, u, alive)[tile]
        return total

    def __call__(self, state, side: int) -> float:
        return float(self.evaluate(state, side)) + self.shaping(state, side)

    def decompose(self, root, side: int) -> Decomposition:
        inner = decomposition_of(self.evaluate, root, side)
        if inner is None:
            raise TypeError("the wrapped evaluation has no decomposition")
        return _ShapedDecomposition(self, inner, root, side)


def _tile_shaping(shaped: ShapedEvaluation, sc, enemy_pos, uid: int, alive: frozenset[int]):
    """The per-tile shaping of unit ``uid`` while exactly ``alive`` enemies live."""
    dist = sc.board.distance_table
    values = np.zeros(sc.board.size)
    living = [enemy_pos[e] for e in sorted(alive)]
    if shaped.advance and living:
        nearest = np.array([min(dist[t][p] for p in living) for t in range(sc.board.size)])
        values -= shaped.advance * nearest
    if shaped.noise:
        values += _noise_table(shaped, sc, uid, alive)
    return values


def _noise_table(shaped: ShapedEvaluation, sc, uid: int, alive: frozenset[int]) -> np.ndarray:
    rng = np.random.default_rng([shaped.noise_seed, uid, *sorted(alive)])
    return rng.normal(0.0, shaped.noise, sc.board.size)


class _ShapedDecomposition(Decomposition):
    def __init__(self, shaped: ShapedEvaluation, inner: Decomposition, root, side: int):
        self.shaped = shaped
        self.inner = inner
        self.side = side
        self.scenario = root.scenario
        self.enemy_pos = {e: root.pos[e] for e in root.scenario.side_units[1 - side]}
        self._tables: dict[tuple[int, frozenset[int]], tuple[float, ...]] = {}

    def base(self, hp) -> float:
        value = self.inner.base(hp)
        if tuple(hp) in self.shaped.forbidden:
            value -= FORBIDDEN
        return value

    def unit_table(self, uid: int, alive: frozenset[int]):
        key = (uid, alive)
        table = self._tables.get(key)
        if table is None:
            table = tuple(self.inner.unit_table(uid, alive))
            if self.shaped.advance or self.shaped.noise:
                extra = _tile_shaping(self.shaped, self.scenario, self.enemy_pos, uid, alive)
                table = tuple(float(a + b) for a, b in zip(table, extra, strict=True))
            self._tables[key] = table
        return table


# ================================================================== the tree


def state_key(state) -> tuple:
    """What identifies a TBW position for the search (the scenario is fixed per search)."""
    return (state.current_player, state.turn, state.terminal, tuple(state.hp), tuple(state.pos),
            tuple(state.acted))


@dataclass
class Plan:
    actions: tuple[int, ...]
    end: object  # the game state after the plan (the turn has passed, or the game is over)
    side: int  # the side that moved
    value: float  # the plain evaluation of ``end`` for the side that moved
    recipe: str
    complete: bool  # False when the solve that made it was cut short by its ops1 cap


class _Node:
    """A position and its children, made one solve at a time."""

    __slots__ = ("state", "side", "recipes", "children", "made", "hp_taken", "ends",
                 "exhausted_other", "next_recipe")

    def __init__(self, state, recipes):
        self.state = state
        self.side = state.current_player
        self.recipes = recipes
        self.children: list[Plan] = []
        self.hp_taken: set[tuple[int, ...]] = set()
        self.ends: set[tuple] = set()
        self.exhausted_other = False
        self.next_recipe = 0


@dataclass
class TreeResult:
    actions: list[int]
    value: float  # the chosen plan's value at ``depth`` (our point of view), or its evaluation
    depth: int  # the deepest iteration that finished (1 = the single-turn plan)
    partial_depth: int  # the iteration the budget stopped in (0: none)
    partial_children: int  # root children that stopped iteration finished (it decides if > 0)
    solves: int
    seconds: float
    root_complete: bool  # the root's first solve finished within its budget
    choice: str  # the recipe of the chosen plan ("best": the single-turn agent's plan)
    root_children: int
    cut_short_solves: int  # solves stopped by their ops1 cap
    values: list[tuple[str, float]] = field(default_factory=list)  # root children, last depth


class TurnTreeSearch:
    """One search from ``root`` for the side to move there (see the module docstring)."""

    def __init__(self, root, evaluate=None, depth: int = 9, width: int = 8,
                 inner_width: int = 3, replies: int = 1, recipes=DEFAULT_RECIPES,
                 reply_recipes=DEFAULT_REPLY_RECIPES, seconds: float | None = 1.0,
                 solves: int | None = None, solve_nodes: int | str | None = "auto",
                 tolerance: float = 0.0, seed: int = 0, nodes: dict | None = None):
        if root.is_terminal():
            raise ValueError("cannot search a finished game")
        self.root = root.clone()
        self.me = root.current_player
        self.evaluate = DefaultEvaluation() if evaluate is None else evaluate
        self.depth = depth
        self.width = width
        self.inner_width = inner_width
        self.replies = replies
        self.recipes = parse_recipes(recipes)
        self.reply_recipes = parse_recipes(reply_recipes, "reply_recipes")
        self.solve_nodes = _solve_nodes(solve_nodes, seconds)
        self.tolerance = float(tolerance)
        self.max_solves = solves
        self.seconds = seconds
        self.seed = seed
        self.started = time.perf_counter()
        # Solves stop at the deadline, a reserve before the budget's end for what follows a
        # solve (building the plan's state, returning); the reserve is RESERVE of the budget.
        self.deadline = Deadline(seconds, self.started, margin=RESERVE)
        # The root's first solve is followed by nothing but building its plan when the clock
        # cuts it, so it may run closer to the end (big maps: fewer cut-short root plans).
        self.root_deadline = Deadline(seconds, self.started, margin=ROOT_RESERVE)
        self.solves = 0
        self.solve_seconds = 0.0
        self.cut_short = 0
        self.root_complete = True
        # Nodes by ``state_key``; ``nodes`` from an earlier search of the same agent (same
        # evaluation and recipes) carries its children over: the position the opponent's
        # predicted reply leads to was searched two turns shallower last turn.
        self.nodes: dict[tuple, _Node] = {} if nodes is None else nodes

    # ------------------------------------------------------------------ budget
    def _check_budget(self) -> None:
        if self.max_solves is not None and self.solves >= self.max_solves:
            raise OutOfBudget
        # A solve that the clock cuts is thrown away: do not start one that would not finish,
        # judged by the mean solve so far.
        mean = self.solve_seconds / self.solves if self.solves else 0.0
        if self.deadline.passed(ahead=2.0 * mean):
            raise OutOfBudget

    def _solve(self, state, evaluate, first: bool):
        """One single-turn search; ``first``: the root's fallback plan, made whatever the
        budget."""
        if not first:
            self._check_budget()
        seconds = (self.root_deadline if first else self.deadline).remaining()
        started = time.perf_counter()
        result = plan_turn(state, "exact", evaluate=evaluate,
                           budget=Budget(nodes=self.solve_nodes, seconds=seconds))
        self.solves += 1
        self.solve_seconds += time.perf_counter() - started
        if not result.complete:
            if first:
                self.root_complete = False
            elif self.deadline.passed():
                raise OutOfBudget  # a plan cut by the clock: not comparable, no time is left
            self.cut_short += 1
        return result

    # ------------------------------------------------------------------ children
    def _node(self, state) -> _Node:
        key = state_key(state)
        node = self.nodes.get(key)
        if node is None:
            recipes = self.recipes if state.current_player == self.me else self.reply_recipes
            node = self.nodes[key] = _Node(state, recipes)
        return node

    def plans(self, state, count: int) -> list[Plan]:
        """The first ``count`` children of ``state`` (fewer if the recipes run out), made as
        the search makes them, under this search's budget."""
        node = self._node(state)
        out = []
        for i in range(count):
            plan = self._child(node, i)
            if plan is None:
                break
            out.append(plan)
        return out

    def _child(self, node: _Node, i: int, first: bool = False) -> Plan | None:
        """The node's i-th child, making children until there is one (None: no more)."""
        while len(node.children) <= i:
            if node.next_recipe >= len(node.recipes):
                return None
            kind, weight = node.recipes[node.next_recipe]
            if kind == "other" and node.exhausted_other:
                node.next_recipe += 1
                continue
            plan = self._make(node, kind, weight, first and not node.children)
            node.next_recipe += 1
            if plan is None:
                continue
            end_key = state_key(plan.end)
            if end_key in node.ends:
                continue
            node.ends.add(end_key)
            node.hp_taken.add(tuple(plan.end.hp))
            node.children.append(plan)
        return node.children[i]

    def _make(self, node: _Node, kind: str, weight: float, first: bool) -> Plan | None:
        state, side = node.state, node.side
        shaped = None
        if kind == "other":
            shaped = ShapedEvaluation(self.evaluate, forbidden=node.hp_taken)
        elif kind in ("advance", "retreat"):
            shaped = ShapedEvaluation(self.evaluate, advance=weight if kind == "advance"
                                      else -weight)
        elif kind == "noise":
            shaped = ShapedEvaluation(self.evaluate, noise=weight,
                                      noise_seed=self.seed * 1000 + node.next_recipe)
        result = self._solve(state, self.evaluate if shaped is None else shaped, first)
        end = state.clone()
        for action in result.actions or [state.end_turn_action]:
            end.apply(action)
        if not end.is_terminal() and end.current_player == side:  # defensive: finish the turn
            end.apply(end.end_turn_action)
        if shaped is None:
            value = result.value
        else:
            if kind == "other" and tuple(end.hp) in node.hp_taken:
                node.exhausted_other = True  # every Hp outcome is taken
                return None
            # The plain evaluation (never the shaped one), without a second evaluation call.
            value = result.value - shaped.shaping(end, side)
        return Plan(tuple(result.actions), end, side, float(value), f"{kind}" if not weight else
                    f"{kind}:{weight:g}", result.complete)

    # ------------------------------------------------------------------ values
    def _terminal(self, state) -> float:
        if state.winner is None:
            return 0.0
        return WIN if state.winner == self.me else -WIN

    def _plan_value(self, plan: Plan) -> float:
        """A plan scored as a leaf, for us: its end state's evaluation for the side that moved,
        negated when that is the opponent (negamax), or the game's result."""
        if plan.end.is_terminal():
            return self._terminal(plan.end)
        return plan.value if plan.side == self.me else -plan.value

    def _value(self, state, turns: int, alpha: float, beta: float) -> float:
        if state.is_terminal():
            return self._terminal(state)
        node = self._node(state)
        if turns <= 1:  # a leaf: the best plan of the side to move (one exact solve)
            return self._plan_value(self._child(node, 0))
        if node.side == self.me:
            best = -math.inf
            for i in range(self.inner_width):
                plan = self._child(node, i)
                if plan is None:
                    break
                best = max(best, self._value(plan.end, turns - 1, max(alpha, best), beta))
                if best >= beta:
                    break
            return best
        worst = math.inf
        for i in range(self.replies):
            plan = self._child(node, i)
            if plan is None:
                break
            worst = min(worst, self._value(plan.end, turns - 1, alpha, min(beta, worst)))
            if worst <= alpha:
                break
        return worst

    # ------------------------------------------------------------------ root
    def run(self) -> TreeResult:
        root = self._node(self.root)
        first = self._child(root, 0, first=True)
        self.root_complete = self.root_complete and first.complete
        choice, choice_value = first, self._plan_value(first)
        values = [(first.recipe, choice_value)]
        done_depth, partial = 1, 0
        scored: list[tuple[float, Plan]] = []
        try:
            # A second child first: with a single plan there is nothing to choose. The other
            # children are made as the first iteration reaches them (best-first by recipe),
            # so a budget that runs out early has still searched the likeliest plans deeper.
            if self.root_complete and self.width > 1 and self._child(root, 1) is not None:
                order: list[Plan] | None = None
                depth = 3 if self.depth % 2 else 2
                while depth <= self.depth:
                    partial, scored = depth, []
                    alpha = -math.inf
                    for i in range(self.width) if order is None else range(len(order)):
                        plan = self._child(root, i) if order is None else order[i]
                        if plan is None:
                            break
                        # Children within ``tolerance`` of the best get exact values, for the
                        # tie-break by progress (``_choose``).
                        value = self._value(plan.end, depth - 1, alpha - self.tolerance,
                                            math.inf)
                        scored.append((value, plan))
                        alpha = max(alpha, value)
                    choice_value, choice = self._choose(scored)
                    values = [(p.recipe, v) for v, p in scored]
                    order = [p for _, p in sorted(scored, key=lambda vp: -vp[0])]
                    done_depth, partial, scored = depth, 0, []
                    depth += 2
        except OutOfBudget:
            if scored:  # the stopped iteration finished the previous best, and maybe more
                choice_value, choice = self._choose(scored)
                values = [(p.recipe, v) for v, p in scored]
        partial_children = len(scored) if partial else 0
        return TreeResult(
            actions=list(choice.actions), value=choice_value, depth=done_depth,
            partial_depth=partial, partial_children=partial_children, solves=self.solves,
            seconds=time.perf_counter() - self.started, root_complete=self.root_complete,
            choice=choice.recipe, root_children=len(root.children),
            cut_short_solves=self.cut_short, values=values,
        )

    def _choose(self, scored: list[tuple[float, Plan]]) -> tuple[float, Plan]:
        """The root's choice: the highest value, the earliest searched among equals; with a
        ``tolerance``, the most advanced plan (least summed distance from our units to the
        nearest enemy) among those within ``tolerance`` of the highest. A child that failed
        low has a value at most its bound, below the best minus the tolerance, so it is never
        chosen."""
        best_value, best_plan = scored[0]
        for value, plan in scored[1:]:
            if value > best_value:
                best_value, best_plan = value, plan
        if self.tolerance <= 0 or abs(best_value) >= WIN:
            return best_value, best_plan
        near = [(value, plan) for value, plan in scored if value >= best_value - self.tolerance]
        return min(near, key=lambda vp: (_spread(vp[1].end, self.me), -vp[0]))


def _spread(state, side: int) -> int:
    """Summed board distance from each living unit of ``side`` to the nearest living enemy."""
    sc = state.scenario
    dist = sc.board.distance_table
    enemies = [state.pos[e] for e in state.living_units(1 - side)]
    if not enemies:
        return 0
    return sum(min(dist[state.pos[u]][p] for p in enemies) for u in state.living_units(side))


# ================================================================== the agent


class TBWTreeAgent(TurnPlanAgent):
    """Plays each turn by ``TurnTreeSearch`` (search across turns, the opponent's reply
    included). Protocol as ``TBWSearchAgent``: the plan is made at the turn's first call and
    handed out one unit action per call; if the view is not the state the plan expects, it
    searches again from the view.

    Budget per turn: ``seconds`` (wall time, default 1.0) and/or ``solves`` (single-turn
    searches; deterministic); at least one must be given; ``solve_nodes`` caps each solve's
    ops1 (``"auto"``: no cap with ``seconds``, 1,000,000 without). ``depth``: the most turns
    searched (1 = the single-turn agent; the time budget usually stops the deepening first).
    ``width`` plans at the root, ``inner_width`` at our deeper nodes, ``replies`` at the
    opponent's; ``recipes`` / ``reply_recipes``: how children are made (a list, or one string
    joined by ``+``: ``tree:recipes=best+other+advance:3``).
    ``tolerance``: see ``_choose``; ``reuse``: keep last turn's nodes. The search is
    deterministic except through the clock and ``noise:S`` recipes, which ``seed`` drives.
    ``history`` holds every ``TreeResult`` of the game (depth reached, solves, seconds, whether
    the root's single-turn solve finished). Limits (``agents.common.params``, checked when the
    agent is built): ``seconds`` finite and at most 3600, ``depth`` at most ``MAX_TREE_DEPTH``
    (100: the search recurses once per turn), ``solve_nodes`` at most ``MAX_NODES``.
    """

    PARAMS = {
        "seconds": OPTIONAL_SECONDS,  # finite, > 0, at most MAX_SECONDS
        "solves": Int(low=1, high=MAX_COUNT, optional=True),
        "depth": Int(low=1, high=MAX_TREE_DEPTH),  # the search recurses once per turn
        "width": Int(low=1, high=MAX_COUNT),
        "inner_width": Int(low=1, high=MAX_COUNT),
        "replies": Int(low=1, high=MAX_COUNT),
        "recipes": Custom(func=parse_recipes, what="recipes joined by '+' (best+other+...)"),
        "reply_recipes": Custom(func=lambda r: parse_recipes(r, "reply_recipes"),
                                what="recipes joined by '+' (best+other+...)"),
        "solve_nodes": AnyOf(kinds=(Choice(names=("auto",)), Int(low=1, high=MAX_NODES)),
                             what=f"'auto', None or an integer in [1, {MAX_NODES}]",
                             optional=True),
        "tolerance": Float(low=0.0),
        "reuse": Bool(),
        "evaluate": CallableParam(),
        "seed": SEED,
        "name": Text(optional=True, spec=False),
    }

    def __init__(self, seconds: float | None = 1.0, solves: int | None = None,
                 depth: int = 9, width: int = 8, inner_width: int = 3, replies: int = 1,
                 recipes=DEFAULT_RECIPES, reply_recipes=DEFAULT_REPLY_RECIPES,
                 solve_nodes: int | str | None = "auto", tolerance: float = 0.0,
                 reuse: bool | int = True, evaluate=None, seed: int | None = None,
                 name: str | None = None):
        who = "TBWTreeAgent"
        checked = check_params(
            self.PARAMS, who, seconds=seconds, solves=solves, depth=depth, width=width,
            inner_width=inner_width, replies=replies, recipes=recipes,
            reply_recipes=reply_recipes, solve_nodes=solve_nodes, tolerance=tolerance,
            reuse=reuse, evaluate=evaluate, seed=seed, name=name,
        )
        if checked["seconds"] is None and checked["solves"] is None:
            raise ValueError(f"{who}: give a budget: seconds, solves or both")
        self.recipes = checked["recipes"]
        self.reply_recipes = checked["reply_recipes"]
        self.seconds = checked["seconds"]
        self.solves = checked["solves"]
        self.depth = checked["depth"]
        self.width = checked["width"]
        self.inner_width = checked["inner_width"]
        self.replies = checked["replies"]
        self.solve_nodes = checked["solve_nodes"]
        self.tolerance = checked["tolerance"]
        self.reuse = checked["reuse"]
        self.evaluate = evaluate
        self.name = name or "tbw_tree"
        self.seed = checked["seed"]
        self._rng = random.Random(self.seed)
        self.history: list[TreeResult] = []
        self._nodes: dict | None = None
        self._forget_plan()

    def reset(self, seed: int | None = None) -> None:
        seed = check_seed(seed, "TBWTreeAgent.reset")
        if seed is not None:
            self.seed = seed
        self._rng = random.Random(self.seed)
        self._nodes = None
        self.history = []
        self._forget_plan()

    def search(self, state) -> TreeResult:
        recipes = [_recipe_text(r) for r in self.recipes]
        replies = [_recipe_text(r) for r in self.reply_recipes]
        # Children made last turn stay valid (same evaluation, same recipes); positions
        # before this turn can no longer occur and are dropped.
        kept = None
        if self.reuse and self._nodes:
            kept = {k: n for k, n in self._nodes.items()
                    if n.state.turn >= state.turn and n.state.scenario is state.scenario}
        search = TurnTreeSearch(
            state, self.evaluate, depth=self.depth, width=self.width,
            inner_width=self.inner_width, replies=self.replies, recipes=recipes,
            reply_recipes=replies, seconds=self.seconds, solves=self.solves,
            solve_nodes=self.solve_nodes, tolerance=self.tolerance,
            seed=self._rng.getrandbits(31), nodes=kept,
        )
        result = search.run()
        self._nodes = search.nodes if self.reuse else None
        return result

    def _plan(self, view) -> TreeResult:
        result = self.search(view)
        self.history.append(result)
        return result


def _solve_nodes(solve_nodes, seconds) -> int | None:
    """The ops1 cap per solve: ``"auto"`` is none under a time budget (the clock bounds each
    solve, as the single-turn agent's seconds budget does) and ``DEFAULT_SOLVE_NODES`` without
    one (a budget in solves alone must bound every solve to stay reproducible)."""
    if isinstance(solve_nodes, str):
        if solve_nodes != "auto":
            raise ValueError(f"solve_nodes must be 'auto', None or an integer, got "
                             f"{solve_nodes!r}")
        return None if seconds is not None else DEFAULT_SOLVE_NODES
    _check_int("solve_nodes", solve_nodes, minimum=1, optional=True)
    return solve_nodes


def _recipe_text(recipe: tuple[str, float]) -> str:
    kind, weight = recipe
    return kind if kind in ("best", "other") else f"{kind}:{weight:g}"


def _check_int(name: str, value, minimum: int, optional: bool = False) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer{' or None' if optional else ''}, "
                        f"got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
