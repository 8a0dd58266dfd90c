"""The structure the code holds to, read from its imports (ast, no module is executed).

- Imports go one way: game cores -> envs -> agents -> learning, arena, the registry and the web
  app -> scripts.
- No import circle between modules, counting imports inside functions and under
  ``if TYPE_CHECKING:`` (they never run, but a circle they close is still two modules that need
  each other).
- An import inside a function is for an optional dependency only (torch, numba, ray, ...), or
  for a project module that itself needs one at import time.
- No module imports another module's private (``_underscore``) names.
- No module is a deprecated re-export of another (the project is at 0.1: a module that moves
  leaves no old path behind).
- No module is over 700 lines; games are told apart by their descriptions, not by name.
- The package ``agents`` exports only what every game shares; the seed and spec limits are each
  defined in one module.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("tbw_envs", "agents", "scripts")
OPTIONAL = {"torch", "stable_baselines3", "sb3_contrib", "numba", "ray", "matplotlib", "pygame",
            "tqdm", "torchrl", "tensordict", "tianshou", "supersuit", "mutmut", "starlette",
            "uvicorn", "playwright"}
# Modules of core dependencies that need an optional one (connect four needs pygame).
OPTIONAL_MODULES = {"pettingzoo.classic"}
MAX_LINES = 700
MAX_GAME_NAME_COMPARISONS = 12

# Layers, lowest first; a module imports its own layer or lower ones only.
CORE, ENVS, AGENTS, REGISTRY, ARENA, TRAINING, COMMANDS = range(7)
LAYER_NAMES = ("game core", "envs", "agents", "registry", "arena/web", "training", "commands")
# Inside a game's folder of tbw_envs (tbw_envs/<game>/), the env/ subfolder is the env layer.
GAME_ENV_FOLDER = "env"


def layer(module: str) -> int:
    parts = module.split(".")
    if parts[0] == "scripts" or parts[1:2] == ["cli"]:
        return COMMANDS
    if parts[0] == "agents":
        return {"registry": REGISTRY, "arena": ARENA, "web": ARENA,
                "training": TRAINING}.get(parts[1] if len(parts) > 1 else "", AGENTS)
    if parts[1:2] == ["core"]:
        return CORE
    if len(parts) > 2 and (ROOT / parts[0] / parts[1]).is_dir():  # a game's folder
        return ENVS if parts[2] == GAME_ENV_FOLDER else CORE
    if len(parts) == 2 and (ROOT / parts[0] / parts[1]).is_dir():  # the game package itself
        return CORE
    return ENVS


@cache
def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


@cache
def tree(module: str) -> ast.Module:
    return ast.parse(modules()[module].read_text(encoding="utf-8"))


def _type_checking_blocks(node: ast.AST) -> set[int]:
    skipped = set()
    for child in ast.walk(node):
        if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            skipped.update(id(n) for stmt in child.body for n in ast.walk(stmt))
    return skipped


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".")
    is_package = modules()[module].name == "__init__.py"
    base = package if is_package else package[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


@cache
def imports(module: str, type_checking: bool = False) -> list[tuple[str, list[str], bool, int]]:
    """``(imported module, names, inside a function, line)`` of every import that can run, and
    with ``type_checking`` those under ``if TYPE_CHECKING:`` too."""
    body = tree(module)
    skipped = set() if type_checking else _type_checking_blocks(body)
    in_function = set()
    for node in ast.walk(body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            in_function.update(id(n) for n in ast.walk(node) if n is not node)
    found = []
    for node in ast.walk(body):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append((alias.name, [], id(node) in in_function, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, node)
            names = [alias.name for alias in node.names]
            # ``from package import module`` imports the submodule
            for name in names:
                if f"{target}.{name}" in modules():
                    found.append((f"{target}.{name}", [], id(node) in in_function, node.lineno))
            found.append((target, names, id(node) in in_function, node.lineno))
    return found


def project_target(name: str) -> str | None:
    """The project module an import names (the longest known prefix), or None."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules():
            return candidate
        parts.pop()
    return None


@cache
def needs_optional(module: str) -> bool:
    """Whether importing ``module`` imports an optional dependency (directly, at top level)."""
    return any(not inside and name.split(".")[0] in OPTIONAL
               for name, _, inside, _ in imports(module))


