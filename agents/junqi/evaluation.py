"""Move evaluation for Junqi (the Junqi paper's section 3.3): a weighted sum of named features.

``features(view, belief, action)`` returns the feature vector of one move for the player of
``view``, judged with ``belief`` (a tracker from ``agents.junqi.belief``, or None for the view's
own type masks weighted by the army's counts); ``score`` is ``weights . features``. The weights
and the paper's piece values (its Table 2) are data, in ``configs/agents/junqi_eval_*.yaml``
(``load_weights``; their fields are ``agents.junqi.eval_config``'s), so the Q-learner can tune
the weights linearly.

Features (``FEATURE_NAMES``), for a move of our piece of type ``a`` from ``src`` to ``dst``:

* ``attack_gain`` (eq. 4): if ``dst`` holds an enemy piece with type distribution ``p``, the
  expected value of the combat: ``sum_t p_t x`` (``+v_t`` if we win, ``-v_a`` if we lose,
  ``v_t - v_a`` if both go). 0 for a quiet move.
* ``exposure`` (eq. 5): ``P(our piece stands on dst afterwards) x`` the expected loss of our piece
  there: over the enemy pieces that can strike ``dst`` next ply, the largest
  ``sum_t p_t x loss(t attacks a)`` (``v_a`` if it beats us, ``v_a - v_t`` on a trade). The paper
  sums over the attackers; one piece can only be taken once, so we take the worst attacker.
  With weights +1 and -1, ``attack_gain`` and ``exposure`` add up to eq. 6's Attack_Score.
* ``protection``: for pieces worth at least ``protect_min_value``, the expected loss on ``src``
  minus the exposure on ``dst``: positive when a valuable piece leaves a threatened post.
* ``flag_defence`` (Algorithm 2): a BFS from our flag finds the nearest enemy piece; within
  ``flag_alarm_steps`` steps it raises an alarm of urgency ``(steps_limit + 1 - d) / limit``.
  Any attack on that piece scores ``urgency x P(we win)``; if no piece of ours can reach it, the
  piece most likely to beat it scores ``urgency x P(win) / 2`` for each move that brings it closer.
* ``progress``: board steps gained toward the enemy flag (once announced) or the nearer enemy
  headquarters.
* ``no_collision``: the CCGC rule that the side to move after 31 quiet plies loses. The burden
  lies on the player who made the last collision. A quiet move that completes the count wins
  (+1); otherwise, with urgency ``u`` rising from 0 to 1 over the last ``no_collision_window``
  plies, a collision scores ``+u`` when the burden is ours (it lifts it) and ``-u`` when it is the
  opponent's (it hands the burden back), and a quiet move ``-u`` when the burden is ours. Zero
  under rule sets where the limit is off or only draws.

Which enemy pieces can strike a post: those on a road neighbour, or first in line along a
straight railroad run (the non-engineer slide), never a piece locked in a headquarters, never
into a camp. Engineer turns on the railroad are ignored (an under-estimate, cheap to compute).

Everything per position is precomputed once (``MoveContext``); a move then costs a few list
look-ups. Inside a search tree the mover's belief is its public deductions
(``state.possible[mover]``), via per-mask tables (``state_context``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from operator import mul
from pathlib import Path

import numpy as np

from agents.common.weights import WeightsFiles
from agents.junqi.eval_config import (  # noqa: F401  (the config's names are part of this API)
    FEATURE_NAMES,
    MAX_FLAG_ALARM_STEPS,
    MAX_NO_COLLISION_WINDOW,
    MAX_PIECE_VALUE,
    MAX_WEIGHT,
    NUM_FEATURES,
    EvalConfig,
)
from tbw_envs.junqi.board import HEADQUARTERS, NUM_POSTS, board_graph
from tbw_envs.junqi.pieces import (
    ARMY_COUNTS,
    ATTACKER_WON,
    BOTH_REMOVED,
    FLAG,
    MINE,
    NUM_PIECE_TYPES,
    combat_table,
)

EMPTY = -1


# ---------------------------------------------------------------------------------- tables
@dataclass(frozen=True)
class _CombatTables:
    """Per attacker (rows) and defender (columns) type: the attacker's gain, the defender's loss
    when attacked, and whether the attacker wins."""

    gain: np.ndarray  # gain[a][t]: expected-value contribution when our a attacks enemy t
    loss: np.ndarray  # loss[a][t]: what our a loses when enemy t attacks it
    wins: np.ndarray  # wins[a][t]: 1 if a attacking t wins


@lru_cache(maxsize=32)
def _combat_tables(combat: tuple, values: tuple[float, ...]) -> _CombatTables:
    n = NUM_PIECE_TYPES
    gain = np.zeros((n, n))
    loss = np.zeros((n, n))
    wins = np.zeros((n, n))
    for a in range(n):
        for t in range(n):
            result = combat[a][t]
            if result == ATTACKER_WON:
                gain[a][t] = values[t]
                wins[a][t] = 1.0
            elif result == BOTH_REMOVED:
                gain[a][t] = values[t] - values[a]
            else:
                gain[a][t] = -values[a]
            # Enemy t attacks our a.
            reply = combat[t][a]
            if reply == ATTACKER_WON:
                loss[a][t] = values[a]
            elif reply == BOTH_REMOVED:
                loss[a][t] = values[a] - values[t]
    return _CombatTables(gain, loss, wins)


@lru_cache(maxsize=1)
def mask_probabilities() -> np.ndarray:
    """``(4096, 12)``: for every type mask, the army-count-weighted distribution over its types;
    the belief a player has from public deductions alone."""
    masks = np.arange(1 << NUM_PIECE_TYPES)[:, None]
    allowed = (masks >> np.arange(NUM_PIECE_TYPES)[None, :]) & 1
    weights = allowed * np.asarray(ARMY_COUNTS, dtype=float)[None, :]
    totals = weights.sum(axis=1, keepdims=True)
    totals[totals == 0] = 1.0
    return weights / totals


@lru_cache(maxsize=32)
def _mask_tables(combat: tuple, values: tuple[float, ...]):
    """Per mask: gain by our attacker type, loss by our defender type, win prob by attacker."""
    tables = _combat_tables(combat, values)
    probs = mask_probabilities()
    return (
        (probs @ tables.gain.T).tolist(),
        (probs @ tables.loss.T).tolist(),
        (probs @ tables.wins.T).tolist(),
    )


@lru_cache(maxsize=1)
def board_distances() -> tuple[tuple[int, ...], ...]:
    """Steps between posts along any link, ignoring pieces (BFS from every post)."""
    neighbors = board_graph().neighbors
    table = []
    for start in range(NUM_POSTS):
        dist = [NUM_POSTS] * NUM_POSTS
        dist[start] = 0
        queue = deque([start])
        while queue:
            here = queue.popleft()
            for there in neighbors[here]:
                if dist[there] > dist[here] + 1:
                    dist[there] = dist[here] + 1
                    queue.append(there)
        table.append(tuple(dist))
    return tuple(table)


_ENEMY_HEADQUARTERS = (
    tuple(sorted(p for p in HEADQUARTERS if p < NUM_POSTS // 2)),  # player 0's targets (rows A)
    tuple(sorted(p for p in HEADQUARTERS if p >= NUM_POSTS // 2)),  # player 1's targets (row L)
)


# ---------------------------------------------------------------------------------- context
_GRAPH = board_graph()
_IS_CAMP = _GRAPH.is_camp
_ROAD_ONLY = _GRAPH.road_only_neighbors
_RAIL_RAYS = _GRAPH.rail_rays
_NO_LOCK = (False,) * NUM_POSTS
# Per tuple of target posts: each post's distance to the nearest target (``progress``).
_TARGET_DISTANCES: dict[tuple[int, ...], tuple[int, ...]] = {}
# Per (flag post, steps limit): the posts within the limit, nearest first, ties by post.
_ALARM_RINGS: dict[tuple[int, int], tuple[int, ...]] = {}


def _target_distances(targets: tuple[int, ...]) -> tuple[int, ...]:
    table = _TARGET_DISTANCES.get(targets)
    if table is None:
        distances = board_distances()
        table = _TARGET_DISTANCES[targets] = tuple(
            min(distances[post][t] for t in targets) for post in range(NUM_POSTS)
        )
    return table


def _alarm_ring(flag: int, steps_limit: int) -> tuple[int, ...]:
    ring = _ALARM_RINGS.get((flag, steps_limit))
    if ring is None:
        dist = board_distances()[flag]
        ring = _ALARM_RINGS[(flag, steps_limit)] = tuple(
            sorted((p for p in range(NUM_POSTS) if dist[p] <= steps_limit), key=dist.__getitem__)
        )
    return ring


def _worst_loss(owner, enemy: int, locked, loss, piece: int, post: int, vacated: int) -> float:
    """``max(loss[e][piece] for e in strikers(post, vacated))``, 0.0 without strikers: the
    strikers visited in ``strikers``' order, the first largest kept (as ``max`` does)."""
    if _IS_CAMP[post]:
        return 0.0
    worst = None
    for there in _ROAD_ONLY[post]:
        if owner[there] == enemy and not locked[there]:
            value = loss[there][piece]
            if worst is None or value > worst:
                worst = value
    for ray in _RAIL_RAYS[post]:
        for there in ray:
            holder = owner[there]
            if holder == EMPTY or there == vacated:
                continue
            if holder == enemy and not locked[there]:
                value = loss[there][piece]
                if worst is None or value > worst:
                    worst = value
            break
    return 0.0 if worst is None else worst


