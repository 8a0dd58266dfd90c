"""The input contract (docs/input_contract.md) across the layers of both games: each bad input to
a game core or a PettingZoo env is rejected with an error naming the problem, changes nothing
(random generators included), and the game then plays to the end exactly as an untouched twin
does. Also: seeding, the end-of-game step rule, ``python -O``, and hostile configs under a
memory and time limit. Then what is refused when it is built, with nothing started or written:
the single-agent wrappers' openings and opponents, the SB3 vector env, a policy file's scenario
and scripts/train_ppo.py's. The single-agent wrappers' other cases are in
tests/tbw_envs/test_wrappers.py."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import random
import subprocess
import sys
import textwrap
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.registry import make_agent
from tbw_envs import junqi_v0, tbw_v0
from tbw_envs.core.contract import GameOverError
from tbw_envs.junqi import JunqiState
from tbw_envs.junqi.env.single import make_junqi_single
from tbw_envs.tbw import IllegalActionError, ScenarioError, TBWState, load_scenario
from tbw_envs.tbw.env.single import make_tbw_single
from tests.helpers import REPO_ROOT
from tests.helpers.ppo import maskable_ppo_or_skip, untrained_policy
from tests.helpers.quick_games import SHORT_JUNQI, SHORT_TBW, TBW_SCENARIO
from tests.helpers.tbw_builders import scenario

pytestmark = pytest.mark.input_contract

TBW_ACTIONS = load_scenario(TBW_SCENARIO).num_actions

JUNQI_ACTIONS = 3612

AEC_FACTORIES = {
    "tbw raw_env": lambda: tbw_v0.raw_env(scenario=SHORT_TBW),
    "tbw env()": lambda: tbw_v0.env(scenario=SHORT_TBW),
    "junqi raw_env": lambda: junqi_v0.raw_env(rules=SHORT_JUNQI),
    "junqi env()": lambda: junqi_v0.env(rules=SHORT_JUNQI),
}


# ============================================================================ playing helpers


def play(env, max_actions: int | None = None) -> tuple[list[int], dict[str, float]]:
    """Play ``env``'s current game with its own (seeded) action-space samplers, as the
    README's loop does: ``max_actions`` actions, or to the end (every agent removed). Returns
    the actions and each agent's final reward."""
    actions: list[int] = []
    final: dict[str, float] = {}
    for _ in range(20_000):
        if not env.agents or (max_actions is not None and len(actions) >= max_actions):
            return actions, final
        agent = env.agent_selection
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final[agent] = reward
            env.step(None)
            continue
        action = int(env.action_space(agent).sample(obs["action_mask"]))
        env.step(action)
        actions.append(action)
    raise AssertionError("the game did not end within 20,000 steps")


def assert_full_game(final: dict[str, float]) -> None:
    assert set(final) == {"player_0", "player_1"}
    assert sorted(final.values()) in ([-1.0, 1.0], [0.0, 0.0])


# ============================================================================ AEC envs


@dataclass(frozen=True)
class Case:
    name: str
    games: tuple[str, ...]  # "tbw", "junqi"
    bad: Any  # callable(env)
    error: type[BaseException]
    match: str


def _tbw_unit(env) -> int:
    return env.unwrapped.view(env.agent_selection).ready_units()[0]


ANY = ("tbw", "junqi")

AGENTS_LIST = r"agents are \['player_0', 'player_1'\]"

