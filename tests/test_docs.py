"""The docs stand on their own: relative links resolve inside the repository, no doc or source file
points outside it (``../shared``, an external rules file) or at tracker numbers, and every test
file a doc or source file names exists."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINKED_DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
# Directories never scanned: environments, caches and VCS data; of the tests, only this file
# (which quotes the forbidden strings) is skipped.
SKIP_DIRS = {".venv", "venv", ".git", "__pycache__", ".pytest_cache", ".ruff_cache",
             ".mypy_cache", "node_modules", "build", "dist"}
FORBIDDEN = [
    ("a path outside the repository", re.compile(re.escape("../shared"))),
    ("a path outside the repository", re.compile(re.escape("/work/shared"))),
    ("the external rules file", re.compile(re.escape("JUNQI_RULES.md"))),
    ("the source papers' folder, outside the repository", re.compile(r"\bpapers/(README|\d)")),
    ("a tracker reference", re.compile(r"\bissues? \d+\b", re.I)),
]

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1[^\n]*$", re.M | re.S)
INLINE_CODE = re.compile(r"(`+)(.+?)\1", re.S)
# [text](target) and ![alt](target), with an optional "title"; the text may span lines.
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^\s)>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.M)
# <img src="..."> and <a href="...">: the README shows its picture with HTML.
HTML_LINK = re.compile(r"<(?:img|a|source)\b[^>]*?\b(?:src|href)=\"([^\"]+)\"", re.I)
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.I)  # http:, https:, mailto:, ...
# A test file, or one test in it, by path: tests/tbw_envs/test_endings.py, ...::test_name.
TEST_PATH = re.compile(r"\b(tests/[\w/]+\.py)(?:::(\w+))?")


def _without_fences(text: str) -> str:
    """Markdown text with fenced blocks blanked (line count kept)."""
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def _without_code(text: str) -> str:
    """Markdown text with fenced blocks blanked (line count kept) and inline code neutralised."""
    return INLINE_CODE.sub(lambda m: "code" + "\n" * m.group(0).count("\n"),
                           _without_fences(text))


def github_slug(heading: str) -> str:
    """GitHub's anchor for a heading: the rendered text, lowercased, punctuation other than
    hyphens and underscores dropped, spaces turned into hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a markdown file; repeated headings get -1, -2, ... as on GitHub."""
    seen: dict[str, int] = {}
    result = set()
    # Inline code in a heading is part of its anchor (``## Environment `junqi_v0` ``), so only
    # fenced blocks, whose lines are not headings, are blanked.
    for heading in HEADING.findall(_without_fences(path.read_text(encoding="utf-8"))):
        slug = github_slug(heading.strip())
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        result.add(slug if count == 0 else f"{slug}-{count}")
    return result


def relative_links(path: Path) -> list[tuple[int, str]]:
    """``(line, target)`` of every link in ``path`` that points into the repository."""
    text = _without_code(path.read_text(encoding="utf-8"))
    found = []
    for match in [*LINK.finditer(text), *HTML_LINK.finditer(text)]:
        target = match.group(1)
        if EXTERNAL.match(target):
            continue
        found.append((text.count("\n", 0, match.start(1)) + 1, target))
    return sorted(found)


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    """What is wrong with the relative links of ``path`` (a doc inside ``root``)."""
    problems = []
    for line, target in relative_links(path):
        file_part, _, anchor = target.partition("#")
        where = f"{path.relative_to(root)}:{line}: ({target})"
        dest = (path.parent / unquote(file_part)).resolve() if file_part else path
        if not dest.is_relative_to(root):
            problems.append(f"{where} points outside the repository")
        elif not dest.exists():
            problems.append(f"{where}: no such file")
        elif anchor and dest.suffix == ".md" and unquote(anchor).lower() not in anchors(dest):
            problems.append(f"{where}: {dest.relative_to(root)} has no heading #{anchor}")
    return problems


def scanned_files() -> list[Path]:
    files = []
    for folder, dirs, names in os.walk(ROOT):
        # Pruned in place, so the walk never enters a virtual environment or a cache.
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")
                   and not d.startswith(".venv")]
        for name in names:
            path = Path(folder) / name
            if path.suffix in (".md", ".py") and path.resolve() != Path(__file__).resolve():
                files.append(path)
    return sorted(files)


def test_the_docs_are_found():
    names = {path.relative_to(ROOT).as_posix() for path in LINKED_DOCS}
    assert {"README.md", "docs/junqi.md", "docs/junqi_rules.md"} <= names
    assert any(relative_links(path) for path in LINKED_DOCS)


@pytest.mark.parametrize("path", LINKED_DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(path):
    assert broken_links(path) == []


def test_no_references_outside_the_repository():
    problems = []
    for path in scanned_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for what, pattern in FORBIDDEN:
                if pattern.search(line):
                    problems.append(f"{path.relative_to(ROOT)}:{number}: {what}: {line.strip()}")
    assert problems == []


@pytest.mark.parametrize(("heading", "slug"), [
    ("Views (the information boundary)", "views-the-information-boundary"),
    ("TBW search across turns (`TBWTreeAgent`)", "tbw-search-across-turns-tbwtreeagent"),
    ("MaskablePPO training throughput", "maskableppo-training-throughput"),
    ("RLlib on Ray", "rllib-on-ray"),
    ("Environment `junqi_v0`", "environment-junqi_v0"),
    ("A - B: c.d", "a---b-cd"),
])
def test_github_slug(heading, slug):
    assert github_slug(heading) == slug


def test_the_checker_catches_a_broken_link_and_anchor(tmp_path):
    (tmp_path / "a.md").write_text("# Title here\n\n## Part\n\n## Env `x_v0`\n", encoding="utf-8")
    (tmp_path / "pic.png").write_bytes(b"")
    doc = tmp_path / "b.md"
    doc.write_text(
        "[ok](a.md) [ok](a.md#part) [ok](#own) [web](https://x.org/y.md) [m](mailto:a@b.c)\n"
        "[gone](missing.md) [bad anchor](a.md#nope)\n```\n[in code](nowhere.md)\n```\n"
        "`[inline](nowhere.md)` [out](../x.md) [code in heading](a.md#env-x_v0)\n"
        '<img src="pic.png" alt="ok"> <img src="gone.png" alt="gone">\n## Own\n',
        encoding="utf-8",
    )
    problems = broken_links(doc, root=tmp_path)
    assert len(problems) == 4, problems
    for expected in ["(missing.md): no such file", "a.md has no heading #nope",
                     "(../x.md) points outside", "(gone.png): no such file"]:
        assert sum(expected in problem for problem in problems) == 1, (expected, problems)


def test_the_test_files_named_in_docs_and_code_exist():
    """A doc, a script, a comment or CI names a test file (or one test in it) that exists, so
    moving a test file cannot leave a stale path behind. The changelog is history: left out."""
    problems = []
    for path in [*scanned_files(), ROOT / ".ci" / "run"]:
        if path.name == "CHANGELOG.md":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for test_file, test in TEST_PATH.findall(line):
                where = f"{path.relative_to(ROOT)}:{number}: {test_file}"
                if not (ROOT / test_file).is_file():
                    problems.append(f"{where}: no such file")
                elif test and not re.search(rf"^def {test}\(",
                                            (ROOT / test_file).read_text(encoding="utf-8"),
                                            re.M):
                    problems.append(f"{where}::{test}: no such test")
    assert problems == []
