"""Agent parameters hold to the input contract (``agents.common.params``): every agent's
constructor and reset refuse a bad seed or argument with an error that names the parameter and
quotes the value (bounded); numpy integer seeds play the stream of the same Python int; the caps
are the documented ones."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from agents.common import params
from agents.junqi import GreedyAgent as JunqiGreedyAgent
from agents.junqi import ISMCTSAgent, MCTSAgent, SearchBudget, UCBMCTSAgent
from agents.random_agent import RandomAgent
from agents.registry import (
    make_agent,
    parse_agent_spec,
)
from agents.tbw import GreedyAgent, OEPAgent, TBWSearchAgent, TBWTreeAgent
from agents.tbw.search import Budget
from tbw_envs.tbw import TBWState, load_scenario
from tests.helpers.errors import BAD_SEEDS, raises_naming

pytestmark = pytest.mark.input_contract

AGENT_CLASSES = [RandomAgent, GreedyAgent, OEPAgent, TBWTreeAgent, JunqiGreedyAgent, MCTSAgent,
                 UCBMCTSAgent, ISMCTSAgent]


@pytest.mark.parametrize("seed, error, shown", BAD_SEEDS, ids=[repr(s[0]) for s in BAD_SEEDS])
@pytest.mark.parametrize("cls", AGENT_CLASSES, ids=lambda c: c.__name__)
def test_constructors_and_reset_refuse_bad_seeds(cls, seed, error, shown):
    raises_naming(lambda: cls(seed=seed), error, "seed", shown, cls.__name__)
    agent = cls(seed=0)
    raises_naming(lambda: agent.reset(seed), error, "seed", shown, cls.__name__)
    raises_naming(lambda: TBWSearchAgent().reset(seed), error, "seed", shown)


def test_a_negative_seed_no_longer_plays_the_stream_of_its_absolute_value():
    # random.Random(-1) is random.Random(1): refusing it is the only honest answer.
    assert random.Random(-1).random() == random.Random(1).random()
    with pytest.raises(ValueError, match="seed must be >= 0, got -1"):
        RandomAgent(-1)


def _moves(agent, state, count=10):
    return [agent.act(state) for _ in range(count)]


def test_numpy_integer_seeds_play_the_stream_of_the_same_python_int():
    state = TBWState.initial(load_scenario("duel_5v5_8x8"))
    for seed in (np.int64(3), np.uint8(3), np.int32(3), 3):
        agent = make_agent("random", seed=seed, game="tbw")
        assert _moves(agent, state) == _moves(RandomAgent(3), state)
        agent.reset(np.uint16(5))
        assert _moves(agent, state) == _moves(RandomAgent(5), state)
    for cls in AGENT_CLASSES:
        cls(seed=np.int64(2)).reset(np.uint32(7))
    # Any integer size, as random.Random takes it.
    big = 2**80
    assert _moves(make_agent("random", seed=big), state) == _moves(RandomAgent(big), state)


# ------------------------------------------------------------------ bad constructor arguments
nan, inf = math.nan, math.inf
BAD_ARGUMENTS = [
    (UCBMCTSAgent, {"seconds": nan}, ValueError, ["seconds", "nan"]),
    (MCTSAgent, {"seconds": inf}, ValueError, ["seconds", "inf"]),
    (ISMCTSAgent, {"seconds": np.float64(nan)}, ValueError, ["seconds", "nan"]),
    (UCBMCTSAgent, {"seconds": 1e9}, ValueError, ["seconds", "1000000000"]),
    (ISMCTSAgent, {"cof": nan}, ValueError, ["cof", "nan"]),
    (MCTSAgent, {"rollout_limit": 2.5}, TypeError, ["rollout_limit", "2.5"]),
    (MCTSAgent, {"rollout_limit": "200"}, TypeError, ["rollout_limit", "'200'"]),
    (UCBMCTSAgent, {"iterations": 10**7}, ValueError, ["iterations", "10000000"]),
    (UCBMCTSAgent, {"weights": 3}, TypeError, ["weights", "3"]),
    (JunqiGreedyAgent, {"weights": ["x"] * 10**6}, TypeError, ["weights", "'x'"]),
    (JunqiGreedyAgent, {"belief": "psychic"}, ValueError, ["belief", "psychic"]),
    (ISMCTSAgent, {"layout": ["heuristic"]}, TypeError, ["layout", "heuristic"]),
    (TBWSearchAgent, {"kernel": "foo"}, ValueError, ["kernel", "foo"]),
    (TBWSearchAgent, {"evaluate": "foo"}, TypeError, ["evaluate", "foo"]),
    (TBWSearchAgent, {"budget": inf}, ValueError, ["budget", "inf"]),
    (TBWSearchAgent, {"budget": Budget(seconds=inf)}, ValueError, ["seconds", "inf"]),
    (TBWSearchAgent, {"budget": "x" * 10**6}, TypeError, ["budget", "xxx"]),
    (TBWSearchAgent, {"algorithm": "alg3"}, ValueError, ["algorithm", "alg3"]),
    (OEPAgent, {"seconds": inf}, ValueError, ["seconds", "inf"]),
    (OEPAgent, {"population": 10**6}, ValueError, ["population", "1000000"]),
    (TBWTreeAgent, {"depth": 10**6}, ValueError, ["depth", "1000000"]),
    (TBWTreeAgent, {"recipes": ["best", 3]}, TypeError, ["recipe", "3"]),
    (TBWTreeAgent, {"recipes": "best+" + "x" * 10**6}, ValueError, ["recipe", "xxx"]),
    (TBWTreeAgent, {"reuse": 2}, ValueError, ["reuse", "2"]),
    (SearchBudget, {"seconds": nan}, ValueError, ["seconds", "nan"]),
]


@pytest.mark.parametrize("cls, kwargs, error, words", BAD_ARGUMENTS,
                         ids=[f"{c.__name__}-{next(iter(k))}" for c, k, _, _ in BAD_ARGUMENTS])
def test_bad_constructor_arguments_are_refused(cls, kwargs, error, words):
    raises_naming(lambda: cls(**kwargs), error, *words)


def test_a_python_budget_of_infinite_seconds_is_refused():
    with pytest.raises(ValueError, match="finite"):
        Budget.of(inf)


def test_caps_are_the_documented_ones():
    """The README and agents/common/params.py document these caps; the values at a cap are
    accepted."""
    assert (params.MAX_SECONDS, params.MAX_THREADS, params.MAX_ITERATIONS) == (3600.0, 256,
                                                                               1_000_000)
    assert make_agent("ucbmcts:seconds=3600", game="junqi").budget.seconds == 3600.0
    assert parse_agent_spec("ppo:path=x,threads=256")[1]["threads"] == 256
    assert make_agent("tree:solves=1,depth=100", game="tbw").depth == 100
