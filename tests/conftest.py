"""What every test shares: the ``--require-integrations`` option, the multiprocessing start
method, and the fixtures several test modules use (helpers that are not fixtures are plain
modules under ``tests/helpers/``).

``--require-integrations=EXTRAS``: in CI, a test skipped for a missing library fails.

Tests skip with the reason when an optional library is not installed (``importorskip``,
``skipif``): right on a developer's machine, wrong in CI, where the README's two commands install
every integration the README lists. With ``--require-integrations=train,fast,integrations,web`` (the
README's test command) or ``--require-integrations=rllib`` (its RLlib command, in its own
environment), a skip whose reason says a library is missing ("not installed", "could not
import", "No module named", or "needs"/"requires" with a library's name) fails instead, unless
it names a library that belongs only to extras left out of the list. So in the main environment
ray's tests still skip (ray pins its own gymnasium; they run in the RLlib command), and a library
this file does not know (a new integration) is never allowed to be missing. Other skips (the
test of the error shown when ray is absent, say) are left alone.
"""

from __future__ import annotations

import multiprocessing
import re

import pytest

# The libraries of each extra whose tests may skip without them, by the names skip reasons use
# (import names; "-" is read as "_").
EXTRA_LIBRARIES = {
    "train": {"torch", "stable_baselines3", "sb3_contrib"},
    "fast": {"numba"},
    "integrations": {"torchrl", "tensordict", "tianshou", "supersuit"},
    "rllib": {"ray", "torch"},
    "web": {"starlette", "uvicorn", "httpx2"},
    "browser": {"playwright"},
}
MISSING = re.compile(r"not installed|could not import|no module named", re.I)
NEEDS = re.compile(r"\b(needs|requires)\b", re.I)  # "needs the train extra (torch, ...)"


def pytest_addoption(parser):
    parser.addoption(
        "--require-integrations", metavar="EXTRAS", default=None,
        help="comma-separated extras (" + ", ".join(EXTRA_LIBRARIES) + ") installed here: a "
             "test skipped because a library is missing fails instead, unless the library "
             "belongs only to extras not listed")


def pytest_configure(config):
    # torchrl switches multiprocessing's default start method to "spawn" when it is first
    # imported, unless the method is already fixed; a spawned worker of a Gymnasium
    # AsyncVectorEnv then never registers the envs. Fixing the platform's default here keeps
    # every run, whatever its subset and order of tests, on the same start method.
    multiprocessing.get_start_method()
    value = config.getoption("--require-integrations")
    if value is None:
        config._required_extras_exempt = None
        return
    extras = {name.strip() for name in value.split(",") if name.strip()}
    unknown = extras - EXTRA_LIBRARIES.keys()
    if not extras or unknown:
        raise pytest.UsageError(
            f"--require-integrations: unknown extra(s) {sorted(unknown) or value!r}; "
            f"known: {', '.join(EXTRA_LIBRARIES)}")
    required = set().union(*(EXTRA_LIBRARIES[e] for e in extras))
    others = set().union(*(libs for e, libs in EXTRA_LIBRARIES.items() if e not in extras))
    config._required_extras_exempt = (value, others - required)


def _reason(report) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _fail_if_required(config, report) -> None:
    setting = getattr(config, "_required_extras_exempt", None)
    if setting is None or not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = _reason(report)
    normalized = reason.replace("-", "_")
    named = {lib for libs in EXTRA_LIBRARIES.values() for lib in libs
             if re.search(rf"\b{re.escape(lib)}\b", normalized)}
    if not (MISSING.search(reason) or (NEEDS.search(reason) and named)):
        return
    value, exempt = setting
    if named & exempt:
        return
    report.outcome = "failed"
    report.longrepr = (f"skipped for a missing library, but --require-integrations={value} "
                       f"says it is installed: {reason}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_if_required(item.config, outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_if_required(collector.config, outcome.get_result())


# ---------------------------------------------------------------------- shared fixtures


@pytest.fixture
def tiny_scenarios(tmp_path):
    """Two small random TBW scenarios (5 rounds, units close together) as YAML files, so games
    are quick: the weight tuner's and scripts/tune_weights.py's tests."""
    import yaml

    from tests.helpers.tbw_search import random_scenario_dict

    paths = []
    for seed in (4, 12):
        path = tmp_path / f"tiny_{seed}.yaml"
        path.write_text(yaml.safe_dump(random_scenario_dict(seed, own=3, enemies=3,
                                                            win="annihilation")))
        paths.append(str(path))
    return tuple(paths)


@pytest.fixture(scope="session")
def written_runs(tmp_path_factory):
    """A small round robin of each game written to disk (paths of its files, by game): the
    records' and scripts/replay.py's tests read them and never change them."""
    from tests.helpers.arena_runs import write_runs

    return write_runs(tmp_path_factory.mktemp("arena"))


@pytest.fixture
def no_games(monkeypatch):
    """Any game started (in this process or a pool) fails the test: the arena's and
    scripts/arena.py's checks come first."""
    import agents.arena.roundrobin as arena_roundrobin
    from agents.cli import arena as arena_cli

    def refuse(*args, **kwargs):
        raise AssertionError("a game was started before the input was checked")

    for name in ("play_task", "warm_up", "play_in_processes", "play_on_ray"):
        monkeypatch.setattr(arena_roundrobin, name, refuse)
    monkeypatch.setattr(arena_cli, "run_round_robin", refuse)


@pytest.fixture(scope="session")
def opening_runs(tmp_path_factory):
    """A small written run per game with a random opening (paths to games.jsonl): the records'
    and scripts/replay.py's tests read them and never change them."""
    from tests.helpers.arena_runs import write_runs_with_opening

    return write_runs_with_opening(tmp_path_factory.mktemp("proof"))


@pytest.fixture
def shipped_configs_unchanged():
    """Every shipped configs/agents file keeps its bytes, and no file is added there."""
    from tests.helpers.weight_files import SHIPPED, SHIPPED_FILES, shipped_agent_files

    before = {p: p.read_bytes() for p in SHIPPED}
    yield
    assert shipped_agent_files() == SHIPPED_FILES
    for path, data in before.items():
        assert path.read_bytes() == data, f"{path} changed"


@pytest.fixture(scope="module")
def ray_session():
    """One local Ray per test module: run_round_robin and rllib_training.train reuse a running
    Ray (connect_ray) and leave it up."""
    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False)
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture
def registered_minigame():
    """The minigame (``tests.helpers.minigame``: one-heap Nim, game ``"nim"``, variant flag
    ``heap``, only the ``random`` agent) registered for the test, its env ids included, and
    unregistered after: a layer's test that it works for a game it has never heard of."""
    from tests.helpers.minigame import minigame_registered

    with minigame_registered() as game:
        yield game
