"""The exercise list (exercises/info.toml) and a way to run their tests and read the result."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ROOT / "exercises"
TESTS = ROOT / "tests" / "exercises"


@dataclass
class Exercise:
    number: int
    name: str
    title: str
    stage: str
    hint: str

    @property
    def path(self) -> Path:
        return EXERCISES / f"{self.name}.py"

    @property
    def solution(self) -> Path:
        return EXERCISES / "solutions" / f"{self.name}.py"

    @property
    def tests(self) -> Path:
        return TESTS / f"test_{self.name}.py"


@dataclass
class Result:
    """How an exercise's tests went: "done", "not attempted", "failing" or "not run"."""

    status: str
    test: str = ""  # the first test that did not pass
    message: str = ""  # what it said


def load() -> list[Exercise]:
    """Every exercise, in order."""
    data = tomllib.loads((EXERCISES / "info.toml").read_text(encoding="utf-8"))
    return [Exercise(n, e["name"], e["title"], e["stage"], e["hint"].strip())
            for n, e in enumerate(data["exercises"], start=1)]


def find(ref: str) -> Exercise:
    """An exercise by number (`3`, `03`) or name; ValueError with the choices if none."""
    exercises = load()
    for exercise in exercises:
        if ref.isdigit() and int(ref) == exercise.number or ref in (exercise.name,
                                                                     exercise.name[1:3]):
            return exercise
    raise ValueError(f"no exercise {ref!r}: choose 1 to {len(exercises)} (see `tao check`)")


def check(exercises: list[Exercise]) -> dict[str, Result]:
    """Run the tests of `exercises`, in order, against the learner's files, stopping at
    the first test that does not pass (the exercises after it are "not run")."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.xml"
        env = {k: v for k, v in os.environ.items()
               if k not in ("TAO_EXERCISES", "TAO_STUB_CHECK")}
        env["TAO_EXERCISES_STRICT"] = "1"  # a stub's NotImplementedError stops the run too
        subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--tb=no",
             f"--junitxml={report}", *(str(e.tests) for e in exercises)],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        if not report.exists():
            raise RuntimeError("the exercise tests did not run: try `uv run pytest "
                               "tests/exercises` to see why")
        cases = ET.parse(report).getroot().iter("testcase")
        results = {e.name: Result("not run") for e in exercises}
        for case in cases:
            name = case.get("classname", "").rsplit(".", 1)[-1].removeprefix("test_")
            if name not in results:
                continue
            failure = case.find("failure")
            if failure is None:
                failure = case.find("error")
            if failure is None:
                results[name] = Result("done")
                continue
            message = failure.get("message", "").strip()
            status = "not attempted" if message.startswith("NotImplementedError") else "failing"
            results[name] = Result(status, case.get("name", ""), message)
            break  # -x: nothing after the first failure ran
        return results
