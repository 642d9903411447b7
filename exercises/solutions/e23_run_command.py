"""Exercise 23 (stage 12): a command that cannot outlive its timeout, leak a key, or flood.

`run_command(command, workspace, timeout)` runs `command` with `bash -c` in the folder
`workspace` and returns what the model reads: "exit N" (N its exit code) and, on the
lines after it, its output, stdout and stderr together. When it is still running after
`timeout` seconds, the first line is "Error: still running after T s" instead (T as
given: 1, 0.5).
- Its stdin is closed: a command that reads input gets none, at once.
- It starts in a process group of its own, and when it is done (or timed out) the whole
  group is killed: nothing it started (`sleep 100 &`, a child's child) is left running.
- Its environment is exactly PATH (ALLOWED_PATH), LANG (ours, or "C.UTF-8" when we have
  none) and HOME (the workspace). Nothing else of ours: no key, no token.
- More than MAX_OUTPUT bytes of output are cut to the first and the last MAX_OUTPUT // 2
  bytes, with a line "[... N bytes elided ...]" between them (N with a thousands comma).

    run_command("echo hi", Path("/tmp/ws"), 5)       # -> "exit 0\\nhi\\n"

Try it: `uv run stages/12_confined_shell/main.py`, then ask to run 'env' and 'seq 1 100000'.
"""

import contextlib
import os
import signal
import subprocess
import tempfile
from pathlib import Path

ALLOWED_PATH = "/usr/local/bin:/usr/bin:/bin"  # Don't change this line
MAX_OUTPUT = 4000  # Don't change this line


def run_command(command: str, workspace: Path, timeout: float) -> str:
    """"exit N" (or the timeout's error) and the output, capped head and tail."""
    env = {"PATH": ALLOWED_PATH, "LANG": os.environ.get("LANG", "C.UTF-8"),
           "HOME": str(workspace)}  # built, never filtered: nothing else of ours
    with tempfile.TemporaryFile() as out:  # a file: a leftover process cannot hold it open
        process = subprocess.Popen(["bash", "-c", command], cwd=workspace, env=env,
                                   stdin=subprocess.DEVNULL, stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            first = f"exit {process.wait(timeout)}"
        except subprocess.TimeoutExpired:
            first = f"Error: still running after {timeout:g} s"
        finally:  # the whole group: its children, and whatever it left in the background
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        size, half = out.seek(0, os.SEEK_END), MAX_OUTPUT // 2
        out.seek(0)
        if size <= MAX_OUTPUT:
            return f"{first}\n{out.read().decode('utf-8', 'replace')}"
        head = out.read(half)
        out.seek(size - half)  # the end matters most: the error, the summary line
        return (f"{first}\n{head.decode('utf-8', 'replace')}\n[... {size - 2 * half:,} "
                f"bytes elided ...]\n{out.read().decode('utf-8', 'replace')}")
