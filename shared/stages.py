"""Finding the stage folders, and importing a stage's module from outside it.

A stage's files import each other by plain name (`from loop import agent_step`), as
when the stage runs as a script. Tests and exercises load them the same way.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
STAGES = ROOT / "stages"
LOCAL_NAMES = ("context", "loop", "tools", "main")  # module names stages use for themselves


def stage_dirs(root: Path = STAGES) -> list[Path]:
    """The stage folders under `root`, in order."""
    return sorted(p for p in root.glob("[0-9][0-9]_*") if p.is_dir())


def load_stage(number: str, module: str = "main") -> ModuleType:
    """Import stages/NN_*/<module>.py with its own folder first on sys.path."""
    folder = next((p for p in stage_dirs() if p.name.startswith(number)), None)
    if folder is None:
        raise LookupError(f"no stage {number}")
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
