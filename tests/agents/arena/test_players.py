"""The arena's entrants (``agents.arena.players``): a spec is parsed once per process, not once
per game, and the agent it builds (or the error it raises) is ``make_agent``'s."""

from __future__ import annotations

import os

import pytest

from agents.arena import run_round_robin
from agents.arena.players import build_agent
from agents.registry import make_agent
from tbw_envs.games import get_game

# A user agent whose PARAMS (what a spec's values are cast by) count their reads in a file, one
# line per read naming the reading process: reading them is parsing the spec.
COUNTED_AGENT = '''
import os
from collections.abc import Mapping

from agents.common.params import Int
from agents.random_agent import RandomAgent

COUNT_FILE = {count_file!r}


class CountedParams(Mapping):
    def __init__(self, params):
        self._params = params

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __len__(self):
        return len(self._params)

    def items(self):
        with open(COUNT_FILE, "a") as handle:
            handle.write(f"{{os.getpid()}}\\n")
        return self._params.items()


class Counted(RandomAgent):
    PARAMS = CountedParams({{"depth": Int(low=0, high=9)}})

    def __init__(self, seed=None, depth=1):
        super().__init__(seed=seed)
        self.depth = depth
'''


def test_a_round_robin_parses_a_spec_once_per_process_not_once_per_game(tmp_path):
    count_file = tmp_path / "reads.txt"
    agent_file = tmp_path / "counted.py"
    agent_file.write_text(COUNTED_AGENT.format(count_file=str(count_file)))
    spec = f"{agent_file}:Counted,depth=2"

    def reads(games_per_pairing, workers):
        count_file.write_text("")
        result = run_round_robin("tbw", [spec, "random"], games_per_pairing, seed=1,
                                 workers=workers, variant="paper_figure3", bootstrap=0)
        assert len(result.games) == games_per_pairing
        return count_file.read_text().split()

    assert reads(2, workers=1) == [str(os.getpid())]  # checked, warmed up, played: once
    assert reads(6, workers=1) == []  # six more games in this process: not parsed again
    # Fresh worker processes: once in each (it warms the agents up), whatever the games.
    in_workers = reads(8, workers=2)
    assert 1 <= len(in_workers) == len(set(in_workers)) <= 2
    assert str(os.getpid()) not in in_workers


@pytest.mark.parametrize(("game", "spec"), [
    ("tbw", "greedy"), ("tbw", "exact:budget=50"), ("junqi", "ucbmcts:iterations=3"),
    ("junqi", "ucbmcts:kernel=bogus"), ("junqi", "ismcts:belief=nope"), ("tbw", "ppo"),
    ("tbw", "exact:weights=nope"), ("tbw", "tree:solves=-1"), ("tbw", "ismcts"),
    ("tbw", "random:seed=3"),
])
def test_an_entrant_is_built_as_make_agent_builds_it(game, spec):
    def outcome(build):
        try:
            agent = build()
        except Exception as exc:
            return type(exc), str(exc)
        return type(agent), agent.name, getattr(agent, "__dict__", {}).keys()

    made = outcome(lambda: make_agent(spec, seed=5, game=game))
    assert outcome(lambda: build_agent(spec, 5, get_game(game))) == made
    assert outcome(lambda: build_agent(spec, 5, get_game(game))) == made  # and once resolved
