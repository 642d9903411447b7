"""The bubblewrap wall: the command starts in namespaces of its own (Debian's `bubblewrap`).

bwrap builds a new root for the command out of bind mounts: only what is bound exists
in there, so a path outside the workspace and the system's folders is simply not found.
Its own network namespace has no interface but a loopback of its own (127.0.0.1 in there
is not this machine's), its own PID namespace shows only its processes (and ends them
all when its first process dies), and `.git/` and `.tao/` are bound again read-only on
top of the writable workspace. See bwrap(1) and https://github.com/containers/bubblewrap.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

from . import PROTECTED, Wall, system_paths


def bwrap_argv(argv: list[str], workspace: Path) -> list[str]:
    """The bwrap command line that runs `argv` inside the wall, in `workspace`."""
    wall = ["bwrap", "--unshare-all", "--die-with-parent"]  # no network, PIDs, IPC of ours
    for path in system_paths():
        if os.path.islink(path):  # /bin -> usr/bin on a merged-/usr system: the same link
            wall += ["--symlink", os.readlink(path), path]
        else:
            wall += ["--ro-bind", path, path]
    wall += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]  # fresh and empty
    wall += ["--bind", str(workspace), str(workspace)]
    for name in PROTECTED:
        if (workspace / name).exists():
            wall += ["--ro-bind", str(workspace / name), str(workspace / name)]
    return [*wall, "--chdir", str(workspace), "--", *argv]


@functools.cache
def bwrap_works() -> str:
    """'' if bwrap can build its wall here, else why not (a container may forbid it)."""
    if shutil.which("bwrap") is None:
        return "bwrap is not installed (Debian: apt-get install bubblewrap)"
    probe = bwrap_argv(["true"], Path("/tmp"))
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap did not start ({exc})"
    return "" if done.returncode == 0 else f"bwrap failed: {done.stderr.strip()[:200]}"


def bwrap_wall() -> tuple[Wall | None, str]:
    """The bubblewrap wall, or None and why it does not work here."""
    why = bwrap_works()
    if why:
        return None, why
    return Wall("bwrap", bwrap_argv, lambda workspace: None), ""
