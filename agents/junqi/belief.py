"""Opponent belief trackers for Junqi: P(type | opponent piece) from a player's view alone.

Every tracker is a function of ``view = state.view(player)``: it replays the public history from
the start (``view.placed`` gives the player's own deployed layout, so its own piece types are
known at every ply) and never touches the true state.

Evidence (shared by every tracker)
----------------------------------
Each of the opponent's 25 pieces is a *token* named by its initial post; removed tokens keep
existing. A token carries a 12-bit mask of the types it may have:

- deployment constraints of its initial post (flag only in a headquarters, mines only in the last
  two rows, no bomb in the front row);
- it moved: not a mine, not the flag; an ``engineer_only`` move: an engineer;
- every combat with one of our pieces (whose type we know), in both directions, through the rule
  set's combat table: the token's type must give the announced result code;
- the flag announcement: the token on the announced post is the flag (no other token is); the
  opponent token removed at ``view.flag_revealed_ply`` is the marshal (no other token is). While
  the opponent's flag stays unannounced under ``flag_revealed_on_marshal_death``, no removed token
  is the marshal;
- taking the flag ends the game: a token removed while the game went on was not the flag, and in
  a game we won by taking the flag the token removed at the last ply was.

Trackers
--------
- ``PaperBelief`` (section 3.1 of Bian, Li and Wang 2024): an independent table per piece: a prior
  by initial post, every public event zeroes the types it rules out, then the row is renormalised
  (the paper's eqs. 1-2). Headquarters start from the paper's Table 1, every other post from the
  exact uniform-layout marginal (``uniform_layout_marginals``).
- ``CountBelief``: the same evidence plus the army composition. The 25 x 12 token matrix (removed
  tokens included) starts from the uniform-layout marginals times the evidence masks, restricted
  to the (token, type) pairs that some complete assignment with exactly ``ARMY_COUNTS`` allows,
  and is fitted by iterative proportional fitting: rows to 1, columns to ``ARMY_COUNTS``.
- ``UniformBelief``: uniform over each token's evidence mask (baseline).

All three share one sampler (``TokenSampler``): a type for every token, exactly ``ARMY_COUNTS`` of
each, each inside its mask, each living token's type drawn with the tracker's probabilities.

Custom positions (``JunqiState.from_pieces``) have no deployment to replay. There the tokens are
the opponent's living pieces, their masks the core's own deductions (``view.possible``), the army
counts are upper bounds and the priors are uniform over the mask.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

import numpy as np

from tbw_envs.junqi.board import NUM_POSTS, post_name
from tbw_envs.junqi.layout import (
    BACK_TWO_ROWS_CELLS,
    DEPLOY_CELLS,
    FRONT_ROW_CELLS,
    HEADQUARTERS_CELLS,
    LAYOUT_CELLS,
    PIECE_CELLS,
    cell_allows,
    cell_to_post,
)
from tbw_envs.junqi.pieces import (
    ALL_TYPES_MASK,
    ARMY_COUNTS,
    ARMY_SIZE,
    ATTACKER_LOST,
    ATTACKER_WON,
    BOMB,
    BOTH_REMOVED,
    CAPTAIN,
    ENGINEER,
    FLAG,
    LIEUTENANT,
    MAJOR,
    MARSHAL,
    MINE,
    MOBILE_MASK,
    MOVED,
    NO_PIECE,
    NUM_PIECE_TYPES,
    combat_table,
)
from tbw_envs.junqi.rules import JunqiRules
from tbw_envs.junqi.state import FLAG_CAPTURED, PLAY, JunqiState, _tables

NO_TOKEN = -1
_TYPE_RANGE = range(NUM_PIECE_TYPES)
_BITS = tuple(tuple(k for k in _TYPE_RANGE if mask >> k & 1) for mask in range(1 << 12))

# The paper's Table 1: an enemy headquarters at the start (platoon = lieutenant, battalion =
# major, company = captain; every other type 0).
PAPER_HEADQUARTERS_TABLE = {
    FLAG: 0.5, BOMB: 0.15, LIEUTENANT: 0.15, MINE: 0.1, MAJOR: 0.05, CAPTAIN: 0.05,
}  # fmt: skip
# Table 1 gives 0 to types a legal layout may put in a headquarters (an engineer, a general...);
# a zero prior can never recover, so a small share of the exact marginal is mixed in.
PAPER_HEADQUARTERS_SMOOTHING = 0.01

IPF_TOLERANCE = 1e-6
IPF_MAX_ITERATIONS = 2000


# ---------------------------------------------------------------------- layout prior
def uniform_layout_marginals() -> np.ndarray:
    """``(LAYOUT_CELLS, 12)``: P(type | owner-frame cell) under the uniform distribution over all
    legal layouts (zero rows on the camps).

    Derivation. The cells allowed to the flag (2 headquarters), mines (10 cells of the last two
    rows) and bombs (20 cells off the front row) are nested, so a uniform legal layout is drawn by
    placing the flag uniformly in a headquarters, then the 3 mines uniformly among the 9 free
    cells of the last two rows, then the 2 bombs uniformly among the 16 free non-front cells, then
    the 19 other pieces as a uniform arrangement of the 19 cells left: every partial choice leaves
    the same number of completions (2 x C(9,3) x C(16,2) x 19!/(1!1!2!2!2!2!3!3!3!) layouts in
    all). Hence, for a cell c,
        P(flag)  = 1/2 on a headquarters, else 0;
        P(mine)  = (1 - P(flag)) x 3/9 in the last two rows, else 0;
        P(bomb)  = (1 - P(flag) - P(mine)) x 2/16 off the front row, else 0;
        P(other type k) = (1 - P(flag) - P(mine) - P(bomb)) x count_k / 19.
    Headquarters: flag 1/2, mine 1/6, bomb 1/24, the rest 7/24; other cells of the last two rows:
    mine 1/3, bomb 1/12, the rest 7/12; middle rows: bomb 1/8, the rest 7/8; front row: the rest.
    The columns sum to ``ARMY_COUNTS`` and the rows to 1 (checked in the tests against
    ``random_layout`` samples).
    """
    back_cells = BACK_TWO_ROWS_CELLS
    non_front_cells = set(PIECE_CELLS) - FRONT_ROW_CELLS
    assert HEADQUARTERS_CELLS <= back_cells <= non_front_cells  # the nesting the count uses
    flags, mines, bombs = ARMY_COUNTS[FLAG], ARMY_COUNTS[MINE], ARMY_COUNTS[BOMB]
    others = ARMY_SIZE - flags - mines - bombs
    marginals = np.zeros((LAYOUT_CELLS, NUM_PIECE_TYPES))
    for cell in PIECE_CELLS:
        p_flag = Fraction(flags, len(HEADQUARTERS_CELLS)) if cell in HEADQUARTERS_CELLS else 0
        p_mine = (
            (1 - p_flag) * Fraction(mines, len(back_cells) - flags) if cell in back_cells else 0
        )
        p_bomb = (
            (1 - p_flag - p_mine) * Fraction(bombs, len(non_front_cells) - flags - mines)
            if cell in non_front_cells
            else 0
        )
        rest = 1 - p_flag - p_mine - p_bomb
        row = [rest * Fraction(ARMY_COUNTS[kind], others) for kind in _TYPE_RANGE]
        row[FLAG], row[MINE], row[BOMB] = p_flag, p_mine, p_bomb
        marginals[cell] = [float(p) for p in row]
    return marginals


LAYOUT_MARGINALS = uniform_layout_marginals()
_DEPLOYMENT_MASKS = tuple(
    sum(1 << kind for kind in _TYPE_RANGE if cell_allows(cell, kind))
    for cell in range(LAYOUT_CELLS)
)


def paper_prior(cell: int) -> np.ndarray:
    """The paper tracker's prior for a token deployed on owner-frame ``cell``: Table 1 (smoothed,
    see ``PAPER_HEADQUARTERS_SMOOTHING``) on a headquarters, the exact marginal elsewhere."""
    marginal = LAYOUT_MARGINALS[cell]
    if cell not in HEADQUARTERS_CELLS:
        return marginal.copy()
    table = np.zeros(NUM_PIECE_TYPES)
    for kind, p in PAPER_HEADQUARTERS_TABLE.items():
        table[kind] = p
    eps = PAPER_HEADQUARTERS_SMOOTHING
    return (1.0 - eps) * table + eps * marginal


_PAPER_PRIORS = np.array([paper_prior(cell) for cell in range(LAYOUT_CELLS)])


# ---------------------------------------------------------------------- evidence
_COMBAT_MASKS: dict[JunqiRules, tuple[list[list[int]], list[list[int]]]] = {}


def _combat_masks(rules: JunqiRules) -> tuple[list[list[int]], list[list[int]]]:
    """``(as_attacker, as_defender)``: ``as_attacker[result][our_defender]`` is the mask of
    types that give ``result`` attacking our piece; ``as_defender[result][our_attacker]`` the
    mask of types that give ``result`` when our piece attacks them."""
    masks = _COMBAT_MASKS.get(rules)
    if masks is None:
        table = combat_table(rules)
        as_attacker = [
            [sum(1 << a for a in _TYPE_RANGE if table[a][d] == result) for d in _TYPE_RANGE]
            for result in range(4)
        ]
        as_defender = [
            [sum(1 << d for d in _TYPE_RANGE if table[a][d] == result) for a in _TYPE_RANGE]
            for result in range(4)
        ]
        masks = _COMBAT_MASKS[rules] = (as_attacker, as_defender)
    return masks


@dataclass(frozen=True)
class Evidence:
    """What the public history tells one player about the opponent's pieces, token by token."""

    player: int
    # True for a game started from two layouts: 25 tokens, exact army counts, deployment priors.
    # False for a custom position: the living pieces only, army counts as upper bounds.
    full_army: bool
    initial_posts: tuple[int | None, ...]  # None for custom positions
    cells: tuple[int | None, ...]  # owner-frame cell of the initial post
    posts: tuple[int | None, ...]  # current post; None once removed
    removed_ply: tuple[int | None, ...]  # index in view.history of the ply that removed it
    masks: tuple[int, ...]
    # Living tokens of which at least one must be mobile: the opponent is to move and the game
    # goes on, so it has a legal move (empty when that says nothing).
    must_move: tuple[int, ...]

    @property
    def num_tokens(self) -> int:
        return len(self.masks)

    def living(self) -> list[int]:
        return [t for t, post in enumerate(self.posts) if post is not None]


