"""Helpers shared by test modules: plain modules imported as ``tests.helpers.<module>``.

The test run puts the repository root on ``sys.path`` (``pythonpath`` in pyproject.toml) and
imports test modules with ``--import-mode=importlib``, so test files in different folders may
share a basename and every test file imports these the same way. Fixtures live in
``tests/conftest.py``.
"""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
