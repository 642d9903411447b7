"""`tao audit FILE [--verify]`: a stage's audit log as a table, or its hash chain checked.

    uv run tao audit .tao/audit.jsonl            # every call: risk, mode, who decided, what it did
    uv run tao audit .tao/audit.jsonl --verify   # exit 1 at a line removed, edited or added

The log is written by stages 13 and 14 (shared/audit.py keeps the file). Here it is read as
hostile: only a plain file is opened (a symlink, a FIFO or a folder is refused), no line is
read past MAX_LINE bytes, the table shows at most ROWS lines (--verify reads them all), and
a line that is no JSON object, or holds text that would drive the terminal, is shown as
what it is. The chain cannot speak for the last line, which no later line covers: --verify
prints its hash, to compare with one kept elsewhere.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager

from rich.table import Table
from rich.text import Text

from shared.audit import chain_breaks, line_hash
from shared.printable import visible

from .i18n import text
from .repo import CLIError

MAX_LINE = 1 << 20  # bytes: a longer line is no line of a log
ROWS = 500  # lines the table shows; the rest are counted
SHOWN = 60  # characters of a call's arguments in the table


@contextmanager
def opened(path: str):
    """The log at `path`, open for reading, if it is a plain file (not through a symlink)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        why = text("audit.symlink") if os.path.islink(path) else exc.strerror
        raise CLIError(text("error.audit_unreadable", path=repr(path), why=why)) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise CLIError(text("error.audit_not_file", path=repr(path)))
    with os.fdopen(fd, "rb") as file:
        yield file


def lines_of(file) -> Iterator[bytes]:
    """Each line of `file` without its newline; one past MAX_LINE bytes comes as b"" (no
    JSON), and the rest of it is skipped, never held whole in memory."""
    while line := file.readline(MAX_LINE + 1):
        if len(line) > MAX_LINE:
            while line and not line.endswith(b"\n"):
                line = file.readline(MAX_LINE)
            yield b""
        else:
            yield line.removesuffix(b"\n")


def entry_of(line: bytes) -> dict | None:
    """The JSON object a line holds, or None."""
    try:
        entry = json.loads(line)
    except ValueError:
        return None
    return entry if isinstance(entry, dict) else None


def row_of(number: int, entry: dict | None) -> list[Text]:
    """One table row: line, turn, the call, risk and mode, the decision, what it did."""
    if entry is None:
        return [Text(str(number)), Text(""), Text(text("audit.not_json"), "bold red")]
    if "event" in entry:  # the session's start, or the user changing the mode
        what = " ".join(f"{key}={entry[key]}" for key in entry
                        if key not in ("time", "prev", "event"))
        return [Text(str(number)), Text(""), Text(visible(str(entry["event"])), "bold"),
                Text(visible(what), "dim")]
    args = json.dumps(entry.get("args"), ensure_ascii=False)
    args = args if len(args) <= SHOWN else args[:SHOWN] + "…"
    decided = f"{entry.get('decision')} · {entry.get('by')}"
    did = " · ".join(f"{key} {entry[key]}" for key in ("wall", "exit", "ms", "bytes", "cut")
                     if entry.get(key) is not None and entry.get(key) is not False)
    if entry.get("decision") != "allow":
        did = str(entry.get("reason"))
    return [Text(str(number)), Text(str(entry.get("turn", ""))),
            Text(visible(f"{entry.get('tool')} {args}")),
            Text(visible(f"{entry.get('risk')} · {entry.get('mode')}")),
            Text(visible(decided), "green" if entry.get("decision") == "allow" else "red"),
            Text(visible(did), "dim")]


def show_table(console, file) -> int:
    """Print the log as a table (its first ROWS lines); the number of lines."""
    table = Table(title_justify="left")
    for column in text("audit.columns").split("|"):
        table.add_column(column, overflow="fold")
    count = 0
    for count, line in enumerate(lines_of(file), 1):
        if count <= ROWS:
            table.add_row(*row_of(count, entry_of(line)))
    if count == 0:
        console.print(Text(text("audit.empty"), "dim"))
        return 0
    console.print(table)
    if count > ROWS:
        console.print(Text(text("audit.more", n=count - ROWS), "dim"))
    return count


def verify(console, file) -> int:
    """Check the chain in one pass: 0 if it holds, 1 if a line breaks it (the first ten
    such lines are named)."""
    seen = {"count": 0, "last": b""}

    def watched() -> Iterator[bytes]:
        for line in lines_of(file):
            seen["count"], seen["last"] = seen["count"] + 1, line
            yield line

    breaks = 0
    for number, kind in chain_breaks(watched()):
        breaks += 1
        if breaks <= 10:
            console.print(Text(text(f"audit.break_{kind}", n=number), "bold red"))
    if breaks:
        console.print(Text(text("audit.broken", n=breaks, total=seen["count"]), "bold red"))
        return 1
    console.print(Text(text("audit.holds", total=seen["count"]), "green"))
    if seen["count"]:
        console.print(Text(text("audit.last", hash=line_hash(seen["last"])), "dim"))
    return 0


def cmd_audit(args, console) -> int:
    """`tao audit FILE`: the table; with --verify, the chain."""
    with opened(args.file) as file:
        if args.verify:
            return verify(console, file)
        show_table(console, file)
    return 0