def _history_error(index: int, record, problem: str) -> ValueError:
    return ValueError(
        f"belief: ply {index} ({record.describe()}) does not replay from the deployed layouts: "
        f"{problem}"
    )


def gather_evidence(view) -> Evidence:
    """Replay ``view.history`` from the deployment and collect every token's evidence mask."""
    if view.phase != PLAY:
        raise ValueError("belief trackers work in the play phase only (after deployment)")
    if len(view.placed) != ARMY_SIZE:
        return _custom_position_evidence(view)
    me, opponent = view.player, 1 - view.player
    own_kind = [NO_PIECE] * NUM_POSTS
    for cell, kind in zip(DEPLOY_CELLS, view.placed, strict=True):
        own_kind[cell_to_post(cell, me)] = kind
    cells = PIECE_CELLS
    initial_posts = [cell_to_post(cell, opponent) for cell in cells]
    token_at = [NO_TOKEN] * NUM_POSTS
    for token, post in enumerate(initial_posts):
        token_at[post] = token
    masks = [_DEPLOYMENT_MASKS[cell] for cell in cells]
    removed_ply: list[int | None] = [None] * len(cells)
    as_attacker, as_defender = _combat_masks(view.rules)

    for index, record in enumerate(view.history):
        source, target, result = record.from_post, record.to_post, record.result
        if record.player == opponent:
            token = token_at[source]
            if token == NO_TOKEN:
                raise _history_error(index, record, "no opponent piece on the start post")
            masks[token] &= MOBILE_MASK
            if record.engineer_only:
                masks[token] &= 1 << ENGINEER
            token_at[source] = NO_TOKEN
            defender = own_kind[target]
            if result == MOVED:
                if defender != NO_PIECE or token_at[target] != NO_TOKEN:
                    raise _history_error(index, record, "a quiet move onto an occupied post")
                token_at[target] = token
                continue
            if defender == NO_PIECE:
                raise _history_error(index, record, "a combat without one of our pieces")
            masks[token] &= as_attacker[result][defender]
            if result == ATTACKER_WON:
                own_kind[target] = NO_PIECE
                token_at[target] = token
            elif result == ATTACKER_LOST:
                removed_ply[token] = index
            else:
                own_kind[target] = NO_PIECE
                removed_ply[token] = index
        else:
            attacker = own_kind[source]
            if attacker == NO_PIECE:
                raise _history_error(index, record, "none of our pieces on the start post")
            own_kind[source] = NO_PIECE
            token = token_at[target]
            if result == MOVED:
                if token != NO_TOKEN or own_kind[target] != NO_PIECE:
                    raise _history_error(index, record, "a quiet move onto an occupied post")
                own_kind[target] = attacker
                continue
            if token == NO_TOKEN:
                raise _history_error(index, record, "a combat without an opponent piece")
            masks[token] &= as_defender[result][attacker]
            if result == ATTACKER_WON:
                token_at[target] = NO_TOKEN
                removed_ply[token] = index
                own_kind[target] = attacker
            elif result == BOTH_REMOVED:
                token_at[target] = NO_TOKEN
                removed_ply[token] = index

    for post in range(NUM_POSTS):
        mine_here = own_kind[post] != NO_PIECE
        if (view.owner[post] == me) != mine_here or (view.owner[post] == opponent) != (
            token_at[post] != NO_TOKEN
        ):
            raise ValueError(
                f"belief: the replayed history does not end in the view's position "
                f"(post {post_name(post)})"
            )
        if mine_here and own_kind[post] != view.kind[post]:
            raise ValueError(f"belief: our piece on {post_name(post)} is not the deployed one")

    _flag_evidence(view, initial_posts, removed_ply, masks)
    for token, mask in enumerate(masks):
        if not mask:
            raise ValueError(
                f"belief: inconsistent evidence: no type fits the opponent piece deployed on "
                f"{post_name(initial_posts[token])}"
            )
    posts: list[int | None] = [None] * len(cells)
    for post, token in enumerate(token_at):
        if token != NO_TOKEN:
            posts[token] = post
    return Evidence(
        player=me,
        full_army=True,
        initial_posts=tuple(initial_posts),
        cells=tuple(cells),
        posts=tuple(posts),
        removed_ply=tuple(removed_ply),
        masks=tuple(masks),
        must_move=_must_move(view, posts),
    )


