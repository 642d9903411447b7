"""`tao watch`: re-check the exercise in focus on every save, and take single keys.

It looks at the file's modification time and size every `--interval` seconds (no file
watcher to install), redraws the whole screen after each check, and ends only on q.
"""

from __future__ import annotations

import os
import sys

from rich.text import Text

from .exercise_runner import check_and_save
from .exercise_screen import exercise_rows, progress_bar, show_focus, wrapped
from .exercise_state import Exercise, current, load, statuses

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
