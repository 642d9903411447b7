"""The Landlock wall: the command's own process asks the kernel to fence it in (Linux 5.13+).

Three system calls, made here through ctypes (see landlock(7) and the kernel's
Documentation/userspace-api/landlock.rst):

1. `landlock_create_ruleset` names what will be fenced: the kinds of file access, TCP
   bind and connect (ABI 4 on), abstract unix sockets and signals to the outside (ABI 6 on);
2. `landlock_add_rule` grants some of it back, per folder: the workspace all, the
   system's folders reading and running;
3. `landlock_restrict_self`, in the child between fork and exec, after
   `prctl(PR_SET_NO_NEW_PRIVS)`: from then on that process and all it starts are held.

The ruleset is built once per workspace, in tao; the child only makes the last two calls.
Landlock's network rules cover TCP only, so the wall adds a seccomp filter (seccomp.py):
no socket but unix ones. What this wall does not do, unlike bubblewrap: hide what is
refused (a read outside fails with "Permission denied", and a name can still be looked
up), take `.git/` back out of the writable workspace (a grant covers a whole folder), or
end what a command left running in a session of its own.
"""

from __future__ import annotations

import ctypes
import functools
import os
from pathlib import Path

from . import Wall, system_paths

# the system calls' numbers: the same on every architecture (they came after the split)
CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
PR_SET_NO_NEW_PRIVS, RULE_PATH_BENEATH, CREATE_RULESET_VERSION = 38, 1, 1
# file rights (ABI 1: bits 0-12; REFER came with ABI 2, TRUNCATE 3, IOCTL_DEV 5)
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1, 2, 4, 8
FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | (1 << 14) | (1 << 15)  # what a file may grant
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2  # ABI 6

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class RulesetAttr(ctypes.Structure):
    """struct landlock_ruleset_attr: what the ruleset fences (later ABIs add fields)."""

    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class PathBeneath(ctypes.Structure):
    """struct landlock_path_beneath_attr (packed): rights granted under an open folder."""

    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _call(number: int, *args) -> int:
    """One system call; OSError with its errno if it fails."""
    result = _libc.syscall(ctypes.c_long(number), *args)
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result


def abi() -> int:
    """The Landlock ABI version this kernel offers; 0 without Landlock."""
    try:
        return _call(CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(
            CREATE_RULESET_VERSION))
    except OSError:  # ENOSYS: too old; EOPNOTSUPP: built in, switched off
        return 0


def handled(version: int) -> RulesetAttr:
    """Everything this ABI can fence: all file access, TCP, scopes."""
    fs = (1 << 13) - 1 | (1 << 13 if version >= 2 else 0) | (1 << 14 if version >= 3 else 0)
    fs |= 1 << 15 if version >= 5 else 0
    net = NET_BIND_TCP | NET_CONNECT_TCP if version >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if version >= 6 else 0
    return RulesetAttr(fs, net, scoped)


@functools.cache
def ruleset(workspace: Path) -> int:
    """A ruleset (its file descriptor, kept for the session): the workspace writable, the
    system readable, /dev/null writable (and zero, random readable), nothing else; no TCP."""
    attr = handled(abi())
    size = 8 if not attr.handled_access_net else 16 if not attr.scoped else 24
    fd = _call(CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    read = EXECUTE | READ_FILE | READ_DIR
    grants = [(path, read) for path in system_paths()]
    grants += [(device, READ_FILE) for device in ("/dev/zero", "/dev/random", "/dev/urandom")]
    grants += [("/dev/null", READ_FILE | WRITE_FILE), (str(workspace), attr.handled_access_fs)]
    for path, rights in grants:
        opened = os.open(path, os.O_PATH | os.O_CLOEXEC)
        try:
            if not os.path.isdir(path):
                rights &= FILE_ONLY
            rule = PathBeneath(rights & attr.handled_access_fs, opened)
            _call(ADD_RULE, ctypes.c_int(fd), ctypes.c_int(RULE_PATH_BENEATH),
                  ctypes.byref(rule), ctypes.c_uint32(0))
        finally:
            os.close(opened)
    return fd  # no network rule: every TCP bind and connect is refused


def restrict(fd: int, sockets=None) -> None:
    """In the child: no new privileges (setuid programs stay plain), the socket filter
    (seccomp.py) if one was prepared, then the ruleset."""
    if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if sockets is not None:
        from .seccomp import install  # imported already, by landlock_wall: no import here

        install(sockets)
    _call(RESTRICT_SELF, ctypes.c_int(fd), ctypes.c_uint32(0))


def landlock_wall() -> tuple[Wall | None, str]:
    """The Landlock wall, or None and why it does not work here."""
    version = abi()
    if not version:
        return None, "this kernel has no Landlock (Linux 5.13+, with landlock in its LSMs)"

    from .seccomp import prepared  # Landlock stops TCP only: no sockets but unix ones

    def child(workspace: Path):
        fd, sockets = ruleset(workspace), prepared()
        return lambda: restrict(fd, sockets)

    return Wall(f"landlock (ABI {version})", lambda argv, workspace: argv, child), ""