def _flag_evidence(view, initial_posts, removed_ply, masks) -> None:
    """The flag announcement, the marshal it implies, and a flag we took to win."""
    opponent = 1 - view.player
    flag_bit, marshal_bit = 1 << FLAG, 1 << MARSHAL
    flag_token = None
    flag_post = view.flag_revealed[opponent]
    if flag_post is not None:
        # The flag never moves, so the announced post is its initial post.
        flag_token = initial_posts.index(flag_post) if flag_post in initial_posts else None
        if flag_token is None:
            raise ValueError(
                f"belief: the announced flag post {post_name(flag_post)} is not a "
                "deployment post of the opponent"
            )
        marshal_ply = view.flag_revealed_ply[opponent]
        marshal_token = None
        if marshal_ply is not None:
            marshal_token = next(
                (t for t, ply in enumerate(removed_ply) if ply == marshal_ply), None
            )
            if marshal_token is None:
                raise ValueError(
                    f"belief: no opponent piece was removed at ply {marshal_ply}, "
                    "which announced the flag"
                )
        for token in range(len(masks)):
            if token == marshal_token:
                masks[token] &= marshal_bit
            elif marshal_token is not None or removed_ply[token] is None:
                masks[token] &= ~marshal_bit
    elif view.rules.flag_revealed_on_marshal_death:
        # The marshal's removal would have announced the flag: every removed token is not it.
        for token, ply in enumerate(removed_ply):
            if ply is not None:
                masks[token] &= ~marshal_bit
    captured = None
    if (
        view.end_reason == FLAG_CAPTURED
        and view.winner == view.player
        and view.history
        and view.history[-1].player == view.player
    ):
        last = len(view.history) - 1
        captured = next((t for t, ply in enumerate(removed_ply) if ply == last), None)
        flag_token = captured if captured is not None else flag_token
    # Removing the flag ends the game, so a token removed while the game went on was not it.
    for token, ply in enumerate(removed_ply):
        if ply is not None and token != captured:
            masks[token] &= ~flag_bit
    if flag_token is not None:
        for token in range(len(masks)):
            masks[token] &= flag_bit if token == flag_token else ~flag_bit


