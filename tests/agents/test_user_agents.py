"""Your own agent from a spec (agents/user_agents.py): ``path/to/file.py:Name`` and
``package.module:Name`` play in the round robin and on the arena's command line, in worker
processes too, with the same games; an observation policy sees what the env gives; every mistake
is named; replaying a record never loads the file; a script without a main guard still plays."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from agents.arena import run_round_robin, write_result
from agents.arena.records import load_records
from agents.arena.replay import verify_records
from agents.cli import arena as arena_cli
from agents.common.params import Int
from agents.observation_policy import ObservationPolicyAgent
from agents.registry import make_agent, parse_agent_spec
from agents.user_agents import MODULE_PREFIX, is_user_spec, literal_value
from tbw_envs.core.errors import IllegalActionError
from tbw_envs.games import get_game
from tests.helpers import REPO_ROOT
from tests.helpers.quick_games import TBW_SCENARIO

TBW_VIEW = "examples/tbw_view_agent.py:WeakestFirst"
JUNQI_VIEW = "examples/junqi_view_agent.py:SureCaptures"
POLICY = "examples/observation_policy.py:policy"
# Junqi games that end within a few dozen plies.
QUICK_JUNQI_RULES = ("name: quick\nno_collision_limit: 6\nno_collision_result: side_to_move_loses\n"
                     "total_ply_limit: 40\n")


@pytest.fixture(autouse=True)
def in_repo_root(monkeypatch):
    """The examples' specs are relative paths, read from the working directory."""
    monkeypatch.chdir(REPO_ROOT)


@pytest.fixture
def quick_rules(tmp_path):
    path = tmp_path / "quick.yaml"
    path.write_text(QUICK_JUNQI_RULES)
    return str(path)


def variant_of(game, quick_rules):
    return TBW_SCENARIO if game == "tbw" else quick_rules


def write_module(folder, name, source):
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return path


# ---------------------------------------------------------------------- the examples


@pytest.mark.parametrize(("game", "spec"), [("tbw", TBW_VIEW), ("junqi", JUNQI_VIEW),
                                            ("tbw", POLICY), ("junqi", POLICY)])
def test_each_example_plays_a_round_robin(game, spec, quick_rules):
    result = run_round_robin(game, [spec, "random"], games_per_pairing=2, workers=1,
                             variant=variant_of(game, quick_rules))
    assert result.labels == [spec, "random"] and result.specs == [spec, "random"]
    assert len(result.games) == 2
    for played in result.games:
        assert spec in played.labels and spec in played.specs and played.plies > 0


@pytest.mark.parametrize(("game", "spec"), [("tbw", TBW_VIEW), ("junqi", JUNQI_VIEW),
                                            ("junqi", POLICY)])
def test_each_example_plays_on_the_command_line(game, spec, tmp_path, quick_rules, capsys):
    out = tmp_path / "run"
    flag = get_game(game).variant_flag
    assert arena_cli.main(["--game", game, f"--{flag}", variant_of(game, quick_rules),
                           "--agents", spec, "greedy", "--games", "2", "--workers", "1",
                           "--out", str(out)]) == 0
    assert spec in capsys.readouterr().out
    results = json.loads((out / "results.json").read_text())
    assert [a["agent"] for a in results["ratings"]["agents"]] == [spec, "greedy"]
    assert {tuple(r["specs"]) for r in load_records(out / "games.jsonl")} == {
        (spec, "greedy"), ("greedy", spec)}


def test_the_games_do_not_depend_on_the_workers(tmp_path):
    """The spec travels to spawned workers, which load the files themselves."""
    moves = {}
    for workers in (1, 2):
        out = tmp_path / f"workers-{workers}"
        assert arena_cli.main([
            "--game", "tbw", "--scenario", TBW_SCENARIO, "--agents", TBW_VIEW,
            f"{TBW_VIEW},move_chance=0.5", POLICY, "--games", "2", "--opening-plies", "4",
            "--workers", str(workers), "--out", str(out), "--no-render"]) == 0
        moves[workers] = [(r["game_id"], r["specs"], r["actions"])
                          for r in load_records(out / "games.jsonl")]
    assert moves[1] == moves[2] and len(moves[1]) == 6


