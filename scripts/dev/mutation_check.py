"""Mutation testing of the game cores and env adapters with mutmut 3 (a benchmark of the tests).

    pip install mutmut                                  # next to the project's [dev] install
    nice -n 10 python scripts/dev/mutation_check.py tbw_envs/infos.py
    python scripts/dev/mutation_check.py tbw_envs/tbw/rules.py \\
        --tests tests/tbw_envs/tbw/test_state.py
    python scripts/dev/mutation_check.py --list             # the targets and their test selections

The repository is copied to a temporary folder (mutmut rewrites files: never run it in the
checkout; .git, .venv* and caches are left out), a ``[tool.mutmut]`` section that mutates the one
target file with its test selection is appended to the copy's pyproject.toml, and ``mutmut run``
runs there with this Python. mutmut maps every function to the tests that call it and runs only
those against each of its mutants, so a selection may be broad. Printed at the end: the count of
each outcome (killed, survived, timeout, no tests, ...) and the diff of every survivor. Results
and figures go to docs/benchmarks.md ("Mutation testing"); ``--keep`` keeps the copy for
``mutmut browse``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository: scripts/dev/ is two folders down

# Slow tests that add nothing for these targets: the render round trips (seconds each) and the
# PPO smoke test (torch).
TBW_SKIP = ["--deselect", "tests/tbw_envs/test_tbw_v0.py::test_pettingzoo_render_test"]
JUNQI_SKIP = ["--deselect", "tests/tbw_envs/test_junqi_v0.py::test_pettingzoo_render"]
PPO_SKIP = ["--deselect", "tests/tbw_envs/test_wrappers.py::test_maskable_ppo_smoke"]
ENV_TESTS = ["tests/tbw_envs/test_endings.py", "tests/tbw_envs/test_integrations.py",
             "tests/tbw_envs/test_aec_wrappers.py", "tests/tbw_envs/test_env_arguments.py"]
TBW_ENV_TESTS = ["tests/tbw_envs/test_tbw_v0.py", "tests/tbw_envs/test_registration.py",
                 "tests/tbw_envs/test_wrappers.py"]
TBW_CORE_TESTS = ["tests/tbw_envs/tbw/test_board.py", "tests/tbw_envs/tbw/test_state.py",
                  "tests/tbw_envs/tbw/test_state_movement.py",
                  "tests/tbw_envs/tbw/test_state_attacks.py",
                  "tests/tbw_envs/tbw/test_state_reference.py"]
TARGETS = {
    "tbw_envs/infos.py": ["tests/tbw_envs/test_endings.py", "tests/tbw_envs/test_env_arguments.py",
                          "tests/tbw_envs/test_aec_wrappers.py",
                          "tests/tbw_envs/test_integrations.py"],
    "tbw_envs/tbw_v0.py": [*ENV_TESTS, *TBW_ENV_TESTS, *TBW_SKIP, *PPO_SKIP],
    "tbw_envs/junqi_v0.py": [*ENV_TESTS, "tests/tbw_envs/test_junqi_v0.py",
                             "tests/tbw_envs/test_wrappers.py", *JUNQI_SKIP, *PPO_SKIP],
    "tbw_envs/wrappers.py": [*ENV_TESTS, *TBW_ENV_TESTS, *TBW_SKIP, *PPO_SKIP],
    "tbw_envs/aec_wrappers.py": ENV_TESTS,
    "tbw_envs/tbw/rules.py": TBW_CORE_TESTS,
    "tbw_envs/tbw/state.py": TBW_CORE_TESTS,
    "tbw_envs/junqi/state.py": ["tests/tbw_envs/junqi/test_state.py",
                                "tests/tbw_envs/junqi/test_rules.py",
                                "tests/tbw_envs/junqi/test_board.py",
                                "tests/tbw_envs/junqi/test_state_view.py",
                                "tests/tbw_envs/junqi/test_variant.py",
                                "tests/tbw_envs/test_junqi_v0.py", *JUNQI_SKIP],
}
IGNORE = shutil.ignore_patterns(".git", ".venv*", "mutants", "__pycache__", "*.egg-info",
                                ".pytest_cache", ".hypothesis", ".ruff_cache", "runs")


def toml_list(items: list[str]) -> str:
    return "[" + ", ".join('"' + item.replace("\\", "\\\\").replace('"', '\\"') + '"'
                           for item in items) + "]"


def mutmut(copy: Path, *args: str, capture: bool = False) -> str:
    # The console script's entry point, run by this Python (``python -m mutmut`` re-executes
    # mutmut's __main__ and warns).
    command = [sys.executable, "-c", "import sys; from mutmut.__main__ import cli; sys.exit(cli())",
               *args]
    done = subprocess.run(command, cwd=copy, text=True, check=not capture,
                          stdout=subprocess.PIPE if capture else None)
    return done.stdout or ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="targets: " + ", ".join(TARGETS))
    parser.add_argument("target", nargs="?", help="a source file, e.g. tbw_envs/infos.py")
    parser.add_argument("--tests", nargs="+", metavar="ARG",
                        help="pytest arguments selecting the tests (default: the target's own)")
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 1,
                        help="mutants run side by side (default: all cores)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary copy")
    parser.add_argument("--list", action="store_true", help="print the targets and exit")
    args = parser.parse_args(argv)
    if args.list:
        for target, tests in TARGETS.items():
            print(f"{target}: {' '.join(tests)}")
        return 0
    if not args.target:
        parser.error("name a target (--list shows them)")
    if not (ROOT / args.target).is_file() or not args.target.endswith(".py"):
        parser.error(f"no such Python file in the repository: {args.target}")
    tests = args.tests or TARGETS.get(args.target)
    if not tests:
        parser.error(f"{args.target} has no default test selection: pass --tests")
    if args.max_children < 1:
        parser.error("--max-children must be at least 1")
    if importlib.util.find_spec("mutmut") is None:
        sys.exit("mutation_check: mutmut is not installed in this Python: pip install mutmut")

    copy = Path(tempfile.mkdtemp(prefix="tbw-mutation-")) / "repo"
    try:
        shutil.copytree(ROOT, copy, ignore=IGNORE)
        with open(copy / "pyproject.toml", "a", encoding="utf-8") as f:
            f.write("\n[tool.mutmut]\n"
                    'source_paths = ["tbw_envs"]\n'
                    f"only_mutate = {toml_list([args.target])}\n"
                    # configs/ must sit beside the mutated tbw_envs/ (tbw_envs/core/configs_path)
                    'also_copy = ["configs", "agents", "scripts"]\n'
                    # Hypothesis tests with a fixed seed: a kill must not depend on the draw.
                    'pytest_add_cli_args = ["--hypothesis-seed=0"]\n'
                    f"pytest_add_cli_args_test_selection = {toml_list(tests)}\n")
        print(f"mutating {args.target} in {copy} with: {' '.join(tests)}", flush=True)
        mutmut(copy, "run", "--max-children", str(args.max_children))
        results = mutmut(copy, "results", "--all", "true", capture=True)
        outcomes = dict(re.findall(r"^\s*(\S+): (.+?)\s*$", results, re.M))
        counts = Counter(outcomes.values())
        print(f"\n{args.target}: {len(outcomes)} mutants, "
              + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())))
        for name, status in outcomes.items():
            if status not in ("killed", "caught by type check"):
                print(mutmut(copy, "show", name, capture=True).rstrip())
        return 0
    finally:
        if args.keep:
            print(f"kept {copy}")
        else:
            shutil.rmtree(copy.parent, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
