"""The exercise test runner: one pytest process for the exercises asked for, read back
as one Result per exercise (done, failing, timeout, not attempted), then remembered.

The tests report each outcome to a file named by TAO_RESULTS (tests/exercises/conftest.py
writes it); a run that takes longer than `run_timeout()` per exercise is stopped and called a
hang. Where it can, the run is a fork of this process (see `_forked_pytest`).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .exercise_state import Exercise, Result, save_results, statuses
from .i18n import text
from .repo import ROOT, CLIError


def run_timeout() -> float:
    """Seconds one exercise's tests may take before we call it a hang: TAO_CHECK_TIMEOUT
    (tests set it lower), read at every run, not once at import."""
    return float(os.environ.get("TAO_CHECK_TIMEOUT") or 20)


def run_tests(exercises: list[Exercise]) -> dict[str, Result]:
    """Run the tests of `exercises` in one pytest process; a Result for each. Where it
    can, the process is a fork of this one: what is imported here (pytest, after the
    first run in `tao watch`) is not imported again."""
    with tempfile.TemporaryDirectory() as tmp:
        results_file = Path(tmp) / "results.jsonl"
        env = {k: v for k, v in os.environ.items()
               if k not in ("TAO_EXERCISES", "TAO_STUB_CHECK", "TAO_EXERCISES_STRICT")}
        env.update(TAO_RESULTS=str(results_file), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
        # the tests' own tmp_path folders go in here too, and go with it (pytest would
        # keep its last three runs' in the system's temporary folder)
        argv = ["-q", "-p", "no:cacheprovider", "--tb=no", "-o", "addopts=",
                f"--basetemp={Path(tmp) / 'tests'}", *(str(e.tests) for e in exercises)]
        each = run_timeout()
        limit = each * len(exercises)
        if hasattr(os, "fork"):
            hung, output = _forked_pytest(argv, env, limit), ""
        else:
            hung, output = _pytest_process(argv, env, limit)
        records = _read_records(results_file)
    results = {e.name: _judge(e, records.get(e.name, []), hung, each) for e in exercises}
    if not hung and any(r is None for r in results.values()):
        tail = output.strip().splitlines()[-1:]
        raise CLIError(text("error.tests_did_not_run", why=f" ({tail[0]})" if tail else ""))
    return results


def _pytest_process(argv: list[str], env: dict, limit: float) -> tuple[bool, str]:
    """(hung, output) of pytest in a fresh interpreter."""
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", *argv], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return True, ""
    return False, done.stdout + done.stderr


def _forked_pytest(argv: list[str], env: dict, limit: float) -> bool:
    """Whether pytest, run in a fork of this process, hung. The fork starts with
    pytest and the kit imported: a re-check in `tao watch` costs a fifth of a fresh one.
    It dies with this process whatever the learner's code does (a bare `except:` that
    swallows Ctrl-C, a loop): it has a process group of its own, which this process
    kills on Ctrl-C or a timeout, and on Linux the kernel kills it if this one dies."""
    import time

    pytest = _import_pytest()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: quiet, in the repository, then gone without cleanup
        _child(pytest, argv, env, parent)
    with contextlib.suppress(OSError):  # (the child does it too: whichever runs first)
        os.setpgid(pid, pid)
    deadline = time.monotonic() + limit
    try:
        while os.waitpid(pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                _kill_group(pid)
                return True
            time.sleep(0.02)
    except BaseException:  # Ctrl-C: the child goes first, then the interrupt goes on
        _kill_group(pid)
        raise
    return False


def _child(pytest, argv: list[str], env: dict, parent: int) -> None:
    """The fork: its own process group, death with `parent`, then pytest, then exit."""
    import gc

    code = 1
    try:
        os.setpgid(0, 0)  # the terminal's Ctrl-C reaches tao, which ends this group
        _die_with_parent(parent)
        gc.freeze()  # what it inherited lives until it exits: no collection walks it
        os.environ.clear()
        os.environ.update(env)
        os.chdir(ROOT)
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        sys.stdout = sys.stderr = open(os.devnull, "w")  # new objects, no held locks
        code = pytest.main(argv)
    finally:
        os._exit(int(code))


def _die_with_parent(parent: int) -> None:
    """Ask Linux to SIGKILL this process when its parent dies (PR_SET_PDEATHSIG); exit
    now if the parent is already gone. Elsewhere, nothing: the group kill still holds."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # 1: PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # it died before the request was made
        os._exit(1)


def _kill_group(pid: int) -> None:
    """SIGKILL the process group `pid` leads (the check and whatever it started), and
    reap it."""
    import signal

    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):  # reaped already
        os.waitpid(pid, 0)


def _import_pytest():
    """pytest, keeping what its import compiles even where PYTHONDONTWRITEBYTECODE is set
    (the test processes do the same, tests/conftest.py): only a fresh clone's first
    check compiles pytest, as no `uv sync` compiles bytecode unless asked."""
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, False
    try:
        import pytest
    finally:
        sys.dont_write_bytecode = saved
    return pytest


def _read_records(path: Path) -> dict[str, list[dict]]:
    records: dict[str, list[dict]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            records.setdefault(record["exercise"], []).append(record)
    return records


def _judge(e: Exercise, records: list[dict], hung: bool, each: float) -> Result | None:
    """One exercise's Result from what its tests said (None: they never ran)."""
    if hung and not any(r["outcome"] == "failed" for r in records):
        return Result("timeout", "", f"exercise {e.number:02d} did not finish within "
                      f"{each:g} s: most likely a loop that never ends in {e.where()}")
    if not records:
        return None
    for record in records:
        if record["outcome"] == "failed":
            hang = "still running after" in record["message"]
            return Result("timeout" if hang else "failing", record["test"], record["message"])
    waiting = [r for r in records if r["outcome"] == "not attempted"]
    if waiting and len(waiting) == len(records):
        return Result("not attempted", waiting[0]["test"], waiting[0]["message"])
    if waiting:
        return Result("failing", waiting[0]["test"], "this part is still the stub: "
                      f"NotImplementedError: {waiting[0]['message']}")
    skipped = [r for r in records if r["outcome"] == "skipped"]
    if skipped:
        return Result("failing", skipped[0]["test"], "this test was skipped, and a skipped "
                      f"test is not a pass: {skipped[0]['message']}")
    return Result("done")


def check_and_save(exercises: list[Exercise]) -> dict[str, Result]:
    """Run and remember; an exercise still equal to its stub needs no run."""
    known = statuses(exercises)
    todo = [e for e in exercises if known[e.name].status not in ("not attempted", "missing")]
    if todo:
        results = run_tests(todo)
        save_results(results, todo)
        known.update(results)
    return known
