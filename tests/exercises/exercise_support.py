"""Finding the code an exercise test runs against, with plain messages when it is off.

TAO_EXERCISES picks whose code the tests import:

    (unset)      exercises/eNN_name.py, the learner's files
    solutions    exercises/solutions/eNN_name.py, the reference answers
    mutants      tests/exercises/mutants/eNN_name__what_is_wrong.py, plausible wrong
                 answers: every one of them must fail at least one test

Anything else is a mistake, reported before a single test runs.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import re
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
    """The kept wrong answers of one exercise: mutants/<name>__<what is wrong>.py."""
    return sorted(MUTANTS.glob(f"{name}__*.py"))


def load_exercise(name: str, path: Path | None = None):
    """Import exercises/<name>.py (or `path`); a broken file fails with a plain message."""
    path = path or exercise_file(name)
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    if not path.exists():
        pytest.fail(f"{shown} is missing: `tao reset` restores it", pytrace=False)
    spec = importlib.util.spec_from_file_location(f"exercise_{path.stem}", path)
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
