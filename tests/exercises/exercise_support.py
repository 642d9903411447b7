"""Finding the code an exercise test runs against, with plain messages when it is off.

TAO_EXERCISES picks whose code the tests import:

    (unset)      exercises/eNN_name.py, the learner's files
    solutions    exercises/solutions/eNN_name.py, the reference answers
    mutants      plausible wrong answers, kept in tests/exercises/mutants/eNN_name.toml
                 as changes to the reference solution: every one must fail a test

Anything else is a mistake, reported before a single test runs.
"""

from __future__ import annotations

import atexit
import importlib.machinery
import importlib.util
import inspect
import os
import re
import shutil
import tempfile
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MUTANTS = Path(__file__).resolve().parent / "mutants"
FOLDERS = {"": ROOT / "exercises", "solutions": ROOT / "exercises" / "solutions",
           "mutants": MUTANTS}
MODE = os.environ.get("TAO_EXERCISES", "").strip()
SOLUTIONS = MODE == "solutions"
NAME = re.compile(r"^e(\d\d)_[a-z0-9_]+$")


def mode_problem() -> str:
    """"" if TAO_EXERCISES is a known value, else one line saying what is accepted."""
    if MODE in FOLDERS:
        return ""
    return (f"TAO_EXERCISES={MODE!r} is not a known value: leave it unset for your own "
            "files, or use 'solutions' or 'mutants'")


def exercise_file(name: str) -> Path:
    """Where the learner's (or the reference) file for exercise `name` lives."""
    return FOLDERS.get(MODE, FOLDERS[""]) / f"{name}.py"


def exercise_number(name: str) -> int:
    """12 for "e12_fallback_chain"."""
    match = NAME.match(name)
    if not match:
        raise ValueError(f"{name!r} is not an exercise name (eNN_slug)")
    return int(match.group(1))


def mutants_of(name: str) -> list[Path]:
    """The kept wrong answers of one exercise, each written out as <name>__<what>.py.

    mutants/<name>.toml lists them as `[[mutant]]` tables (`what`, `why`) whose
    `[[mutant.change]]` entries replace an `old` text of the reference solution, found
    exactly once, with a `new` one: a wrong answer is read as the change it makes."""
    table = MUTANTS / f"{name}.toml"
    if not table.exists():
        return []
    solution = (FOLDERS["solutions"] / f"{name}.py").read_text(encoding="utf-8")
    paths = []
    for mutant in tomllib.loads(table.read_text(encoding="utf-8")).get("mutant", []):
        source = solution
        for change in mutant.get("change", []):
            if source.count(change["old"]) != 1:
                raise pytest.UsageError(f"{table.name}: mutant {mutant['what']!r}: its `old` "
                                        "text is not found exactly once in the solution")
            source = source.replace(change["old"], change["new"])
        path = _written_mutants() / f"{name}__{mutant['what']}.py"
        path.write_text(source, encoding="utf-8")
        paths.append(path)
    return paths


def _written_mutants() -> Path:
    """The folder (one per test process) that the mutants are written out to."""
    global _MUTANT_DIR
    if _MUTANT_DIR is None:
        _MUTANT_DIR = Path(tempfile.mkdtemp(prefix="tao-mutants-"))
        atexit.register(shutil.rmtree, _MUTANT_DIR, ignore_errors=True)
    return _MUTANT_DIR


_MUTANT_DIR: Path | None = None


class FromSource(importlib.machinery.SourceFileLoader):
    """Compiles the file on every load, never from __pycache__: a cached .pyc is trusted
    while the file's size and modification second match, so an edit of the same length
    saved within the second of the last check (`tao watch`) would go unseen."""

    def get_code(self, fullname):
        return self.source_to_code(self.get_data(self.path), self.path)


def load_exercise(name: str, path: Path | None = None):
    """Import exercises/<name>.py (or `path`); a broken file fails with a plain message."""
    path = path or exercise_file(name)
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    if not path.exists():
        pytest.fail(f"{shown} is missing: `tao reset` restores it", pytrace=False)
    spec = importlib.util.spec_from_file_location(
        f"exercise_{path.stem}", path, loader=FromSource(f"exercise_{path.stem}", str(path)))
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        pytest.fail(f"{shown} does not import: {type(exc).__name__}: {exc}", pytrace=False)
    return module


def need(module, name: str, *params: str):
    """The function `name` from the learner's module, with these parameter names."""
    where = Path(module.__file__).name
    thing = getattr(module, name, None)
    if thing is None:
        pytest.fail(f"{where} has no `{name}`: keep the name from the stub", pytrace=False)
    if params:
        got = tuple(inspect.signature(thing).parameters)[: len(params)]
        if got != params:
            pytest.fail(f"{where}: `{name}` should take ({', '.join(params)}), it takes "
                        f"({', '.join(got)}): keep the stub's signature", pytrace=False)
    return thing
