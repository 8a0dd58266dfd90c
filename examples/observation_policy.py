r"""An observation policy for either game: a random legal action, drawn from the position itself.

Rate it (the same file plays TBW and Junqi):

    python scripts/arena.py --game tbw --games 10 \
        --agents examples/observation_policy.py:policy greedy random
    python scripts/arena.py --game junqi --games 10 \
        --agents examples/observation_policy.py:policy greedy random

An observation policy is a function ``policy(observation, action_mask) -> action`` that sees
exactly what the env gives its player (``env.observe(agent)``): the observation planes (float32,
in the player's own frame) and the legal-action mask (int8, 1 where legal). It returns the index
of a legal action in that frame, as ``env.step`` takes it. A trained network fits here:
``return int(np.argmax(logits + np.where(action_mask, 0, -np.inf)))``.

The choice depends on the inputs only (the random generator is seeded from them), so a round
robin plays the same games with any number of workers.
"""

import zlib

import numpy as np


def policy(observation, action_mask):
    legal = np.flatnonzero(action_mask)
    seed = zlib.crc32(action_mask.tobytes(), zlib.crc32(observation.tobytes()))
    return int(legal[np.random.default_rng(seed).integers(len(legal))])
