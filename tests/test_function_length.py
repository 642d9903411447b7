"""No function in shared/ or tao/ is longer than a reader holds at once: 40 lines.

A function is counted from its `def` to its last line, nested functions included; the
statements that only declare argparse options (`add_argument`, `add_parser`, ...) are
left out, since a parser's declarations are long and plain by nature.
"""

from __future__ import annotations

import ast

import pytest
from helpers import ROOT

LIMIT = 40
PACKAGES = ("shared", "tao")
# argparse's declaring calls: a statement that is one of these (or assigns one) is not counted
DECLARING = {"add_argument", "add_argument_group", "add_mutually_exclusive_group",
             "add_parser", "add_subparsers", "set_defaults"}
# Functions let past the limit: none since issue 32's change split the three that were
# (one listed that is no longer long fails the test, so the list cannot go stale)
KNOWN_LONG = ()


def declares_options(stmt: ast.stmt) -> bool:
    """Whether a statement only declares argparse options (or builds the parser)."""
    value = stmt.value if isinstance(stmt, ast.Expr | ast.Assign) else None
    if not isinstance(value, ast.Call):
        return False
    called = value.func
    name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
    return name in DECLARING or name.endswith("ArgumentParser") or name == "StageParser"


def length(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The lines of `function`, its argparse declarations left out."""
    lines = set(range(function.lineno, function.end_lineno + 1))
    for node in ast.walk(function):
        if isinstance(node, ast.stmt) and declares_options(node):
            lines -= set(range(node.lineno, node.end_lineno + 1))
    return len(lines)


def lengths(source: str, path: str = "<source>") -> dict[str, int]:
    """`path:name` -> length, for every function and method in `source` (of two with one
    name, the longer)."""
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            key = f"{path}:{node.name}"
            found[key] = max(found.get(key, 0), length(node))
    return found


def measured() -> dict[str, int]:
    """Every function of shared/ and tao/, measured."""
    found: dict[str, int] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found |= lengths(path.read_text(encoding="utf-8"),
                             path.relative_to(ROOT).as_posix())
    return found


@pytest.fixture(scope="module")
def functions() -> dict[str, int]:
    return measured()


def test_no_function_in_shared_or_tao_is_over_the_limit(functions):
    over = {name: n for name, n in functions.items() if n > LIMIT and name not in KNOWN_LONG}
    assert not over, f"functions over {LIMIT} lines (split them): {over}"


def test_each_known_exception_is_still_long(functions):
    short = [name for name in KNOWN_LONG if functions.get(name, 0) <= LIMIT]
    assert not short, f"no longer over {LIMIT} lines, or gone: take out of KNOWN_LONG {short}"


def test_the_counter_counts_lines_and_leaves_out_parser_declarations():
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))
    assert lengths(f"def f():\n{body}\n")["<source>:f"] == LIMIT + 1
    parser = ("def build():\n    parser = argparse.ArgumentParser(\n        prog='x')\n"
              "    verbs = parser.add_subparsers()\n    run = verbs.add_parser(\n"
              "        'run', help='...')\n    run.add_argument('stage')\n"
              "    run.set_defaults(stage=None)\n    return parser\n")
    assert lengths(parser)["<source>:build"] == 2  # the def and the return
    nested = "def outer():\n    def inner():\n        return 1\n    return inner\n"
    assert lengths(nested) == {"<source>:outer": 4, "<source>:inner": 2}
    two = ("class A:\n    def f(self):\n        pass\nclass B:\n    def f(self):\n"
           + body.replace("    x", "        x"))
    assert lengths(two)["<source>:f"] == LIMIT + 1  # the longer of the two