class MoveContext:
    """Everything the features of one position need, computed once; ``features(action)`` then
    reads tables only. ``kind`` is read only on the mover's own posts.

    A search builds one per state it looks at and scores a few moves with it, so both the
    construction and ``features`` are kept to table look-ups; ``ReferenceMoveContext`` (in
    ``tests/helpers/junqi_fast_reference.py``) is the plain twin the tests hold it equal to."""

    __slots__ = (
        "config", "mover", "owner", "kind", "quiet_plies", "rules", "gain", "loss", "pwin",
        "_locked", "_flag_alarm", "_targets", "_weights", "_enemy", "_to_target",
        "_no_collision_values",
    )  # fmt: skip

    def __init__(self, config: EvalConfig, rules, mover: int, owner, kind, quiet_plies: int,
                 gain, loss, pwin, flag_revealed):
        self.config = config
        self.rules = rules
        self.mover = mover
        self.owner = owner
        self.kind = kind
        self.quiet_plies = quiet_plies
        self.gain, self.loss, self.pwin = gain, loss, pwin
        self._weights = config.weights
        self._enemy = 1 - mover
        self._locked = _GRAPH.is_headquarters if rules.headquarters_lock else _NO_LOCK
        enemy_flag = flag_revealed[1 - mover]
        self._targets = (enemy_flag,) if enemy_flag is not None else _ENEMY_HEADQUARTERS[mover]
        self._to_target = _target_distances(self._targets)
        self._flag_alarm = self._find_flag_alarm()
        # Fixed for the position: indexed by whether the move attacks.
        self._no_collision_values = (self._no_collision(False), self._no_collision(True))

    # -- building blocks
    def strikers(self, post: int, vacated: int = -1) -> list[int]:
        """Enemy posts whose piece could move onto ``post`` next ply (``vacated`` counts as
        empty: the piece that moves there leaves it)."""
        if _IS_CAMP[post]:
            return []
        owner, enemy, locked = self.owner, self._enemy, self._locked
        found = [n for n in _ROAD_ONLY[post] if owner[n] == enemy and not locked[n]]
        for ray in _RAIL_RAYS[post]:
            for there in ray:
                holder = owner[there]
                if holder == EMPTY or there == vacated:
                    continue
                if holder == enemy and not locked[there]:
                    found.append(there)
                break
        return found

    def expected_loss(self, piece: int, post: int, vacated: int = -1) -> float:
        return _worst_loss(self.owner, self._enemy, self._locked, self.loss, piece, post, vacated)

    def _find_flag_alarm(self):
        """Algorithm 2: (enemy post, urgency, {our post: P(win) for pieces that can hit it},
        best defender post, its P(win)) or None."""
        steps_limit = self.config.flag_alarm_steps
        owner, kind, mover = self.owner, self.kind, self.mover
        if steps_limit <= 0:
            return None
        # Our first flag in post order (custom positions may hold several).
        find = kind.index if isinstance(kind, (list, tuple)) else list(kind).index
        flag = -1
        while True:
            try:
                flag = find(FLAG, flag + 1)
            except ValueError:
                return None
            if owner[flag] == mover:
                break
        enemy, locked = self._enemy, self._locked
        # Enemy pieces this deep in our half have moved there, so all of them are mobile.
        threat = None
        for post in _alarm_ring(flag, steps_limit):
            if owner[post] == enemy and not locked[post]:
                threat = post
                break
        if threat is None:
            return None
        distances = board_distances()
        urgency = (steps_limit + 1 - distances[flag][threat]) / steps_limit
        to_threat = distances[threat]
        threat_pwin = self.pwin[threat]
        # The defender of the largest (P(win), -distance), the first in post order on ties.
        best, best_key = None, None
        for post in range(NUM_POSTS):
            if owner[post] == mover:
                piece = kind[post]
                if piece != FLAG and piece != MINE and not locked[post]:
                    key = (threat_pwin[piece], -to_threat[post])
                    if best is None or key > best_key:
                        best, best_key = post, key
        if best is None:
            return None
        return threat, urgency, best, threat_pwin[kind[best]]

    @property
    def flag_alarm_urgency(self) -> float:
        """Algorithm 2's urgency in this position (0 without an alarm): a property of the
        position, the same for every move."""
        return 0.0 if self._flag_alarm is None else self._flag_alarm[1]

    # -- features
    def features(self, action: int) -> list[float]:
        src, dst = divmod(action, NUM_POSTS)
        owner, enemy, locked, loss = self.owner, self._enemy, self._locked, self.loss
        piece = self.kind[src]
        attack = owner[dst] == enemy
        if attack:
            attack_gain = self.gain[dst][piece]
            survive = self.pwin[dst][piece]
        else:
            attack_gain = 0.0
            survive = 1.0
        exposure = (
            survive * _worst_loss(owner, enemy, locked, loss, piece, dst, src) if survive
            else 0.0
        )  # fmt: skip
        protection = 0.0
        if self.config.piece_values[piece] >= self.config.protect_min_value:
            protection = _worst_loss(owner, enemy, locked, loss, piece, src, -1) - exposure
        flag_defence = 0.0
        alarm = self._flag_alarm
        if alarm is not None:
            threat, urgency, best, best_pwin = alarm
            if dst == threat:
                flag_defence = urgency * self.pwin[threat][piece]
            elif src == best:
                to_threat = board_distances()[threat]
                if to_threat[dst] < to_threat[src]:
                    flag_defence = 0.5 * urgency * best_pwin
        to_target = self._to_target
        return [
            attack_gain, exposure, protection, flag_defence,
            float(to_target[src] - to_target[dst]), self._no_collision_values[attack],
        ]  # fmt: skip

    def _no_collision(self, attack: bool) -> float:
        rules = self.rules
        limit = rules.no_collision_limit
        if limit is None or rules.no_collision_result != "side_to_move_loses":
            return 0.0
        quiet = self.quiet_plies
        if not attack and quiet + 1 >= limit:
            return 1.0
        window = self.config.no_collision_window
        # 1 on the last ply on which we can still collide before the opponent plays the limit.
        urgency = min(1.0, max(0.0, (quiet + 1 - (limit - 1 - window)) / window))
        if urgency == 0.0:
            return 0.0
        burden_is_ours = (limit - quiet) % 2 == 0
        if attack:
            return urgency if burden_is_ours else -urgency
        return -urgency if burden_is_ours else 0.0

    def weighted(self, features) -> float:
        """``weights . features`` for a feature list from ``features``."""
        weights = self._weights
        if len(features) != len(weights):
            raise ValueError(f"{len(features)} features for {len(weights)} weights")
        # The products summed in order, as sum(w * f for w, f in zip(...)) does.
        return sum(map(mul, weights, features))

    def score(self, action: int) -> float:
        return self.weighted(self.features(action))

    def scores(self, actions) -> list[float]:
        return [self.weighted(self.features(a)) for a in actions]


