"""Exercise verbs of `tao`: check, hint, watch, reset, solution; the exercise list
(exercises/info.toml), each exercise's status, and the runner that checks them.

Status is kept per exercise in .tao-progress.json: the result of its last check and a
digest of the file it was checked on. An exercise whose file still equals its shipped
stub (exercises/.stubs/) is "not attempted" without running anything; one edited since
its last check is "edited". `tao check` runs only the current exercise (the first one
not done), so feedback comes in about a second; `tao check --all` runs every one.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text

from .repo import EXERCISE_TESTS, EXERCISES, ROOT, CLIError

STUBS = EXERCISES / ".stubs"  # the untouched stubs: what `tao reset` restores, git or not
PROGRESS = ROOT / ".tao-progress.json"
# seconds one exercise's tests may take before we call it a hang (tests set it lower)
RUN_TIMEOUT = float(os.environ.get("TAO_CHECK_TIMEOUT") or 20)
MARKS = {"done": ("✓", "green"), "failing": ("✗", "red"), "timeout": ("✗", "red"),
         "not attempted": ("·", "dim"), "edited": ("?", "yellow"), "missing": ("!", "red")}


@dataclass
class Exercise:
    """One exercise: its number, file name, title, stage and hint."""

    number: int
    name: str
    title: str
    stage: str
    hint: str

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
    raise ValueError(f"no exercise {ref!r}: choose 1 to {len(exercises)} (see `tao list`)")


# ---------------------------------------------------------------- status


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_progress() -> dict:
    """{name: {"digest", "status", "test", "message"}} from the last checks."""
    try:
        return json.loads(PROGRESS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def save_results(results: dict[str, Result], exercises: list[Exercise]) -> None:
    """Remember each result with the digest of the file it was checked on."""
    progress = read_progress()
    for e in exercises:
        if e.name in results and e.path.exists():
            progress[e.name] = {"digest": _digest(e.path), **vars(results[e.name])}
    PROGRESS.write_text(json.dumps(progress, indent=1), encoding="utf-8")


def status(e: Exercise, progress: dict) -> Result:
    """What is known about `e` without running it."""
    if not e.path.exists():
        return Result("missing", message=f"{e.where()} is missing: `tao reset {e.number}` "
                                         "restores it")
    if e.stub.exists() and e.path.read_bytes() == e.stub.read_bytes():
        return Result("not attempted")
    known = progress.get(e.name)
    if known and known.get("digest") == _digest(e.path):
        return Result(known["status"], known.get("test", ""), known.get("message", ""))
    return Result("edited")


def statuses(exercises: list[Exercise]) -> dict[str, Result]:
    """The known status of every exercise."""
    progress = read_progress()
    return {e.name: status(e, progress) for e in exercises}


def current(exercises: list[Exercise], known: dict[str, Result]) -> Exercise | None:
    """The first exercise that is not done, or None when all are."""
    return next((e for e in exercises if known[e.name].status != "done"), None)


# ---------------------------------------------------------------- running tests


def run_tests(exercises: list[Exercise]) -> dict[str, Result]:
    """Run the tests of `exercises` in one pytest process; a Result for each. Where it
    can, the process is a fork of this one: what is imported here (pytest, after the
    first run in `tao watch`) is not imported again."""
    with tempfile.TemporaryDirectory() as tmp:
        results_file = Path(tmp) / "results.jsonl"
        env = {k: v for k, v in os.environ.items()
               if k not in ("TAO_EXERCISES", "TAO_STUB_CHECK", "TAO_EXERCISES_STRICT")}
        env.update(TAO_RESULTS=str(results_file), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
        argv = ["-q", "-p", "no:cacheprovider", "--tb=no", "-o", "addopts=",
                *(str(e.tests) for e in exercises)]
        limit = RUN_TIMEOUT * len(exercises)
        if hasattr(os, "fork"):
            hung, output = _forked_pytest(argv, env, limit), ""
        else:
            hung, output = _pytest_process(argv, env, limit)
        records = _read_records(results_file)
    results = {e.name: _judge(e, records.get(e.name, []), hung) for e in exercises}
    if not hung and any(r is None for r in results.values()):
        tail = output.strip().splitlines()[-1:]
        raise CLIError("the exercise tests did not run" + (f" ({tail[0]})" if tail else "")
                       + ": `uv run pytest tests/exercises -x` shows why")
    return results


def _pytest_process(argv: list[str], env: dict, limit: float) -> tuple[bool, str]:
    """(hung, output) of pytest in a fresh interpreter."""
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", *argv], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return True, ""
    return False, done.stdout + done.stderr


def _forked_pytest(argv: list[str], env: dict, limit: float) -> bool:
    """Whether pytest, run in a fork of this process, hung. The fork starts with
    pytest and the kit imported: a re-check in `tao watch` costs a fifth of a fresh one."""
    import signal
    import time

    import pytest

    pid = os.fork()
    if pid == 0:  # the child: quiet, in the repository, then gone without cleanup
        code = 1
        try:
            os.environ.clear()
            os.environ.update(env)
            os.chdir(ROOT)
            quiet = os.open(os.devnull, os.O_WRONLY)
            os.dup2(quiet, 1)
            os.dup2(quiet, 2)
            sys.stdout = sys.stderr = open(os.devnull, "w")  # new objects, no held locks
            code = pytest.main(argv)
        finally:
            os._exit(int(code))
    deadline = time.monotonic() + limit
    while os.waitpid(pid, os.WNOHANG) == (0, 0):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return True
        time.sleep(0.02)
    return False


def _read_records(path: Path) -> dict[str, list[dict]]:
    records: dict[str, list[dict]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            records.setdefault(record["exercise"], []).append(record)
    return records


def _judge(e: Exercise, records: list[dict], hung: bool) -> Result | None:
    """One exercise's Result from what its tests said (None: they never ran)."""
    if hung and not any(r["outcome"] == "failed" for r in records):
        return Result("timeout", "", f"exercise {e.number:02d} did not finish within "
                      f"{RUN_TIMEOUT:g} s: most likely a loop that never ends in {e.where()}")
    if not records:
        return None
    for record in records:
        if record["outcome"] == "failed":
            hang = "still running after" in record["message"]
            return Result("timeout" if hang else "failing", record["test"], record["message"])
    waiting = [r for r in records if r["outcome"] == "not attempted"]
    if waiting and len(waiting) == len(records):
        return Result("not attempted", waiting[0]["test"], waiting[0]["message"])
    if waiting:
        return Result("failing", waiting[0]["test"], "this part is still the stub: "
                      f"NotImplementedError: {waiting[0]['message']}")
    skipped = [r for r in records if r["outcome"] == "skipped"]
    if skipped:
        return Result("failing", skipped[0]["test"], "this test was skipped, and a skipped "
                      f"test is not a pass: {skipped[0]['message']}")
    return Result("done")


