"""Agent spec strings and agent parameters hold to the input contract (agents/params.py,
agents/registry.py): a bad value is refused when the agent is built, with an error that names the
parameter and quotes the value (bounded); valid edge cases are accepted and typed as declared."""

from __future__ import annotations

import inspect
import math
import random

import numpy as np
import pytest

from agents import params
from agents.junqi import GreedyEvalAgent, ISMCTSAgent, MCTSAgent, SearchBudget, UCBMCTSAgent
from agents.params import ParameterTypeError
from agents.random_agent import RandomAgent
from agents.registry import (
    AGENT_GAMES,
    MAX_SPEC_CHARS,
    agent_params,
    make_agent,
    parse_agent_spec,
)
from agents.tbw import GreedyAgent, OEPAgent, TBWSearchAgent, TBWTreeAgent
from agents.tbw.search import Budget
from tbw_envs.tbw import load_scenario

# Every message of this layer stays short, whatever the value (short_repr cuts values to 100).
MAX_MESSAGE = 700


def _raises(build, error, *words):
    with pytest.raises(error) as info:
        build()
    message = str(info.value)
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    assert len(message) <= MAX_MESSAGE, f"{len(message)} characters: {message[:200]}..."
    return message


# ------------------------------------------------------------------ bad specs
# (spec, game, error, words the message must hold: the parameter and an excerpt of the value)
BAD_SPECS = [
    # Time budgets: finite, > 0, at most MAX_SECONDS (NaN played 0 iterations, inf never returned).
    ("ucbmcts:seconds=nan", "junqi", ValueError, ["seconds", "nan"]),
    ("mcts:seconds=nan", "junqi", ValueError, ["seconds", "nan"]),
    ("ismcts:seconds=nan", "junqi", ValueError, ["seconds", "nan"]),
    ("ucbmcts:seconds=inf", "junqi", ValueError, ["seconds", "inf"]),
    ("mcts:seconds=-inf", "junqi", ValueError, ["seconds", "inf"]),
    ("ismcts:seconds=0", "junqi", ValueError, ["seconds", "0"]),
    ("ucbmcts:seconds=-1", "junqi", ValueError, ["seconds", "-1"]),
    ("ucbmcts:seconds=3600.5", "junqi", ValueError, ["seconds", "3600.5", "3600"]),
    ("oep:seconds=nan", "tbw", ValueError, ["seconds", "nan"]),
    ("tree:seconds=inf", "tbw", ValueError, ["seconds", "inf"]),
    ("search:budget=inf", "tbw", ValueError, ["budget", "inf"]),
    ("alg5:budget=nan", "tbw", ValueError, ["budget", "nan"]),
    ("exact:budget=fast", "tbw", ValueError, ["budget", "fast"]),
    ("exact:budget=1000000000001", "tbw", ValueError, ["budget", "1000000000001"]),
    # Exploration constants and other numbers: finite and in range.
    ("ucbmcts:cof=nan", "junqi", ValueError, ["cof", "nan"]),
    ("mcts:cof=-1", "junqi", ValueError, ["cof", "-1"]),
    ("ismcts:cof=inf", "junqi", ValueError, ["cof", "inf"]),
    ("ismcts:prior_visits=inf", "junqi", ValueError, ["prior_visits", "inf"]),
    ("tree:tolerance=-1", "tbw", ValueError, ["tolerance", "-1"]),
    ("oep:mutation_rate=1.5", "tbw", ValueError, ["mutation_rate", "1.5"]),
    # Integers: never truncated, never compared as strings, capped.
    ("ucbmcts:iterations=2.5", "junqi", ValueError, ["iterations", "2.5"]),
    ("ucbmcts:iterations=0", "junqi", ValueError, ["iterations", "0"]),
    ("ismcts:iterations=1000001", "junqi", ValueError, ["iterations", "1000001"]),
    ("mcts:rollout_limit=2.5", "junqi", ValueError, ["rollout_limit", "2.5"]),
    ("mcts:rollout_limit=abc", "junqi", ValueError, ["rollout_limit", "abc"]),
    ("ucbmcts:expand_k=0", "junqi", ValueError, ["expand_k", "0"]),
    ("ucbmcts:iterations=" + "9" * 5000, "junqi", ValueError, ["iterations", "99999"]),
    ("oep:population=1", "tbw", ValueError, ["population", "1"]),
    ("oep:generations=-1", "tbw", ValueError, ["generations", "-1"]),
    ("tree:depth=0", "tbw", ValueError, ["depth", "0"]),
    ("tree:depth=101", "tbw", ValueError, ["depth", "101"]),
    ("tree:width=1.5", "tbw", ValueError, ["width", "1.5"]),
    ("tree:solve_nodes=many", "tbw", ValueError, ["solve_nodes", "many"]),
    ("ppo:path=model.zip,threads=100000", "tbw", ValueError, ["threads", "100000", "256"]),
    ("ppo:path=model.zip,threads=-1", "junqi", ValueError, ["threads", "-1"]),
    # Bools and names: checked when the agent is built, not at its first move.
    ("ppo:path=model.zip,deterministic=maybe", "tbw", ValueError, ["deterministic", "maybe"]),
    ("tree:reuse=maybe", "tbw", ValueError, ["reuse", "maybe"]),
    ("search:kernel=foo", "tbw", ValueError, ["kernel", "foo"]),
    ("exact:kernel=foo", "tbw", ValueError, ["kernel", "foo"]),
    ("alg5:kernel=numba,budget=0.5", "tbw", ValueError, ["kernel", "numba"]),
    ("search:algorithm=alg3", "tbw", ValueError, ["algorithm", "alg3"]),
    ("exact:evaluate=foo", "tbw", ValueError, ["evaluate", "foo", "weights"]),
    ("exact:weights=nope", "tbw", ValueError, ["weights", "nope"]),
    ("ucbmcts:weights=nope", "junqi", ValueError, ["weights", "nope"]),
    ("ismcts:belief=psychic", "junqi", ValueError, ["belief", "psychic"]),
    ("greedy:belief=psychic", "junqi", ValueError, ["belief", "psychic"]),
    ("greedy:layout=fortress", "junqi", ValueError, ["layout", "fortress"]),
    ("ucbmcts:leaf=foo", "junqi", ValueError, ["leaf", "foo"]),
    ("ismcts:opponent=psychic", "junqi", ValueError, ["opponent", "psychic"]),
    ("tree:recipes=best+sideways:2", "tbw", ValueError, ["recipe", "sideways:2"]),
    ("tree:recipes=other+best", "tbw", ValueError, ["recipes", "other+best"]),
    # Keys: unknown, repeated, not for specs, missing.
    ("ucbmcts:iterations=5,iterations=7", "junqi", ValueError, ["iterations", "twice"]),
    ("greedy:depth=3", "tbw", ValueError, ["depth", "unknown parameter"]),
    ("oep:budget=3", "tbw", ValueError, ["budget", "unknown parameter"]),
    ("exact:algorithm=alg2", "tbw", ValueError, ["algorithm", "unknown parameter"]),
    ("ucbmcts:seed=3", "junqi", ValueError, ["seed", "seed="]),
    ("ppo", "tbw", ValueError, ["path"]),
    ("ppo:path=", "tbw", ValueError, ["path", "''"]),
    ("ppo:deterministic=1", "junqi", ValueError, ["path"]),
    # Syntax.
    ("greedy:fast", "tbw", ValueError, ["key=value", "fast"]),
    ("greedy:=3", "tbw", ValueError, ["key=value", "=3"]),
    ('ppo:path="runs/a,b/model.zip', "tbw", ValueError, ["path", "quote"]),
    ('ppo:path="runs/a,b"/model.zip', "tbw", ValueError, ["path", "/model.zip"]),
    (":iterations=3", "junqi", ValueError, ["name"]),
    ("minimax", "tbw", ValueError, ["unknown agent", "minimax"]),
]


