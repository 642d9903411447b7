"""`tao` in a copy of the kit, as a learner runs it, at the price of a fork.

Started in the kit's folder (`python tests/kit_tao.py`, cwd = the kit), this script imports
the kit's own `tao` command and pytest (which `tao check` runs), then serves requests: one
JSON line on stdin each (`args`, `env`, `stdin`, `timeout`). For each it forks; the child
takes the request's environment, working folder and standard streams, and runs
`python -m tao ARGS` there exactly as a new interpreter would (runpy, `__main__`),
then exits with its code. The answer is one JSON line: `returncode`, `stdout`, `stderr`.

A new interpreter would start the same way, only slower: most of a `tao check` is the
interpreter, rich, the command's modules and pytest being loaded, and here that happens once
per kit instead of once per command. What this cannot show is a setting read when a module
is imported (each request has its own environment, the imports do not): `tao` reads its
settings when it runs (exercise_runner.run_timeout says why), and `test_exercise_cli` keeps
a few commands in real new processes (`watch`, the kept-mutant run).
"""

from __future__ import annotations

import json
import os
import runpy
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path

STREAMS = ("stdin", "stdout", "stderr")


def child(request: dict, folder: Path) -> None:
    """In the fork: become `python -m tao ARGS` in the kit, then exit."""
    code = 1
    try:
        os.environ.clear()
        os.environ.update(request["env"])
        for fd, name in enumerate(STREAMS):
            flags = os.O_RDONLY if fd == 0 else os.O_WRONLY | os.O_CREAT | os.O_TRUNC
            os.dup2(os.open(folder / name, flags), fd)
            stream = open(fd, "r" if fd == 0 else "w", encoding="utf-8", closefd=False)
            setattr(sys, name, stream)
            setattr(sys, f"__{name}__", stream)
        sys.argv = [str(Path.cwd() / "tao" / "__main__.py"), *request["args"]]
        try:
            runpy.run_module("tao", run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as leaving:
            if isinstance(leaving.code, str):
                print(leaving.code, file=sys.stderr)
            code = 1 if isinstance(leaving.code, str) else (leaving.code or 0)
        except BaseException:  # as the interpreter would: the traceback, exit 1
            traceback.print_exc()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    finally:
        os._exit(code & 0xFF)


def serve() -> None:
    """Answer requests until stdin closes."""
    sys.path[0] = os.getcwd()  # as `python -m`: the kit first, not this file's folder
    import pytest  # noqa: F401  (imported once, here, for every `tao check` to come)

    import tao.command  # noqa: F401

    answers = sys.stdout
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for line in sys.stdin:
            request = json.loads(line)
            (folder / "stdin").write_text(request["stdin"], encoding="utf-8")
            for name in STREAMS[1:]:  # nothing of the last answer in this one
                (folder / name).write_text("", encoding="utf-8")
            pid = os.fork()
            if pid == 0:
                child(request, folder)
            answers.write(json.dumps(wait(pid, request["timeout"], folder)) + "\n")
            answers.flush()


def wait(pid: int, timeout: float, folder: Path) -> dict:
    """The child's answer; killed, as `subprocess.run` would, after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while (done := os.waitpid(pid, os.WNOHANG)) == (0, 0):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            done = os.waitpid(pid, 0)
            break
        time.sleep(0.005)
    read = {name: (folder / name).read_text(encoding="utf-8", errors="replace")
            for name in STREAMS[1:]}
    return {"returncode": os.waitstatus_to_exitcode(done[1]), **read}


if __name__ == "__main__":
    serve()