def check_and_save(exercises: list[Exercise]) -> dict[str, Result]:
    """Run and remember; an exercise still equal to its stub needs no run."""
    known = statuses(exercises)
    todo = [e for e in exercises if known[e.name].status not in ("not attempted", "missing")]
    if todo:
        results = run_tests(todo)
        save_results(results, todo)
        known.update(results)
    return known


# ---------------------------------------------------------------- showing it


def progress_bar(done: int, total: int, width: int) -> Text:
    """`Progress: [#####>------]  5/14` sized to the terminal."""
    cells = max(10, min(60, width - 22))
    filled = cells * done // total if total else cells
    bar = Text("Progress: [")
    bar.append("#" * filled, "green")
    bar.append(">" if filled < cells else "", "green")
    bar.append("-" * max(cells - filled - 1, 0), "red")
    bar.append(f"] {done:>2}/{total}")
    return bar


def exercise_rows(exercises, known, focus) -> list[Text]:
    """One line per exercise: mark, number, title, stage, status."""
    rows = []
    for e in exercises:
        result = known[e.name]
        mark, style = MARKS.get(result.status, ("·", "dim"))
        if e is focus and result.status != "done":
            mark, style = "▶", "bold yellow"
        rows.append(Text(f" {mark} {e.number:2} ", style) + Text(e.title, style)
                    + Text(f"  stage {e.stage} · {result.status}", "dim"))
    return rows


def wrapped(paragraphs: str) -> list[Text]:
    """Hint-style text reflowed: blank lines separate paragraphs, rich wraps the rest."""
    return [Text(" ".join(p.split())) for p in paragraphs.split("\n\n") if p.strip()]