@pytest.mark.parametrize("spec, game, error, words", BAD_SPECS,
                         ids=[case[0][:60] for case in BAD_SPECS])
def test_bad_specs_are_refused_when_the_agent_is_built(spec, game, error, words):
    _raises(lambda: make_agent(spec, seed=0, game=game), error, *words)


def test_type_errors_are_type_errors_and_value_errors():
    """A wrong type raises ParameterTypeError: a TypeError (the contract) that code catching the
    ValueError the agents raised before still catches."""
    assert issubclass(ParameterTypeError, TypeError) and issubclass(ParameterTypeError, ValueError)
    with pytest.raises(TypeError):
        make_agent("random", seed=1.5)
    with pytest.raises(ValueError):
        make_agent("random", seed=1.5)


@pytest.mark.parametrize("spec", [None, 7, b"greedy", ["greedy"], {"name": "greedy"}])
def test_a_spec_that_is_not_a_string_is_a_type_error(spec):
    _raises(lambda: make_agent(spec), TypeError, "spec", type(spec).__name__)
    _raises(lambda: parse_agent_spec(spec), TypeError, "spec")


def test_a_huge_spec_is_refused_with_a_bounded_message():
    for spec in ("ucbmcts:weights=" + "x" * 1_000_000,
                 "ucbmcts:iterations=" + "9" * (MAX_SPEC_CHARS - 19),
                 "x" * 1_000_000):
        message = _raises(lambda spec=spec: make_agent(spec, game="junqi"), ValueError)
        assert "xxxxx" in message or "99999" in message  # a bounded excerpt of the value
    _raises(lambda: make_agent("ucbmcts:weights=" + "x" * 1_000_000), ValueError,
            "characters", str(MAX_SPEC_CHARS))
    # A loader's message that quotes a long value comes back cut, too.
    with pytest.raises(ValueError, match="weights") as info:
        make_agent("exact:weights=" + "b" * 4000, game="tbw")
    assert "bbbb" in str(info.value) and len(str(info.value)) <= 1000


