"""Helpers shared by the stage and CLI tests: run a stage as a learner does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from shared.cli.repo import ROOT, STAGES, find_stage, load_stage, stages

__all__ = ["ROOT", "STAGES", "STAGE_DIRS", "clean_env", "load_stage", "run_stage", "stage_dir"]

STAGE_DIRS = list(stages().values())
# settings from the developer's shell that would change what a test sees
REMOVED = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL",
           "OLLAMA_BASE_URL", "TAO_PROVIDER", "TAO_MODEL", "TAO_OFFLINE_QUIRK",
           "TAO_OFFLINE_DELAY", "TAO_SCRIPT", "TAO_TIMEOUT", "TAO_SHOW_WIRE", "FORCE_COLOR")


def stage_dir(number: str) -> Path:
    """The folder of stage `number` (the kit's one stage finder)."""
    return find_stage(number)


def clean_env(**extra) -> dict:
    """The environment for a subprocess: no keys, plain output, and the network guard
    (tests/network_guard/sitecustomize.py) first on PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k not in REMOVED}
    guard = str(Path(__file__).resolve().parent / "network_guard")
    rest = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != guard]
    env.update({"NO_COLOR": "1", "COLUMNS": "100", "PYTHONIOENCODING": "utf-8",
                "PYTHONPATH": os.pathsep.join([guard, *rest])}, **extra)
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