def show_overview(console, exercises, known, focus) -> None:
    """The progress bar, then the list."""
    done = sum(r.status == "done" for r in known.values())
    console.print(progress_bar(done, len(exercises), console.width))
    for row in exercise_rows(exercises, known, focus):
        console.print(row)


def show_focus(console, e: Exercise | None, result: Result | None) -> None:
    """What to do next about the exercise in focus."""
    console.print()
    if e is None:
        console.print(Text("All exercises done! `tao solution N` shows the reference "
                           "answers to compare with yours.", "bold green"))
        return
    head = f"Exercise {e.number} ({e.title}, stage {e.stage})"
    if result.status == "done":
        console.print(Text(f"{head} is done.", "bold green"))
    elif result.status == "not attempted":
        console.print(Text(f"Next: {head}. Open {e.where()}, read its docstring, and "
                           "replace the NotImplementedError.", "bold"))
    elif result.status == "edited":
        console.print(Text(f"{head} changed since its last check: `tao check` runs it."))
    else:
        test = f" `{result.test}` says:" if result.test else ""
        console.print(Text(f"{head} is not passing yet.{test}", "bold"))
        console.print(Text(_first_lines(result.message), "red"))
        console.print(Text(f"Edit {e.where()}."))
    if result.status != "done":
        console.print(Text("Stuck? `tao hint`. Re-check with `tao check`, or let "
                           "`tao watch` re-check on every save.", "dim"))


def _first_lines(message: str, limit: int = 12) -> str:
    lines = message.splitlines()
    return "\n".join(lines[:limit] + (["…"] if len(lines) > limit else []))


def _exercise(ref: str | None) -> Exercise:
    """The exercise named by `ref`, or the current one when `ref` is None."""
    if ref is None:
        exercises = load()
        focus = current(exercises, statuses(exercises))
        if focus is None:
            raise CLIError("every exercise is done: name one, e.g. `tao hint 3`")
        return focus
    try:
        return find(ref)
    except ValueError as exc:
        raise CLIError(str(exc)) from None


# ---------------------------------------------------------------- verbs


def cmd_check(args, console) -> int:
    """Check the current exercise (or all with --all); show progress and what to do."""
    exercises = load()
    known = statuses(exercises)
    focus = current(exercises, known)
    todo = exercises if args.all else [focus] if focus else []
    if todo:  # no spinner: its thread must not be running when the check forks
        console.print(Text(f"checking {'every exercise' if args.all else todo[0].where()}…",
                           "dim"))
        known.update(check_and_save(todo))
    if focus is not None and not args.all and known[focus.name].status == "done":
        console.print(Text(f"✓ Exercise {focus.number} ({focus.title}) is done!",
                           "bold green"))
    focus = current(exercises, known)
    show_overview(console, exercises, known, focus)
    show_focus(console, focus, known[focus.name] if focus else None)
    return 0 if focus is None else 1


def cmd_hint(args, console) -> int:
    """The hint of one exercise (the current one by default)."""
    e = _exercise(args.exercise)
    console.print(Text(f"Hint for exercise {e.number}: {e.title} (stage {e.stage})", "bold"))
    for n, paragraph in enumerate(wrapped(e.hint)):
        console.print(*([Text()] if n else []), paragraph, sep="\n")
    return 0