def test_unknown_games_are_named():
    _raises(lambda: make_agent("random", game="chess"), ValueError, "unknown game", "chess")
    _raises(lambda: parse_agent_spec("random", game=["tbw"]), ValueError, "unknown game")
    _raises(lambda: make_agent("exact", game="junqi"), ValueError, "does not play junqi")


def test_a_required_parameter_is_checked_without_loading_anything():
    # The ppo spec needs path= or pretrained: said before agents.sb3 is asked to load.
    _raises(lambda: make_agent("ppo:threads=2", game="tbw"), ValueError, "ppo needs path=")
    _raises(lambda: make_agent("ppo"), ValueError, "ppo needs path=")
    _raises(lambda: make_agent("ppo:pretrained,path=x.npz", game="tbw"), ValueError, "not both")
    _raises(lambda: make_agent("ppo:pretrained,pretrained", game="tbw"), ValueError, "twice")


def test_an_agents_own_long_error_comes_back_cut(monkeypatch):
    from agents import registry

    def failing(**kwargs):
        raise ValueError("no such thing: " + "z" * 1_000_000)

    monkeypatch.setitem(registry.AGENTS, "random",
                        registry.AgentEntry(failing, registry.AGENTS["random"].params))
    message = _raises(lambda: make_agent("random", game="tbw"), ValueError, "random", "zzzz")
    assert message.endswith("...")


# ------------------------------------------------------------------ seeds
BAD_SEEDS = [(-1, ValueError, "-1"), (np.int64(-3), ValueError, "-3"),
             ("abc", TypeError, "abc"), (1.5, TypeError, "1.5"), (True, TypeError, "True"),
             (np.float64(2.0), TypeError, "2.0"), ([1], TypeError, "[1]")]
SPECS_BY_GAME = [("random", "tbw"), ("greedy", "tbw"), ("exact", "tbw"), ("oep", "tbw"),
                 ("tree:solves=2", "tbw"), ("greedy", "junqi"), ("mcts", "junqi"),
                 ("ucbmcts", "junqi"), ("ismcts", "junqi")]
