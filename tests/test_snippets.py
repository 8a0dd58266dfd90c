"""Every ```python block of the README and of docs/ runs as written.

Conventions a doc follows (comment lines inside the block, visible to the reader too):

- ``# continues the block above`` as the block's first line: the block runs in the namespace the
  previous python block of the same page left (a page's blocks otherwise each start afresh).
- ``# slow: about N s`` anywhere in the block: the block, with the chain it belongs to, runs only
  under the ``slow`` marker (``python -m pytest -m slow tests/test_snippets.py``). For blocks
  over about 5 s: training, big searches.
- A block that imports an optional library (one of ``EXTRA_LIBRARIES`` in ``tests/conftest.py``,
  torch, sb3_contrib, ray, ...) skips, naming the library, when it is not installed; with
  ``--require-integrations`` that skip fails as any other does.
- Pseudo-code is never marked python: it goes in a ```text block.

A chain (a block and the blocks that continue it) runs in a fresh Python process, from an empty
temporary working directory, so no snippet sees another's imports or files; the timeout only
bounds a hang. A failure names the page and the block number (counted from 0 among the page's
python blocks, as ``tests/test_readme.py`` counts the README's).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import EXTRA_LIBRARIES

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)
CONTINUES = "# continues the block above"
SLOW = re.compile(r"^\s*# slow: about \d+(?:\.\d+)? (?:s|min)\b", re.M)
OPTIONAL_LIBRARIES = set().union(*EXTRA_LIBRARIES.values())
TIMEOUT_SECONDS = {False: 300, True: 1800}  # fast chains, slow chains: bounds a hang only

# Runs in the child process: execs each block of the chain in one namespace, in order, and says
# which block failed.
RUNNER = """
import json, sys, traceback
namespace = {"__name__": "__main__"}
for label, source in json.load(sys.stdin):
    try:
        exec(compile(source, label, "exec"), namespace)
    except BaseException:
        traceback.print_exc()
        print(f"SNIPPET FAILED: {label}", file=sys.stderr)
        sys.exit(1)
"""


@dataclass
class Chain:
    """A page's python block and the blocks that continue it, run in one namespace."""

    page: str
    blocks: list[tuple[int, str]] = field(default_factory=list)  # (index on the page, source)

    @property
    def name(self) -> str:
        return f"{self.page}[{','.join(str(index) for index, _ in self.blocks)}]"

    @property
    def slow(self) -> bool:
        return any(SLOW.search(source) for _, source in self.blocks)

    def optional_imports(self) -> list[str]:
        """The optional libraries the chain imports, in the order they first appear."""
        found: list[str] = []
        for _, source in self.blocks:
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top in OPTIONAL_LIBRARIES and top not in found:
                        found.append(top)
        return found


def chains_of(text: str, page: str) -> list[Chain]:
    """The chains of one page's markdown ``text``; a continuing first block is an error."""
    chains: list[Chain] = []
    for index, source in enumerate(PYTHON_BLOCK.findall(text)):
        if source.lstrip().startswith(CONTINUES):
            if not chains:
                raise ValueError(f"{page}: python block {index} continues a block above, but "
                                 f"it is the page's first python block")
            chains[-1].blocks.append((index, source))
        else:
            chains.append(Chain(page, [(index, source)]))
    return chains


def all_chains() -> list[Chain]:
    return [chain for path in PAGES
            for chain in chains_of(path.read_text(encoding="utf-8"),
                                   path.relative_to(ROOT).as_posix())]


def run_chain(chain: Chain, cwd: Path) -> subprocess.CompletedProcess:
    payload = json.dumps([(f"{chain.page} python block {index}", source)
                          for index, source in chain.blocks])
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]), "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-c", RUNNER], input=payload, capture_output=True,
                          text=True, cwd=cwd, env=environment,
                          timeout=TIMEOUT_SECONDS[chain.slow])


CHAINS = all_chains()


@pytest.mark.parametrize("chain", [
    pytest.param(chain, id=chain.name, marks=[pytest.mark.slow] if chain.slow else [])
    for chain in CHAINS])
def test_snippet_runs(chain, tmp_path):
    for library in chain.optional_imports():
        if importlib.util.find_spec(library) is None:
            pytest.skip(f"{chain.name} needs {library}, which is not installed")
    completed = run_chain(chain, tmp_path)
    assert completed.returncode == 0, completed.stderr[-4000:]


def test_the_snippets_are_found():
    pages = {chain.page for chain in CHAINS}
    assert {"README.md", "docs/junqi.md", "docs/tbw.md"} <= pages
    assert any(len(chain.blocks) > 1 for chain in CHAINS), "no page uses the continuation"
    assert any(chain.slow for chain in CHAINS) and any(not chain.slow for chain in CHAINS)


def test_snippets_that_train_or_play_a_network_use_one_torch_thread():
    networked = [chain for chain in CHAINS
                 if {"torch", "sb3_contrib", "stable_baselines3"} & set(chain.optional_imports())
                 or any("ppo:" in source or "PPOAgent" in source for _, source in chain.blocks)]
    assert networked, "the docs show how to train with MaskablePPO"
    for chain in networked:
        assert any("torch.set_num_threads(1)" in source for _, source in chain.blocks), chain.name


def test_the_conventions_are_read(tmp_path):
    text = ("```python\nx = 1\n```\n\n```python\n# continues the block above\nassert x == 1\n```\n"
            "```text\nnot = python |\n```\n"
            "```python\n# slow: about 20 s\nimport torch, json\nfrom sb3_contrib import A\n```\n")
    first, second = chains_of(text, "page.md")
    assert first.name == "page.md[0,1]" and not first.slow
    assert second.name == "page.md[2]" and second.slow
    assert second.optional_imports() == ["torch", "sb3_contrib"]
    with pytest.raises(ValueError, match="page.md: python block 0 continues"):
        chains_of("```python\n# continues the block above\n```\n", "page.md")


def test_a_failing_snippet_fails_and_names_its_block(tmp_path):
    """Without the shared namespace the continuation would fail; a broken block is named."""
    (chain,) = chains_of("```python\nx = 1\n```\n```python\n# continues the block above\n"
                         "assert x == 1\n```\n", "page.md")
    assert run_chain(chain, tmp_path).returncode == 0
    (broken,) = chains_of('```python\nx = 1\n```\n```python\n# continues the block above\n'
                          'x = "random" | "agents"\n```\n', "page.md")
    completed = run_chain(broken, tmp_path)
    assert completed.returncode == 1
    assert "TypeError" in completed.stderr
    assert "SNIPPET FAILED: page.md python block 1" in completed.stderr
