"""A seccomp filter that leaves a process no sockets but unix ones (Linux, x86-64 and arm64).

Landlock's network rules cover TCP only: UDP, raw and other sockets would still reach the
network. So the Landlock wall also installs this filter, as OpenAI's Codex CLI does in its
own Linux sandbox: `socket()` for any family but AF_UNIX fails with EACCES, and so does
`io_uring_setup` (io_uring can open sockets without calling `socket()`). The program is
classic BPF, eleven instructions, read by the kernel on every system call (see seccomp(2)).
"""

from __future__ import annotations

import ctypes
import platform
import struct

PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
# SECCOMP_RET_ALLOW; SECCOMP_RET_ERRNO with EACCES; SECCOMP_RET_KILL_PROCESS
ALLOW, REFUSE, KILL = 0x7FFF0000, 0x00050000 | 13, 0x80000000
AF_UNIX, X32 = 1, 0x40000000  # x32 system calls: a second numbering, refused whole
# architecture -> (its AUDIT_ARCH value, the number of socket, of io_uring_setup)
ARCHES = {"x86_64": (0xC000003E, 41, 425), "aarch64": (0xC00000B7, 198, 425)}
LOAD, JEQ, JGE, RET = 0x20, 0x15, 0x35, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, ...|JGE|K, BPF_RET|K


def program(machine: str) -> bytes | None:
    """The filter for this machine (struct sock_filter[]), or None for an unknown one."""
    if machine not in ARCHES:
        return None
    arch, socket, io_uring_setup = ARCHES[machine]
    steps = [  # (code, jump if true, jump if false, k): jumps count the steps skipped
        (LOAD, 0, 0, 4),  # seccomp_data.arch
        (JEQ, 0, 8, arch),  # another architecture's calls (32-bit ones): the end
        (LOAD, 0, 0, 0),  # seccomp_data.nr, the system call
        (JGE, 5, 0, X32),
        (JEQ, 4, 0, io_uring_setup),
        (JEQ, 0, 2, socket),  # not socket(): allowed
        (LOAD, 0, 0, 16),  # its first argument, the family (low half, little-endian)
        (JEQ, 0, 1, AF_UNIX),
        (RET, 0, 0, ALLOW),
        (RET, 0, 0, REFUSE),
        (RET, 0, 0, KILL),
    ]
    return b"".join(struct.pack("=HBBI", *step) for step in steps)


_libc = ctypes.CDLL(None, use_errno=True)


class Program(ctypes.Structure):
    """struct sock_fprog: how many instructions, and where they are."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def prepared() -> Program | None:
    """The filter, built in the parent (the child only installs it), or None."""
    code = program(platform.machine())
    return Program(len(code) // 8, code) if code else None


def install(prepared_program: Program) -> None:
    """In the child, after PR_SET_NO_NEW_PRIVS: from here on only unix sockets open."""
    if _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prepared_program), 0, 0):
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
