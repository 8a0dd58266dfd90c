"""The belief trackers: P(type | opponent piece) from the evidence, and determinizations drawn
with those probabilities (``TokenSampler``); ``make_belief`` builds one by name."""

from __future__ import annotations

import copy
import dataclasses
import random
from typing import TypeVar

import numpy as np

from agents.junqi.belief.evidence import Evidence, gather_evidence
from agents.junqi.belief.priors import LAYOUT_MARGINALS, PAPER_PRIORS
from agents.junqi.belief.sampling import TokenSampler, complete_assignment, feasible_masks
from tbw_envs.core.contract import is_real_number
from tbw_envs.junqi.board import NUM_POSTS
from tbw_envs.junqi.pieces import ARMY_COUNTS, MOBILE_MASK, NUM_PIECE_TYPES
from tbw_envs.junqi.state import JunqiState

IPF_TOLERANCE = 1e-6
IPF_MAX_ITERATIONS = 2000

_Tracker = TypeVar("_Tracker", bound="BeliefTracker")


class BeliefTracker:
    """What the trackers share: the evidence, the token matrix, the view matrix and sampling.
    Subclasses set ``name`` and compute the token matrix in ``_token_probabilities``."""

    name = ""

    def __init__(self, view, evidence: Evidence | None = None):
        self.view = view
        self.evidence = evidence if evidence is not None else gather_evidence(view)
        # One complete assignment: proves the evidence consistent and seeds the sampler.
        self._assignment = complete_assignment(self.evidence.masks, ARMY_COUNTS)
        self._tokens = self._token_probabilities()
        self._token_on = {post: t for t, post in enumerate(self.evidence.posts) if post is not None}
        self._sampler: TokenSampler | None = None

    @classmethod
    def from_view(cls: type[_Tracker], view) -> _Tracker:
        """The tracker of ``view`` (a ``JunqiView`` in the play phase)."""
        return cls(view)

    def _token_probabilities(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _mask_matrix(self, masks=None) -> np.ndarray:
        masks = self.evidence.masks if masks is None else masks
        bits = np.asarray(masks, dtype=np.int64)[:, None] >> np.arange(NUM_PIECE_TYPES) & 1
        return bits.astype(np.float64)

    # ------------------------------------------------------------------ queries
    def token_matrix(self) -> np.ndarray:
        """``(tokens, 12)``: P(type) of every opponent token, removed ones included, in the order
        of ``evidence`` (for a full army, ``layout.PIECE_CELLS`` order of the initial posts)."""
        return self._tokens.copy()

    def matrix(self) -> np.ndarray:
        """``(60, 12)``: row p = P(type | the opponent piece on post p); zero rows elsewhere."""
        result = np.zeros((NUM_POSTS, NUM_PIECE_TYPES))
        for token, post in enumerate(self.evidence.posts):
            if post is not None:
                result[post] = self._tokens[token]
        return result

    def probs(self, post: int) -> np.ndarray:
        """``(12,)``: P(type) of the opponent piece on ``post`` (zeros when there is none)."""
        token = self._token_on.get(post)
        return np.zeros(NUM_PIECE_TYPES) if token is None else self._tokens[token].copy()

    def toward(self, truth: dict[int, int], share: float) -> BeliefTracker:
        """A copy whose rows are moved toward known types: for each living opponent piece,
        ``(1 - share) x its row + share x one-hot(truth[post])``. An experiment's tool (how much
        a better belief would be worth, ``agents.junqi.mcts.belief_gap``): ``share=1`` samples
        exactly ``truth`` (living pieces), ``share=0`` is this tracker. ``truth`` must give
        every living opponent piece a type its evidence allows."""
        if not (is_real_number(share) and 0.0 <= share <= 1.0):
            raise ValueError(f"share must be a number in [0, 1], got {share!r}")
        tokens = self._tokens.copy()
        for token, post in enumerate(self.evidence.posts):
            if post is None:
                continue
            kind = truth.get(post)
            if kind is None or not (self.evidence.masks[token] >> kind & 1):
                raise ValueError(f"truth gives post {post} the type {kind!r}, which the "
                                 f"evidence does not allow")
            tokens[token] *= 1.0 - share
            tokens[token, kind] += share
        moved = copy.copy(self)
        moved._tokens = tokens
        moved._sampler = None
        if share == 1.0:
            # The sampler may hand a removed piece a type a living one needs; the truth is
            # exact. (Set on the instance, so the trackers' own ``sample`` stays as it was.)
            exact = {post: truth[post] for post in self._token_on}
            moved.sample = lambda rng: dict(exact)
        return moved

    def knowing(self, known: dict[int, int]) -> BeliefTracker:
        """A copy that knows the types of some living opponent pieces (``{post: type}``) and
        nothing more: their rows become one-hot, their evidence masks that one type, so every
        draw gives them those types and leaves the army counts to the others (knowing the flag
        tells the other headquarters holds none). An experiment's tool: what knowing, say, the
        flag alone would be worth (``scripts/research/belief_gap.py --know``)."""
        masks = list(self.evidence.masks)
        tokens = self._tokens.copy()
        for post, kind in known.items():
            token = self._token_on.get(post)
            if token is None:
                raise ValueError(f"knowing: post {post!r} holds no living opponent piece")
            if (isinstance(kind, bool) or not isinstance(kind, (int, np.integer))
                    or not 0 <= kind < NUM_PIECE_TYPES or not masks[token] >> int(kind) & 1):
                raise ValueError(f"knowing: post {post} cannot hold the type {kind!r} "
                                 f"on the evidence")
            masks[token] = 1 << int(kind)
            tokens[token] = 0.0
            tokens[token, int(kind)] = 1.0
        moved = copy.copy(self)
        moved.evidence = dataclasses.replace(self.evidence, masks=tuple(masks))
        try:
            moved._assignment = complete_assignment(moved.evidence.masks, ARMY_COUNTS)
        except ValueError as exc:
            raise ValueError(f"knowing: {known} is not consistent with the army counts") from exc
        moved._tokens = tokens
        moved._sampler = None
        return moved

    # ------------------------------------------------------------------ sampling
    def _sampler_weights(self) -> list[list[float]]:
        # Living tokens follow the tracker; removed ones only need a type that keeps the counts.
        weights = []
        for token, post in enumerate(self.evidence.posts):
            if post is None:
                weights.append([1.0] * NUM_PIECE_TYPES)
            else:
                weights.append(self._tokens[token].tolist())
        return weights

    def sample_tokens(self, rng: random.Random) -> list[int]:
        """A type for every token (removed ones included), consistent with the evidence and the
        army counts, and leaving the opponent a legal move when it is to move."""
        if self._sampler is None:
            self._sampler = TokenSampler(
                self.evidence.masks, self._sampler_weights(), ARMY_COUNTS, self._assignment
            )
        sampler = self._sampler
        movers = self.evidence.must_move
        for _attempt in range(20):
            kinds = sampler.draw(rng)
            if not movers or any(MOBILE_MASK >> kinds[t] & 1 for t in movers):
                return kinds
        # Rarely binding: force one mover to a mobile type first.
        order = list(movers)
        rng.shuffle(order)
        for token in order:
            try:
                return sampler.draw(rng, first=token, first_mask=MOBILE_MASK)
            except ValueError:
                continue
        raise ValueError("belief: no assignment leaves the opponent a legal move")

    def sample(self, rng: random.Random) -> dict[int, int]:
        """``{post: type}`` for the opponent's living pieces."""
        kinds = self.sample_tokens(rng)
        return {
            post: kinds[token] for token, post in enumerate(self.evidence.posts) if post is not None
        }

    def sample_state(self, rng: random.Random) -> JunqiState:
        """A full state consistent with the view (``view.determinize`` of a sample)."""
        return self.view.determinize(self.sample(rng))

    def __repr__(self) -> str:
        living = len(self.evidence.living())
        return f"<{type(self).__name__} player {self.evidence.player}: {living} opponent pieces>"


def normalise_rows(matrix: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Rows scaled to sum to 1; a row whose weights all vanish becomes uniform over its mask."""
    sums = matrix.sum(axis=1, keepdims=True)
    empty = sums[:, 0] <= 0.0
    if empty.any():
        matrix = matrix.copy()
        matrix[empty] = masks[empty]
        sums = matrix.sum(axis=1, keepdims=True)
    return matrix / sums


class UniformBelief(BeliefTracker):
    """Baseline: uniform over the types the evidence allows each piece."""

    name = "uniform"

    def _token_probabilities(self) -> np.ndarray:
        masks = self._mask_matrix()
        return normalise_rows(masks, masks)


class PaperBelief(BeliefTracker):
    """Section 3.1 of the paper: an independent probability table per opponent piece, started
    from a prior by its initial post and cut by every public event (zero the ruled-out types,
    renormalise: eqs. 1-2). Priors: Table 1 on a headquarters (flag .5, bomb .15, lieutenant
    .15, mine .1, major .05, captain .05; mixed with 1% of the exact marginal so no legal type
    has probability 0), the exact uniform-layout marginal (``uniform_layout_marginals``) on every
    other post. Custom positions: uniform over the mask. Zeroing then renormalising equals
    multiplying the prior by the final evidence mask once, which is how it is computed."""

    name = "paper"

    def _token_probabilities(self) -> np.ndarray:
        masks = self._mask_matrix()
        if not self.evidence.full_army:
            return normalise_rows(masks, masks)
        priors = PAPER_PRIORS[list(self.evidence.cells)]
        return normalise_rows(priors * masks, masks)


class CountBelief(BeliefTracker):
    """The paper's evidence plus the army composition, jointly over all 25 tokens.

    Start: the uniform-layout marginal of each token's initial cell times its evidence mask, cut
    to the (token, type) pairs that some complete assignment allows (``feasible_masks``). Fit:
    iterative proportional fitting, rows to 1 and columns to ``ARMY_COUNTS``, until the rows are
    within ``IPF_TOLERANCE`` of 1 after a column step (at most ``IPF_MAX_ITERATIONS``). Without
    evidence the start is already the fixed point (the marginals have product form and the
    army's column sums). Cutting to feasible pairs gives the fit total support, so it converges
    and never leaves mass where no assignment can put it. Custom positions: start uniform on the
    mask, counts as upper bounds (only columns above their count are scaled down).
    """

    name = "count"

    def _token_probabilities(self) -> np.ndarray:
        evidence = self.evidence
        feasible = feasible_masks(evidence.masks, ARMY_COUNTS, self._assignment)
        masks = self._mask_matrix(feasible)
        if evidence.full_army:
            start = LAYOUT_MARGINALS[list(evidence.cells)] * masks
        else:
            start = masks.copy()
        return fit_counts(start, np.asarray(ARMY_COUNTS, dtype=np.float64), evidence.full_army)


def fit_counts(
    start: np.ndarray,
    column_targets: np.ndarray,
    exact: bool = True,
    tolerance: float = IPF_TOLERANCE,
    max_iterations: int = IPF_MAX_ITERATIONS,
) -> np.ndarray:
    """Iterative proportional fitting of a nonnegative ``(tokens, types)`` matrix to row sums 1
    and column sums ``column_targets`` (upper bounds when not ``exact``). Zero entries stay zero;
    zero rows and columns are left alone rather than divided by."""
    matrix = start.astype(np.float64, copy=True)
    ones = np.ones(matrix.shape[1])
    for _ in range(max_iterations):
        rows = matrix.sum(axis=1, keepdims=True)
        matrix /= np.where(rows > 0.0, rows, 1.0)
        columns = matrix.sum(axis=0)
        factor = np.divide(column_targets, columns, out=ones.copy(), where=columns > 0.0)
        if not exact:
            factor = np.minimum(factor, 1.0)
        matrix *= factor
        rows = matrix.sum(axis=1)
        if np.max(np.abs(rows[rows > 0.0] - 1.0), initial=0.0) < tolerance:
            break
    rows = matrix.sum(axis=1, keepdims=True)
    return matrix / np.where(rows > 0.0, rows, 1.0)


BELIEFS: dict[str, type[BeliefTracker]] = {
    "paper": PaperBelief,
    "count": CountBelief,
    "uniform": UniformBelief,
}
# The tracker with the lower log-loss in scripts/research/eval_beliefs.py (docs/results.md).
DEFAULT_BELIEF = "count"


def make_belief(name: str, view) -> BeliefTracker:
    """The tracker ``name`` (a key of ``BELIEFS``) built from ``view``."""
    cls = BELIEFS.get(name)
    if cls is None:
        raise ValueError(f"unknown belief {name!r}; known: {', '.join(sorted(BELIEFS))}")
    return cls.from_view(view)
