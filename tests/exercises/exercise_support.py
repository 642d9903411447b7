"""Finding the learner's code for an exercise test, with plain messages when it is off."""

from __future__ import annotations

import importlib.util
import inspect
import os
from pathlib import Path

import pytest

from shared.cli.repo import EXERCISES, ROOT

SOLUTIONS = os.environ.get("TAO_EXERCISES") == "solutions"
FOLDER = EXERCISES / ("solutions" if SOLUTIONS else "")


def load_exercise(name: str):
    """Import exercises/<name>.py; a broken file fails the test with a plain message."""
    path = FOLDER / f"{name}.py"
    if not path.exists():
        pytest.fail(f"{path.relative_to(ROOT)} is missing: `tao reset` restores it",
                    pytrace=False)
    spec = importlib.util.spec_from_file_location(f"exercise_{name}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        pytest.fail(f"{path.relative_to(ROOT)} does not import: {type(exc).__name__}: {exc}",
                    pytrace=False)
    return module


def need(module, name: str, *params: str):
    """The function `name` from the learner's module, with these parameter names."""
    where = Path(module.__file__).relative_to(ROOT)
    thing = getattr(module, name, None)
    if thing is None:
        pytest.fail(f"{where} has no `{name}`: keep the name from the stub", pytrace=False)
    if params:
        got = tuple(inspect.signature(thing).parameters)[: len(params)]
        if got != params:
            pytest.fail(f"{where}: `{name}` should take ({', '.join(params)}), it takes "
                        f"({', '.join(got)}): keep the stub's signature", pytrace=False)
    return thing