# ---------------------------------------------------------------------- observation policies


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_a_policy_sees_what_the_env_gives_and_its_action_is_the_envs(game):
    env = get_game(game).env()
    env.reset(seed=3)
    seen = []

    def policy(observation, action_mask):
        seen.append((observation, action_mask))
        legal = np.flatnonzero(action_mask)
        return int(legal[len(seen) * 7 % len(legal)])

    agent = ObservationPolicyAgent(policy, "recording", game)
    for _ in range(60):
        if any(env.terminations.values()):
            break
        player = env.agent_selection
        expected = env.observe(player)
        core_action = agent.act(env.unwrapped.view(player))
        observation, mask = seen[-1]
        for got, want in ((observation, expected["observation"]),
                          (mask, expected["action_mask"])):
            assert got.dtype == want.dtype and np.array_equal(got, want)
        assert mask.dtype == np.int8
        action = int(np.flatnonzero(mask)[len(seen) * 7 % int(mask.sum())])
        assert env.unwrapped.to_core_action(player, action) == core_action
        env.step(action)
    assert len(seen) > 10


def test_an_illegal_action_of_a_policy_names_the_agent(tmp_path, quick_rules):
    path = write_module(tmp_path, "bad.py", """
        def always_zero(observation, action_mask):
            return 0
        def not_an_int(observation, action_mask):
            return "e2e4"
    """)
    for name, shown in (("always_zero", "action 0"), ("not_an_int", "str 'e2e4'")):
        agent = make_agent(f"{path}:{name}", seed=0, game="tbw", variant=TBW_SCENARIO)
        state = get_game("tbw").new_state(TBW_SCENARIO)
        with pytest.raises(IllegalActionError, match=f"{name} returned {shown}"):
            agent.act(state.view(state.current_player))
    with pytest.raises(RuntimeError, match="always_zero returned action 0"):
        run_round_robin("tbw", [f"{path}:always_zero", "random"], games_per_pairing=2,
                        workers=1, variant=TBW_SCENARIO)


def test_a_policy_without_a_game_finds_it_from_the_view():
    agent = make_agent(POLICY, seed=0)
    for game in ("tbw", "junqi"):
        state = get_game(game).new_state(get_game(game).default_variant, seed=1)
        view = state.view(state.current_player)
        assert agent.act(view) in view.legal_actions()


# ---------------------------------------------------------------------- kinds and arguments

KINDS = """
    import numpy as np
    from agents.common.params import Float, Int

    class ViewAgent:
        def __init__(self, seed=None, depth=1, temperature=1.0, tag="x", deep=False):
            self.seed, self.args = seed, dict(depth=depth, temperature=temperature, tag=tag,
                                              deep=deep)
        def reset(self, seed=None):
            pass
        def act(self, view):
            return view.legal_actions()[0]

    class Declared(ViewAgent):
        PARAMS = {"depth": Int(low=1, high=5), "temperature": Float(low=0.0)}

    class PolicyClass:
        def __init__(self, scale=1):
            self.scale = scale
        def __call__(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    def first_legal(observation, action_mask, offset=0):
        return int(np.flatnonzero(action_mask)[offset])

    def make_view_agent(seed, depth=2):
        return ViewAgent(seed=seed, depth=depth)

    def make_policy(seed):
        return first_legal
"""


@pytest.fixture
def kinds(tmp_path):
    return write_module(tmp_path, "kinds.py", KINDS)


def test_each_kind_is_told_apart_and_built(kinds):
    agent = make_agent(f"{kinds}:ViewAgent,depth=3", seed=7, game="tbw")
    assert agent.seed == 7 and agent.args["depth"] == 3
    assert agent.name == f"{kinds}:ViewAgent,depth=3"
    assert make_agent(f"{kinds}:make_view_agent,depth=4", seed=1, game="tbw").args["depth"] == 4
    for name in ("PolicyClass,scale=2", "first_legal,offset=1", "make_policy"):
        agent = make_agent(f"{kinds}:{name}", seed=0, game="junqi")
        assert isinstance(agent, ObservationPolicyAgent)
        state = get_game("junqi").new_state("ccgc", seed=0)
        view = state.view(state.current_player)
        assert agent.act(view) in view.legal_actions()


def test_values_without_a_declared_type_are_read_by_their_form(kinds):
    cases = [("true", True), ("False", False), ("3", 3), ("-2", -2), ("007", 7), ("0.5", 0.5),
             ("1e-3", 1e-3), ("-.5", -0.5), ("abc", "abc"), ("1.2.3", "1.2.3"), ("nan", "nan"),
             ("inf", "inf"), ("0x10", "0x10"), ("", "")]
    for text, value in cases:
        got = literal_value(text, quoted=False)
        assert got == value and type(got) is type(value), text
    assert literal_value("42", quoted=True) == "42" and literal_value(None, quoted=False) is True
    agent = make_agent(f"{kinds}:ViewAgent,depth=3,temperature=0.5,tag='7',deep", game="tbw")
    assert agent.args == {"depth": 3, "temperature": 0.5, "tag": "7", "deep": True}
    assert parse_agent_spec(f"{kinds}:ViewAgent,depth=2,tag=007") == (
        f"{kinds}:ViewAgent", {"depth": 2, "tag": 7})