AEC_CASES = [
    # actions
    Case("step bool", ANY, lambda e: e.step(True), ValueError, r"integer .*got bool True"),
    Case("step numpy bool", ANY, lambda e: e.step(np.True_), ValueError, r"got bool np\.True_"),
    Case("step float", ANY, lambda e: e.step(2.0), ValueError, r"integer .*got float 2\.0"),
    Case("step numpy float", ANY, lambda e: e.step(np.float32(3)), ValueError, "got float32"),
    Case("step string", ANY, lambda e: e.step("0"), ValueError, r"got str '0'"),
    Case("step None while alive", ANY, lambda e: e.step(None), ValueError, "got NoneType None"),
    Case("step list", ANY, lambda e: e.step([1]), ValueError, r"got list \[1\]"),
    Case("step 1-d array", ANY, lambda e: e.step(np.array([1])), ValueError, "got ndarray"),
    Case("step negative", ANY, lambda e: e.step(-1), ValueError, r"action -1 is out of range"),
    Case("step too large", ANY, lambda e: e.step(10**12), ValueError, "is out of range"),
    # agent names
    Case("observe unknown agent", ANY, lambda e: e.observe("player_2"), ValueError,
         r"unknown agent 'player_2'; " + AGENTS_LIST),
    Case("view unknown agent", ANY, lambda e: e.unwrapped.view("nobody"), ValueError,
         r"unknown agent 'nobody'"),
    Case("action_mask int agent", ANY, lambda e: e.unwrapped.action_mask(1), ValueError,
         r"unknown agent 1; " + AGENTS_LIST),
    Case("action_space unknown agent", ANY, lambda e: e.action_space("p0"), ValueError,
         r"unknown agent 'p0'"),
    Case("observation_space None agent", ANY, lambda e: e.observation_space(None), ValueError,
         r"unknown agent None"),
    Case("to_env_action unknown agent", ANY, lambda e: e.unwrapped.to_env_action("x", 0),
         ValueError, r"unknown agent 'x'"),
    Case("to_core_action float", ANY, lambda e: e.unwrapped.to_core_action("player_0", 1.5),
         ValueError, r"got float 1\.5"),
    # seeds and options: all are checked before anything changes
    Case("seed bool", ANY, lambda e: e.reset(seed=True), TypeError,
         r"seed must be an int >= 0 .*got bool True"),
    Case("seed float", ANY, lambda e: e.reset(seed=1.0), TypeError, r"got float 1\.0"),
    Case("seed string", ANY, lambda e: e.reset(seed="7"), TypeError, r"got str '7'"),
    Case("seed negative", ANY, lambda e: e.reset(seed=-1), ValueError,
         r"seed must be non-negative, got -1"),
    Case("seed numpy negative", ANY, lambda e: e.reset(seed=np.int64(-5)), ValueError,
         "got -5"),
    Case("options string", ANY, lambda e: e.reset(options="x"), TypeError,
         r"options must be a dict or None, got str 'x'"),
    Case("options list", ANY, lambda e: e.reset(seed=9, options=[("a", 1)]), TypeError,
         "options must be a dict or None, got list"),
    Case("good seed, bad options", ANY, lambda e: e.reset(seed=5, options=3), TypeError,
         "got int 3"),
    # TBW
    Case("unknown scenario", ("tbw",), lambda e: e.reset(seed=4, options={"scenario": "nope"}),
         ScenarioError, "unknown scenario 'nope'"),
    Case("scenario of another shape", ("tbw",),
         lambda e: e.reset(seed=4, options={"scenario": "battle_10v10_16x16"}), ValueError,
         "make a new env"),
    Case("encode destination string", ("tbw",),
         lambda e: e.unwrapped.encode_action(_tbw_unit(e), "ab"), ValueError,
         r"destination 'ab' is not a \(row, col\) pair of integers"),
    Case("encode float destination", ("tbw",),
         lambda e: e.unwrapped.encode_action(_tbw_unit(e), (6.5, 1)), ValueError,
         r"destination \(6\.5, 1\) is not a \(row, col\) pair of integers"),
    Case("encode bool unit", ("tbw",), lambda e: e.unwrapped.encode_action(True, (6, 1)),
         ValueError, "unknown unit id True"),
    Case("encode bool target", ("tbw",),
         lambda e: e.unwrapped.encode_action(_tbw_unit(e), (6, 1), True), ValueError,
         "unknown target unit id True"),
    Case("encode off the board", ("tbw",),
         lambda e: e.unwrapped.encode_action(_tbw_unit(e), (99, 1)), ValueError,
         r"destination \(99, 1\) is outside the"),
    Case("decode bool", ("tbw",), lambda e: e.unwrapped.decode_action(True), ValueError,
         "got bool True"),
    # Junqi
    Case("unknown rule set", ("junqi",), lambda e: e.reset(seed=4, options={"rules": "nope"}),
         ValueError, "unknown Junqi rule set 'nope'"),
    Case("bad rules dict", ("junqi",),
         lambda e: e.reset(seed=4, options={"rules": {"ply_cap": True}}), ValueError,
         "field 'ply_cap': must be a positive integer"),
    Case("unknown layouts", ("junqi",),
         lambda e: e.reset(seed=4, options={"layouts": {"player_0": "nope", "player_1": "x"}}),
         ValueError, "unknown layout 'nope'"),
    Case("encode post string", ("junqi",), lambda e: e.unwrapped.encode_action("K0", "ab"),
         ValueError, "bad post name 'ab'"),
    Case("encode float post", ("junqi",), lambda e: e.unwrapped.encode_action(6.5, 1),
         ValueError, "post must be a name like 'K0' or an int 0-59, got float"),
    Case("encode bool post", ("junqi",), lambda e: e.unwrapped.encode_action(True, 0),
         ValueError, "got True"),
    Case("decode bool", ("junqi",), lambda e: e.unwrapped.decode_action(True), ValueError,
         "got bool True"),
]

AEC_PARAMS = [
    pytest.param(env_name, case, id=f"{env_name}: {case.name}")
    for case in AEC_CASES
    for env_name in AEC_FACTORIES
    if env_name.split()[0] in case.games
]


