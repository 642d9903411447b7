"""`helpers.run_stage` runs a stage in this process: it must show what a real process shows.

Most stage and `tao` tests run in-process for speed (see helpers.py). These compare the
in-process run with a real interpreter on the same input, exit path by exit path, so a
difference between the two (a lost announcement, a swallowed exit code, a traceback
that never reaches stderr) fails here instead of hiding in every other test.
"""

from __future__ import annotations

import os
import re
import signal
import sys

import pytest
from helpers import in_process, run_stage, run_stage_process


def same_shape(text: str) -> str:
    """`text` with its digits zeroed: timings and timestamps differ from run to run."""
    return re.sub(r"\d", "0", text)


@pytest.mark.parametrize(("number", "args", "stdin", "script", "code"), [
    ("05", [], "what time is it?\n", None, 0),                       # offline, a tool call
    ("02", [], "one\ntwo\n", ["first", {"error": "it broke"}], 0),  # an error, then on
    ("01", ["--quirk", "bogus"], "", None, 2),                       # argparse refuses
    ("01", ["--provider", "anthropic", "hi"], "", None, 1),          # no key: one line
    ("01", ["--help"], "", None, 0),                                 # help, then exit 0
], ids=["tool-call", "provider-error", "bad-argument", "missing-key", "help"])
def test_in_process_shows_what_a_real_process_shows(tmp_path, number, args, stdin, script,
                                                    code):
    here = run_stage(number, *args, stdin=stdin, script=script, tmp_path=tmp_path)
    real = run_stage_process(number, *args, stdin=stdin, script=script, tmp_path=tmp_path)
    assert real.returncode == code, f"the real process exited {real.returncode}: {real.stderr}"
    assert here.returncode == real.returncode, "in-process exit code differs from the real one"
    assert same_shape(here.stderr) == same_shape(real.stderr), "stderr differs"
    assert same_shape(here.stdout) == same_shape(real.stdout), "stdout differs"


def test_an_escaped_exception_is_a_traceback_and_exit_1():
    def crash():
        raise ValueError("boom")

    done = in_process(["prog"], crash, stdin="", env=dict(os.environ))
    assert done.returncode == 1
    assert "Traceback" in done.stderr and "ValueError: boom" in done.stderr


def test_sys_exit_with_a_message_prints_it_and_exits_1():
    done = in_process(["prog"], lambda: sys.exit("no way"), stdin="", env=dict(os.environ))
    assert (done.returncode, done.stderr) == (1, "no way\n")


def test_the_test_process_is_left_as_it_was(tmp_path):
    before = (dict(os.environ), os.getcwd(), sys.argv, sys.stdin, sys.stdout, sys.stderr,
              signal.getsignal(signal.SIGTERM), list(sys.path))

    def meddle():
        os.environ["TAO_MEDDLED"] = "1"
        os.chdir(tmp_path)
        signal.signal(signal.SIGTERM, lambda *_: None)
        print("to the captured stdout")

    done = in_process(["prog"], meddle, stdin="", env={"ONLY": "this"})
    assert done.stdout == "to the captured stdout\n"
    after = (dict(os.environ), os.getcwd(), sys.argv, sys.stdin, sys.stdout, sys.stderr,
             signal.getsignal(signal.SIGTERM), list(sys.path))
    assert after == before, "in_process left the test process changed"
