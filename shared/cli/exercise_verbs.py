"""Exercise verbs of `tao`: check, hint, reset, solution. `tao watch` is in
exercise_watch.py; the catalogue and status in exercise_state.py, the test runner in
exercise_runner.py, what they show in exercise_screen.py.

`tao check` runs only the current exercise (the first one not done), so feedback comes
in about a second; `tao check --all` runs every one.
"""

from __future__ import annotations

import sys

from rich.text import Text

from .exercise_runner import check_and_save
from .exercise_screen import show_focus, show_overview, wrapped
from .exercise_state import Exercise, current, find, load, statuses
from .repo import CLIError


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

