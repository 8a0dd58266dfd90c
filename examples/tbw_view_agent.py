r"""A minimal TBW view agent: attack the weakest enemy in reach, else make a random move.

Rate it against the built-in agents (every pair plays --games paired games):

    python scripts/arena.py --game tbw --games 10 \
        --agents examples/tbw_view_agent.py:WeakestFirst greedy random

Arguments follow the name as in any spec:
``--agents examples/tbw_view_agent.py:WeakestFirst,move_chance=0.5``.

A view agent is a class with ``reset(seed)`` and ``act(view)``. The arena builds it for every game
as ``WeakestFirst(seed=seed, **arguments)``, calls ``reset`` before the game, then ``act`` with
this player's view of the position (for TBW, a copy of the state) and plays the action it
returns: an int from ``view.legal_actions()``.
"""

import random

from tbw_envs.tbw import END_TURN


class WeakestFirst:
    def __init__(self, seed=None, move_chance=1.0):
        self.rng = random.Random(seed)
        self.move_chance = move_chance  # of moving a unit rather than ending the turn

    def reset(self, seed=None):
        self.rng.seed(seed)

    def act(self, view):
        attacks, moves = [], []
        for action in view.legal_actions():
            decoded = view.decode_action(action)
            if decoded == END_TURN:
                continue
            unit, destination, target = decoded
            if target is not None:
                attacks.append((view.hp[target], action))
            else:
                moves.append(action)
        if attacks:
            weakest = min(hp for hp, _ in attacks)
            return self.rng.choice([action for hp, action in attacks if hp == weakest])
        if moves and self.rng.random() < self.move_chance:
            return self.rng.choice(moves)
        return view.end_turn_action
