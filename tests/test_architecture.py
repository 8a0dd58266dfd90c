"""The structure the code holds to, read from its imports (ast, no module is executed).

- Imports go one way: game cores -> envs -> agents -> the registry -> the arena and the web
  app -> training -> commands (docs/architecture.md); the folders say the layers.
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
from collections import deque
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


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".")
    is_package = modules()[module].name == "__init__.py"
    base = package if is_package else package[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@cache
def _all_imports(module: str) -> list[tuple[tuple[str, list[str], bool, int], bool]]:
    """Every import of ``module`` in ``ast.walk``'s order, each with whether it is under
    ``if TYPE_CHECKING:``; one walk that hands each node's context down to its children (walks
    of every function's and block's subtree cost the test module seconds)."""
    found = []
    todo = deque([(tree(module), False, False)])
    while todo:
        node, in_function, type_checking = todo.popleft()
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(((alias.name, [], in_function, node.lineno), type_checking))
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, node)
            names = [alias.name for alias in node.names]
            # ``from package import module`` imports the submodule
            for name in names:
                if f"{target}.{name}" in modules():
                    found.append(((f"{target}.{name}", [], in_function, node.lineno),
                                  type_checking))
            found.append(((target, names, in_function, node.lineno), type_checking))
        inside = in_function or isinstance(node, FUNCTIONS)
        checked = ({id(stmt) for stmt in node.body} if isinstance(node, ast.If)
                   and "TYPE_CHECKING" in ast.unparse(node.test) else ())
        for child in ast.iter_child_nodes(node):
            todo.append((child, inside, type_checking or id(child) in checked))
    return found


@cache
def imports(module: str, type_checking: bool = False) -> list[tuple[str, list[str], bool, int]]:
    """``(imported module, names, inside a function, line)`` of every import that can run, and
    with ``type_checking`` those under ``if TYPE_CHECKING:`` too."""
    return [entry for entry, checking in _all_imports(module) if type_checking or not checking]


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
    """Whether importing ``module`` imports an optional dependency at top level, itself or
    through a project module it imports at top level (a compiled backend importing its
    kernels, which import numba)."""
    seen, pending = set(), [module]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        for name, _, inside, _ in imports(current):
            if inside:
                continue
            if name.split(".")[0] in OPTIONAL:
                return True
            target = project_target(name)
            if target is not None:
                pending.append(target)
    return False


def test_the_layers_are_where_the_docs_say():
    assert layer("tbw_envs.tbw.state") == CORE and layer("tbw_envs.core.contract") == CORE
    assert layer("tbw_envs.tbw.env.game") == ENVS and layer("tbw_envs.games") == ENVS
    assert layer("tbw_envs.description") == ENVS and layer("tbw_envs.core.interface") == CORE
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


# Folders about one game, where its name may be spelled out: the game's own folders (below), and
# under scripts/ the integration recipes, research and benchmark tools.
ONE_GAME_SCRIPT_FOLDERS = ("integrations", "research", "bench")


def bundled_game_names() -> tuple[str, ...]:
    from tbw_envs.games import BUNDLED

    return tuple(game.name for game in BUNDLED)


def about_one_game(path: Path) -> bool:
    """Whether ``path`` is in a game's own folder (``tbw_envs/<game>/``, ``agents/<game>/``) or
    a scripts/ folder about one game."""
    parts = path.relative_to(ROOT).parts
    if len(parts) < 3:
        return False
    if parts[0] == "scripts":
        return parts[1] in ONE_GAME_SCRIPT_FOLDERS
    return parts[1] in bundled_game_names()


def _literals(node: ast.AST):
    """``node``, or each element of a tuple, list or set display (nested ones too)."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for element in node.elts:
            yield from _literals(element)
    else:
        yield node


def _is_variant_flag(node: ast.AST) -> bool:
    return ((isinstance(node, ast.Attribute) and node.attr == "variant_flag")
            or (isinstance(node, ast.Name) and node.id == "variant_flag"))


def game_name_uses(body: ast.AST, names: tuple[str, ...]) -> list[tuple[int, str]]:
    """``(line, what)`` of each place ``body`` tells games apart by name: a string literal in
    ``names`` compared (``==``, ``!=``, ``in``, ``not in``, either side, inside a tuple, list or
    set), a dict key, a subscript or a ``match`` case; and any comparison of ``variant_flag``
    with a literal."""

    def is_name(node: ast.AST) -> bool:
        return isinstance(node, ast.Constant) and isinstance(node.value, str) and (
            node.value in names)

    found = []
    for node in ast.walk(body):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            equality = any(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn))
                           for op in node.ops)
            if equality and any(is_name(each) for side in sides for each in _literals(side)):
                found.append((node.lineno, "a game name compared"))
            flags = [side for side in sides if _is_variant_flag(side)]
            if flags and any(isinstance(each, ast.Constant) for side in sides
                             if not _is_variant_flag(side) for each in _literals(side)):
                found.append((node.lineno, "variant_flag compared with a literal"))
        elif isinstance(node, ast.Dict) and any(k is not None and is_name(k) for k in node.keys):
            found.append((node.lineno, "a game name as a dict key"))
        elif isinstance(node, ast.Subscript) and is_name(node.slice):
            found.append((node.lineno, "a game name as a key"))
        elif isinstance(node, ast.MatchValue) and is_name(node.value):
            found.append((node.lineno, "a game name as a match case"))
    return found


def test_games_are_told_apart_by_their_descriptions():
    """Outside a game's own folders the code asks the description (``Game``), never compares a
    game's name: a game registered later has no branch of its own."""
    names = bundled_game_names()
    found = [f"{path.relative_to(ROOT)}:{line}: {what}: "
             f"{path.read_text(encoding='utf-8').splitlines()[line - 1].strip()}"
             for module, path in modules().items() if not about_one_game(path)
             for line, what in game_name_uses(tree(module), names)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("source", [
    'game == "tbw"', '"junqi" != game', 'game in ("tbw", "junqi")', 'game not in ["tbw"]',
    'x = game in {"junqi"} or 1', 'x = {"tbw": 1}', 'x = table["junqi"]',
    'match game:\n    case "x" | "tbw":\n        pass', 'game.variant_flag == "scenario"',
    '"rules" != variant_flag', 'game.variant_flag in ("scenario", "rules")',
])
def test_the_game_name_check_catches(source):
    assert game_name_uses(ast.parse(source), ("tbw", "junqi")), source


@pytest.mark.parametrize("source", [
    'game == "tbwx"', 'f("tbw")', 'x = ["tbw", "junqi"]', 'game.variant_flag == flag',
    'x = {game.name: 1}', 'game.name == other.name',
])
def test_the_game_name_check_lets_pass(source):
    assert not game_name_uses(ast.parse(source), ("tbw", "junqi")), source


def test_every_package_ships():
    """No package is listed by hand: setup.py finds them (a new game's folders ship without an
    edit) and adds configs/, which pyproject.toml maps into tbw_envs.configs."""
    import importlib.util

    import tomllib

    setuptools_table = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "packages" not in setuptools_table
    assert setuptools_table["package-dir"] == {"tbw_envs.configs": "configs"}
    spec = importlib.util.spec_from_file_location("setup_script", ROOT / "setup.py")
    setup_script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup_script)  # not __main__: setup() does not run
    found = {".".join(p.parent.relative_to(ROOT).parts) for package in ("tbw_envs", "agents")
             for p in (ROOT / package).rglob("__init__.py")}
    assert set(setup_script.packages()) == found | {"tbw_envs.configs"}