def test_declared_params_cast_and_check_values(kinds):
    agent = make_agent(f"{kinds}:Declared,depth=2,temperature=1", game="tbw")
    assert agent.args["depth"] == 2 and agent.args["temperature"] == 1.0
    assert isinstance(agent.args["temperature"], float)
    with pytest.raises(ValueError, match="depth must be an integer >= 1 and <= 5, got '2.5'"):
        make_agent(f"{kinds}:Declared,depth=2.5", game="tbw")
    with pytest.raises(ValueError, match="unknown parameter 'tag'.*takes: depth, temperature"):
        make_agent(f"{kinds}:Declared,tag=x", game="tbw")
    assert Int(low=1).parse("3", "depth", "x") == 3


# ---------------------------------------------------------------------- errors

ERRORS = [
    ("{dir}/missing.py:Agent", ["missing.py", "not found", "same path on every worker"]),
    ("nowhere/missing.py:Agent", ["missing.py", "relative path is read from the working"]),
    ("{dir}/notes.txt:Agent", ["notes.txt", "is not a .py file"]),
    ("{dir}:Agent", ["is not a .py file"]),
    ("{dir}/syntax.py:Agent", ["syntax.py", "SyntaxError", "line 2"]),
    ("{dir}/raises.py:Agent", ["raises.py", "line 3", "RuntimeError: no network here"]),
    ("{dir}/kinds.py:Missing", ["kinds.py", "no 'Missing'", "ViewAgent, first_legal"]),
    ("{dir}/kinds.py", ["after a ':'", "kinds.py:MyAgent"]),
    ("{dir}/kinds.py:2fast", ["name of a class or function", "2fast"]),
    ("{dir}/odd.py:NoSeed", ["NoSeed()", "does not accept seed"]),
    ("{dir}/odd.py:NoReset", ["NoReset", "no reset(seed)"]),
    ("{dir}/odd.py:Nothing", ["Nothing", "neither act(view) nor __call__", "expected a view"]),
    ("{dir}/odd.py:LIMIT", ["LIMIT is int 3", "expected a view agent"]),
    ("{dir}/odd.py:one_argument", ["one_argument(x)", "neither seed", "(observation, action_"]),
    ("{dir}/odd.py:an_agent", ["an_agent is an agent object, not a class"]),
    ("{dir}/odd.py:factory_of_int", ["factory_of_int(seed) returned int 3"]),
    ("{dir}/odd.py:failing", ["failing(seed=0, ...) raised ValueError: no depth"]),
    ("{dir}/kinds.py:ViewAgent,width=3", ["unknown parameter 'width'", "ViewAgent(seed=None, "
                                          "depth=1, temperature=1.0, tag='x', deep=False)"]),
    ("{dir}/kinds.py:ViewAgent,seed=3", ["seed= cannot be set", "the arena sets"]),
    ("{dir}/kinds.py:ViewAgent,depth=1,depth=2", ["'depth' is given twice"]),
    ("{dir}/kinds.py:first_legal,action_mask=1", ["multiple values for argument 'action_mask'"]),
    ("no_such_package.module:Agent", ["no module named 'no_such_package'"]),
    ("agents.random_agent:Nope", ["module agents.random_agent has no 'Nope'", "RandomAgent"]),
]
ODD = """
    LIMIT = 3
    class NoSeed:
        def reset(self, seed=None): pass
        def act(self, view): return 0
    class NoReset:
        def __init__(self, seed=None): pass
        def act(self, view): return 0
    class Nothing:
        pass
    def one_argument(x):
        return x
    an_agent = NoReset()
    def factory_of_int(seed):
        return 3
    def failing(seed):
        raise ValueError("no depth")
"""


@pytest.mark.parametrize(("spec", "words"), ERRORS, ids=[spec for spec, _ in ERRORS])
def test_every_mistake_is_named(spec, words, tmp_path, kinds):
    write_module(tmp_path, "odd.py", ODD)
    write_module(tmp_path, "syntax.py", "x = 1\ndef broken(:\n")
    write_module(tmp_path, "raises.py", "import os\n\nraise RuntimeError('no network here')\n")
    (tmp_path / "notes.txt").write_text("")
    spec = spec.format(dir=kinds.parent)
    with pytest.raises(ValueError) as info:
        make_agent(spec, seed=0, game="tbw")
    message = str(info.value)
    assert message.startswith("agent spec ") and len(message) < 800
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"


