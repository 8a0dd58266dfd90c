"""``--require-integrations=EXTRAS``: in CI, a test skipped for a missing library fails.

Tests skip with the reason when an optional library is not installed (``importorskip``,
``skipif``): right on a developer's machine, wrong in CI, where the README's two commands install
every integration the README lists. With ``--require-integrations=train,fast,integrations`` (the
README's test command) or ``--require-integrations=rllib`` (its RLlib command, in its own
environment), a skip whose reason says a library is missing ("not installed", "could not
import", "No module named", or "needs"/"requires" with a library's name) fails instead, unless
it names a library that belongs only to extras left out of the list. So in the main environment
ray's tests still skip (ray pins its own gymnasium; they run in the RLlib command), and a library
this file does not know (a new integration) is never allowed to be missing. Other skips (the
test of the error shown when ray is absent, say) are left alone.
"""

from __future__ import annotations

import re

import pytest

# The libraries of each extra whose tests may skip without them, by the names skip reasons use
# (import names; "-" is read as "_").
EXTRA_LIBRARIES = {
    "train": {"torch", "stable_baselines3", "sb3_contrib"},
    "fast": {"numba"},
    "integrations": {"torchrl", "tensordict", "tianshou", "supersuit"},
    "rllib": {"ray", "torch"},
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