def _must_move(view, posts) -> tuple[int, ...]:
    """Living tokens with a destination, when the opponent must have a legal move now."""
    if view.end_reason is not None or view.current_player == view.player:
        return ()
    moves, _ = _tables(view.rules)
    owner, kind = list(view.owner), list(view.kind)
    # Opponent pieces read as NO_PIECE, i.e. as a mobile non-engineer; whether a mobile piece has
    # any destination does not depend on its type (an engineer's first railroad step is also a
    # straight slide).
    return tuple(
        token
        for token, post in enumerate(posts)
        if post is not None and moves.destinations(owner, kind, post)
    )


def _custom_position_evidence(view) -> Evidence:
    """A position without a deployment to replay: the living pieces and the core's masks."""
    opponent = 1 - view.player
    posts = [post for post in range(NUM_POSTS) if view.owner[post] == opponent]
    none = tuple(None for _ in posts)
    return Evidence(
        player=view.player,
        full_army=False,
        initial_posts=none,
        cells=none,
        posts=tuple(posts),
        removed_ply=none,
        masks=tuple(view.possible[post] for post in posts),
        must_move=_must_move(view, posts),
    )


# ---------------------------------------------------------------------- assignments
def complete_assignment(masks, capacity) -> list[int]:
    """One type per token, each inside its mask, at most ``capacity[k]`` of type k (exactly, when
    the tokens fill the capacity). Augmenting paths over the 12 types; ValueError if none."""
    spare = list(capacity)
    holders: list[list[int]] = [[] for _ in _TYPE_RANGE]
    assign = [NO_PIECE] * len(masks)
    for token in sorted(range(len(masks)), key=lambda t: bin(masks[t]).count("1")):
        # parent[v] = (previous type, token that moves into v); the search starts at the types
        # the new token may take, and follows tokens that may move to another type.
        parent: dict[int, tuple[int, int]] = {k: (NO_PIECE, token) for k in _BITS[masks[token]]}
        queue = list(parent)
        found = NO_PIECE
        for here in queue:
            if spare[here] > 0:
                found = here
                break
            for other in holders[here]:
                for there in _BITS[masks[other]]:
                    if there not in parent:
                        parent[there] = (here, other)
                        queue.append(there)
        if found == NO_PIECE:
            raise ValueError(
                "belief: inconsistent evidence: no assignment of types to the opponent's pieces "
                "fits both the army composition and the public history"
            )
        spare[found] -= 1
        there = found
        while True:
            here, mover = parent[there]
            if here != NO_PIECE:
                holders[here].remove(mover)
            holders[there].append(mover)
            assign[mover] = there
            if here == NO_PIECE:
                break
            there = here
    return assign


