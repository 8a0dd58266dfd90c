"""Whether a round robin is started from the top level of the main script, outside an
``if __name__ == "__main__":`` block.

Worker processes are spawned, and a spawned process imports the main script again (as
``__mp_main__``) to find what it defines. A script whose top level starts a round robin would
start another one in every worker, which multiprocessing refuses, and the pool breaks. The
round robin asks ``unguarded_main_call`` first and plays such a call in its own process.
"""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path


def is_main_check(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return (any(isinstance(side, ast.Name) and side.id == "__name__" for side in sides)
            and any(isinstance(side, ast.Constant) and side.value == "__main__"
                    for side in sides))


def guarded_lines(tree: ast.Module) -> list[tuple[int, int]]:
    """The line ranges of the bodies of ``if __name__ == "__main__":`` blocks."""
    return [(node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno)
            for node in ast.walk(tree) if isinstance(node, ast.If) and is_main_check(node.test)]


def unguarded_main_call() -> str | None:
    """The main script's path when the running call comes from its top-level code outside an
    ``if __name__ == "__main__":`` block (a spawned worker would run that code again), else
    None (no main script, as in ``python -c`` or a notebook; a guarded call; a call from a
    thread or callback the main script's top level is not running)."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is None:
        return None
    frame = inspect.currentframe()
    while frame is not None:
        if frame.f_code.co_name == "<module>" and frame.f_globals is vars(main):
            break
        frame = frame.f_back
    if frame is None:
        return None
    line = frame.f_lineno
    del frame  # a frame refers to its locals: keep no cycle alive
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None  # nothing to read: let the pool try, and report a failure if it comes
    if any(first <= line <= last for first, last in guarded_lines(tree)):
        return None
    return path
