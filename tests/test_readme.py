"""The README's runnable snippets and set-up commands stay true. Every python block of the
README and docs/ runs in ``tests/test_snippets.py``, which also checks that the ones that train
or play a network use one torch thread; here, the first two must show a TBW game."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)


@pytest.mark.parametrize("index", [0, 1])
def test_core_and_env_snippets_run(index, capsys):
    exec(compile(PYTHON_BLOCKS[index], f"README.md python block {index}", "exec"), {})
    assert "duel_5v5_8x8" in capsys.readouterr().out


def test_ci_runs_the_readme_test_commands_verbatim():
    commands = re.findall(r"```bash\n(.*?)\n```", README, re.S)
    assert len(commands) == 3, "the README gives exactly three set-up commands"
    main_job, tests, rllib_tests = commands
    assert "scripts/arena.py" in main_job and "pytest" in tests and "pytest" in rllib_tests
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert tests in ci and rllib_tests in ci and ci.index(tests) < ci.index(rllib_tests)
    for command in commands:
        assert "-c constraints.txt" in command
    assert "--require-integrations=" in tests and "--require-integrations=rllib" in rllib_tests
    # The tests in a real browser, with docs/web.md's command, in the main tests' environment.
    web_doc = (ROOT / "docs" / "web.md").read_text()
    (browser_tests,) = [c for c in re.findall(r"```bash\n(.*?)\n```", web_doc, re.S)
                        if "-m browser" in c]
    assert "apt-get install -y chromium" in browser_tests
    assert ci.index(tests) < ci.index(browser_tests) < ci.index(rllib_tests)
    assert (ROOT / "constraints.txt").read_text().strip() == "torch==2.13.0"


def test_the_examples_the_readme_names_exist():
    """``examples/<file>.py:<Name>`` in the README: the file exists and defines the name."""
    named = set(re.findall(r"(examples/\w+\.py):(\w+)", README))
    assert len(named) >= 3
    for path, name in named:
        source = (ROOT / path).read_text()
        assert re.search(rf"^(def|class) {name}\b", source, re.M), f"{path} has no {name}"


def test_the_rllib_command_names_tests_that_exist():
    """The RLlib command lists its test files (and one test) by path: each exists, which the
    main test run checks, not only the RLlib environment's."""
    rllib_tests = re.findall(r"```bash\n(.*?)\n```", README, re.S)[2]
    named = re.findall(r"\b(tests/[\w/]+\.py)(?:::(\w+))?", rllib_tests)
    assert len(named) >= 3, rllib_tests
    for path, test in named:
        assert (ROOT / path).is_file(), path
        if test:
            assert re.search(rf"^def {test}\(", (ROOT / path).read_text(), re.M), (path, test)