# ---------------------------------------------------------------------------------- weights
_PREFIX = "junqi_eval_"


def _parse_weights_file(data: dict, path: str) -> EvalConfig:
    data.setdefault("name", Path(path).stem.removeprefix(_PREFIX))
    return EvalConfig.from_dict(data, path)


WEIGHTS_FILES = WeightsFiles("Junqi evaluation weights", _PREFIX, _parse_weights_file,
                             also=("a dict", "an EvalConfig"))


def weights_path(name: str) -> Path:
    """``configs/agents/junqi_eval_<name>.yaml``."""
    return WEIGHTS_FILES.path(name)


def load_weights(spec: str | Path | Mapping | EvalConfig | None = "default") -> EvalConfig:
    """The evaluation's weights from a name (``default``, ``tuned`` ->
    ``configs/agents/junqi_eval_<name>.yaml``), a YAML path, a dict or an EvalConfig (returned
    as is). None means ``default``.

    A file is read as every game's weights are (``agents.common.weights``); a file or a dict
    holds ``name`` (optional, a string; a file's defaults to its name), ``piece_values`` (every
    piece type once, each in ``[0, MAX_PIECE_VALUE]``), ``weights`` (every feature once, each
    with ``|w| <= MAX_WEIGHT``) and optionally ``params``: ``protect_min_value`` a number in
    ``[0, MAX_PIECE_VALUE]``, ``flag_alarm_steps`` an integer in ``[0, MAX_FLAG_ALARM_STEPS]``
    (0 turns the alarm off), ``no_collision_window`` an integer in
    ``[1, MAX_NO_COLLISION_WINDOW]``. Numbers are finite reals, never bools; integer fields
    take integers only (``2.7`` is refused, not truncated). Anything else raises
    ``WeightsError`` (a ``ConfigError``, so a ValueError) naming the file and the field."""
    if spec is None:
        spec = "default"
    if isinstance(spec, EvalConfig):
        return spec
    if isinstance(spec, Mapping):
        return EvalConfig.from_dict(spec, "evaluation dict")
    return WEIGHTS_FILES.load(spec)


