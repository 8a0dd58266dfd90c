"""The README's runnable snippets and set-up commands stay true."""

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


def test_ci_runs_the_readme_test_command_verbatim():
    commands = re.findall(r"```bash\n(.*?)\n```", README, re.S)
    assert len(commands) == 2, "the README gives exactly two set-up commands"
    main_job, tests = commands
    assert "scripts/arena.py" in main_job and "pytest" in tests
    assert tests in (ROOT / ".ci" / "run").read_text().splitlines()
    assert "-c constraints.txt" in main_job and "-c constraints.txt" in tests
    assert (ROOT / "constraints.txt").read_text().strip() == "torch==2.13.0"
