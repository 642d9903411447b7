"""Exercise verbs of `tao`: check, hint, watch, reset, solution; and the exercise list
(exercises/info.toml) with a way to run their tests and read the result."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from rich.syntax import Syntax
from rich.text import Text

from .repo import EXERCISE_TESTS, EXERCISES, ROOT, CLIError


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
        return EXERCISE_TESTS / f"test_{self.name}.py"


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


# ---------------------------------------------------------------- exercises

MARKS = {"done": ("✓", "green"), "current": ("▶", "bold yellow"), "pending": ("·", "dim")}


def _exercise(ref: str) -> Exercise:
    try:
        return find(ref)
    except ValueError as exc:
        raise CLIError(str(exc)) from None


def cmd_check(args, console) -> int:
    todo = load()
    with console.status(f"running the tests of {len(todo)} exercises…"):
        results = check(todo)
    current = next((e for e in todo if results[e.name].status != "done"), None)
    if current is not None and results[current.name].status == "not run":
        raise CLIError("the exercise tests stopped before they reached an exercise: run "
                       "`uv run pytest tests/exercises` to see why")
    for e in todo:
        state = ("done" if results[e.name].status == "done" else
                 "current" if e is current else "pending")
        mark, style = MARKS[state]
        console.print(Text(f" {mark} {e.number:2} ", style) + Text(e.title, style))
    done = sum(r.status == "done" for r in results.values())
    console.print(Text(f"{done} of {len(todo)} done", "bold"))
    if current is None:
        console.print(Text("All exercises done. `tao solution N` shows the reference "
                           "answers to compare with yours.", "bold green"))
        return 0
    result = results[current.name]
    where = current.path.relative_to(ROOT)
    console.print()
    if result.status == "not attempted":
        console.print(Text(f"Next: exercise {current.number}, {current.title}. Open {where}"
                           ", read its docstring, and replace the NotImplementedError."))
    else:
        console.print(Text(f"Exercise {current.number} ({current.title}) is not passing yet. "
                           f"`{result.test}` says:", "bold"))
        console.print(Text(_first_lines(result.message), "red"))
        console.print(Text(f"Edit {where}."))
    console.print(Text(f"Stuck? `tao hint {current.number}`. Re-check with `tao check`, "
                       "or let `tao watch` re-check on every save.", "dim"))
    return 1


def _first_lines(message: str, limit: int = 8) -> str:
    lines = message.splitlines()
    return "\n".join(lines[:limit] + (["…"] if len(lines) > limit else []))


def cmd_hint(args, console) -> int:
    e = _exercise(args.exercise)
    console.print(Text(f"Hint for exercise {e.number}: {e.title} (stage {e.stage})", "bold"))
    console.print(Text(e.hint))
    return 0


def cmd_watch(args, console) -> int:
    def stamp():
        return {p: p.stat().st_mtime_ns for p in EXERCISES.glob("e*.py")}

    seen, cycles = None, 0
    console.print(Text("watching exercises/ (Ctrl-C to stop)", "dim"))
    while args.cycles is None or cycles < args.cycles:
        now = stamp()
        if now != seen:
            seen = now
            code = cmd_check(args, console)
            if code == 0:
                return 0
            console.print(Text("waiting for you to save a file…", "dim"))
        cycles += 1
        time.sleep(args.interval)
    return 1


def cmd_reset(args, console) -> int:
    e = _exercise(args.exercise)
    stub = _original_stub(e)
    where = e.path.relative_to(ROOT)
    if e.path.exists() and e.path.read_text(encoding="utf-8") == stub:
        console.print(Text(f"{where} is already the original stub"))
        return 0
    if not args.yes:
        if not sys.stdin.isatty():
            raise CLIError(f"resetting {where} throws your work away: add --yes to confirm")
        answer = console.input(f"Restore {where} to its stub? Your changes will be lost "
                               "[y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            console.print(Text("left as it is"))
            return 1
    e.path.write_text(stub, encoding="utf-8")
    console.print(Text(f"{where} is the stub again"))
    return 0


def _original_stub(e: Exercise) -> str:
    """The newest committed version of the file that is still a stub."""
    rel = str(e.path.relative_to(ROOT))

    def git(*argv):
        return subprocess.run(["git", *argv], cwd=ROOT, capture_output=True,
                              text=True)

    history = git("log", "--format=%H", "--", rel)
    for commit in history.stdout.split():
        text = git("show", f"{commit}:{rel}").stdout
        if "raise NotImplementedError" in text:
            return text
    raise CLIError(f"cannot find the original of {rel} in git history: restore it from "
                   "the repository you cloned")


def cmd_solution(args, console) -> int:
    e = _exercise(args.exercise)
    with console.status(f"checking exercise {e.number} first…"):
        result = check([e])[e.name]
    if result.status != "done":
        raise CLIError(f"exercise {e.number} does not pass yet: try it first (`tao check`,"
                       f" `tao hint {e.number}`); the solution opens once it passes")
    console.print(Text(f"Reference solution for exercise {e.number}, {e.title} "
                       f"(exercises/solutions/{e.name}.py):", "bold"))
    console.print(Syntax(e.solution.read_text(encoding="utf-8"), "python"))
    return 0


