"""Two packages by audience, held by reading the imports.

- A stage imports `shared` and its own files, never `tao` (the command a learner runs, not
  code a learner reads).
- `shared` imports neither `tao` nor a stage: the package the stages stand on does not stand
  on them.
- A stage's import trail is short: the module-level imports of its `main.py`, followed
  through `shared`, reach few lines outside the stage; a stand-in model (offline, replay,
  scripted, local) is imported when it is chosen, not before.

Imports are read with `ast`, nothing is run: an import inside a function (a lazy one) is not
on the trail, an import at module level (a `try` or an `if` included) is.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers import ROOT, STAGE_DIRS

SHARED = ROOT / "shared"
TRAIL_BUDGET = 1500  # lines outside the stage that a learner's "what does this import?" reaches


def imported_names(source: str, *, module_level_only: bool = False) -> list[tuple[str, int]]:
    """(absolute-or-relative module name, level) for every import in `source`: all of them,
    or only those that run when the module is imported (not inside a def)."""
    tree = ast.parse(source)
    found, todo = [], list(tree.body) if module_level_only else list(ast.walk(tree))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import):
            found += [(alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.module or "", node.level))
            found += [(f"{node.module}.{a.name}" if node.module else a.name, node.level)
                      for a in node.names]
        elif module_level_only and _type_checking_only(node):
            todo += node.orelse  # `if TYPE_CHECKING:` runs only for a type checker
        elif module_level_only and not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef
                                                   | ast.ClassDef):
            todo += list(ast.iter_child_nodes(node))
        elif module_level_only and isinstance(node, ast.ClassDef):
            todo += [n for n in node.body
                     if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    return found


def _type_checking_only(node: ast.AST) -> bool:
    """Whether `node` is an `if TYPE_CHECKING:` block."""
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def top_names(path: Path) -> set[str]:
    """The top-level package of every absolute import in `path`."""
    return {name.split(".")[0] for name, level in
            imported_names(path.read_text(encoding="utf-8")) if level == 0 and name}


def stage_files() -> list[Path]:
    return sorted(p for folder in STAGE_DIRS for p in folder.glob("*.py"))


def shared_files() -> list[Path]:
    return sorted(p for p in SHARED.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", stage_files(), ids=lambda p: f"{p.parent.name[:2]}/{p.name}")
def test_a_stage_never_imports_tao(path):
    assert "tao" not in top_names(path), f"{path.relative_to(ROOT)} imports the tao command"


def stage_module_names() -> set[str]:
    """The names a stage's own files are imported by (`loop`, `context`...)."""
    return {p.stem for p in stage_files()} | {"stages"}


@pytest.mark.parametrize("path", shared_files(), ids=lambda p: str(p.relative_to(SHARED)))
def test_shared_imports_neither_tao_nor_a_stage(path):
    names = top_names(path)
    assert "tao" not in names, f"{path.relative_to(ROOT)} imports the tao command"
    assert not names & stage_module_names(), \
        f"{path.relative_to(ROOT)} imports a stage's file: {sorted(names & stage_module_names())}"
    assert "load_stage" not in path.read_text(encoding="utf-8")


def test_the_checks_see_a_stage_that_imports_tao(tmp_path):
    """The two checks above would catch the imports they forbid, written in any form."""
    for line in ("import tao", "from tao.repo import load_stage", "import tao.i18n as t",
                 "try:\n    from tao import main\nexcept ImportError:\n    pass"):
        (tmp_path / "main.py").write_text(line + "\n", encoding="utf-8")
        assert "tao" in top_names(tmp_path / "main.py"), line
    (tmp_path / "main.py").write_text("from shared.trace import Trace\n", encoding="utf-8")
    assert "tao" not in top_names(tmp_path / "main.py")


def resolve(name: str, level: int, importer: Path, stage: Path) -> Path | None:
    """The file an import names, when it is the stage's own or shared's; None otherwise."""
    if level:
        base = importer.parent
        for _ in range(level - 1):
            base = base.parent
        parts = name.split(".") if name else []
    else:
        parts = name.split(".")
        base = stage if (stage / f"{parts[0]}.py").exists() else ROOT
        if base is ROOT and parts[0] != "shared":
            return None
    target = base.joinpath(*parts) if parts else base
    for candidate in (target.with_suffix(".py"), target / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def import_trail(main: Path) -> dict[Path, int]:
    """Every file outside the stage that importing `main` runs, with its line count:
    module-level imports only, followed through shared/ (a package's __init__ included)."""
    stage, seen, todo = main.parent, set(), [main]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        if path.name != "__init__.py" and path.parent != stage:  # a package runs its __init__
            for parent in path.parents:
                if parent == ROOT:
                    break
                if (parent / "__init__.py").is_file():
                    todo.append(parent / "__init__.py")
        for name, level in imported_names(path.read_text(encoding="utf-8"),
                                          module_level_only=True):
            found = resolve(name, level, path, stage)
            if found is not None:
                todo.append(found)
    return {p: len(p.read_text(encoding="utf-8").splitlines())
            for p in seen if p.parent != stage}


@pytest.mark.parametrize("folder", STAGE_DIRS, ids=lambda p: p.name[:2])
def test_a_stages_import_trail_stays_short(folder):
    trail = import_trail(folder / "main.py")
    total = sum(trail.values())
    listing = "\n".join(f"{n:5} {p.relative_to(ROOT)}" for p, n in
                        sorted(trail.items(), key=lambda item: -item[1]))
    assert total <= TRAIL_BUDGET, (f"{folder.name}'s main.py reaches {total} lines outside the "
                                   f"stage (budget {TRAIL_BUDGET}):\n{listing}")


def test_the_trail_follows_module_level_imports_and_not_lazy_ones(tmp_path):
    stage = tmp_path / "stage"
    stage.mkdir()
    (stage / "main.py").write_text("from loop import go\n", encoding="utf-8")
    (stage / "loop.py").write_text(
        "from shared.trace import Trace\n\ndef go():\n    from shared.providers import scripted\n",
        encoding="utf-8")
    trail = import_trail(stage / "main.py")
    assert SHARED / "trace.py" in trail
    assert SHARED / "providers" / "scripted.py" not in trail


def test_a_stage_loads_no_stand_in_model_until_one_is_chosen():
    """What the trail promises, seen in a fresh interpreter: the session wiring and the
    providers load, the offline model, replay, the scripted double and the fallback do not."""
    import subprocess
    import sys

    from helpers import clean_env

    probe = ("import sys, shared.stage_main, shared.providers; "
             "print(sorted(m for m in sys.modules if m.startswith('shared.')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT, env=clean_env(), timeout=30)
    assert done.returncode == 0, done.stderr
    loaded = done.stdout
    assert "shared.stage_main" in loaded and "shared.providers.base" in loaded
    for stand_in in ("offline", "scripted", "replay", "fallback", "local"):
        assert f"shared.providers.{stand_in}" not in loaded, loaded