AGENT_CLASSES = [RandomAgent, GreedyAgent, OEPAgent, TBWTreeAgent, GreedyEvalAgent, MCTSAgent,
                 UCBMCTSAgent, ISMCTSAgent]


@pytest.mark.parametrize("seed, error, shown", BAD_SEEDS, ids=[repr(s[0]) for s in BAD_SEEDS])
@pytest.mark.parametrize("spec, game", SPECS_BY_GAME, ids=[s for s, _ in SPECS_BY_GAME])
def test_make_agent_refuses_bad_seeds(spec, game, seed, error, shown):
    _raises(lambda: make_agent(spec, seed=seed, game=game), error, "seed", shown)


@pytest.mark.parametrize("seed, error, shown", BAD_SEEDS, ids=[repr(s[0]) for s in BAD_SEEDS])
@pytest.mark.parametrize("cls", AGENT_CLASSES, ids=lambda c: c.__name__)
def test_constructors_and_reset_refuse_bad_seeds(cls, seed, error, shown):
    _raises(lambda: cls(seed=seed), error, "seed", shown, cls.__name__)
    agent = cls(seed=0)
    _raises(lambda: agent.reset(seed), error, "seed", shown, cls.__name__)
    _raises(lambda: TBWSearchAgent().reset(seed), error, "seed", shown)


def test_a_negative_seed_no_longer_plays_the_stream_of_its_absolute_value():
    # random.Random(-1) is random.Random(1): refusing it is the only honest answer.
    assert random.Random(-1).random() == random.Random(1).random()
    with pytest.raises(ValueError, match="seed must be >= 0, got -1"):
        RandomAgent(-1)


def _moves(agent, state, count=10):
    return [agent.act(state) for _ in range(count)]


def test_numpy_integer_seeds_play_the_stream_of_the_same_python_int():
    state = load_scenario("duel_5v5_8x8").initial_state()
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
    (GreedyEvalAgent, {"weights": ["x"] * 10**6}, TypeError, ["weights", "'x'"]),
    (GreedyEvalAgent, {"belief": "psychic"}, ValueError, ["belief", "psychic"]),
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
    _raises(lambda: cls(**kwargs), error, *words)


def test_a_python_budget_of_infinite_seconds_is_refused():
    with pytest.raises(ValueError, match="finite"):
        Budget.of(inf)


# ------------------------------------------------------------------ valid edge cases
def test_ppo_path_stays_a_string_and_quoted_values_may_hold_commas():
    assert parse_agent_spec("ppo:path=007") == ("ppo", {"path": "007"})
    assert parse_agent_spec("ppo:path=1.5e3") == ("ppo", {"path": "1.5e3"})
    assert parse_agent_spec('ppo:path="runs/a,b/model.zip"') == (
        "ppo", {"path": "runs/a,b/model.zip"})
    assert parse_agent_spec("ppo:path='it''s, here/m.zip' , threads = 2,deterministic=no") == (
        "ppo", {"path": "it's, here/m.zip", "threads": 2, "deterministic": False})
    assert parse_agent_spec('ppo:path=" spaced ",threads=0', game="tbw") == (
        "ppo", {"path": " spaced ", "threads": 0})
    assert parse_agent_spec('ppo:path=a"b') == ("ppo", {"path": 'a"b'})  # a quote inside a word


def test_the_ppo_factory_forwards_path_as_a_string_and_other_arguments(monkeypatch):
    import agents.registry

    calls = []

    class Recorder:
        def __init__(self, **kwargs):
            calls.append(kwargs)

    monkeypatch.setattr(agents.registry, "PPOAgent", Recorder)
    agent = make_agent('ppo:path="runs/a,b/007",threads=256,deterministic=true',
                       seed=np.int64(4), game="junqi")
    assert calls == [{"path": "runs/a,b/007", "threads": 256, "deterministic": True, "seed": 4,
                      "game": "junqi"}]
    assert type(calls[0]["path"]) is str and type(calls[0]["seed"]) is int
    assert agent.name == 'ppo:path="runs/a,b/007",threads=256,deterministic=true'


