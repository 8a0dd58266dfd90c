r"""A minimal Junqi view agent: capture a piece only when sure to win, else move without attacking.

Rate it against the built-in agents (every pair plays --games paired games):

    python scripts/arena.py --game junqi --games 10 \
        --agents examples/junqi_view_agent.py:SureCaptures greedy random

A view agent is a class with ``reset(seed)`` and ``act(view)``. The arena builds it for every game
as ``SureCaptures(seed=seed)``, calls ``reset`` before the game, then ``act`` with this player's
view: its own pieces (``view.kind`` and ``view.owner`` by post) and, for each opponent piece, the
types it may still be (``view.possible``, a bit mask deduced from the game so far). Actions are
moves ``from_post * 60 + to_post`` (``view.decode_action``). Layouts are drawn at random unless
the class has ``layout(rng, rules)`` (docs/junqi.md).
"""

import random

from tbw_envs.junqi import piece_kind

# Piece types: the ranked pieces first, strongest (marshal, 0) to weakest (engineer, 8).
MINE, FLAG = piece_kind("mine"), piece_kind("flag")


class SureCaptures:
    def __init__(self, seed=None):
        self.rng = random.Random(seed)

    def reset(self, seed=None):
        self.rng.seed(seed)

    def act(self, view):
        actions = view.legal_actions()
        captures, quiet = [], []
        for action in actions:
            start, end = view.decode_action(action)
            if view.owner[end] != view.opponent:
                quiet.append(action)
                continue
            ours = view.kind[start]
            could_be = [kind for kind in range(FLAG + 1) if view.possible[end] >> kind & 1]
            if all(kind == FLAG or ours < kind < MINE for kind in could_be):
                captures.append(action)
        return self.rng.choice(captures or quiet or actions)
