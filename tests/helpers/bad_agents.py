"""Agent files that misbehave, for the tests of what the arena does with them
(``--on-agent-error``): written into a test's folder and named by ``path.py:Name``."""

from __future__ import annotations

from pathlib import Path

# A seeded random player that counts its moves in a game: the base class (``Random``) of the
# misbehaving agents the forfeit tests write, which put it at the head of their files.
RANDOM_AGENT = '''
import random


class Random:
    def __init__(self, seed=None):
        self.rng = random.Random(seed)
        self.moves = 0

    def reset(self, seed=None):
        self.rng.seed(seed)
        self.moves = 0

    def act(self, view):
        self.moves += 1
        return self.rng.choice(view.legal_actions())
'''

BAD_AGENTS = '''
import random


class RaisesOnThird:
    """Plays at random, and raises on its third move of a game."""

    def __init__(self, seed=None):
        self.rng = random.Random(seed)
        self.moves = 0

    def reset(self, seed=None):
        self.rng.seed(seed)
        self.moves = 0

    def act(self, view):
        self.moves += 1
        if self.moves == 3:
            raise ValueError("the third move is cursed")
        return self.rng.choice(view.legal_actions())


class Illegal:
    """Returns the smallest action that is not legal."""

    def __init__(self, seed=None):
        pass

    def reset(self, seed=None):
        pass

    def act(self, view):
        legal = set(view.legal_actions())
        return next(action for action in range(10**6) if action not in legal)


class ReturnsNone:
    def __init__(self, seed=None):
        pass

    def reset(self, seed=None):
        pass

    def act(self, view):
        return None
'''

BAD_AGENT_NAMES = ("RaisesOnThird", "Illegal", "ReturnsNone")


def write_bad_agents(folder: Path, declaration: str = "", stem: str = "bad_agents") -> dict:
    """The specs of ``BAD_AGENTS``'s agents, by class name, written to ``folder/stem.py``;
    ``declaration`` (such as ``GAME = "junqi"``) heads the file."""
    path = folder / f"{stem}.py"
    path.write_text(f"{declaration}\n{BAD_AGENTS}" if declaration else BAD_AGENTS)
    return {name: f"{path}:{name}" for name in BAD_AGENT_NAMES}
