"""Walls the operating system holds around a command: bubblewrap or Landlock (Linux).

Stage 12 teaches *that* the kernel is the wall and *what* it stops; the mechanics live
here, out of the lesson. Both walls give a command the same world:

- the workspace, readable and writable (with bubblewrap, its `.git/` and `.tao/` read-only);
- the system's programs and libraries (SYSTEM below), readable, nothing else: not the
  user's home, not the kit's folder, not the rest of the temporary folder;
- no network.

`find_wall(choice)` returns the first wall that works here (`auto`), or the one named,
with a reason when there is none. A `Wall` turns a command line into the one to start
(`command`), and gives the function the child runs before it starts it (`child`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CHOICES = ("auto", "bwrap", "landlock")
# what a command may read besides the workspace: programs, libraries, and the few files
# in /etc that programs look up (names of users, time zone, the loader's cache); the
# ones this machine has. Not /etc as a whole: it holds what is not the command's business
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc/alternatives",
          "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
          "/etc/passwd", "/etc/group", "/etc/nsswitch.conf")
PROTECTED = (".git", ".tao")  # inside the workspace: readable, never writable


@dataclass
class Wall:
    """One backend: its name for the screen, and how a command is started inside it."""

    name: str  # "bwrap", "landlock (ABI 7)"
    command: Callable[[list[str], Path], list[str]]  # (argv, workspace) -> what to start
    child: Callable[[Path], Callable[[], None] | None]  # workspace -> run in the child


def system_paths() -> list[str]:
    """The SYSTEM paths this machine has."""
    return [path for path in SYSTEM if os.path.lexists(path)]


def find_wall(choice: str = "auto") -> tuple[Wall | None, str]:
    """The wall `choice` asks for (`auto`: the first that works here), or None and why."""
    tried = []
    for name in ("bwrap", "landlock") if choice == "auto" else (choice,):
        if name == "bwrap":
            from .bwrap import bwrap_wall as build
        elif name == "landlock":
            from .landlock import landlock_wall as build
        else:
            return None, f"{choice!r} is not a sandbox: choose one of {', '.join(CHOICES)}"
        wall, why = build()
        if wall is not None:
            return wall, ""
        tried.append(f"{name}: {why}")
    return None, "; ".join(tried)
