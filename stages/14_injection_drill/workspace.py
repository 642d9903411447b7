"""The workspace: the one folder the file tools may touch, and the check every path passes.

A path from the model is resolved before it is judged (`..` folded, every symlink on the
way followed), then compared with the workspace part by part, so `/ws2` is not inside
`/ws`: where a path leads counts, never how it is spelled. `.git/` and `.tao/` may be
read, never written. A refusal is an `Error: ...` the model reads; nothing is touched.
"""

import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

SAMPLE = Path(__file__).resolve().parent / "sample"  # what a fresh workspace is a copy of
PROTECTED = {".git", ".tao"}  # readable, never writable
ROOT = Path.cwd().resolve()  # the workspace; main.py points it at the chosen folder


class Refused(Exception):
    """A path the tools will not touch; the message says why, for the model to read."""


def inside(path: str, write: bool = False) -> Path:
    """Where `path` really leads, if that is inside the workspace (and writable, if asked)."""
    if not isinstance(path, str) or not path.strip():
        raise Refused("name a path inside the workspace, such as 'README.md' or '.'")
    try:  # resolve first: symlinks and `..` decide where a path goes, not its spelling
        target = (ROOT / path).resolve()  # a file not there yet: its folders still resolve
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise Refused(f"{path!r} cannot be followed ({exc})") from None
    if not target.is_relative_to(ROOT):  # compares whole parts, not characters
        raise Refused(f"{path!r} leads outside the workspace")
    locked = PROTECTED & set(target.relative_to(ROOT).parts)
    if write and locked:
        raise Refused(f"{path!r} is inside {locked.pop()}/, which may be read, never written")
    return target


@contextmanager
def open_workspace(folder: str | None):
    """Point the tools at `folder`; with none, at a fresh copy of the sample project,
    made in a temporary folder and removed when the session ends."""
    global ROOT
    if folder and not Path(folder).is_dir():  # one line for the learner, not a traceback
        raise SystemExit(f"error: --workspace {folder!r} is not a folder")
    fresh = None if folder else tempfile.mkdtemp(prefix="tao-workspace-")
    if fresh:
        shutil.copytree(SAMPLE, fresh, dirs_exist_ok=True)
    ROOT = Path(folder or fresh).resolve()
    try:
        yield ROOT, fresh is not None
    finally:
        if fresh:
            shutil.rmtree(fresh, ignore_errors=True)
