"""One question to the person at the keyboard, failing closed: stage 13's approver asks it.

    typed = ask("allow? ")   # what was typed, or None: no one answered

Kept apart from `terminal.py` (which every stage loads to read its prompt): only a stage
that asks for approval imports this, when it first asks.
"""

from __future__ import annotations

import signal
import sys
import threading


def ask(question: str) -> str | None:
    """One answer typed at the terminal after `question`; None when no one answered: no
    terminal to ask, end of input (Ctrl-D) or Ctrl-C. Ctrl-C ends the question at once,
    even inside an event loop whose own handler would only cancel the task after Enter."""
    try:
        if not sys.stdin.isatty():
            return None
    except (AttributeError, ValueError):  # no stdin at all, or a closed one
        return None
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler) if main else None
    try:
        return input(question)
    except (EOFError, KeyboardInterrupt):
        print()  # the question's line ends here
        return None
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)
