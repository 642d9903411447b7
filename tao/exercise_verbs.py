"""Exercise verbs of `tao`: check, hint, reset, solution. `tao watch` is in
exercise_watch.py; the catalogue and status in exercise_state.py, the test runner in
exercise_runner.py, what they show in exercise_screen.py.

`tao check` runs only the current exercise (the one picked last, else the first one not
done), so feedback comes in about a second; `tao check N` runs exercise N and makes it
the current one; `tao check --all` runs every one.

Exit codes, as rustlings' `run` has them: 0 when the exercise checked passes (with
--all: when every one does), 1 when it does not, 2 when tao was called wrongly.
"""

from __future__ import annotations

import sys

from rich.text import Text

from shared.trace import make_console

from .exercise_runner import check_and_save
from .exercise_screen import show_focus, show_overview, wrapped
from .exercise_state import Exercise, current, find, load, pick, restore_stub, statuses
from .i18n import text
from .repo import CannotWrite, CLIError


def _exercise(ref: str | None, verb: str) -> Exercise:
    """The exercise named by `ref`, or the current one when `ref` is None."""
    if ref is None:
        exercises = load()
        focus = current(exercises, statuses(exercises))
        if focus is None:
            raise CLIError(text("error.all_done", verb=verb))
        return focus
    try:
        return find(ref)
    except ValueError as exc:
        raise CLIError(str(exc)) from None


# ---------------------------------------------------------------- verbs


def cmd_check(args, console) -> int:
    """Check the current exercise, exercise N, or all with --all; show progress and what
    to do. Exit 0 when what was checked passes, 1 when it does not."""
    if args.all and args.exercise:
        raise CLIError(text("error.check_both"))
    exercises = load()
    chosen = _exercise(args.exercise, "check") if args.exercise else None
    if chosen is not None:
        pick(chosen)  # N becomes the current one, for check, hint, reset and watch
    known = statuses(exercises)
    focus = chosen or current(exercises, known)
    todo = exercises if args.all else [focus] if focus else []
    if todo:  # no spinner: its thread must not be running when the check forks
        what = text("check.every") if args.all else todo[0].where()
        console.print(Text(text("check.checking", what=what), "dim"))
        known.update(check_and_save(todo))
    checked = None if args.all or focus is None else known[focus.name]
    if checked is not None and checked.status == "done":
        console.print(Text(text("check.passed", number=focus.number, title=focus.title),
                           "bold green"))
    after = current(exercises, known)
    show_overview(console, exercises, known, after, why=args.all)
    show_focus(console, after, known[after.name] if after else None)
    if args.all:
        return 0 if after is None else 1
    return 0 if checked is None or checked.status == "done" else 1


def cmd_hint(args, console) -> int:
    """The hint of one exercise (the current one by default)."""
    e = _exercise(args.exercise, "hint")
    console.print(Text(text("hint.head", number=e.number, title=e.title, stage=e.stage),
                       "bold"))
    if e.task:  # in French: what the stub's English docstring asks, before the hint
        console.print(Text(text("focus.task", task=" ".join(e.task.split())), "dim"))
        console.print()
    for n, paragraph in enumerate(wrapped(e.hint)):
        console.print(*([Text()] if n else []), paragraph, sep="\n")
    return 0


def cmd_reset(args, console) -> int:
    """Put the shipped stub back (asks first); works without git."""
    e = _exercise(args.exercise, "reset")
    if not e.stub.exists():
        raise CLIError(text("error.no_original", file=e.where()))
    if e.path.exists() and e.path.read_bytes() == e.stub.read_bytes():  # any encoding
        console.print(Text(text("watch.is_stub", file=e.where())))
        return 0
    if not args.yes:
        if not sys.stdin.isatty():
            raise CLIError(text("error.reset_needs_yes", file=e.where()))
        try:  # a Text: its [y/N] is no markup
            answer = console.input(Text(text("reset.ask", file=e.where())))
        except EOFError:  # Ctrl-D, the end of input, is a no
            console.print()
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            console.print(Text(text("reset.kept")))
            return 1
    try:
        restore_stub(e)
    except OSError as exc:  # a full disk: said, and the learner's file is as it was
        raise CannotWrite(text("error.cannot_write", file=e.where(),
                               why=exc.strerror or exc)) from None
    console.print(Text(text("watch.reset", file=e.where())))
    return 0


def cmd_solution(args, console) -> int:
    """The reference solution, once the learner's own version passes. Piped, only the
    file goes to stdout, exactly as it is (the rest to stderr), so it can be saved and
    diffed; on a terminal it is highlighted, its long lines left whole for the terminal
    to fold."""
    e = _exercise(args.exercise, "solution")
    say = console if console.is_terminal else make_console(file=sys.stderr)
    say.print(Text(text("solution.checking", number=e.number), "dim"))
    result = check_and_save([e])[e.name]
    if result.status != "done":
        raise CLIError(text("error.not_passing", number=e.number))
    say.print(Text(text("solution.head", number=e.number, title=e.title,
                        file=f"exercises/solutions/{e.name}.py"), "bold"))
    source = e.solution.read_text(encoding="utf-8")
    if not console.is_terminal:
        sys.stdout.write(source)
        return 0
    from rich.syntax import Syntax  # pygments is slow to import: only when shown

    # soft wrap: rich adds no line breaks, the terminal folds long lines, a copy is exact
    code = Syntax(source, "python", background_color="default").highlight(source)
    console.print(code, soft_wrap=True, end="")
    return 0
