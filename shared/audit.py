"""An append-only, hash-chained JSONL log: the mechanics under stage 13's audit log.

Stage 13 decides what a line says and when one is written; this module keeps the file.
Each line is one JSON object whose `prev` is the SHA-256 of the line before it (its bytes,
without the newline; GENESIS for a log's first line), so a line removed, edited or added
in the middle breaks the chain at the next one, and `chain_breaks` says where. A session
appending to a log that exists chains to its last line.

    log = AuditLog(".tao/audit.jsonl", resolve)    # created if new; a symlink is refused
    before = log.hashes(args)                       # {path: SHA-256} of the file args name
    log.write(tool="run", args={"command": "ls"})  # + time and prev, secrets hidden

Before a line is written, every run of PIECE characters of a secret (the value of an
environment variable named like *_KEY, *_TOKEN, *_SECRET, *_PASSWORD) is hidden from its
strings, wherever it appears: half a key, split between two arguments, is still hidden.
The chain shows tampering by anyone who cannot rewrite the whole file; it is not a
signature (a key kept outside the log, or its last hash sent elsewhere, would be).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

GENESIS = "0" * 64  # the `prev` of a log's first line
TAIL = 1 << 16  # bytes read back from a log's end to find its last line
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.I)
PIECE = 8  # characters of a secret in a row that are hidden wherever they appear


class AuditError(Exception):
    """The log cannot be opened or written: one line that says why."""


class AuditLog:
    """The log at `path`, opened to append: a plain file, or a new one (never a symlink).
    `resolve(path)` gives the real file a call's `path` argument names (raising if it may
    not be touched): `hashes` reads only what it allows."""

    def __init__(self, path: str | Path, resolve: Callable[[str], Path] | None = None,
                 environ=None):
        self.path, self.resolve = str(path), resolve
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, flags, 0o600)
        except OSError as exc:
            raise AuditError(f"the audit log {self.path!r}: {exc.strerror or exc}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO or a device is not a log
            os.close(fd)
            raise AuditError(f"the audit log {self.path!r} is not a plain file")
        self.file = os.fdopen(fd, "a+b")
        self.file.seek(max(0, self.file.seek(0, os.SEEK_END) - TAIL))
        last = self.file.read().splitlines()[-1:]
        self.prev = line_hash(last[0]) if last else GENESIS
        self.pieces = secret_pieces(os.environ if environ is None else environ)

    def write(self, **fields) -> None:
        """Append one line: the time, `fields` with secrets hidden, and the previous hash."""
        entry = {"time": datetime.now(UTC).isoformat(timespec="milliseconds"),
                 **hidden(fields, self.pieces), "prev": self.prev}
        line = json.dumps(entry, ensure_ascii=False).encode("utf-8", "backslashreplace")
        try:
            self.file.write(line + b"\n")
            self.file.flush()  # on disk before the next call runs
        except OSError as exc:
            raise AuditError(f"the audit log {self.path!r}: {exc.strerror or exc}") from None
        self.prev = line_hash(line)

    def hashes(self, args) -> dict:
        """{path: the SHA-256 of the file a call's `path` argument names, or None}."""
        path = args.get("path") if isinstance(args, dict) else None
        if not isinstance(path, str) or self.resolve is None:
            return {}
        try:
            return {path: file_digest(self.resolve(path))}
        except Exception:  # `resolve` refused it: nothing there is read
            return {path: None}


def line_hash(line: bytes) -> str:
    """The hash the next line's `prev` must hold."""
    return hashlib.sha256(line).hexdigest()


def secret_pieces(environ) -> set[str]:
    """Every PIECE characters in a row of each secret value in `environ`."""
    return {value[i:i + PIECE] for name, value in environ.items() if SECRET_NAME.search(name)
            for i in range(len(value) - PIECE + 1)}


def hidden(value, pieces: set[str]):
    """`value` (JSON data) with each character of a run of a secret's characters as `*`."""
    if isinstance(value, dict):
        return {key: hidden(item, pieces) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [hidden(item, pieces) for item in value]
    if not isinstance(value, str) or not pieces:
        return value
    marked = [False] * len(value)
    for i in range(len(value) - PIECE + 1):
        if value[i:i + PIECE] in pieces:
            marked[i:i + PIECE] = [True] * PIECE
    return "".join("*" if secret else char for char, secret in zip(value, marked, strict=True))


def file_digest(path: Path) -> str | None:
    """The SHA-256 of a plain file's bytes; None for anything else (missing, a folder, a
    FIFO that would never end)."""
    try:
        with open(path, "rb", opener=lambda p, f: os.open(p, f | os.O_NONBLOCK)) as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                return None
            return hashlib.file_digest(file, "sha256").hexdigest()
    except OSError:
        return None


def chain_breaks(lines: Iterable[bytes]) -> Iterator[tuple[int, str]]:
    """(line number, what is wrong) for each line that is no entry ("not_json") or whose
    `prev` is not the hash of the line before it ("chain": a line before it was removed,
    edited or added). The last line's own bytes are covered by no later line."""
    prev = GENESIS
    for number, line in enumerate(lines, 1):
        try:
            entry = json.loads(line)
        except ValueError:  # a cut-off line, bytes that are not UTF-8
            entry = None
        if not isinstance(entry, dict):
            yield number, "not_json"
        elif entry.get("prev") != prev:
            yield number, "chain"
        prev = line_hash(line)