def _types_reaching(targets: int, union: list[int]) -> int:
    """Types from which a chain of re-assignments ends in ``targets``: type u reaches v when a
    token now of type u may take type v (``union[u]`` is the union of those tokens' masks)."""
    reach = targets
    grown = True
    while grown:
        grown = False
        for here in _TYPE_RANGE:
            if not reach >> here & 1 and union[here] & reach:
                reach |= 1 << here
                grown = True
    return reach


def feasible_masks(masks, capacity, assign) -> list[int]:
    """Each token's mask cut to the types some complete assignment gives it (the counting
    deductions: e.g. two removed tokens that can only be bombs or majors, with both majors known
    elsewhere, are the two bombs). ``assign`` is any complete assignment."""
    used = [0] * NUM_PIECE_TYPES
    for kind in assign:
        used[kind] += 1
    spare_types = sum(1 << k for k in _TYPE_RANGE if used[k] < capacity[k])
    result = []
    for token, mask in enumerate(masks):
        union = [0] * NUM_PIECE_TYPES
        for other, kind in enumerate(assign):
            if other != token:
                union[kind] |= masks[other]
        result.append(mask & _types_reaching(spare_types | 1 << assign[token], union))
    return result


class TokenSampler:
    """Draws a type for every token: inside its mask, within the army counts (exactly, for a full
    army), each token's type chosen with its weights among the types still feasible.

    Tokens are visited in random order. A complete assignment is kept throughout as a proof of
    feasibility: fixing token t to type k (t now holds j) is feasible when k == j, when k has a
    spare slot, or when some chain of unfixed tokens can shift k -> ... -> j (or -> a spare
    type), found by a search over the 12 types; the chain is then applied. So a draw never fails
    on consistent evidence and costs a few small searches.
    """

    def __init__(self, masks, weights, capacity=ARMY_COUNTS, assignment=None):
        self.masks = list(masks)
        self.capacity = list(capacity)
        self._base = (
            list(assignment) if assignment is not None
            else complete_assignment(self.masks, self.capacity)
        )  # fmt: skip
        used = [0] * NUM_PIECE_TYPES
        for kind in self._base:
            used[kind] += 1
        self._base_spare = [c - u for c, u in zip(self.capacity, used, strict=True)]
        # Per token, its (type, weight) pairs, and the same as types and running sums for the
        # common draw over the whole mask; a token whose weights vanish on its whole mask falls
        # back to uniform.
        self._choices = []
        self._cumulative = []
        for mask, row in zip(self.masks, weights, strict=True):
            pairs = [(kind, float(row[kind])) for kind in _BITS[mask] if row[kind] > 0]
            if not pairs:
                pairs = [(kind, 1.0) for kind in _BITS[mask]]
            self._choices.append(pairs)
            running, sums = 0.0, []
            for _kind, weight in pairs:
                running += weight
                sums.append(running)
            self._cumulative.append((tuple(kind for kind, _ in pairs), sums, running))

    def draw(self, rand: random.Random, first: int | None = None, first_mask: int = ALL_TYPES_MASK):
        """A list of types, one per token. ``first``/``first_mask``: fix that token first to a type
        inside ``first_mask`` (ValueError when impossible)."""
        masks, choices, cumulative = self.masks, self._choices, self._cumulative
        assign = self._base[:]
        spare = self._base_spare[:]
        uniform = rand.random
        keys = [uniform() for _ in masks]
        order = sorted(range(len(masks)), key=keys.__getitem__)
        if first is not None:
            order.remove(first)
            order.insert(0, first)
        for index, token in enumerate(order):
            current = assign[token]
            restricted = index == 0 and first is not None
            if restricted:
                kind = NO_PIECE  # straight to the exact feasible set below
            else:
                kinds, sums, total = cumulative[token]
                position = bisect_right(sums, uniform() * total)
                kind = kinds[position if position < len(kinds) else -1]
                if kind == current:
                    continue
                if spare[kind] > 0:
                    spare[kind] -= 1
                    spare[current] += 1
                    assign[token] = kind
                    continue
            union = [0] * NUM_PIECE_TYPES
            for other in order[index + 1 :]:
                union[assign[other]] |= masks[other]
            if kind != NO_PIECE and _shift_chain(kind, current, union, spare, assign, masks,
                                                 order, index + 1):  # fmt: skip
                assign[token] = kind
                continue
            # The drawn type is infeasible: draw again among exactly the feasible types (the
            # same distribution as redrawing until feasible).
            targets = 1 << current
            for spare_kind in _TYPE_RANGE:
                if spare[spare_kind] > 0:
                    targets |= 1 << spare_kind
            allowed = masks[token] & _types_reaching(targets, union)
            if restricted:
                allowed &= first_mask
            kind = _weighted_pick(choices[token], allowed, uniform)
            if kind == NO_PIECE:
                raise ValueError("belief: the first token cannot take those types")
            if kind == current:
                continue
            if spare[kind] > 0:
                spare[kind] -= 1
                spare[current] += 1
            elif not _shift_chain(kind, current, union, spare, assign, masks, order, index + 1):
                raise AssertionError("belief: a feasible type without a shift chain")
            assign[token] = kind
        return assign


