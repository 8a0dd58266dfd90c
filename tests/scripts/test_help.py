"""Every command-line script, in every folder of scripts/, answers ``--help`` with its usage and
exits 0, without running anything, started from outside the repository (no script puts the
repository on ``sys.path``: the package is installed). The scripts run side by side here, so the
whole check takes a few seconds."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import REPO_ROOT

SCRIPTS = sorted(path for path in REPO_ROOT.glob("scripts/**/*.py") if path.name != "__init__.py")
FOLDERS = ("scripts", "bench", "dev", "integrations")  # user commands' launchers, then the rest


def test_every_script_answers_help(tmp_path):
    assert len(SCRIPTS) >= 25
    assert set(FOLDERS) <= {path.parent.name for path in SCRIPTS}
    running = {
        path: subprocess.Popen([sys.executable, str(path), "--help"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for path in SCRIPTS
    }
    failures = []
    for path, process in running.items():
        out, err = process.communicate(timeout=120)
        if process.returncode != 0 or "usage:" not in out:
            failures.append(f"{path.relative_to(REPO_ROOT)}: exit {process.returncode}: "
                            f"{(err or out).strip()[-300:]}")
    assert failures == []
