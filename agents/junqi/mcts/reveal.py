"""What an attack tells: the entropy of the referee's announced result under the belief.

A search over determinizations sees no worth in learning what a hidden piece is, since every
determinization already holds one. ``ISMCTSAgent``'s ``reveal`` parameter credits each root
attack with ``reveal x reveal_entropy(...)`` in piece-value units: an attack whose result the
belief cannot foretell (a lieutenant onto a piece that may be a mine, a bomb or an engineer) is
worth more than one it can (a marshal onto a piece that is surely smaller).
"""

from __future__ import annotations

import math

from tbw_envs.junqi.actions import decode_action
from tbw_envs.junqi.pieces import NUM_PIECE_TYPES, combat_table


def reveal_entropy(view, belief, action: int) -> float:
    """The entropy (nats) of the announced result of ``action`` for the player of ``view``
    when it moves onto an opponent piece whose type follows ``belief.probs``; 0 for a move
    onto an empty post."""
    source, target = decode_action(action)
    if view.owner[target] != view.opponent:
        return 0.0
    results = combat_table(view.rules)[view.kind[source]]
    probs = belief.probs(target)
    by_result: dict[int, float] = {}
    for kind in range(NUM_PIECE_TYPES):
        p = float(probs[kind])
        if p > 0.0:
            by_result[results[kind]] = by_result.get(results[kind], 0.0) + p
    entropy = 0.0
    for result in sorted(by_result):
        p = by_result[result]
        entropy -= p * math.log(p)
    return entropy