@pytest.mark.parametrize("env_name, case", AEC_PARAMS)
def test_aec_bad_input_is_named_changes_nothing_and_the_game_goes_on(env_name, case):
    env, twin = AEC_FACTORIES[env_name](), AEC_FACTORIES[env_name]()
    for e in (env, twin):
        e.reset(seed=0)
        play(e, max_actions=5)
    with pytest.raises(case.error, match=case.match):
        case.bad(env)
    # The rejected call left no trace: the game, and every generator the samplers draw from,
    # go on exactly as in the twin that never saw it.
    actions, final = play(env)
    assert (actions, final) == play(twin)
    assert_full_game(final)
    # And the next, unseeded game too (Junqi draws its layouts from the env's generator).
    env.reset()
    twin.reset()
    assert play(env) == play(twin)


@pytest.mark.parametrize("env_name", AEC_FACTORIES)
def test_step_after_the_game_is_over(env_name):
    env = AEC_FACTORIES[env_name]()
    env.reset(seed=1)
    while not env.terminations[env.agent_selection]:
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(env.action_space(env.agent_selection).sample(mask)))
    # A finished agent may only be stepped with None (PettingZoo's convention).
    with pytest.raises(GameOverError, match=r"step\(0\): the game is over \(player_\d is done\)"):
        env.step(0)
    env.step(None)
    env.step(None)
    assert env.agents == []
    with pytest.raises(GameOverError, match="every agent has been removed; call reset"):
        env.step(3)
    env.step(None)  # nothing left to do: ignored (PettingZoo logs a warning)
    # GameOverError is both kinds of error code may expect.
    assert issubclass(GameOverError, RuntimeError) and issubclass(GameOverError, ValueError)
    env.reset(seed=2)
    assert_full_game(play(env)[1])


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_after_an_illegal_move_ends_the_game_in_env_only_none_steps(game):
    env = AEC_FACTORIES[f"{game} env()"]()
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    env.step(illegal)  # TerminateIllegalWrapper: -1 for the offender
    assert all(env.terminations.values())
    with pytest.raises(GameOverError, match="the game is over"):
        env.step(int(np.flatnonzero(mask)[0]))
    env.reset(seed=0)
    assert_full_game(play(env)[1])


# ============================================================================ seeding


@pytest.mark.parametrize("env_name", AEC_FACTORIES)
def test_the_readme_sampling_loop_replays_under_the_same_seed(env_name):
    first, second = AEC_FACTORIES[env_name](), AEC_FACTORIES[env_name]()
    first.reset(seed=11)
    second.reset(seed=11)
    game = play(first)
    assert game == play(second)
    first.reset(seed=11)  # the same env, reseeded after a game
    assert play(first) == game
    first.reset(seed=12)
    assert play(first)[0] != game[0]


@pytest.mark.parametrize("env_name", AEC_FACTORIES)
@pytest.mark.parametrize("seed", [np.int64(7), np.uint8(7), np.int32(7), 2**80])
def test_seeds_of_every_integer_type_are_accepted(env_name, seed):
    env, reference = AEC_FACTORIES[env_name](), AEC_FACTORIES[env_name]()
    env.reset(seed=seed)
    reference.reset(seed=int(seed))
    assert play(env) == play(reference)


# ============================================================================ game cores


def _tbw_core():
    return TBWState.initial(load_scenario(TBW_SCENARIO))


def _junqi_core():
    return JunqiState.random_initial(3)


def _ready(state) -> int:
    return state.ready_units()[0]


CORE_CASES = [
    ("tbw", "apply bool", lambda s: s.apply(True), IllegalActionError, "got bool True"),
    ("tbw", "apply float", lambda s: s.apply(2.5), IllegalActionError, r"got float 2\.5"),
    ("tbw", "apply string", lambda s: s.apply("1"), IllegalActionError, "got str '1'"),
    ("tbw", "apply None", lambda s: s.apply(None), IllegalActionError, "got NoneType"),
    ("tbw", "apply out of range", lambda s: s.apply(TBW_ACTIONS), IllegalActionError,
     rf"action {TBW_ACTIONS} is out of range \[0, {TBW_ACTIONS}\)"),
    ("tbw", "encode string destination", lambda s: s.encode_action(_ready(s), "ab"), ValueError,
     r"destination 'ab' is not a \(row, col\) pair"),
    ("tbw", "encode float destination", lambda s: s.encode_action(_ready(s), (6.5, 1)),
     ValueError, r"\(6\.5, 1\) is not a \(row, col\) pair of integers"),
    ("tbw", "encode float array destination",
     lambda s: s.encode_action(_ready(s), np.array([6.0, 1.0])), ValueError, "pair of integers"),
    ("tbw", "encode bool unit", lambda s: s.encode_action(True, (6, 1)), ValueError,
     "unknown unit id True"),
    ("tbw", "view bool player", lambda s: s.view(True), ValueError, "player must be 0 or 1"),
    ("junqi", "apply bool", lambda s: s.apply(True), ValueError, "got bool True"),
    ("junqi", "apply numpy float", lambda s: s.apply(np.float64(3)), ValueError, "got float64"),
    ("junqi", "apply out of range", lambda s: s.apply(JUNQI_ACTIONS), ValueError,
     "is out of range"),
    ("junqi", "encode bool post", lambda s: s.encode_action(True, 0), ValueError, "got True"),
    ("junqi", "encode string post", lambda s: s.encode_action("K0", "ab"), ValueError,
     "bad post name 'ab'"),
    ("junqi", "view bool player", lambda s: s.view(True), ValueError, "player must be 0 or 1"),
]


