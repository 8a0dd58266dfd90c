"""Type assignments for the opponent's tokens: one complete assignment within the masks and the
army counts (a proof that the evidence is consistent), the masks cut to what some assignment
allows, and the sampler every tracker draws its determinizations from."""

from __future__ import annotations

import random
from bisect import bisect_right

from tbw_envs.junqi.pieces import ALL_TYPES_MASK, ARMY_COUNTS, NO_PIECE, NUM_PIECE_TYPES

_TYPE_RANGE = range(NUM_PIECE_TYPES)
# The types in each 12-bit mask, in increasing order.
_BITS = tuple(tuple(k for k in _TYPE_RANGE if mask >> k & 1) for mask in range(1 << 12))


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
    token now of type u may take type v (``union[u]`` is the union of those tokens' masks).

    The fixpoint of ``_types_reaching_reference`` (the cheaper test first)."""
    reach = targets
    grown = True
    while grown:
        grown = False
        for here in _TYPE_RANGE:
            if union[here] & reach and not reach >> here & 1:
                reach |= 1 << here
                grown = True
    return reach


def _types_reaching_reference(targets: int, union: list[int]) -> int:
    """``_types_reaching`` as a plain fixpoint over all 12 types (its specification)."""
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
        self._tight = not any(spare > 0 for spare in self._base_spare)
        # Per token, ``_pick_table`` by allowed-types mask, filled as draws need them.
        self._pick_tables: list[dict[int, tuple]] = [{} for _ in self.masks]
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
        inside ``first_mask`` (ValueError when impossible).

        ``draw_reference`` written for speed: the same random numbers in the same order and the
        same result. With a full army (no spare slot, the usual case) a drawn type that one
        unfixed token gives up for the fixed token's (a one-step chain) is settled by the scan
        that builds the unions, stopping there."""
        masks, choices, cumulative = self.masks, self._choices, self._cumulative
        pick_tables = self._pick_tables
        assign = self._base[:]
        spare = self._base_spare[:]
        # No spare slot now means none ever: a slot frees only when a token takes a spare one.
        tight = self._tight
        uniform = rand.random
        keys = [uniform() for _ in masks]
        order = sorted(range(len(masks)), key=keys.__getitem__)
        if first is not None:
            order.remove(first)
            order.insert(0, first)
        for index, token in enumerate(order):
            current = assign[token]
            restricted = index == 0 and first is not None
            union = None
            if restricted:
                kind = NO_PIECE  # straight to the exact feasible set below
                rest = order[1:]
            else:
                kinds, sums, total = cumulative[token]
                position = bisect_right(sums, uniform() * total)
                kind = kinds[position if position < len(kinds) else -1]
                if kind == current:
                    continue
                rest = order[index + 1 :]
                if tight:
                    # A one-step chain (the search's first level reaches ``current`` and stops
                    # there): the first unfixed token of type ``kind`` that may take
                    # ``current`` swaps with this one. Otherwise the scan built the unions.
                    current_bit = 1 << current
                    union = [0] * NUM_PIECE_TYPES
                    swapped = False
                    for other in rest:
                        held = assign[other]
                        mask = masks[other]
                        if held == kind and mask & current_bit:
                            assign[other] = current
                            swapped = True
                            break
                        union[held] |= mask
                    if swapped:
                        assign[token] = kind
                        continue
                elif spare[kind] > 0:
                    spare[kind] -= 1
                    spare[current] += 1
                    assign[token] = kind
                    continue
            if union is None:
                union = [0] * NUM_PIECE_TYPES
                for other in rest:
                    union[assign[other]] |= masks[other]
            if kind != NO_PIECE and _shift_chain(kind, current, union, spare, assign, masks, rest):
                assign[token] = kind
                continue
            # The drawn type is infeasible: draw again among exactly the feasible types (the
            # same distribution as redrawing until feasible).
            targets = 1 << current
            if not tight:
                for spare_kind in _TYPE_RANGE:
                    if spare[spare_kind] > 0:
                        targets |= 1 << spare_kind
            allowed = masks[token] & _types_reaching(targets, union)
            if restricted:
                allowed &= first_mask
            picks = pick_tables[token]
            table = picks.get(allowed)
            if table is None:
                table = picks[allowed] = _pick_table(choices[token], allowed)
            kind = _pick(table, uniform)
            if kind == NO_PIECE:
                raise ValueError("belief: the first token cannot take those types")
            if kind == current:
                continue
            if tight and union[kind] >> current & 1:
                # The one-step chain again (what the search would find first).
                current_bit = 1 << current
                for other in rest:
                    if assign[other] == kind and masks[other] & current_bit:
                        assign[other] = current
                        break
            elif spare[kind] > 0:
                spare[kind] -= 1
                spare[current] += 1
            elif not _shift_chain(kind, current, union, spare, assign, masks, rest):
                raise AssertionError("belief: a feasible type without a shift chain")
            assign[token] = kind
        return assign

    def draw_reference(self, rand: random.Random, first: int | None = None,
                       first_mask: int = ALL_TYPES_MASK):
        """``draw`` as first written (its specification): the same types from the same random
        numbers, drawn in the same order."""
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
            if kind != NO_PIECE and _shift_chain_reference(
                kind, current, union, spare, assign, masks, order, index + 1
            ):
                assign[token] = kind
                continue
            # The drawn type is infeasible: draw again among exactly the feasible types (the
            # same distribution as redrawing until feasible).
            targets = 1 << current
            for spare_kind in _TYPE_RANGE:
                if spare[spare_kind] > 0:
                    targets |= 1 << spare_kind
            allowed = masks[token] & _types_reaching_reference(targets, union)
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
            elif not _shift_chain_reference(
                kind, current, union, spare, assign, masks, order, index + 1
            ):
                raise AssertionError("belief: a feasible type without a shift chain")
            assign[token] = kind
        return assign


def _pick_table(pairs, allowed: int) -> tuple:
    """What ``_weighted_pick(pairs, allowed, ...)`` reads of ``pairs``: the allowed pairs, their
    total (summed in the same order) and the allowed types (for the uniform fallback)."""
    kept = []
    total = 0.0
    for pair in pairs:
        if allowed >> pair[0] & 1:
            kept.append(pair)
            total += pair[1]
    return kept, total, _BITS[allowed]


def _pick(table: tuple, uniform) -> int:
    """``_weighted_pick`` from a ``_pick_table``: the same type from the same random number."""
    kept, total, left = table
    if total <= 0.0:
        return left[int(uniform() * len(left))] if left else NO_PIECE
    threshold = uniform() * total
    last = NO_PIECE
    for kind, weight in kept:
        last = kind
        threshold -= weight
        if threshold < 0.0:
            return kind
    return last  # rounding


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


def _shift_chain(start, freed, union, spare, assign, masks, rest) -> bool:
    """Find types start -> ... -> end where each step moves one unfixed token (one of ``rest``,
    in their order) to the next type and ``end`` is ``freed`` (the slot the fixed token leaves)
    or has a spare slot; apply it."""
    seen = 1 << start
    if not union[start] & ~seen:
        return False  # no unfixed token of type ``start`` may move
    parent = [NO_PIECE] * NUM_PIECE_TYPES
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
        bit = 1 << there
        for other in rest:
            if assign[other] == here and masks[other] & bit:
                assign[other] = there
                break
        there = here
    return True


def _shift_chain_reference(start, freed, union, spare, assign, masks, order, rest_from) -> bool:
    """``_shift_chain`` over positions in ``order`` (its specification)."""
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
