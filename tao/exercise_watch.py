"""`tao watch`: re-check the exercise in focus on every save, and take single keys.

It looks at the file's modification time and size every `--interval` seconds (no file
watcher to install), redraws the whole screen after each check, and ends only on q.
Keys: h hint, l the list (pick one with ↑/↓ or j/k and Enter, or its number and Enter),
n the next exercise, r reset to the stub (after a y), q quit. The exercise in focus is
remembered (exercise_state.pick), so a restarted watch carries on where it was.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from rich.text import Text

from .exercise_runner import check_and_save
from .exercise_screen import exercise_table, progress_bar, show_focus, wrapped
from .exercise_state import Exercise, current, find, load, pick, restore_stub, statuses
from .i18n import text
from .repo import CLIError

VIEWS = {"h": "hint", "l": "list"}
ARROWS = {"[A": "up", "[B": "down", "OA": "up", "OB": "down"}  # after ESC: CSI and SS3 forms


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
        """One key, lower-cased ("up", "down" and "enter" by name), or "" if none came
        within `timeout` seconds."""
        import time

        if self.fd is None:
            time.sleep(timeout)
            return ""
        key = self._byte(timeout)
        if key == "\x1b":  # an arrow key is ESC and two more bytes, sent together
            key = ARROWS.get(self._byte(0.05) + self._byte(0.05), "")
        return "enter" if key in ("\r", "\n") else key.lower()

    def _byte(self, timeout: float) -> str:
        import select

        if self.fd is None or not select.select([self.fd], [], [], timeout)[0]:
            return ""
        data = os.read(self.fd, 1)
        if not data:  # stdin closed: keep watching, without keys
            self.fd = None
        return data.decode(errors="ignore")


@dataclass
class _Screen:
    """What watch shows besides the exercise in focus."""

    view: str = ""  # "", "hint" or "list"
    selected: int = 0  # the highlighted row of the list
    typed: str = ""  # digits typed in the list, until Enter
    notice: str = ""  # one line saying what the last key did


def _stamp(e: Exercise | None):
    if e is None or not e.path.exists():
        return None
    info = e.path.stat()
    return info.st_mtime_ns, info.st_size


def _draw(console, exercises, focus, screen: _Screen) -> None:
    """Clear the screen and show progress, the focus, and what the keys do."""
    known = statuses(exercises)
    console.clear()
    done = sum(r.status == "done" for r in known.values())
    console.print(progress_bar(done, len(exercises), console.width))
    if screen.view == "list":
        console.print(exercise_table(exercises, known, focus, screen.selected))
        typed = text("watch.picking", number=screen.typed) if screen.typed else ""
        console.print(Text(text("watch.list_keys") + typed, "dim"))
    show_focus(console, focus, known[focus.name] if focus else None, in_watch=True)
    if focus is not None and screen.view == "hint":
        console.print(Text("\n" + text("watch.hint", number=focus.number), "bold"))
        for paragraph in wrapped(focus.hint):
            console.print(paragraph)
    if focus is not None and known[focus.name].status == "done" and done < len(exercises):
        console.print(Text(text("watch.next"), "bold green"))
    if screen.notice:
        console.print(Text(f"\n{screen.notice}", "bold"))
    console.print(Text("\n" + text("watch.keys", file=focus.where() if focus else "exercises/"),
                       "dim"))


def _next(exercises, focus) -> Exercise | None:
    """The next exercise after `focus` that is not done (wrapping around)."""
    known = statuses(exercises)
    start = exercises.index(focus) + 1 if focus in exercises else 0
    for e in exercises[start:] + exercises[:start]:
        if known[e.name].status != "done" and e is not focus:
            return e
    return focus


def _in_list(exercises, screen: _Screen, key: str) -> Exercise | None:
    """Move the list's selection by `key`; the exercise picked when it is Enter."""
    if key in ("up", "k"):
        screen.selected = max(screen.selected - 1, 0)
    elif key in ("down", "j"):
        screen.selected = min(screen.selected + 1, len(exercises) - 1)
    elif key.isdigit():
        screen.typed = (screen.typed + key)[-4:]  # no exercise has a longer number
    elif key == "enter" and not screen.typed:
        return exercises[screen.selected]
    elif key == "enter":
        number, screen.typed = int(screen.typed), ""
        if 1 <= number <= len(exercises):
            return exercises[number - 1]
        screen.notice = text("watch.no_such", number=number, total=len(exercises))
    return None


def _reset(console, keys: _Keys, e: Exercise | None) -> str:
    """Ask, then put `e`'s stub back; what happened, in one line."""
    if e is None:
        return text("watch.all_done")
    if not e.stub.exists():  # nothing to go back to: said, and watch goes on
        return text("error.no_original", file=e.where())
    if e.path.exists() and e.path.read_bytes() == e.stub.read_bytes():
        return text("watch.is_stub", file=e.where())
    console.print(Text("\n" + text("watch.reset_ask", file=e.where()), "bold yellow"))
    answer = ""
    while not answer and keys.fd is not None:  # wait for the answer, however long
        answer = keys.read(0.5)
    if answer != "y":
        return text("watch.kept", file=e.where())
    try:
        restore_stub(e)
    except OSError as exc:  # a full disk, say: one line on the screen, and watch goes on
        return text("error.cannot_write", file=e.where(), why=exc.strerror or exc)
    return text("watch.reset", file=e.where())


def cmd_watch(args, console) -> int:
    """Re-check the exercise in focus on every save; keys h, l, n, r, q. Only q ends it."""
    exercises = load()
    if args.exercise:
        chosen = next((e for e in exercises if e.name == _find(args.exercise)), None)
        pick(chosen)
    focus = current(exercises, statuses(exercises))
    seen, screen, cycles = UNSEEN, _Screen(), 0
    with _Keys(sys.stdin) as keys:
        while args.cycles is None or cycles < args.cycles:
            cycles += 1
            if _stamp(focus) != seen:
                seen = _stamp(focus)
                if focus is not None:
                    check_and_save([focus])
                _draw(console, exercises, focus, screen)
            key = keys.read(args.interval)
            if not key:
                continue
            if key == "q":
                return 0
            chosen = _on_key(console, keys, exercises, focus, screen, key)
            if chosen is not None:  # checked and drawn at the top of the loop
                focus, seen, screen.view = chosen, UNSEEN, ""
                pick(focus)  # remembered: the next watch starts here
            else:
                _draw(console, exercises, focus, screen)
    return 0


UNSEEN = object()  # a file's stamp no file has: forces a check and a redraw


def _on_key(console, keys: _Keys, exercises, focus, screen: _Screen,
            key: str) -> Exercise | None:
    """Do what `key` asks (but q); the exercise to move to, if it picks one."""
    screen.notice = ""
    if screen.view == "list" and (key in ("up", "down", "j", "k", "enter") or key.isdigit()):
        return _in_list(exercises, screen, key)
    if key in VIEWS:  # a second press of the same key hides it again
        screen.view = "" if screen.view == VIEWS[key] else VIEWS[key]
        screen.selected = exercises.index(focus) if focus in exercises else 0
        screen.typed = ""
    elif key == "n":
        return _next(exercises, focus)
    elif key == "r":
        screen.notice = _reset(console, keys, focus)
    return None


def _find(ref: str) -> str:
    """The name of exercise `ref`; CLIError with the choices if there is none."""
    try:
        return find(ref).name
    except ValueError as exc:
        raise CLIError(str(exc)) from None