def test_values_are_cast_by_the_declared_type():
    assert parse_agent_spec("search:algorithm=exact,budget=2000") == (
        "search", {"algorithm": "exact", "budget": 2000})
    assert parse_agent_spec("alg5:budget=0.5") == ("alg5", {"budget": 0.5})
    assert parse_agent_spec("exact:budget=default") == ("exact", {"budget": "default"})
    assert parse_agent_spec("mcts:cof=2,rollout_limit=30") == (
        "mcts", {"cof": 2.0, "rollout_limit": 30})
    name, kwargs = parse_agent_spec("tree:recipes=best+other+advance:3,reuse=false,depth=3")
    assert kwargs == {"recipes": "best+other+advance:3", "reuse": False, "depth": 3}
    assert type(parse_agent_spec("ucbmcts:seconds=1")[1]["seconds"]) is float
    # One spelling, another game: parse_agent_spec without a game takes either game's keys.
    assert parse_agent_spec("greedy:layout=heuristic") == ("greedy", {"layout": "heuristic"})
    with pytest.raises(ValueError, match="unknown parameter 'layout' for greedy"):
        parse_agent_spec("greedy:layout=heuristic", game="tbw")


VALID_SPECS = [
    ("random", "tbw"), ("greedy", "junqi"), ("greedy:layout=heuristic,belief=paper", "junqi"),
    ("exact:weights=tuned,kernel=python", "tbw"), ("search:algorithm=alg2,budget=0", "tbw"),
    ("alg5:budget=3600.0", "tbw"), ("oep:generations=2,population=2,mutation_rate=0", "tbw"),
    ("tree:solves=3,seconds=3600,depth=100,reuse=0,solve_nodes=auto", "tbw"),
    ("ucbmcts:iterations=1000000,seconds=3600,cof=0,leaf=evaluation", "junqi"),
    ("ismcts:iterations=5,prior_visits=0,opponent=evaluation,belief=count", "junqi"),
    ("mcts:seconds=0.001,rollout_limit=0", "junqi"),
    (" ucbmcts : iterations = 20 , weights = tuned ,", "junqi"),
]


@pytest.mark.parametrize("spec, game", VALID_SPECS, ids=[s for s, _ in VALID_SPECS])
def test_valid_edge_cases_build(spec, game):
    agent = make_agent(spec, seed=np.uint8(9), game=game)
    assert agent.name == spec


def test_every_declared_spec_parameter_is_a_constructor_parameter():
    """The registry's spec parameters are the agents' own declarations (one source)."""
    classes = {"random": RandomAgent, ("greedy", "tbw"): GreedyAgent,
               ("greedy", "junqi"): GreedyEvalAgent, "mcts": MCTSAgent, "ucbmcts": UCBMCTSAgent,
               "ismcts": ISMCTSAgent, "search": TBWSearchAgent, "exact": TBWSearchAgent,
               "alg5": TBWSearchAgent, "alg2": TBWSearchAgent, "oep": OEPAgent,
               "tree": TBWTreeAgent}
    for name, games in AGENT_GAMES.items():
        for game in games:
            cls = classes.get((name, game), classes.get(name))
            declared = set(agent_params(name, game))
            if cls is None:  # ppo: declared by the registry (agents/sb3.py checks its own)
                assert declared == {"path", "pretrained", "deterministic", "threads"}
                continue
            accepted = set(inspect.signature(cls).parameters)
            assert declared - {"weights"} <= accepted, (name, game)
            assert "seed" not in declared and "evaluate" not in declared
            assert set(cls.PARAMS) <= accepted | {"weights"}


def test_caps_are_the_documented_ones():
    """The README and agents/params.py document these caps; the values at a cap are accepted."""
    assert (params.MAX_SECONDS, params.MAX_THREADS, params.MAX_ITERATIONS) == (3600.0, 256,
                                                                               1_000_000)
    assert make_agent("ucbmcts:seconds=3600", game="junqi").budget.seconds == 3600.0
    assert parse_agent_spec("ppo:path=x,threads=256")[1]["threads"] == 256
    assert make_agent("tree:solves=1,depth=100", game="tbw").depth == 100
