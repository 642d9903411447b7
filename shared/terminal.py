"""The keyboard side of a stage: readying the terminal and reading the learner's lines.

    prepare_terminal()                  # once, before the first prompt (stage_main.run)
    keyboard = Keyboard(console, show=..., note=..., record=...)
    line = keyboard.read(prompt)        # EOFError when the learner leaves

A line comes from a terminal, through readline where the platform has it (arrows, history,
Ctrl-C clears the line and ↑ brings it back; Ctrl-C twice on an empty line leaves), or from
a pipe, where it is echoed so a transcript shows what was asked. `shared/trace.py` renders;
this module only reads.
"""

from __future__ import annotations

import re
import signal
import sys
from collections.abc import Callable

from rich.console import Console
from rich.text import Text

from .language import say
from .printable import visible

LEAVE_HINT = "to leave: an empty line, Ctrl-D, or Ctrl-C again"



def prepare_terminal() -> None:
    """Any bytes in, any text out; line editing and history where `readline` exists."""
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            # invalid UTF-8 becomes U+FFFD instead of an exception (or of surrogates
            # that crash the SDKs when the text is sent)
            reconfigure(errors="replace")
    for ending in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):  # `kill`, a closed window
        if ending is not None:
            signal.signal(ending, _leave)
    try:
        if sys.stdin is not None and sys.stdin.isatty():
            import readline  # noqa: F401  (importing it is what turns line editing on)
    except ImportError:  # Windows: plain input(), still correct
        pass


def _leave(signum, frame) -> None:
    """A request to stop from outside: leave through the stage's way out, so the trace is
    still saved."""
    raise SystemExit(128 + signum)


class Keyboard:
    """Reads one line at a time and knows how the learner left (`ended_by`).

    It prints nothing itself but the end of a line: `show(renderable, end=...)` prints
    (the trace's one way onto the screen), `note(text)` prints a dim hint, and
    `record(renderable)` adds to a saved trace what the terminal echoed on its own."""

    def __init__(self, console: Console, *, show: Callable, note: Callable[[str], None],
                 record: Callable):
        self.console = console
        self._show, self._note, self._record = show, note, record
        self._interrupts = 0  # Ctrl-C presses in a row at an empty prompt
        self.ended_by = ""  # "Ctrl-D", "Ctrl-C" or "end of input", once the learner left

    def read(self, prompt: Text) -> str:
        """One line; EOFError when the learner leaves (Ctrl-D, or Ctrl-C twice)."""
        while True:
            try:
                line = self._read_line(prompt)
                break
            except KeyboardInterrupt:
                if self._interrupted():
                    self.ended_by = "Ctrl-C"
                    raise EOFError from None
            except EOFError:
                self.console.print()  # end the prompt's line before the session ends
                self.ended_by = "Ctrl-D" if interactive(self.console) else "end of input"
                raise
        self._interrupts = 0
        return line

    def _read_line(self, prompt: Text) -> str:
        """One line from the keyboard (through readline when loaded) or from a pipe."""
        if interactive(self.console):
            line = input(_readline_prompt(self.console, prompt))
            self._record(prompt + Text(visible(line)))  # the terminal echoed it, unrecorded
            return line
        self._show(prompt, end="")
        self.console.file.flush()
        line = input()
        self.console.print(Text(visible(line)))  # piped input is not echoed: show it
        return line

    def _interrupted(self) -> bool:
        """Ctrl-C at the prompt: clear the line (↑ brings it back); twice on nothing leaves."""
        self.console.print()
        typed = _line_buffer()
        if typed:
            _remember(typed)
            self._interrupts = 0
            return False
        self._interrupts += 1
        if self._interrupts == 1:
            self._note(say(LEAVE_HINT))
        return self._interrupts > 1


def interactive(console: Console) -> bool:
    """True when a person types at a terminal and this console prints to that terminal."""
    try:
        return (sys.stdin.isatty() and console.file is sys.stdout
                and sys.stdout.isatty())
    except (AttributeError, ValueError):  # no stdin at all, or a closed one
        return False


_ANSI = re.compile(r"(\x1b\[[0-9;]*m)")


def _readline_prompt(console: Console, prompt: Text) -> str:
    """The prompt as the terminal text `input()` prints, colours fenced off for readline."""
    with console.capture() as capture:
        console.print(prompt, end="")
    text = capture.get()
    # readline counts the prompt's width to place the cursor: \x01..\x02 hide the colours
    return _ANSI.sub("\x01\\1\x02", text) if "readline" in sys.modules else text


def _line_buffer() -> str:
    """What was typed on the prompt's line when Ctrl-C came (readline only; else "")."""
    readline = sys.modules.get("readline")
    return readline.get_line_buffer() if readline else ""


def _remember(line: str) -> None:
    """Keep a cleared line in the history, so ↑ brings it back."""
    readline = sys.modules.get("readline")
    if readline:
        readline.add_history(line)
