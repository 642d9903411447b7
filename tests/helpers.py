"""Helpers shared by the stage and CLI tests: run a stage as a learner does."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGES = ROOT / "stages"
STAGE_DIRS = sorted(p for p in STAGES.glob("[0-9][0-9]_*") if p.is_dir())
REMOVED = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "TAO_PROVIDER",
           "TAO_MODEL", "TAO_OFFLINE_QUIRK", "TAO_OFFLINE_DELAY", "FORCE_COLOR")


def stage_dir(number: str) -> Path:
    return next(p for p in STAGE_DIRS if p.name.startswith(number))


def clean_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in REMOVED}
    env.update({"NO_COLOR": "1", "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"}, **extra)
    return env


def run_stage(number: str, *args, stdin: str = "", script=None, tmp_path=None,
              **env) -> subprocess.CompletedProcess:
    """Run stages/NN_*/main.py in a subprocess with `stdin`; offline unless `script`
    (a list of replies for the scripted model) is given."""
    if script is not None:
        path = Path(tmp_path) / "script.json"
        path.write_text(json.dumps(script), encoding="utf-8")
        env.update(TAO_PROVIDER="scripted", TAO_SCRIPT=str(path))
    return subprocess.run([sys.executable, str(stage_dir(number) / "main.py"), *args],
                          input=stdin, capture_output=True, text=True, encoding="utf-8",
                          env=clean_env(**env), timeout=60, cwd=ROOT)


def load_stage(number: str, module: str = "main"):
    """Import a stage's module in-process (its folder first on sys.path, as when run)."""
    folder = stage_dir(number)
    sys.path.insert(0, str(folder))
    try:
        for name in ("context", "loop", "tools", "main"):  # stage-local module names
            sys.modules.pop(name, None)
        spec = importlib.util.spec_from_file_location(module, folder / f"{module}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(str(folder))
