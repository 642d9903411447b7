"""The `run` tool: a shell command, inside a wall the operating system holds.

Stage 11's path check guards the file tools, and only them: a shell opens whatever it
likes (`cat ../../x`, a symlink made and followed, `$(...)` inside any string). So every
command runs inside a wall the kernel enforces (shared/sandbox: bubblewrap, else
Landlock): the workspace writable, the system's programs readable, nothing else, and no
network. Around it: a process group of its own with stdin closed, an environment built
from an allowlist, resource limits, a timeout that kills the whole group, and output
capped head and tail. No wall, no shell: only --unconfined offers `run` without one.
"""

import contextlib
import os
import resource
import signal
import subprocess
import tempfile
import threading

import workspace

TIMEOUT, MAX_TIMEOUT = 10, 60  # seconds a command may take, unless it asks for more
MAX_OUTPUT = 4000  # bytes of output the model is shown: the first and the last half
PATH = "/usr/local/bin:/usr/bin:/bin"  # the system's programs; ours are behind the wall
LIMITS = {  # what one command may use; the kernel stops it past that
    resource.RLIMIT_CPU: 30,  # seconds of processor time
    resource.RLIMIT_AS: 2 << 30,  # bytes of memory (address space)
    resource.RLIMIT_FSIZE: 64 << 20,  # bytes in any one file it writes
    resource.RLIMIT_NPROC: 1024,  # processes (counted for the whole user; root is exempt)
}
WALL = None  # the wall every command starts in (shared.sandbox.Wall); main.py sets it
RUNNING: set[int] = set()  # process groups still running, to end with the session


def command_env() -> dict:
    """The command's whole environment: an allowlist, nothing else from ours (no keys)."""
    return {"PATH": PATH, "LANG": os.environ.get("LANG", "C.UTF-8"),
            "HOME": str(workspace.ROOT)}


def run(args: dict) -> str:
    """run `command` with bash in the workspace; its exit code and output (capped)."""
    timeout = min(float(args.get("timeout") or TIMEOUT), MAX_TIMEOUT)
    argv = ["bash", "-c", args["command"]]
    fence = WALL.child(workspace.ROOT) if WALL else None

    def in_child():  # after fork, before exec: only the command is limited, not tao
        for which, most in LIMITS.items():
            hard = resource.getrlimit(which)[1]  # a limit is never raised above ours
            most = most if hard == resource.RLIM_INFINITY else min(most, hard)
            resource.setrlimit(which, (most, most))
        if fence:
            fence()

    with tempfile.TemporaryFile() as out:  # a file: what a command leaves running cannot
        process = subprocess.Popen(  # hold it open, as it would a pipe
            WALL.command(argv, workspace.ROOT) if WALL else argv, cwd=workspace.ROOT,
            env=command_env(), stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True, preexec_fn=in_child)  # a new session: a group of its own
        RUNNING.add(process.pid)
        late = threading.Event()

        def expire():  # the timeout: say so, then kill the whole group
            late.set()
            stop(process.pid)

        timer = threading.Timer(timeout, expire)  # a timer, not a polling wait(timeout):
        timer.start()  # wait() then returns the moment the command ends
        code = process.wait()
        timer.cancel()
        stop(process.pid)  # its children too, and whatever it left in the background
        ended = (f"Error: still running after {timeout:g} s: stopped, with all it started"
                 if late.is_set() else f"exit {code}")
        return ended + ("" if WALL else " (NOT CONFINED)") + "\n" + capped(out)


def stop(group: int) -> None:
    """Kill every process of a command's group."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)
    RUNNING.discard(group)


def stop_all() -> None:
    """Kill every command still running (a cancelled turn, the end of the session)."""
    for group in list(RUNNING):
        stop(group)


def capped(out) -> str:
    """The output, whole if short, else its head and tail, saying how much was elided."""
    size, half = out.seek(0, os.SEEK_END), MAX_OUTPUT // 2
    out.seek(0)
    if size <= MAX_OUTPUT:
        return out.read().decode("utf-8", "replace")
    head = out.read(half)
    out.seek(size - half)  # the end matters most: the error, the summary line
    return (head.decode("utf-8", "replace") + f"\n[... {size - 2 * half:,} bytes elided ...]\n"
            + out.read().decode("utf-8", "replace"))
