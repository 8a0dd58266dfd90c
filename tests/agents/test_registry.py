"""The agent registry (``agents.registry``): spec strings, aliases, game checks, and every agent of
each game built from its spec; a bad spec is refused when the agent is built, with an error that
names the parameter and quotes the value (bounded)."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

from agents.common.catalog import AgentEntry
from agents.common.params import ParameterTypeError
from agents.common.spec_syntax import MAX_SPEC_CHARS
from agents.junqi import (
    GreedyAgent as JunqiGreedyAgent,
)
from agents.junqi import (
    ISMCTSAgent,
    MCTSAgent,
    UCBMCTSAgent,
)
from agents.junqi.guided import GuidedSearchAgent
from agents.learned.agent import LearnedAgent
from agents.random_agent import RandomAgent
from agents.registry import (
    AGENTS,
    agent_entry,
    agent_games,
    agent_names,
    agent_params,
    make_agent,
    parse_agent_spec,
)
from agents.tbw import GreedyAgent, OEPAgent, TBWSearchAgent, TBWTreeAgent
from tests.helpers.errors import BAD_SEEDS, raises_naming


def test_registry_parses_specs_and_rejects_unknown_names():
    assert parse_agent_spec("search:algorithm=exact,budget=2000") == (
        "search", {"algorithm": "exact", "budget": 2000}
    )
    with pytest.raises(ValueError, match="unknown agent 'minimax'.*known agents"):
        make_agent("minimax")
    with pytest.raises(ValueError, match="expected key=value"):
        make_agent("greedy:fast")
    with pytest.raises(ValueError, match="greedy:depth=3"):
        make_agent("greedy:depth=3")


def test_registry_aliases_and_game_checks():
    agent = make_agent("exact")
    assert agent.algorithm == "exact" and agent.name == "exact"
    assert make_agent("alg5:budget=1000").budget == 1000
    with pytest.raises(ValueError, match="does not play junqi.*'random'"):
        make_agent("exact", game="junqi")
    with pytest.raises(ValueError, match="does not play tbw.*'exact'"):
        make_agent("ucbmcts", game="tbw")
    # One name, one agent per game: Junqi's greedy is the evaluation's one-ply choice.
    assert type(make_agent("greedy", game="junqi")) is JunqiGreedyAgent
    assert type(make_agent("greedy", game="tbw")) is GreedyAgent


def test_registry_builds_every_junqi_agent_from_a_spec():
    assert isinstance(make_agent("ucbmcts:iterations=2000", game="junqi"), UCBMCTSAgent)
    assert make_agent("ucbmcts:iterations=2000", game="junqi").budget.iterations == 2000
    assert make_agent("mcts:seconds=0.5", game="junqi").budget.seconds == 0.5
    assert isinstance(make_agent("ismcts", game="junqi"), ISMCTSAgent)
    assert isinstance(make_agent("greedy:layout=heuristic", game="junqi"), JunqiGreedyAgent)
    with pytest.raises(ValueError, match="ucbmcts:depth=3"):
        make_agent("ucbmcts:depth=3", game="junqi")


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


@pytest.mark.input_contract
@pytest.mark.parametrize("spec, game, error, words", BAD_SPECS,
                         ids=[case[0][:60] for case in BAD_SPECS])
def test_bad_specs_are_refused_when_the_agent_is_built(spec, game, error, words):
    raises_naming(lambda: make_agent(spec, seed=0, game=game), error, *words)


@pytest.mark.input_contract
def test_type_errors_are_type_errors_and_value_errors():
    """A wrong type raises ParameterTypeError: a TypeError (the contract) that code catching the
    ValueError the agents raised before still catches."""
    assert issubclass(ParameterTypeError, TypeError) and issubclass(ParameterTypeError, ValueError)
    with pytest.raises(TypeError):
        make_agent("random", seed=1.5)
    with pytest.raises(ValueError):
        make_agent("random", seed=1.5)


@pytest.mark.input_contract
@pytest.mark.parametrize("spec", [None, 7, b"greedy", ["greedy"], {"name": "greedy"}])
def test_a_spec_that_is_not_a_string_is_a_type_error(spec):
    raises_naming(lambda: make_agent(spec), TypeError, "spec", type(spec).__name__)
    raises_naming(lambda: parse_agent_spec(spec), TypeError, "spec")


@pytest.mark.input_contract
def test_a_huge_spec_is_refused_with_a_bounded_message():
    for spec in ("ucbmcts:weights=" + "x" * 1_000_000,
                 "ucbmcts:iterations=" + "9" * (MAX_SPEC_CHARS - 19),
                 "x" * 1_000_000):
        message = raises_naming(lambda spec=spec: make_agent(spec, game="junqi"), ValueError)
        assert "xxxxx" in message or "99999" in message  # a bounded excerpt of the value
    raises_naming(lambda: make_agent("ucbmcts:weights=" + "x" * 1_000_000), ValueError,
            "characters", str(MAX_SPEC_CHARS))
    # A loader's message that quotes a long value comes back cut, too.
    with pytest.raises(ValueError, match="weights") as info:
        make_agent("exact:weights=" + "b" * 4000, game="tbw")
    assert "bbbb" in str(info.value) and len(str(info.value)) <= 1000


@pytest.mark.input_contract
def test_unknown_games_are_named():
    raises_naming(lambda: make_agent("random", game="chess"), ValueError, "unknown game", "chess")
    raises_naming(lambda: parse_agent_spec("random", game=["tbw"]), ValueError, "unknown game")
    raises_naming(lambda: make_agent("exact", game="junqi"), ValueError, "does not play junqi")


@pytest.mark.input_contract
def test_a_required_parameter_is_checked_without_loading_anything():
    # The ppo spec needs path= or pretrained: said before agents.policy.agent is asked to load.
    raises_naming(lambda: make_agent("ppo:threads=2", game="tbw"), ValueError, "ppo needs path=")
    raises_naming(lambda: make_agent("ppo"), ValueError, "ppo needs path=")
    raises_naming(lambda: make_agent("ppo:pretrained,path=x.npz", game="tbw"), ValueError,
                  "not both")
    raises_naming(lambda: make_agent("ppo:pretrained,pretrained", game="tbw"), ValueError, "twice")


@pytest.mark.input_contract
def test_an_agents_own_long_error_comes_back_cut(monkeypatch):
    from agents import registry

    def failing(**kwargs):
        raise ValueError("no such thing: " + "z" * 1_000_000)

    monkeypatch.setitem(registry.AGENTS, "random",
                        AgentEntry(failing, registry.AGENTS["random"].params))
    message = raises_naming(lambda: make_agent("random", game="tbw"), ValueError, "random", "zzzz")
    assert message.endswith("...")


SPECS_BY_GAME = [("random", "tbw"), ("greedy", "tbw"), ("exact", "tbw"), ("oep", "tbw"),
                 ("tree:solves=2", "tbw"), ("greedy", "junqi"), ("mcts", "junqi"),
                 ("ucbmcts", "junqi"), ("ismcts", "junqi")]


@pytest.mark.input_contract
@pytest.mark.parametrize("seed, error, shown", BAD_SEEDS, ids=[repr(s[0]) for s in BAD_SEEDS])
@pytest.mark.parametrize("spec, game", SPECS_BY_GAME, ids=[s for s, _ in SPECS_BY_GAME])
def test_make_agent_refuses_bad_seeds(spec, game, seed, error, shown):
    raises_naming(lambda: make_agent(spec, seed=seed, game=game), error, "seed", shown)


# ------------------------------------------------------------------ bad constructor arguments
nan, inf = math.nan, math.inf


# ------------------------------------------------------------------ valid edge cases
@pytest.mark.input_contract
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


@pytest.mark.input_contract
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


@pytest.mark.input_contract
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


@pytest.mark.input_contract
@pytest.mark.parametrize("spec, game", VALID_SPECS, ids=[s for s, _ in VALID_SPECS])
def test_valid_edge_cases_build(spec, game):
    agent = make_agent(spec, seed=np.uint8(9), game=game)
    assert agent.name == spec


@pytest.mark.input_contract
def test_every_declared_spec_parameter_is_a_constructor_parameter():
    """The registry's spec parameters are the agents' own declarations (one source)."""
    classes = {"random": RandomAgent, ("greedy", "tbw"): GreedyAgent,
               ("greedy", "junqi"): JunqiGreedyAgent, "mcts": MCTSAgent, "ucbmcts": UCBMCTSAgent,
               "ismcts": ISMCTSAgent, "search": TBWSearchAgent, "exact": TBWSearchAgent,
               "alg5": TBWSearchAgent, "alg2": TBWSearchAgent, "oep": OEPAgent,
               "tree": TBWTreeAgent, "learned": LearnedAgent}
    for name in agent_names():
        for game in agent_games(name):
            cls = classes.get((name, game), classes.get(name))
            declared = set(agent_params(name, game))
            if cls is None:  # ppo: declared by the registry (agents.policy.agent checks its own)
                assert declared == {"path", "pretrained", "deterministic", "threads"}
                continue
            accepted = set(inspect.signature(cls).parameters)
            # What the registry itself turns into arguments: TBW weights=, ismcts's policy= (a
            # learned policy, passed on as root_prior), learned's pretrained (the shipped
            # file's path) and, in Junqi, the budget that makes it guide a search.
            made_by_registry = {"weights"} | {
                "ismcts": {"policy"}, "learned": {"pretrained"}}.get(name, set())
            if (name, game) == ("learned", "junqi"):
                made_by_registry |= set(inspect.signature(GuidedSearchAgent).parameters)
            assert declared - made_by_registry <= accepted, (name, game)
            assert "seed" not in declared and "evaluate" not in declared
            assert set(cls.PARAMS) <= accepted | {"weights"}


# ------------------------------------------------------------------ where the agents are
def test_generic_agents_are_the_registrys_and_each_games_own_are_its_catalogs():
    assert set(AGENTS) == {"random", "ppo", "learned"}
    assert agent_names() == ["alg2", "alg5", "exact", "greedy", "ismcts", "learned", "mcts",
                             "oep", "ppo", "random", "search", "tree", "ucbmcts"]
    assert agent_names("junqi") == ["greedy", "ismcts", "learned", "mcts", "ppo", "random",
                                    "ucbmcts"]
    from agents.junqi import catalog as junqi_catalog
    from agents.tbw import catalog as tbw_catalog

    assert set(tbw_catalog.AGENTS) == {"greedy", "search", "exact", "alg5", "alg2", "oep", "tree"}
    assert set(junqi_catalog.AGENTS) == {"greedy", "mcts", "ucbmcts", "ismcts", "learned"}
    # Junqi's learned agent may also guide its search; every other game plays the registry's.
    assert agent_entry("learned", "junqi") is junqi_catalog.AGENTS["learned"]
    assert agent_entry("learned", "tbw") is AGENTS["learned"]
    assert agent_entry("greedy", "junqi") is junqi_catalog.AGENTS["greedy"]
    assert agent_entry("greedy") is tbw_catalog.AGENTS["greedy"]  # the first game that plays it
    assert agent_entry("random", "junqi") is AGENTS["random"]


def test_an_unknown_game_plays_the_agents_it_lists(registered_minigame):
    agent = make_agent("random", seed=3, game="nim", variant="large")
    assert type(agent) is RandomAgent and agent.name == "random"
    state = registered_minigame.new_state("large")
    assert agent.act(state.view(0)) in state.legal_actions()
    assert agent_games("random")[-1] == "nim" and "nim" not in agent_games("greedy")
    raises_naming(lambda: make_agent("greedy", game="nim"), ValueError,
                  "does not play nim", "['random']")
    # did-you-mean and the known agents: only the game's own
    message = raises_naming(lambda: make_agent("randm", game="nim"), ValueError,
                            "did you mean 'random'", "known agents for nim: ['random']")
    assert "greedy" not in message
    assert parse_agent_spec("random", game="nim") == ("random", {})


def test_a_game_that_lists_an_agent_no_catalog_has_is_named(registered_minigame, monkeypatch):
    monkeypatch.setattr(type(registered_minigame), "agents", ("random", "minimax"))
    raises_naming(lambda: make_agent("minimax", game="nim"), ValueError, "'minimax'",
                  "game nim lists it", "catalog None")


def test_ppo_is_told_the_variant_only_where_it_decides_the_frame(monkeypatch):
    """TBW's scenario decides a policy's planes and actions, so the policy is checked against
    it; a Junqi rule set does not (``Game.frame_depends_on_variant``), and the agent is built
    as before, with no variant to check."""
    import agents.registry

    calls = []

    class Recorder:
        def __init__(self, **kwargs):
            calls.append(kwargs)

    monkeypatch.setattr(agents.registry, "PPOAgent", Recorder)
    monkeypatch.setattr(agents.registry, "pretrained_path", lambda game: f"{game}.npz")
    for game, variant in (("tbw", "hex_skirmish"), ("junqi", "qq")):
        make_agent("ppo:pretrained", seed=0, game=game, variant=variant)
    assert calls == [{"seed": 0, "game": "tbw", "variant": "hex_skirmish", "path": "tbw.npz"},
                     {"seed": 0, "game": "junqi", "path": "junqi.npz"}]