def _play_core(state, seed: int) -> list[int]:
    rand = random.Random(seed)
    actions = []
    while not state.is_terminal():
        actions.append(rand.choice(state.legal_actions()))
        state.apply(actions[-1])
    return actions


@pytest.mark.parametrize(
    "game, name, bad, error, match", CORE_CASES, ids=[f"{c[0]}: {c[1]}" for c in CORE_CASES]
)
def test_core_bad_input_is_named_and_the_game_goes_on(game, name, bad, error, match):
    state = _tbw_core() if game == "tbw" else _junqi_core()
    rand = random.Random(0)
    for _ in range(4):
        state.apply(rand.choice(state.legal_actions()))
    twin = state.clone()
    with pytest.raises(error, match=match):
        bad(state)
    assert _play_core(state, 1) == _play_core(twin, 1)
    assert state.is_terminal() and sorted(state.returns()) in ([-1, 1], [0, 0])


def test_core_encode_accepts_numpy_integers():
    state = _tbw_core()
    uid = state.ready_units()[0]
    row, col = state.units[uid].pos
    plain = state.encode_action(uid, (row, col))
    assert state.encode_action(np.int64(uid), (np.int32(row), np.int64(col))) == plain
    assert state.encode_action(uid, np.array([row, col])) == plain


# ============================================================================ python -O

_OPTIMISED_SCRIPT = textwrap.dedent(
    """
    import json
    import numpy as np
    from tbw_envs import junqi_v0, tbw_v0
    out = []
    for make in (lambda: tbw_v0.env(scenario="paper_figure3"), junqi_v0.env):
        env = make()
        env.reset(seed=0)
        for action in (True, 2.5, -1, 10**9, np.float64(1), "3", None):
            try:
                env.step(action)
                out.append("accepted")
            except Exception as exc:
                out.append(f"{type(exc).__name__}: {exc}")
    print(json.dumps(out))
    """
)


def test_checks_behave_the_same_under_python_dash_o():
    results = []
    for flags in ([], ["-O"]):
        done = subprocess.run(
            [sys.executable, *flags, "-c", _OPTIMISED_SCRIPT],
            capture_output=True, text=True, timeout=120, cwd=REPO_ROOT, check=True,
        )
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    plain, optimised = results
    assert plain == optimised
    assert all(line.startswith("ValueError: action") for line in plain), plain


def test_no_assert_statements_in_the_package():
    offenders = []
    for path in sorted((REPO_ROOT / "tbw_envs").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assert):
                offenders.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno}")
    assert offenders == []


# ============================================================================ hostile configs

_LAUGHS = "lol0: &lol0 lol\n" + "".join(
    f"lol{i}: &lol{i} [{', '.join([f'*lol{i - 1}'] * 10)}]\n" for i in range(1, 10)
)

_UNIT_TYPES = "unit_types:\n  s: {hp: 3, atk: 1, move: 2}\n"

