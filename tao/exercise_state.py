"""The exercise catalogue and each exercise's status, for the exercise verbs of `tao`.

The catalogue is exercises/info.toml, in order. Status is kept per exercise in
.tao-progress.json: the result of its last check and a digest of the file it was checked
on. An exercise whose file still equals its shipped stub (exercises/.stubs/) is "not
attempted" without running anything; one edited since its last check is "edited".

In French (tao/i18n.py: TAO_LANG=fr, or a French locale) each exercise's title
and hint come from exercises/info.fr.toml, with `task`: what the stub's docstring asks,
in French (the stub itself stays English: its tests read it). An exercise missing
there keeps its English words.

The same file remembers the exercise picked last (`tao check N`, `tao watch N`, watch's
list and its n key) under the key "current", so the next `tao check`, `tao hint` or a
restarted `tao watch` carries on where the learner was.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from shared.files import write_whole
from shared.printable import visible

from .i18n import language, text
from .repo import EXERCISE_TESTS, EXERCISES, ROOT

STUBS = EXERCISES / ".stubs"  # the untouched stubs: what `tao reset` restores, git or not
PROGRESS = ROOT / ".tao-progress.json"
CURRENT = "current"  # the key of the progress file naming the exercise picked last
STATUSES = ("done", "failing", "timeout", "not attempted")  # what a check can remember


@dataclass
class Exercise:
    """One exercise: its number, file name, title, stage and hint (and, in French, its
    task: what the stub's English docstring asks)."""

    number: int
    name: str
    title: str
    stage: str
    hint: str
    task: str = ""

    @property
    def path(self) -> Path:
        """The learner's file."""
        return EXERCISES / f"{self.name}.py"

    @property
    def stub(self) -> Path:
        """The shipped, untouched stub."""
        return STUBS / f"{self.name}.py"

    @property
    def solution(self) -> Path:
        """The reference solution."""
        return EXERCISES / "solutions" / f"{self.name}.py"

    @property
    def tests(self) -> Path:
        """The tests that judge the learner's file."""
        return EXERCISE_TESTS / f"test_{self.name}.py"

    def where(self) -> str:
        """The learner's file, relative to the repository."""
        return str(self.path.relative_to(ROOT))


@dataclass
class Result:
    """How an exercise's tests went: done, failing, timeout, not attempted (or edited,
    missing: known without a run)."""

    status: str
    test: str = ""  # the first test that did not pass
    message: str = ""  # what it said


def load(lang: str | None = None) -> list[Exercise]:
    """Every exercise, in order, in `lang` (default: the language tao speaks)."""
    data = tomllib.loads((EXERCISES / "info.toml").read_text(encoding="utf-8"))
    words = translations() if (lang or language()) == "fr" else {}
    exercises = []
    for n, e in enumerate(data["exercises"], start=1):
        e = {**e, **words.get(e["name"], {})}
        exercises.append(Exercise(n, e["name"], e["title"], e["stage"], e["hint"].strip(),
                                  e.get("task", "").strip()))
    return exercises


def translations() -> dict[str, dict]:
    """{name: {"title", "task", "hint"}} in French, from exercises/info.fr.toml."""
    try:
        data = tomllib.loads((EXERCISES / "info.fr.toml").read_text(encoding="utf-8"))
    except OSError:
        return {}  # a kit without it speaks English about its exercises
    return {e["name"]: {k: e[k] for k in ("title", "task", "hint") if k in e}
            for e in data.get("exercises", [])}


def find(ref: str) -> Exercise:
    """An exercise by number (`3`, `03`) or name; ValueError with the choices if none."""
    exercises = load()
    # a number only if it is plain ASCII digits of a sane length ("²" is a digit to
    # Python, and 5,000 digits are past what int() takes)
    number = int(ref) if ref.isascii() and ref.isdigit() and len(ref) <= 6 else None
    for exercise in exercises:
        if number == exercise.number or ref in (exercise.name, exercise.name[1:3]):
            return exercise
    raise ValueError(text("error.no_exercise", ref=repr(ref), total=len(exercises)))


# ---------------------------------------------------------------- status


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_progress() -> dict:
    """{name: {"digest", "status", "test", "message"}} from the last checks, and
    {"current": name} once an exercise was picked; {} for a file of another shape (each
    entry is checked where it is used: `status`, `current`)."""
    try:
        progress = json.loads(PROGRESS.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return progress if isinstance(progress, dict) else {}


def save_results(results: dict[str, Result], exercises: list[Exercise]) -> None:
    """Remember each result with the digest of the file it was checked on."""
    progress = read_progress()
    for e in exercises:
        if e.name in results and e.path.exists():
            progress[e.name] = {"digest": _digest(e.path), **vars(results[e.name])}
    _write(progress)


def pick(e: Exercise) -> None:
    """Make `e` the current exercise, remembered across runs."""
    progress = read_progress()
    if progress.get(CURRENT) != e.name:
        _write({**progress, CURRENT: e.name})


def _write(progress: dict) -> None:
    """Save `progress`, whole; if it cannot be saved (a folder in its place, a read-only
    checkout, a full disk), say so in one line and carry on: the result is still shown."""
    try:
        write_whole(PROGRESS, json.dumps(progress, indent=1))
    except OSError as exc:
        if not _UNSAVED:  # once a run is enough
            _UNSAVED.append(exc)
            print(visible(text("progress.not_saved", file=PROGRESS.name,
                               why=exc.strerror or exc)), file=sys.stderr)


_UNSAVED: list[OSError] = []  # the save that failed in this run, if one did


def status(e: Exercise, progress: dict) -> Result:
    """What is known about `e` without running it."""
    if not e.path.exists():
        return Result("missing", message=f"{e.where()} is missing: `tao reset {e.number}` "
                                         "restores it")
    if e.stub.exists() and e.path.read_bytes() == e.stub.read_bytes():
        return Result("not attempted")
    known = progress.get(e.name)
    if (isinstance(known, dict) and known.get("digest") == _digest(e.path)
            and known.get("status") in STATUSES):  # a file of another shape knows nothing
        return Result(known["status"], str(known.get("test", "")),
                      str(known.get("message", "")))
    return Result("edited")


def statuses(exercises: list[Exercise]) -> dict[str, Result]:
    """The known status of every exercise."""
    progress = read_progress()
    return {e.name: status(e, progress) for e in exercises}


def current(exercises: list[Exercise], known: dict[str, Result]) -> Exercise | None:
    """The exercise picked last while it is not done, else the next one not done after
    it (wrapping round); the first one not done if none was picked; None when all are."""
    picked = read_progress().get(CURRENT)  # a name, or anything a hand-edit left
    start = next((i for i, e in enumerate(exercises) if e.name == picked), 0)
    return next((e for e in exercises[start:] + exercises[:start]
                 if known[e.name].status != "done"), None)


def restore_stub(e: Exercise) -> None:
    """Put the shipped stub back in place of the learner's file, whole or not at all."""
    write_whole(e.path, e.stub.read_bytes())

