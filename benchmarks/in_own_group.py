"""Run a command in a process group of its own; when it ends, end whatever it left behind.

    python benchmarks/in_own_group.py SECONDS COMMAND...

mutation.py runs each mutant's tests through this. A mutant can break the code that stops
a runaway child (the exercise runner's kill of a check that never ends, say): the tests
then fail, as they should, but the child goes on, an orphan that keeps a core busy long
after the run. Every process the command starts stays in its group unless it starts a
session of its own, so one signal to the group ends them all. After SECONDS the command
itself is stopped the same way, and the exit code is 1: a mutant that hangs its tests is
a mutant the tests noticed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys


def main() -> int:
    seconds, command = float(sys.argv[1]), sys.argv[2:]
    process = subprocess.Popen(command, start_new_session=True)
    try:
        code = process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        code = 1
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:  # nothing left in the group
            pass
        process.wait()
    return code


if __name__ == "__main__":
    sys.exit(main())