def cmd_reset(args, console) -> int:
    """Put the shipped stub back (asks first); works without git."""
    e = _exercise(args.exercise)
    if not e.stub.exists():
        raise CLIError(f"the original of {e.where()} is missing from exercises/.stubs/: "
                       "restore it from the repository you cloned")
    stub = e.stub.read_text(encoding="utf-8")
    if e.path.exists() and e.path.read_text(encoding="utf-8") == stub:
        console.print(Text(f"{e.where()} is already the original stub"))
        return 0
    if not args.yes:
        if not sys.stdin.isatty():
            raise CLIError(f"resetting {e.where()} throws your work away: add --yes to "
                           "confirm")
        answer = console.input(f"Restore {e.where()} to its stub? Your changes will be "
                               "lost [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            console.print(Text("left as it is"))
            return 1
    e.path.write_text(stub, encoding="utf-8")
    console.print(Text(f"{e.where()} is the stub again"))
    return 0


def cmd_solution(args, console) -> int:
    """The reference solution, once the learner's own version passes."""
    e = _exercise(args.exercise)
    console.print(Text(f"checking exercise {e.number} first…", "dim"))
    result = check_and_save([e])[e.name]
    if result.status != "done":
        raise CLIError(f"exercise {e.number} does not pass yet: try it first (`tao check`,"
                       f" `tao hint {e.number}`); the solution opens once it passes")
    console.print(Text(f"Reference solution for exercise {e.number}, {e.title} "
                       f"(exercises/solutions/{e.name}.py):", "bold"))
    from rich.syntax import Syntax  # pygments is slow to import: only when shown

    # wrapped, never cropped: long lines fold onto the next screen line
    console.print(Syntax(e.solution.read_text(encoding="utf-8"), "python", word_wrap=True))
    return 0


# ---------------------------------------------------------------- watch

KEYS_LINE = "h hint · l list · n next exercise · q quit"
VIEWS = {"h": "hint", "l": "list"}


class _Keys:
    """Single key presses from stdin: unbuffered on a terminal, plain reads from a pipe."""

    def __init__(self, stream):
        try:
            self.fd = stream.fileno()
        except (AttributeError, OSError, ValueError):
            self.fd = None
        self.saved = None

    def __enter__(self):
        if self.fd is not None and os.isatty(self.fd):
            import termios
            import tty

            self.saved = termios.tcgetattr(self.fd)
            tty.setcbreak(self.fd)  # keys arrive one by one, Ctrl-C still works
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            import termios

            termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)

    def read(self, timeout: float) -> str:
        """One key, lower-cased, or "" if none came within `timeout` seconds."""
        import select
        import time

        if self.fd is None:
            time.sleep(timeout)
            return ""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return ""
        data = os.read(self.fd, 1)
        if not data:  # stdin closed: keep watching, without keys
            self.fd = None
            return ""
        return data.decode(errors="ignore").lower()


def _stamp(e: Exercise | None):
    if e is None or not e.path.exists():
        return None
    info = e.path.stat()
    return info.st_mtime_ns, info.st_size


def _draw(console, exercises, focus, view: str) -> None:
    """Clear the screen and show progress, the focus, and what the keys do."""
    known = statuses(exercises)
    console.clear()
    done = sum(r.status == "done" for r in known.values())
    console.print(progress_bar(done, len(exercises), console.width))
    if view == "list":
        for row in exercise_rows(exercises, known, focus):
            console.print(row)
    show_focus(console, focus, known[focus.name] if focus else None)
    if focus is not None and view == "hint":
        console.print(Text(f"\nHint for exercise {focus.number}:", "bold"))
        for paragraph in wrapped(focus.hint):
            console.print(paragraph)
    if focus is not None and known[focus.name].status == "done" and done < len(exercises):
        console.print(Text("Press n for the next exercise.", "bold green"))
    console.print(Text(f"\nwatching {focus.where() if focus else 'exercises/'} · {KEYS_LINE}",
                       "dim"))


def _next(exercises, focus) -> Exercise | None:
    """The next exercise after `focus` that is not done (wrapping around)."""
    known = statuses(exercises)
    start = exercises.index(focus) + 1 if focus in exercises else 0
    for e in exercises[start:] + exercises[:start]:
        if known[e.name].status != "done" and e is not focus:
            return e
    return focus


def cmd_watch(args, console) -> int:
    """Re-check the exercise in focus on every save; keys h, l, n, q. Only q ends it."""
    exercises = load()
    focus = current(exercises, statuses(exercises))
    unseen = object()  # forces a check and a redraw
    seen, view, cycles = unseen, "", 0
    with _Keys(sys.stdin) as keys:
        while args.cycles is None or cycles < args.cycles:
            cycles += 1
            if _stamp(focus) != seen:
                seen = _stamp(focus)
                if focus is not None:
                    check_and_save([focus])
                _draw(console, exercises, focus, view)
            key = keys.read(args.interval)
            if key == "q":
                return 0
            if key in VIEWS:  # a second press of the same key hides it again
                view = "" if view == VIEWS[key] else VIEWS[key]
                _draw(console, exercises, focus, view)
            elif key == "n":
                focus, seen, view = _next(exercises, focus), unseen, ""
    return 0