def _weighted_pick(pairs, allowed: int, uniform) -> int:
    total = 0.0
    for kind, weight in pairs:
        if allowed >> kind & 1:
            total += weight
    if total <= 0.0:
        # Only zero-weight (or no) types remain: uniform over what the mask still allows.
        left = _BITS[allowed]
        return left[int(uniform() * len(left))] if left else NO_PIECE
    threshold = uniform() * total
    last = NO_PIECE
    for kind, weight in pairs:
        if allowed >> kind & 1:
            last = kind
            threshold -= weight
            if threshold < 0.0:
                return kind
    return last  # rounding


def _shift_chain(start, freed, union, spare, assign, masks, order, rest_from) -> bool:
    """Find types start -> ... -> end where each step moves one unfixed token to the next type and
    ``end`` is ``freed`` (the slot the fixed token leaves) or has a spare slot; apply it."""
    parent = [NO_PIECE] * NUM_PIECE_TYPES
    seen = 1 << start
    frontier = [start]
    end = NO_PIECE
    for here in frontier:
        step = union[here] & ~seen
        if not step:
            continue
        for there in _BITS[step]:
            parent[there] = here
            seen |= 1 << there
            if there == freed or spare[there] > 0:
                end = there
                break
            frontier.append(there)
        if end != NO_PIECE:
            break
    if end == NO_PIECE:
        return False
    if end != freed:
        spare[end] -= 1
        spare[freed] += 1
    # Walk back from the end: each step's token still holds its old type when it is moved.
    there = end
    while there != start:
        here = parent[there]
        for position in range(rest_from, len(order)):
            other = order[position]
            if assign[other] == here and masks[other] >> there & 1:
                assign[other] = there
                break
        there = here
    return True


# ---------------------------------------------------------------------- trackers
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
        priors = _PAPER_PRIORS[list(self.evidence.cells)]
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
# The tracker with the lower log-loss in scripts/eval_beliefs.py (docs/results.md).
DEFAULT_BELIEF = "count"


def make_belief(name: str, view) -> BeliefTracker:
    """The tracker ``name`` (a key of ``BELIEFS``) built from ``view``."""
    cls = BELIEFS.get(name)
    if cls is None:
        raise ValueError(f"unknown belief {name!r}; known: {', '.join(sorted(BELIEFS))}")
    return cls.from_view(view)