_HOSTILE_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    try:
        import resource
    except ImportError:  # Windows has none: the cases still run, without the memory limit
        resource = None
    if resource is not None:
        limit = 2 * 1024**3
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from tbw_envs.tbw import load_scenario, parse_scenario
    from tbw_envs.junqi import load_rules
    from tbw_envs import junqi_v0, tbw_v0

    def python_bomb(kind=list):
        # Shared references: ten levels of ten, 10**10 strings if anything printed it fully.
        value = kind(["lol"] * 10)
        for _ in range(10):
            value = kind([value] * 10)
        return value

    base = {"board": {"rows": 4, "cols": 4}, "unit_types": {"s": {"hp": 3, "atk": 1, "move": 2}},
            "units": [{"side": 0, "type": "s", "pos": [0, 0]}]}
    cases = {}
    for path in sorted(Path(sys.argv[1]).iterdir()):
        loader = load_rules if path.name.startswith("rules") else load_scenario
        cases[path.name] = lambda path=path, loader=loader: loader(path)
    cases["dict: python bomb description"] = lambda: parse_scenario(
        {**base, "description": python_bomb()})
    cases["dict: python bomb side"] = lambda: parse_scenario(
        {**base, "units": [{"side": python_bomb(), "type": "s", "pos": [0, 0]}]})
    cases["dict: python bomb legend value"] = lambda: parse_scenario(
        {**base, "board": {"terrain": ["....", "...."], "legend": {".": python_bomb(tuple)}}})
    cases["dict: rows 10**300"] = lambda: parse_scenario(
        {**base, "board": {"rows": 10**300, "cols": 4}})
    cases["dict: rows 1e300"] = lambda: parse_scenario(
        {**base, "board": {"rows": 1e300, "cols": 4}})
    cases["dict: 10000 units"] = lambda: parse_scenario(
        {**base, "board": {"rows": 50, "cols": 50},
         "units": [{"side": i % 2, "type": "s", "pos": [i // 50 % 50, i % 50]}
                   for i in range(10_000)]})
    cases["rules dict: python bomb"] = lambda: load_rules({"mine_vs_attacker": python_bomb()})
    cases["env: layouts option bomb"] = lambda: junqi_v0.raw_env().reset(
        options={"layouts": {"player_0": python_bomb()[:6], "player_1": "flag_left_mined"}})
    cases["env: scenario option bomb"] = lambda: tbw_v0.raw_env().reset(
        options={"scenario": {**base, "win": python_bomb()}})
    for name, case in cases.items():
        start = time.perf_counter()
        try:
            case()
            outcome = "accepted"
        except ValueError as exc:
            outcome = f"{type(exc).__name__}: {str(exc)[:300]}"
        except BaseException as exc:
            outcome = f"UNEXPECTED {type(exc).__name__}: {str(exc)[:300]}"
        print(json.dumps([name, outcome, time.perf_counter() - start]), flush=True)
    """
)


def _hostile_files(folder: Path) -> None:
    laughs = _LAUGHS.replace("\n", "\n  ")
    (folder / "bomb_description.yaml").write_text(
        f"lol: &x [a]\nname: bomb\ndescription: *x\n{_UNIT_TYPES}board: {{rows: 2, cols: 2}}\n"
        "units: []\n", encoding="utf-8")
    (folder / "bomb_classic.yaml").write_text(
        f"description:\n  {laughs}\n{_UNIT_TYPES}board: {{rows: 2, cols: 2}}\nunits: []\n",
        encoding="utf-8")
    (folder / "bomb_invalid_field.yaml").write_text(
        f"{_LAUGHS}win: *lol9\n{_UNIT_TYPES}board: {{rows: 2, cols: 2}}\nunits: []\n",
        encoding="utf-8")
    (folder / "rules_bomb.yaml").write_text(
        f"{_LAUGHS}mine_vs_attacker: *lol9\n", encoding="utf-8")
    for name, board in [("rows_2000", "{rows: 2000, cols: 2000}"),
                        ("rows_1e300", "{rows: 1.0e+300, cols: 5}"),
                        ("rows_huge_int", "{rows: " + "9" * 4000 + ", cols: 5}"),
                        ("rows_too_many_digits", "{rows: " + "9" * 5000 + ", cols: 5}")]:
        (folder / f"{name}.yaml").write_text(
            f"{_UNIT_TYPES}board: {board}\nunits: []\n", encoding="utf-8")
    (folder / "terrain_100x100.yaml").write_text(
        f"{_UNIT_TYPES}board:\n  legend: {{'.': plain}}\n  terrain:\n"
        + "".join(f"    - '{'.' * 100}'\n" for _ in range(100)) + "units: []\n",
        encoding="utf-8")
    for count in (2000, 10_000):
        units = "".join(f"  - {{side: {i % 2}, type: s, pos: [{i // 50}, {i % 50}]}}\n"
                        for i in range(count))
        (folder / f"units_{count}.yaml").write_text(
            f"{_UNIT_TYPES}board: {{rows: 40, cols: 40}}\nunits:\n{units}", encoding="utf-8")
    (folder / "nested_500.yaml").write_text(
        "description: " + "[" * 500 + "]" * 500 + "\n", encoding="utf-8")
    (folder / "many_megabytes.yaml").write_bytes(b"description: '" + b"x" * 20_000_000 + b"'\n")


def test_hostile_configs_are_refused_fast_within_a_memory_limit(tmp_path):
    """Each case runs in a child process limited to two minutes in all and, where the
    ``resource`` module exists (not on Windows), to 2 GB of address space; every one must end in
    a documented error (ScenarioError, RulesError, or ValueError for layouts). Each takes
    milliseconds; the two minutes only bound a hang, and a case's seconds are shown, not
    asserted, so a loaded machine cannot fail it."""
    _hostile_files(tmp_path)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, "-c", _HOSTILE_SCRIPT, str(tmp_path)],
        capture_output=True, text=True, timeout=120, cwd=REPO_ROOT, env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = {name: (outcome, seconds)
               for name, outcome, seconds in map(json.loads, done.stdout.splitlines())}
    assert len(results) == 22
    expected = {
        "bomb_description.yaml": "line 3: YAML aliases (*x) are not allowed",
        "bomb_classic.yaml": "YAML aliases (*lol0) are not allowed",
        "bomb_invalid_field.yaml": "YAML aliases (*lol0) are not allowed",
        "rules_bomb.yaml": "YAML aliases (*lol0) are not allowed",
        "rows_2000.yaml": "board.rows: must be <= 100, got 2000",
        "rows_1e300.yaml": "board.rows: must be <= 100, got 1e+300",
        "rows_huge_int.yaml": "board.rows: must be <= 100, got <int of about 400",
        "rows_too_many_digits.yaml": "bad YAML value: ValueError: Exceeds the limit (4300",
        "terrain_100x100.yaml": "100 x 100 board has 10000 tiles; at most 2500",
        "units_2000.yaml": "units: 2000 units; at most 32 per side",
        "units_10000.yaml": "file is larger than the 262144-byte limit",
        "dict: 10000 units": "units: 10000 units; at most 32 per side",
        "nested_500.yaml": "nested deeper than 64 levels",
        "many_megabytes.yaml": "file is larger than the 262144-byte limit",
        "dict: python bomb description": "description: expected a string, got list",
        "dict: python bomb side": "units[0].side: must be 0 or 1, got [[[...]",
        "dict: python bomb legend value": "board.legend..: expected the name of an entry under "
                                          "terrain:, got tuple (((...",
        "dict: rows 10**300": "board.rows: must be <= 100, got <int of about 301 digits>",
        "dict: rows 1e300": "board.rows: must be <= 100, got 1e+300",
        "rules dict: python bomb": "field 'mine_vs_attacker': must be one of",
        "env: scenario option bomb": "win: [[[...]",
        "env: layouts option bomb": "layout of player 0: row 1 must be a string or 5 tokens",
    }
    for name, fragment in expected.items():
        outcome, seconds = results[name]
        assert outcome.split(":")[0] in ("ScenarioError", "RulesError", "ValueError"), (
            name, outcome, seconds)
        assert fragment in outcome, (name, outcome, seconds)


# ============================================================================ agents and training
#
# Bad input to the single-agent wrappers, the SB3 vector env, a policy file's metadata and
# scripts/train_ppo.py: refused when the object is built, naming the problem, with nothing
# started (the opponent is never reset or asked to move) and nothing written.


SINGLE_AGENT_ENVS = {"tbw": make_tbw_single, "junqi": make_junqi_single}


def _spied(agent):
    """``agent``, recording every call of ``reset`` and ``act`` in ``agent.calls``."""
    agent.calls = []
    agent.reset = lambda seed=None: agent.calls.append("reset")
    agent.act = lambda view: agent.calls.append("act")
    return agent


@dataclass(frozen=True)
class Refusal:
    name: str
    env: str  # the single-agent env's game
    kwargs: dict[str, Any]
    opponent: tuple[str, str | None] | None  # (spec, game it is built for) of a registry agent
    match: str
    error: type[BaseException] = ValueError


WRAPPER_REFUSALS = [
    # The arena's cap on random openings: a quarter of the longest game.
    Refusal("tbw opening of a million plies", "tbw", {"opening_plies": 10**6}, None,
            r"opening_plies 1,000,000 is more than the cap of 100 for tbw 'duel_5v5_8x8': "
            r"1/4 of its longest game \(40 turns x 10 units = 400 plies\)"),
    Refusal("tbw opening one over the cap", "tbw", {"opening_plies": 101}, None,
            "opening_plies 101 is more than the cap of 100"),
    Refusal("tbw opening over hex_skirmish's cap", "tbw",
            {"scenario": "hex_skirmish", "opening_plies": 61}, None,
            "cap of 60 for tbw 'hex_skirmish'"),
    Refusal("junqi opening over the cap", "junqi", {"opening_plies": 501}, None,
            r"opening_plies 501 is more than the cap of 500 for junqi 'ccgc'.*ply_cap 2000"),
    # An opponent of the other game: its game is known when it is built.
    Refusal("junqi ismcts in tbw", "tbw", {}, ("ismcts", "junqi"),
            "opponent 'ismcts' plays junqi, but this env is tbw"),
    Refusal("junqi mcts, built without a game, in tbw", "tbw", {}, ("mcts", None),
            "opponent 'mcts' plays junqi"),
    Refusal("junqi greedy in tbw", "tbw", {}, ("greedy", "junqi"),
            "opponent 'greedy' plays junqi"),
    Refusal("tbw greedy in junqi", "junqi", {}, ("greedy", "tbw"),
            "opponent 'greedy' plays tbw, but this env is junqi"),
    Refusal("tbw exact search, built without a game, in junqi", "junqi", {}, ("exact", None),
            "opponent 'exact' plays tbw"),
    Refusal("tbw oep in junqi", "junqi", {}, ("oep", "tbw"), "opponent 'oep' plays tbw"),
]


@pytest.mark.parametrize("case", WRAPPER_REFUSALS, ids=[c.name for c in WRAPPER_REFUSALS])
def test_single_agent_env_refuses_at_construction_and_starts_nothing(case):
    kwargs = dict(case.kwargs)
    if case.opponent is not None:
        spec, game = case.opponent
        kwargs["opponent"] = opponent = _spied(make_agent(spec, seed=0, game=game))
    with pytest.raises(case.error, match=case.match):
        SINGLE_AGENT_ENVS[case.env](**kwargs)
    if case.opponent is not None:
        assert opponent.calls == []  # refused before any game: never reset, never asked


@pytest.mark.parametrize("env_game, cap", [("tbw", 100), ("junqi", 500)])
@pytest.mark.parametrize("opponent", [("random", None), ("greedy", "own game")])
def test_single_agent_env_takes_openings_up_to_the_cap_and_its_own_games_agents(
        env_game, cap, opponent):
    spec, game = opponent
    agent = make_agent(spec, seed=0, game=env_game if game == "own game" else game)
    for plies in (0, cap):
        env = SINGLE_AGENT_ENVS[env_game](opponent=agent, opening_plies=plies)
        _, info = env.reset(seed=3)
        # The opening's plies were played, unless the game ended first (Junqi's random play
        # often ends a game within 500 plies, by its no-collision rule).
        assert env.opening_plies == plies
        assert info["plies"] >= plies or info["end_reason"] != 0


_USER_AGENT = '''
class FirstLegal:
    """A user's agent that says nothing of its game: it plays either."""

    def __init__(self, seed=None):
        pass

    def reset(self, seed=None):
        pass

    def act(self, view):
        return view.legal_actions()[0]
'''


@pytest.mark.parametrize("game", ["tbw", "junqi"])
def test_a_user_agent_that_names_no_game_is_still_accepted(tmp_path, game):
    path = tmp_path / "first_legal.py"
    path.write_text(_USER_AGENT, encoding="utf-8")
    agent = make_agent(f"{path}:FirstLegal", seed=0)
    assert getattr(agent, "game", None) is None
    env = SINGLE_AGENT_ENVS[game](opponent=agent, learner_seat=1)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_a_game_that_ends_inside_reset_says_so_on_step():
    # The opponent moves first and kills the learner's only unit before the learner's turn.
    duel = scenario(["..."], [(0, "killer", (0, 0)), (1, "statue", (0, 1))])
    env = make_tbw_single(scenario=duel, opponent=make_agent("greedy", seed=0), learner_seat=1)
    _, info = env.reset(seed=0)
    assert info["winner"] == 0
    with pytest.raises(GameOverError, match=r"the game ended inside reset\(\).*call reset\(\) "
                                            r"again"):
        env.step(0)


VEC_ENV_REFUSALS = [
    ("None", None, r"needs a Gymnasium-style vector env .*got NoneType None, which has no "
                   r"observation_space, action_space, num_envs"),
    ("a string", "games", "got str 'games'"),
    ("a single-agent env", "single", "has no num_envs"),
]


@pytest.mark.parametrize("name, games, match", VEC_ENV_REFUSALS,
                         ids=[c[0] for c in VEC_ENV_REFUSALS])
def test_masked_sb3_vec_env_names_what_it_needs(name, games, match):
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed")
    from agents.training.sb3_vec import MaskedSB3VecEnv

    if games == "single":
        games = make_tbw_single()
    with pytest.raises(TypeError, match=match):
        MaskedSB3VecEnv(games)


# ---------------------------------------------------------------------------- policy files


def _relabelled(source: Path, target: Path, **fields) -> Path:
    """A copy of the policy file ``source`` whose metadata says ``fields`` instead."""
    with zipfile.ZipFile(source) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    with np.load(source, allow_pickle=False) as data:
        meta = json.loads(data["metadata"].tobytes())
    meta.update(fields)
    buffer = io.BytesIO()
    np.save(buffer, np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8))
    entries["metadata.npy"] = buffer.getvalue()
    with zipfile.ZipFile(target, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    return target


@pytest.fixture(scope="module")
def policy_files(tmp_path_factory) -> dict[str, str]:
    """A small duel_5v5_8x8 policy file, copies whose metadata names another scenario
    ({hex}: hex_skirmish, which does not fit the policy; {nowhere}: no_such_scenario), and a
    user scenario of duel_5v5_8x8's sizes under another name ({mirror})."""
    maskable_ppo_or_skip()
    from agents.policy.nets import mlp_policy_kwargs
    from agents.policy.policy_files import save_policy

    folder = tmp_path_factory.mktemp("policies")
    policy = untrained_policy(make_tbw_single(), mlp_policy_kwargs(net_arch=[16]))
    duel = save_policy(policy, folder / "duel.npz", {"game": "tbw", "scenario": "duel_5v5_8x8"})
    text = (REPO_ROOT / "configs" / "tbw" / "duel_5v5_8x8.yaml").read_text(encoding="utf-8")
    mirror = folder / "duel_mirror.yaml"
    mirror.write_text(f"name: duel_mirror\n{text}".replace("name: duel_5v5_8x8\n", ""),
                      encoding="utf-8")
    return {"duel": str(duel), "mirror": str(mirror),
            "hex": str(_relabelled(duel, folder / "hex.npz", scenario="hex_skirmish")),
            "nowhere": str(_relabelled(duel, folder / "nowhere.npz",
                                       scenario="no_such_scenario"))}


POLICY_REFUSALS = {
    "metadata names a scenario the policy does not fit": (
        "hex", r"hex\.npz'?: scenario 'hex_skirmish' gives observations \(33, 8, 10\) and 1601 "
               r"actions, but the policy takes \(32, 8, 8\) and 1921"),
    "metadata names no scenario there is": (
        "nowhere", r"nowhere\.npz'?: scenario 'no_such_scenario' is no bundled scenario "
                   r"\(.*duel_5v5_8x8.*\)"),
}


@pytest.mark.parametrize("case", sorted(POLICY_REFUSALS))
@pytest.mark.parametrize("how", ["make_agent on duel_5v5_8x8", "load_policy"])
def test_a_policy_files_scenario_is_checked_when_it_is_loaded(policy_files, case, how):
    maskable_ppo_or_skip()
    from agents.policy.policy_files import load_policy
    from agents.policy.policy_metadata import PolicyFileError

    name, match = POLICY_REFUSALS[case]
    folder = Path(policy_files[name]).parent
    before = sorted(folder.iterdir())
    with pytest.raises(PolicyFileError, match=match):
        if how == "load_policy":
            load_policy(policy_files[name])
        else:
            make_agent(f"ppo:path={policy_files[name]}", seed=0, game="tbw",
                       variant="duel_5v5_8x8")
    assert sorted(folder.iterdir()) == before


def test_a_policy_on_another_board_of_its_sizes_is_warned_about_with_both_names(policy_files):
    maskable_ppo_or_skip()
    spec = f"ppo:path={policy_files['duel']}"
    with pytest.warns(UserWarning, match=r"trained on scenario 'duel_5v5_8x8' and is to play "
                                         r"scenario 'duel_mirror'"):
        make_agent(spec, seed=0, game="tbw", variant=policy_files["mirror"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # on the board it was trained on: no warning
        make_agent(spec, seed=0, game="tbw", variant="duel_5v5_8x8")


# ---------------------------------------------------------------------------- train_ppo.py

# (arguments, words the message must hold): refused before anything is written or trained.
TRAIN_PPO_REFUSALS = {
    "opening plies beyond every episode": (
        ["--opening-plies", "100000"],
        ["--opening-plies 100,000 is more than the cap of 100", "'duel_5v5_8x8'",
         "40 turns x 10 units = 400 plies"]),
    "opening plies one over the cap": (["--opening-plies", "101"],
                                       ["--opening-plies 101", "cap of 100"]),
    "opening plies over hex_skirmish's cap": (
        ["--scenario", "hex_skirmish", "--opening-plies", "61"],
        ["--opening-plies 61", "cap of 60", "'hex_skirmish'"]),
    "opponent whose metadata names a scenario it does not fit": (
        ["--opponent", "ppo:path={hex}"], ["--opponent", "scenario 'hex_skirmish' gives"]),
    "opponent whose metadata names no scenario there is": (
        ["--opponent", "ppo:path={nowhere}"], ["--opponent", "scenario 'no_such_scenario'"]),
    "init whose metadata names no scenario there is": (
        ["--init", "{nowhere}"], ["--init", "scenario 'no_such_scenario'"]),
}


class _Trained(Exception):
    """Raised by the patched MaskablePPO.learn: the run got as far as training."""


def _train_ppo(extra: list[str], files: dict[str, str], out: Path, monkeypatch) -> list[Any]:
    """scripts/train_ppo.py's main with ``extra``, stopped where training would start; returns
    the models that got there."""
    maskable_ppo = maskable_ppo_or_skip()
    from agents.cli.train import main

    started: list[Any] = []

    def learn(self, *args, **kwargs):
        started.append(self)
        raise _Trained

    monkeypatch.setattr(maskable_ppo, "learn", learn)
    argv = ["--game", "tbw", "--timesteps", "64", "--n-steps", "32", "--batch-size", "32",
            "--eval-every", "0", "--eval-games", "2", "--eval-opponents", "random",
            "--no-progress", "--out", str(out)] + [arg.format(**files) for arg in extra]
    with contextlib.suppress(_Trained):
        main(argv)
    return started


@pytest.mark.parametrize("case", sorted(TRAIN_PPO_REFUSALS))
def test_train_ppo_refuses_before_writing_or_training(case, policy_files, tmp_path,
                                                      monkeypatch, capsys):
    extra, words = TRAIN_PPO_REFUSALS[case]
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as caught:
        _train_ppo(extra, policy_files, out, monkeypatch)
    assert caught.value.code == 2
    message = capsys.readouterr().err
    for word in words:
        assert word in message, (word, message)
    assert not out.exists()  # no run folder


def test_train_ppo_takes_an_opening_at_the_cap(policy_files, tmp_path, monkeypatch):
    started = _train_ppo(["--opening-plies", "100", "--opponent", "ppo:path={duel}"],
                         policy_files, tmp_path / "run", monkeypatch)
    assert len(started) == 1
