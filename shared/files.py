"""Writing a file whole or not at all: what `--save-trace`, `--record` and tao use.

    write_whole(path, data)   # a file beside it first, then put in place

A reader never sees half a file, and a failed write (a full disk) leaves what was there.
`uninterrupted()` holds Ctrl-C back while a write runs, then lets it through.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from pathlib import Path


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
