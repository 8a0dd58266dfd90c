"""Every command-line script, in every folder of scripts/, answers ``--help`` with its usage and
exits 0, without running anything, and needs nothing of the repository on ``sys.path`` (no
script puts the repository there: the package is installed).

Each script runs in this process, as ``python scripts/<path>.py --help`` would run it: the file
as ``__main__``, its own folder first on ``sys.path``, from an empty working directory, with the
repository root off ``sys.path`` and the packages only the root makes importable (``scripts``,
``tests``) hidden, so a script that leans on the repository fails here as it would for a user.
Starting an interpreter per script cost half a minute of the test run; one launcher still starts
in a fresh interpreter from outside the repository, the way a user starts it.
"""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT

SCRIPTS = sorted(path for path in REPO_ROOT.glob("scripts/**/*.py") if path.name != "__init__.py")
FOLDERS = ("scripts", "bench", "dev", "integrations")  # user commands' launchers, then the rest
ONLY_FROM_THE_ROOT = ("scripts", "tests")  # importable only with the repository root on sys.path


def test_every_folder_of_scripts_is_covered():
    assert len(SCRIPTS) >= 25
    assert set(FOLDERS) <= {path.parent.name for path in SCRIPTS}


def _without_the_repository(entries: list[str]) -> list[str]:
    return [entry for entry in entries if entry and Path(entry).resolve() != REPO_ROOT]


def run_as_launched(path: Path, monkeypatch, workdir: Path) -> None:
    """Run the script file ``path`` with ``--help`` as its own process would, in this one; the
    modules it imports from its own folder are forgotten afterwards."""
    monkeypatch.chdir(workdir)
    monkeypatch.setattr(sys, "argv", [str(path), "--help"])
    monkeypatch.setattr(sys, "path", [str(path.parent), *_without_the_repository(sys.path)])
    for name in list(sys.modules):
        if name.partition(".")[0] in ONLY_FROM_THE_ROOT:
            monkeypatch.delitem(sys.modules, name)
    for name in ONLY_FROM_THE_ROOT:
        monkeypatch.setitem(sys.modules, name, None)  # "import tests..." now fails
    before = set(sys.modules)
    try:
        runpy.run_path(str(path), run_name="__main__")
    finally:
        for name in set(sys.modules) - before:
            module_file = getattr(sys.modules[name], "__file__", None) or ""
            if Path(module_file).resolve().parent == path.parent.resolve():
                del sys.modules[name]


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda path: path.relative_to(REPO_ROOT).as_posix())
def test_script_answers_help(path, monkeypatch, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        run_as_launched(path, monkeypatch, tmp_path)
    out, err = capsys.readouterr()
    assert exit_info.value.code in (0, None), err.strip()[-300:]
    assert "usage:" in out, (out or err).strip()[-300:]


def test_a_launcher_starts_in_its_own_interpreter_outside_the_repository(tmp_path):
    launcher = REPO_ROOT / "scripts" / "arena.py"
    done = subprocess.run([sys.executable, str(launcher), "--help"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr.strip()[-300:]
    assert "usage:" in done.stdout
