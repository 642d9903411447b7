"""Writing a file whole or not at all: what `--save-trace`, `--record` and tao use.

    write_whole(path, data)   # a file beside it first, then put in place
    save_console(console, path)   # what a trace showed, as SVG or HTML (--save-trace)

A reader never sees half a file, and a failed write (a full disk) leaves what was there.
`uninterrupted()` holds Ctrl-C back while a write runs, then lets it through.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import tempfile
import threading
from pathlib import Path

from .language import say


def write_whole(path: str | Path, data: bytes | str) -> None:
    """Write `data` (text as UTF-8) to a file beside `path`, then put it in place."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8", "backslashreplace")  # a lone surrogate is no excuse
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        part.write_bytes(data)
        os.replace(part, path)
    except BaseException:
        part.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def uninterrupted():
    """Hold Ctrl-C back while the block runs (a write takes a moment), then let it through."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed = []
    previous = signal.signal(signal.SIGINT, lambda *_: pressed.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed and callable(previous):  # a Ctrl-C came during the write: it still counts
        previous(signal.SIGINT, None)


def save_console(console, path: Path) -> None:
    """Write what `console` recorded to `path` (SVG, or HTML for .html/.htm), whole or not
    at all; if that fails, to a temporary file; and say which on stderr. Ctrl-C waits until
    the file is written."""
    with uninterrupted():
        html = path.suffix.lower() in (".html", ".htm")
        text = (console.export_html(clear=False) if html
                else console.export_svg(title="tao trace", clear=False))
        data = text.encode("utf-8", "backslashreplace")  # a lone surrogate is no excuse
        try:
            write_whole(path, data)
        except OSError as exc:
            rescue = _rescue(data, path.suffix)
            where = f"saved it to {rescue} instead" if rescue else "nothing was saved"
            print(f"could not save the trace to {path} ({exc.strerror or exc}): {where}",
                  file=sys.stderr)
            return
        print(say("trace saved to {path}", path=path), file=sys.stderr)


def _rescue(data: bytes, suffix: str) -> str | None:
    """Where `data` was saved instead, in the temporary folder; None if that failed too."""
    handle, rescue = tempfile.mkstemp(prefix="tao-trace-", suffix=suffix)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
    except OSError:
        Path(rescue).unlink(missing_ok=True)
        return None
    return rescue
