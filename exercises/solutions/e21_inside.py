"""Exercise 21 (stage 11): the path check, resolved before it is judged.

Every file tool asks `inside(root, path, write)` before it touches anything. `root` is
the workspace, an absolute Path with no symlink in it; `path` is what the model sent, a
string, relative to the workspace or absolute. Return the real path it leads to: `..`
folded and every symlink on the way followed, the file's own name included, even when
the file does not exist yet (it may be about to be written). Raise `Refused`, with a
message that says why, when that real path is neither the workspace nor inside it
(`/ws2` is not inside `/ws`), and for a `path` that is not a non-empty string. With
`write=True`, also refuse a path that leads into a folder named `.git` or `.tao`,
wherever it is in the workspace: those may be read, never written. Never create, read
or change anything.

    inside(Path("/ws"), "src/../notes.txt")        # -> Path("/ws/notes.txt")
    inside(Path("/ws"), "../ws2/secret.txt")       # Refused
    inside(Path("/ws"), ".git/config", write=True) # Refused

Try it: `uv run stages/11_workspace_files/main.py`, then ask to read '../README.md'.
"""

from pathlib import Path


class Refused(Exception):  # Don't change this line
    """A path the tools will not touch; the message says why."""


def inside(root: Path, path: str, write: bool = False) -> Path:
    """The real path `path` leads to, if it is in the workspace `root` (and writable)."""
    if not isinstance(path, str) or not path.strip():
        raise Refused("name a path inside the workspace")
    try:  # resolve first: symlinks and `..` decide where a path leads, not its spelling
        target = (root / path).resolve()  # an absolute `path` replaces root: checked below
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise Refused(f"{path!r} cannot be followed ({exc})") from None
    if not target.is_relative_to(root):  # whole parts: /ws2 is not inside /ws
        raise Refused(f"{path!r} leads outside the workspace")
    if write and {".git", ".tao"} & set(target.relative_to(root).parts):
        raise Refused(f"{path!r} is in .git or .tao: read, never written")
    return target
