"""The repository's layout: where stages, exercises and tests live, and the one stage finder.

Everything that knows a path inside the repository reads it from here: the `tao` verbs,
the tests and the exercises. Stages never import this module; they are run as scripts.

A stage's files import each other by plain name (`from loop import agent_step`), as
when the stage runs as a script. `load_stage` imports them the same way from outside.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from .i18n import text

ROOT = Path(__file__).resolve().parents[1]
STAGES = ROOT / "stages"
EXERCISES = ROOT / "exercises"
EXERCISE_TESTS = ROOT / "tests" / "exercises"
# the module names stages use for their own files
LOCAL_NAMES = ("context", "loop", "tools", "main", "workspace", "shell", "approval")


class CLIError(Exception):
    """A mistake in how `tao` was called (say, a stage that does not exist): one line, exit 2."""

    code = 2


class CannotWrite(CLIError):
    """A file `tao` was asked to write could not be written (a full disk, a folder that
    went away): one line, exit 1, and what was there before is still there."""

    code = 1


def stages() -> dict[str, Path]:
    """Stage number ("05") -> its folder, in order."""
    folders = sorted(p for p in STAGES.glob("[0-9][0-9]_*") if p.is_dir())
    return {p.name[:2]: p for p in folders}


def find_stage(ref: str) -> Path:
    """A stage folder from `4`, `04` or `04_json_tool_call`; CLIError naming the choices."""
    known = stages()
    head = ref.split("_")[0]
    key = head.zfill(2) if head.isdigit() else ref
    if key not in known:
        raise CLIError(text("error.no_stage", ref=repr(ref),
                            known=", ".join(known) or text("error.no_stages_yet")))
    return known[key]


def load_stage(number: str, module: str = "main") -> ModuleType:
    """Import stages/NN_*/<module>.py with its own folder first on sys.path."""
    folder = find_stage(number)
    sys.path.insert(0, str(folder))
    try:
        for name in LOCAL_NAMES:  # another stage's `loop` must not answer for this one's
            sys.modules.pop(name, None)
        spec = importlib.util.spec_from_file_location(f"stage{number}_{module}",
                                                      folder / f"{module}.py")
        loaded = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(loaded)
        return loaded
    finally:
        sys.path.remove(str(folder))
