"""Every command-line script answers ``--help`` with its usage and exits 0, without running
anything (the scripts run side by side here, so the whole check takes a few seconds)."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import REPO_ROOT

SCRIPTS = sorted(
    path for path in [*REPO_ROOT.glob("scripts/*.py"), *REPO_ROOT.glob("scripts/integrations/*.py")]
    if path.name != "__init__.py"
)


def test_every_script_answers_help():
    assert len(SCRIPTS) >= 15
    running = {
        path: subprocess.Popen([sys.executable, str(path), "--help"], cwd=REPO_ROOT,
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