# ---------------------------------------------------------------------------------- evaluation
class JunqiEvaluation:
    """The move evaluation with one config (piece values + weights)."""

    def __init__(self, config: str | Path | Mapping | EvalConfig | None = "default"):
        self.config = load_weights(config)
        # The per-mask tables of the last (rules, config) seen: a search asks for them with the
        # same two objects at every state, so identity spares hashing them each time.
        self._last_tables: tuple = (None, None, None)

    @property
    def weights(self) -> np.ndarray:
        return np.asarray(self.config.weights)

    def context(self, view, belief=None) -> MoveContext:
        """The position of ``view`` (its player to move) judged with ``belief`` (a tracker with
        ``matrix()``, a ``(60, 12)`` array, or None for the view's own deductions)."""
        if belief is None:
            return self._mask_context(view.rules, view.player, view.owner, view.kind,
                                      view.quiet_plies, view.possible, view.flag_revealed)
        matrix = belief if isinstance(belief, np.ndarray) else belief.matrix()
        combat = _combat_for(view.rules)
        tables = _combat_tables(combat, self.config.piece_values)
        return MoveContext(
            self.config, view.rules, view.player, view.owner, view.kind, view.quiet_plies,
            (matrix @ tables.gain.T).tolist(), (matrix @ tables.loss.T).tolist(),
            (matrix @ tables.wins.T).tolist(), view.flag_revealed,
        )

    def state_context(self, state, mover: int | None = None) -> MoveContext:
        """A full state's position for ``mover`` (default: the player to move), judged with
        the mover's public deductions only (``state.possible[mover]``), never the true types of
        the opponent's pieces."""
        mover = state.current_player if mover is None else mover
        return self._mask_context(state.rules, mover, state.owner, state.kind,
                                  state.quiet_plies, state.possible[mover], state.flag_revealed)

    def _mask_context(self, rules, mover, owner, kind, quiet, possible, flag_revealed):
        gain, loss, pwin = self.mask_tables(rules)
        return MoveContext(
            self.config, rules, mover, owner, kind, quiet, list(map(gain.__getitem__, possible)),
            list(map(loss.__getitem__, possible)), list(map(pwin.__getitem__, possible)),
            flag_revealed,
        )

    def mask_tables(self, rules) -> tuple[list, list, list]:
        """Per type mask: gain by our attacker type, loss by our defender type, P(win) by our
        attacker type, under ``rules`` with this evaluation's piece values."""
        config = self.config
        last_rules, last_config, tables = getattr(self, "_last_tables", (None, None, None))
        if last_rules is not rules or last_config is not config:
            tables = _mask_tables(_combat_for(rules), config.piece_values)
            self._last_tables = (rules, config, tables)
        return tables

    def features(self, view, belief, action: int) -> np.ndarray:
        """Feature vector (``FEATURE_NAMES`` order) of ``action`` for the player of ``view``."""
        return np.asarray(self.context(view, belief).features(int(action)))

    def score(self, view, belief, action: int) -> float:
        return self.context(view, belief).score(int(action))

    def feature_matrix(self, view, belief=None, actions=None) -> np.ndarray:
        """``(len(actions), NUM_FEATURES)``; ``actions`` default to the view's legal moves."""
        actions = view.legal_actions() if actions is None else actions
        context = self.context(view, belief)
        return np.asarray([context.features(a) for a in actions], dtype=float).reshape(
            len(actions), NUM_FEATURES
        )


@lru_cache(maxsize=32)
def _combat_for(rules) -> tuple:
    return combat_table(rules)


def material(owner, kind, player: int, values) -> float:
    """Sum of the values of ``player``'s pieces on a full state (flag excluded: it never
    leaves the board while the game goes on)."""
    # The same values summed in the same (post) order as the generator over posts did.
    return sum([values[k] for o, k in zip(owner, kind) if o == player and k != FLAG])  # noqa: B905