def test_the_layers_are_where_the_docs_say():
    assert layer("tbw_envs.tbw.state") == CORE and layer("tbw_envs.core.contract") == CORE
    assert layer("tbw_envs.tbw.env.game") == ENVS and layer("tbw_envs.games") == ENVS
    assert layer("tbw_envs.tbw_v0") == ENVS and layer("agents.junqi.mcts") == AGENTS
    assert layer("agents.policy.agent") == AGENTS and layer("agents.registry") == REGISTRY
    assert layer("agents.arena") == ARENA and layer("agents.web.app") == ARENA
    assert layer("agents.training.training") == TRAINING and layer("scripts.arena") == COMMANDS
    assert len(modules()) > 60


def test_imports_go_one_way():
    wrong = []
    for module in modules():
        for name, _, _, line in imports(module):
            target = project_target(name)
            if target is not None and layer(target) > layer(module):
                wrong.append(f"{module}:{line} ({LAYER_NAMES[layer(module)]}) imports {target} "
                             f"({LAYER_NAMES[layer(target)]})")
    assert not wrong, "\n".join(wrong)


def test_no_import_circle():
    graph = {m: sorted({t for name, *_ in imports(m, type_checking=True)
                        if (t := project_target(name))
                        and t != m and not t.startswith(m + ".")})
             for m in modules()}
    # A package's __init__ importing its own submodules is not a circle; a submodule importing
    # its package's __init__ is counted (it runs the __init__ first).
    circles = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                circles.append(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node)
    assert not circles, "\n".join(circles)


def test_imports_inside_functions_are_for_optional_dependencies():
    wrong = []
    for module in modules():
        for name, _, inside, line in imports(module):
            if not inside or name.split(".")[0] in OPTIONAL or name in OPTIONAL_MODULES:
                continue
            target = project_target(name)
            if target is None:
                wrong.append(f"{module}:{line} imports {name} inside a function")
            elif not needs_optional(target):
                wrong.append(f"{module}:{line} imports {target} inside a function, but it "
                             f"needs no optional dependency")
    assert not wrong, "\n".join(wrong)


def test_no_private_names_across_modules():
    wrong = []
    for module in modules():
        for name, names, _, line in imports(module):
            if project_target(name) is None:
                continue
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if private:
                wrong.append(f"{module}:{line} imports {private} from {name}")
    assert not wrong, "\n".join(wrong)


def test_no_module_is_a_deprecated_re_export():
    shims = [m for m in modules()
             if (ast.get_docstring(tree(m)) or "").lower().startswith("deprecated")]
    assert not shims, f"deprecated re-export modules: {shims}"


def test_the_agents_package_exports_only_what_every_game_shares():
    import agents

    game_only = {name: obj.__module__ for name in agents.__all__
                 if (obj := getattr(agents, name)).__module__.split(".")[1] in ("tbw", "junqi")}
    assert not game_only, f"the package agents re-exports one game's names: {game_only}"
    assert {"Agent", "RandomAgent"} <= set(agents.__all__)


def defined_at_top_level(module: str) -> set[str]:
    names = set()
    for node in tree(module).body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


@pytest.mark.parametrize("name, home", [("MAX_SEED", "tbw_envs.core.contract"),
                                        ("MAX_SPEC_CHARS", "agents.common.spec_syntax")])
def test_a_shared_limit_is_defined_once(name, home):
    """Copies drift apart: ``MAX_SPEC_CHARS`` was once 8192, 1000 and 500 in three modules.
    A deliberately different limit takes its own name (``MAX_PAGE_SPEC_CHARS``)."""
    assert [m for m in modules() if name in defined_at_top_level(m)] == [home]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_is_over_the_limit(package):
    long = {m: n for m, p in modules().items() if m.split(".")[0] == package
            and (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_games_are_told_apart_by_their_descriptions():
    pattern = re.compile(r"""(==|!=)\s*["'](tbw|junqi)["']|["'](tbw|junqi)["']\s*(==|!=)""")
    found = [f"{module}: {line.strip()}" for module in modules()
             for line in modules()[module].read_text(encoding="utf-8").splitlines()
             if pattern.search(line)]
    assert len(found) <= MAX_GAME_NAME_COMPARISONS, "\n".join(found)


def test_every_package_ships():
    """pyproject.toml lists packages by hand (configs/ is mapped into tbw_envs.configs): a new
    package left out of the list would be missing from the wheel."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for package in ("tbw_envs", "agents")
             for p in (ROOT / package).rglob("__init__.py")}
    assert found | {"tbw_envs.configs"} == listed
