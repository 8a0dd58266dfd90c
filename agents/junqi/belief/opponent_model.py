"""``ModelBelief``: the count tracker's matrix reweighted by how likely the opponent's observed
moves are under a model of its move choice.

Opponent model. At each of the opponent's plies it picks move m with probability
``exp(score(m) / T) / sum over its legal moves``, where ``score(m) = w . f(m)``: ``f`` the
features of the project's move evaluation (``agents.junqi.evaluation``, with the piece values of
``FEATURE_CONFIG``) from the opponent's side, judged with its own deductions about our pieces,
and ``w`` the weights ``FITTED_WEIGHTS`` fitted to recorded games by maximum likelihood
(``model_fit``; ``ModelBelief(weights=NAME)`` scores with the weights of the evaluation config
``NAME`` instead). The score of a move depends on the type of the piece that moves and on public
facts (the board, our pieces, the opponent's deductions, the ply counts), so the likelihood of a
history factorises over the opponent's tokens in the mean-field sense:

- for every opponent ply t, every token j living then and every type tau its evidence allowed
  then (mobile types only: a mine or the flag has no move, nor has a piece locked in a
  headquarters), ``S_t(j, tau)`` = the sum of ``exp(score / T)`` over the moves that piece would
  have as a tau (the engineer's railroad turns for an engineer only); for the token that moved,
  ``n_t(tau)`` = the played move's ``score / T`` if it were a tau;
- with every other token at its count-tracker marginals ``q``, token i's log-likelihood is
  ``l_i(tau) = sum over the plies t where i moved of n_t(tau) - sum over all opponent plies t
  of log(S_t(i, tau) + sum over j != i of sum_tau' q_j(tau') S_t(j, tau'))``;
- the token matrix is the count tracker's start (layout marginals x feasible masks) times
  ``exp(BETA * (l_i - max l_i))`` (the exponent floored at ``EXPONENT_FLOOR`` so every feasible
  pair keeps some mass and the fit keeps its support), fitted to the army counts by
  ``fit_counts``. Sampling draws with those rows, as every tracker does.

What the opponent knew. The public history is replayed from our deployment (our pieces' types are
known), tracking the opponent's deductions about our pieces the way the core does. Two of those
deductions use the opponent's own hidden type: when our piece takes one of its pieces it learns
that ours beats that piece, and when its attacker loses it learns that ours stops it. There the
replay uses the union over the types the evidence allowed that piece at that ply (a superset of
what the opponent really learned), so everything at ply t is a function of the history up to t.

Left out. The ``flag_defence`` feature (Algorithm 2 around the opponent's flag) depends on where
its flag is and which of its pieces defends it, a joint property of its whole army; it is left
out of the model (weight 0, and out of the fit), and the scoring position shows the opponent's
pieces all as the probed type (no flag), so no alarm is raised either. The model's score of a
move is a weighted sum of the five other features (``MODEL_FEATURES``).

Cost. The per-ply scores depend on the history only (not on ``q``, ``T`` or ``BETA``), so they are
cached per game (the last ``CACHE_GAMES`` games, keyed by the rules, the player, its deployment
and the history): an agent that rebuilds its belief every move scores only the new plies.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from types import SimpleNamespace

import numpy as np

from agents.junqi.belief.priors import LAYOUT_MARGINALS
from agents.junqi.belief.sampling import feasible_masks
from agents.junqi.belief.trackers import BeliefTracker, fit_counts
from agents.junqi.evaluation import FEATURE_NAMES, JunqiEvaluation
from tbw_envs.junqi.board import NUM_POSTS
from tbw_envs.junqi.layout import DEPLOY_CELLS, PIECE_CELLS, cell_to_post
from tbw_envs.junqi.pieces import (
    ARMY_COUNTS,
    ATTACKER_LOST,
    ATTACKER_WON,
    BOTH_REMOVED,
    ENGINEER,
    FLAG,
    MARSHAL,
    MOBILE_MASK,
    MOVED,
    NO_PIECE,
    NUM_PIECE_TYPES,
    combat_table,
)
from tbw_envs.junqi.state import deployment_masks, move_tables

# The opponent model's weights: fitted by maximum likelihood (``model_fit``: a conditional logit
# over the mover's legal moves, P(m) proportional to exp(w . f(m)), f the features of
# ``MODEL_FEATURES`` from the mover's side on the true state) on the moves of both players of the
# training games (arena games of the shipped agents greedy:weights=tuned, ppo:pretrained,
# ucbmcts:iterations=50,weights=tuned, ismcts:iterations=50 and greedy, seed 11, 10 games per
# pairing; disjoint from the evaluation games of seeds 12 and 13) by
#   python scripts/research/eval_beliefs.py --fit-model --games-from runs/beliefs/games-fit
# (7981 choices; mean -log P(played move) 2.353, against 3.454 for a uniform choice and 2.473 for
# the tuned evaluation at T = 15).
FITTED = "fitted"  # the name of this model for ``ModelBelief(weights=...)``
FEATURE_CONFIG = "tuned"  # the evaluation config whose piece values and parameters f uses
MODEL_FEATURES = tuple(name for name in FEATURE_NAMES if name != "flag_defence")
FITTED_WEIGHTS = {
    "attack_gain": 0.15068502515109794,
    "exposure": -0.09385312476764836,
    "protection": 0.09689015132541587,
    "progress": 0.8469541361575474,
    "no_collision": 24.081404587454898,
}
# Then T (the scores w . f are divided by it) and beta by the grid on the same games:
#   python scripts/research/eval_beliefs.py --games-from runs/beliefs/games-fit --plies 50 100
#       --model-weights fitted --model-temperatures 1 1.5 1.75 2 2.5 3 4
#       --model-betas 0.5 0.75 1 1.25 1.5 1.75 2
# lowest log-loss pooled over the 200 views at plies 50 and 100: T = 1.75, beta = 1.25 (1.4381;
# T = 2 with beta 1.25 scored 1.4387; T = 1, the fitted weights as they are, did best with
# beta = 0.75 at 1.4569: they are too sharp for the mean-field likelihood; the tuned evaluation at
# T = 15 and beta = 1.25 scored 1.4393, the count tracker 1.632).
FITTED_TEMPERATURE = 1.75
BETA = 1.25
# The fit replaced a hand-set model, the tuned evaluation's weights at T = 15 (picked by the same
# grid): ``ModelBelief(view, weights="tuned", temperature=15.0)`` is that model.
# Rounds of the mean-field update: the others' marginals q start at the count tracker's and
# each further round takes them from the previous round's result (2 or 3 rounds changed the
# training games' log-loss by under 0.3%, so one round).
ITERATIONS = 1
# Lowest exponent beta * (l - max l) of a feasible (token, type) pair: keeps the fit's support.
EXPONENT_FLOOR = -30.0
# Games whose per-ply scores are kept (each under a megabyte at ply 100).
CACHE_GAMES = 8

_TYPES = range(NUM_PIECE_TYPES)
_NO_TOKEN = -1
_EMPTY = -1


@dataclass(frozen=True)
class OpponentPly:
    """The model's raw material for one opponent ply (scores not yet divided by T).

    ``cells[k] = token * 12 + type`` and ``scores[k]``: one legal move of that token were it of
    that type; ``chosen[type]``: the score of the move played, if the mover were of that type
    (NaN where it could not be); ``mover``: the token that moved; ``index``: the ply's place in
    the history."""

    index: int
    mover: int
    cells: np.ndarray
    scores: np.ndarray
    chosen: np.ndarray


@lru_cache(maxsize=4)
def model_scoring(weights: str) -> tuple[JunqiEvaluation, tuple[float, ...]]:
    """The evaluation whose features the model reads and the weights it scores them with
    (``FEATURE_NAMES`` order, flag_defence 0): for ``FITTED``, the features of ``FEATURE_CONFIG``
    with ``FITTED_WEIGHTS``; otherwise the config of that name with its own weights."""
    if weights == FITTED:
        evaluation = JunqiEvaluation(FEATURE_CONFIG)
        vector = [FITTED_WEIGHTS[name] if name in MODEL_FEATURES else 0.0 for name in FEATURE_NAMES]
    else:
        evaluation = JunqiEvaluation(weights)
        vector = list(evaluation.config.weights)
    vector[FEATURE_NAMES.index("flag_defence")] = 0.0
    return evaluation, tuple(vector)


@lru_cache(maxsize=16)
def _combat_unions(rules) -> tuple[list[int], list[int], list, list]:
    """Per mask of the opponent's piece: the types of ours that beat some type in it (what the
    opponent learns about our attacker that takes it, at most), and the types of ours that stop
    some type in it (what it learns about our defender that its attacker lost to, at most); then
    the masks of the types that give each result attacking our type, and defending against it."""
    table = combat_table(rules)
    beats = [sum(1 << a for a in _TYPES if table[a][d] == ATTACKER_WON) for d in _TYPES]
    stops = [sum(1 << d for d in _TYPES if table[a][d] == ATTACKER_LOST) for a in _TYPES]
    as_attacker = [
        [sum(1 << a for a in _TYPES if table[a][d] == result) for d in _TYPES]
        for result in range(4)
    ]
    as_defender = [
        [sum(1 << d for d in _TYPES if table[a][d] == result) for a in _TYPES]
        for result in range(4)
    ]

    def union(per_type, mask):
        found = 0
        for kind in _TYPES:
            if mask >> kind & 1:
                found |= per_type[kind]
        return found

    return (
        [union(beats, mask) for mask in range(1 << NUM_PIECE_TYPES)],
        [union(stops, mask) for mask in range(1 << NUM_PIECE_TYPES)],
        as_attacker,
        as_defender,
    )


class _GameReplay:
    """The public history of one game replayed from one player's side, with the opponent's
    plies scored; extended ply by ply as longer views of the same game arrive."""

    def __init__(self, rules, player: int, placed: tuple[int, ...], weights: str):
        self.rules, self.player, self.placed, self.weights = rules, player, placed, weights
        me, opponent = player, 1 - player
        self.owner = [_EMPTY] * NUM_POSTS
        self.kind = [NO_PIECE] * NUM_POSTS  # ours only
        self.token_at = [_NO_TOKEN] * NUM_POSTS
        for cell, kind in zip(DEPLOY_CELLS, placed, strict=True):
            post = cell_to_post(cell, me)
            self.owner[post], self.kind[post] = me, kind
        deployment = deployment_masks()
        self.masks = []
        for token, cell in enumerate(PIECE_CELLS):
            post = cell_to_post(cell, opponent)
            self.owner[post], self.token_at[post] = opponent, token
            self.masks.append(deployment[opponent][post])
        # The opponent's deductions about our pieces (the core's ``possible[opponent]``).
        self.deductions = [
            deployment[me][p] if self.owner[p] == me else 0 for p in range(NUM_POSTS)
        ]
        self.quiet = 0
        self.our_flag: int | None = None
        self.history: list = []
        self.plies: list[OpponentPly] = []

    def matches(self, history) -> int:
        """Length of the common prefix of the replayed history and ``history``."""
        common = 0
        for ours, theirs in zip(self.history, history):  # noqa: B905
            if ours != theirs:
                break
            common += 1
        return common

    def extend(self, view) -> None:
        for index in range(len(self.history), len(view.history)):
            record = view.history[index]
            if record.player != self.player:
                self.plies.append(self._score_ply(index, record))
            self._apply(index, record, view)
            self.history.append(record)

    # -------------------------------------------------------------- scoring
    def _score_ply(self, index: int, record) -> OpponentPly:
        opponent = 1 - self.player
        evaluation, weights = model_scoring(self.weights)
        moves, _ = move_tables(self.rules)
        owner = self.owner
        living = [(post, token) for post, token in enumerate(self.token_at) if token != _NO_TOKEN]
        probe = list(self.kind)
        routes = {}
        for engineer in (False, True):
            for post, _token in living:
                probe[post] = ENGINEER if engineer else MARSHAL
            routes[engineer] = {
                post: moves.destinations(owner, probe, post) for post, _token in living
            }
        wanted = 0
        for _post, token in living:
            wanted |= self.masks[token]
        flags = [None, None]
        flags[self.player] = self.our_flag
        cells: list[int] = []
        scores: list[float] = []
        chosen = np.full(NUM_PIECE_TYPES, np.nan)
        mover = self.token_at[record.from_post]
        for kind in _TYPES:
            if not (wanted & MOBILE_MASK) >> kind & 1:
                continue
            for post, _token in living:
                probe[post] = kind
            position = SimpleNamespace(
                rules=self.rules,
                owner=owner,
                kind=probe,
                quiet_plies=self.quiet,
                possible=(self.deductions, self.deductions),
                flag_revealed=flags,
            )
            context = evaluation.state_context(position, mover=opponent)
            features = context.features
            engineer = kind == ENGINEER
            for post, token in living:
                if not self.masks[token] >> kind & 1:
                    continue
                cell = token * NUM_PIECE_TYPES + kind
                base = post * NUM_POSTS
                for target in routes[engineer][post]:
                    value = sum(w * f for w, f in zip(weights, features(base + target)))  # noqa: B905
                    cells.append(cell)
                    scores.append(value)
                    if token == mover and target == record.to_post:
                        chosen[kind] = value
        return OpponentPly(
            index,
            mover,
            np.asarray(cells, dtype=np.int64),
            np.asarray(scores, dtype=np.float64),
            chosen,
        )

    # -------------------------------------------------------------- replay
    def _apply(self, index: int, record, view) -> None:
        me, opponent = self.player, 1 - self.player
        beats_union, stops_union, as_attacker, as_defender = _combat_unions(self.rules)
        owner, kind, token_at, masks, deductions = (
            self.owner,
            self.kind,
            self.token_at,
            self.masks,
            self.deductions,
        )
        source, target, result = record.from_post, record.to_post, record.result
        if record.player == opponent:
            token = token_at[source]
            masks[token] &= MOBILE_MASK
            if record.engineer_only:
                masks[token] &= 1 << ENGINEER
            token_at[source], owner[source] = _NO_TOKEN, _EMPTY
            if result == MOVED:
                token_at[target], owner[target] = token, opponent
            else:
                masks[token] &= as_attacker[result][kind[target]]
                if result == ATTACKER_WON:
                    token_at[target], owner[target] = token, opponent
                    kind[target], deductions[target] = NO_PIECE, 0
                elif result == ATTACKER_LOST:
                    deductions[target] &= stops_union[masks[token]]
                elif result == BOTH_REMOVED:
                    owner[target], kind[target], deductions[target] = _EMPTY, NO_PIECE, 0
        else:
            attacker = kind[source]
            seen = deductions[source] & MOBILE_MASK
            if record.engineer_only:
                seen &= 1 << ENGINEER
            owner[source], kind[source], deductions[source] = _EMPTY, NO_PIECE, 0
            if result == MOVED:
                owner[target], kind[target], deductions[target] = me, attacker, seen
            else:
                token = token_at[target]
                masks[token] &= as_defender[result][attacker]
                if result == ATTACKER_WON:
                    token_at[target] = _NO_TOKEN
                    owner[target], kind[target] = me, attacker
                    deductions[target] = seen & beats_union[masks[token]]
                elif result == BOTH_REMOVED:
                    token_at[target], owner[target] = _NO_TOKEN, _EMPTY
        self.quiet = self.quiet + 1 if result == MOVED else 0
        if view.flag_revealed_ply[me] == index and view.flag_revealed[me] is not None:
            # Our marshal is gone: the opponent learns our flag's post (the core's _reveal_flag).
            flag = view.flag_revealed[me]
            self.our_flag = flag
            for post in range(NUM_POSTS):
                if deductions[post]:
                    deductions[post] &= ~((1 << FLAG) | (1 << MARSHAL))
            deductions[flag] = 1 << FLAG


_REPLAYS: OrderedDict[int, _GameReplay] = OrderedDict()
_next_key = iter(range(1 << 62))


def opponent_plies(view, weights: str = FITTED) -> list[OpponentPly]:
    """The opponent's plies of ``view.history`` scored by the model (``OpponentPly``), from the
    cache when a replay of the same game already covers them. ``view`` must hold a full
    deployment (``len(view.placed) == 25``) and a history that replays from it (as checked by
    ``gather_evidence``)."""
    history = view.history
    best, best_common = None, -1
    for key, replay in _REPLAYS.items():
        if (
            replay.rules != view.rules
            or replay.player != view.player
            or replay.placed != view.placed
            or replay.weights != weights
        ):
            continue
        common = replay.matches(history)
        if common in (len(replay.history), len(history)) and common > best_common:
            best, best_common = key, common
    if best is None:
        replay = _GameReplay(view.rules, view.player, tuple(view.placed), weights)
        best = next(_next_key)
        _REPLAYS[best] = replay
        while len(_REPLAYS) > CACHE_GAMES:
            _REPLAYS.popitem(last=False)
    replay = _REPLAYS[best]
    _REPLAYS.move_to_end(best)
    if len(replay.history) < len(history):
        replay.extend(view)
    return [ply for ply in replay.plies if ply.index < len(history)]


def clear_cache() -> None:
    """Forget every cached game."""
    _REPLAYS.clear()


def cached_games() -> int:
    """How many games the cache holds (at most ``CACHE_GAMES``)."""
    return len(_REPLAYS)


def move_log_likelihoods(plies, q: np.ndarray, temperature: float) -> np.ndarray:
    """``(tokens, 12)``: the factorised log-likelihood ``l_i(tau)`` of the opponent's moves for
    every token i and type tau, the other tokens at their marginals ``q`` (rows of a token
    matrix), up to a constant per token. ``-inf`` where the played move is impossible for tau."""
    tokens = q.shape[0]
    size = tokens * NUM_PIECE_TYPES
    result = np.zeros((tokens, NUM_PIECE_TYPES))
    with np.errstate(divide="ignore", invalid="ignore"):
        for ply in plies:
            finite = ply.chosen[~np.isnan(ply.chosen)]
            shift = max(float(ply.scores.max(initial=-np.inf)), float(finite.max(initial=-np.inf)))
            weights = np.exp((ply.scores - shift) / temperature)
            totals = np.bincount(ply.cells, weights=weights, minlength=size)
            totals = totals.reshape(tokens, NUM_PIECE_TYPES)
            expected = (q * totals).sum(axis=1)
            others = expected.sum() - expected
            result -= np.log(np.maximum(totals + np.maximum(others, 0.0)[:, None], 1e-300))
            played = np.where(np.isnan(ply.chosen), -np.inf, (ply.chosen - shift) / temperature)
            result[ply.mover] += played
    return result


class ModelBelief(BeliefTracker):
    """The count tracker reweighted by an opponent model: the (mean-field) likelihood of the
    opponent's moves under a softmax of the move features' fitted scores (the module docstring)."""

    name = "model"
    temperature = FITTED_TEMPERATURE
    beta = BETA
    weights = FITTED
    iterations = ITERATIONS

    def __init__(
        self,
        view,
        evidence=None,
        temperature: float | None = None,
        beta: float | None = None,
        weights: str | None = None,
        iterations: int | None = None,
    ):
        if temperature is not None:
            self.temperature = float(temperature)
        if beta is not None:
            self.beta = float(beta)
        if weights is not None:
            self.weights = weights
        if iterations is not None:
            self.iterations = int(iterations)
        if not self.temperature > 0.0 or not self.beta >= 0.0:
            raise ValueError("model belief: temperature must be > 0 and beta >= 0")
        super().__init__(view, evidence)

    def _start(self) -> np.ndarray:
        """The count tracker's start: layout marginals times the feasible masks."""
        feasible = feasible_masks(self.evidence.masks, ARMY_COUNTS, self._assignment)
        masks = self._mask_matrix(feasible)
        if self.evidence.full_army:
            return LAYOUT_MARGINALS[list(self.evidence.cells)] * masks
        return masks

    def log_likelihoods(self) -> np.ndarray:
        """``l_i(tau)`` of the opponent's moves so far, the others at the count tracker's
        marginals (zeros for a custom position, which has no history to replay)."""
        start = self._start()
        if not self.evidence.full_army:
            return np.zeros_like(start)
        counts = np.asarray(ARMY_COUNTS, dtype=np.float64)
        q = fit_counts(start, counts)
        return move_log_likelihoods(opponent_plies(self.view, self.weights), q, self.temperature)

    def _token_probabilities(self) -> np.ndarray:
        start = self._start()
        counts = np.asarray(ARMY_COUNTS, dtype=np.float64)
        if not self.evidence.full_army:
            return fit_counts(start, counts, exact=False)
        q = fit_counts(start, counts)
        plies = opponent_plies(self.view, self.weights)
        if not plies or self.beta == 0.0:
            return q
        support = start > 0.0
        for _round in range(max(self.iterations, 1)):
            loglik = np.where(support, move_log_likelihoods(plies, q, self.temperature), -np.inf)
            top = loglik.max(axis=1, keepdims=True)
            top = np.where(np.isfinite(top), top, 0.0)
            exponent = np.maximum(self.beta * (loglik - top), EXPONENT_FLOOR)
            q = fit_counts(np.where(support, start * np.exp(exponent), 0.0), counts)
        return q