def test_the_arena_names_the_entrant_of_a_bad_spec(tmp_path, capsys):
    with pytest.raises(SystemExit):
        arena_cli.main(["--game", "tbw", "--agents", f"{tmp_path}/gone.py:Agent", "random"])
    assert "agent #1" in capsys.readouterr().err


def test_registry_names_stay_bare_words():
    assert not any(is_user_spec(spec) for spec in ("greedy", "ucbmcts:iterations=50",
                                                   "ppo:pretrained", 'ppo:path="a/b.npz"'))
    assert all(is_user_spec(spec) for spec in ("my.py:A", "a/b:A", "pkg.mod:A", "x.py"))
    with pytest.raises(ValueError, match="your own as path/to/file.py:Name"):
        make_agent("mine:Agent")


# ---------------------------------------------------------------------- modules and loading


def test_a_module_on_sys_path_plays(tmp_path, monkeypatch):
    package = tmp_path / "my_agents"
    package.mkdir()
    (package / "__init__.py").write_text("")
    write_module(package, "policies.py", """
        import numpy as np
        def last_legal(observation, action_mask):
            return int(np.flatnonzero(action_mask)[-1])
    """)
    monkeypatch.syspath_prepend(str(tmp_path))
    result = run_round_robin("tbw", ["my_agents.policies:last_legal",
                                     "agents.random_agent:RandomAgent"], games_per_pairing=2,
                             workers=1, variant=TBW_SCENARIO)
    assert result.labels == ["my_agents.policies:last_legal", "agents.random_agent:RandomAgent"]


def test_a_file_is_loaded_once_per_process_and_never_on_replay(tmp_path):
    log = tmp_path / "imports.log"
    path = write_module(tmp_path, "counted.py", f"""
        import os
        from pathlib import Path
        with Path({str(log)!r}).open("a") as log:
            log.write(f"{{os.getpid()}} {{__name__}}\\n")
        class Agent:
            def __init__(self, seed=None):
                import random
                self.rng = random.Random(seed)
            def reset(self, seed=None):
                self.rng.seed(seed)
            def act(self, view):
                return self.rng.choice(view.legal_actions())
    """)
    result = run_round_robin("tbw", [f"{path}:Agent", "random"], games_per_pairing=4,
                             workers=1, variant=TBW_SCENARIO)
    (pid, name), = [line.split() for line in log.read_text().splitlines()]
    assert name.startswith(MODULE_PREFIX + "counted_") and name in sys.modules
    run_round_robin("tbw", [f"{path}:Agent", "random"], games_per_pairing=4, workers=2,
                    variant=TBW_SCENARIO)
    loads = [line.split() for line in log.read_text().splitlines()]
    assert len(loads) == 3 and len({pid for pid, _ in loads}) == 3  # this process, 2 workers
    assert {module for _, module in loads} == {name}
    write_result(result, tmp_path / "run")
    path.write_text("raise SystemExit('replay must not import me')\n")
    sys.modules.pop(name)
    records = load_records(tmp_path / "run" / "games.jsonl")
    assert verify_records(records) == [] and len(log.read_text().splitlines()) == 3
    assert records[0]["specs"][0] == f"{path}:Agent"


# ---------------------------------------------------------------------- the main guard

PLAY = """from agents.arena import run_round_robin
{guard}
{indent}result = run_round_robin("tbw", ["examples/observation_policy.py:policy", "random"],
{indent}                         games_per_pairing=2, workers=2, variant="{variant}")
{indent}print("workers", result.workers, "games", len(result.games))
"""


@pytest.mark.parametrize("guarded", [False, True])
def test_a_script_without_a_main_guard_plays_in_process_with_a_warning(guarded, tmp_path):
    """Spawned workers import the main script again: unguarded, they would start round robins
    of their own, and the pool would break."""
    script = tmp_path / "rate.py"
    script.write_text(PLAY.format(guard='if __name__ == "__main__":' if guarded else "",
                                  indent="    " if guarded else "", variant=TBW_SCENARIO))
    done = subprocess.run([sys.executable, str(script)], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    if guarded:
        assert "workers 2 games 2" in done.stdout and "RuntimeWarning" not in done.stderr
    else:
        assert "workers 1 games 2" in done.stdout
        assert "outside an 'if __name__ == \"__main__\":' block" in done.stderr
