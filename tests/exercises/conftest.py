"""How exercise tests find the code they judge, and how each outcome is reported.

- Whose code: see exercise_support (TAO_EXERCISES unset, `solutions` or `mutants`).
- Not attempted: a test that ends in the stub's own `NotImplementedError("exercise NN:
  ...")`, raised from the exercise file itself, is reported as xfail, so a fresh clone
  is green. A NotImplementedError from anywhere else is an ordinary failure. With
  solutions or mutants, or with TAO_EXERCISES_STRICT=1, nothing is excused.
- Hangs: each test gets TAO_TEST_TIMEOUT seconds (default 15); then it fails with one
  line naming the exercise and the likely endless loop.
- TAO_STUB_CHECK=1: the run fails if any exercise test passes on an untouched stub.
- TAO_EXERCISES=mutants: every mutant must fail at least one test of its exercise, by what
  it does (one that does not even import proves nothing, and fails the run), and each
  exercise needs at least MIN_MUTANTS of them.
- Each test gets the module freshly imported: what one test leaves behind in it (a
  registry entry, a cached lock, a counter) can neither help nor hurt the next.
- TAO_RESULTS=<file>: one JSON line per test (exercise, test, outcome, message), which
  is how `tao check` reads a run.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest
from exercise_support import (
    FOLDERS,
    MODE,
    SOLUTIONS,
    exercise_file,
    exercise_number,
    load_exercise,
    mode_problem,
    mutants_of,
)

MUTANT_MODE = MODE == "mutants"
STUB_CHECK = os.environ.get("TAO_STUB_CHECK") == "1"
STRICT = SOLUTIONS or MUTANT_MODE or os.environ.get("TAO_EXERCISES_STRICT") == "1"
TIMEOUT = float(os.environ.get("TAO_TEST_TIMEOUT") or 15)
RESULTS = os.environ.get("TAO_RESULTS")
MIN_MUTANTS = 5

_passed_on_stubs: list[str] = []
_mutant_caught: dict[str, bool] = {}  # mutant file name -> some test failed on it
_mutant_broken: set[str] = set()  # mutant file names that do not import
_timed_out: set[str] = set()  # exercises whose tests hung: the rest of them are not run
_NOT_ATTEMPTED = pytest.StashKey[str]()  # on a test that ended in its stub: the stub's words


class ExerciseTimeout(Exception):
    """A test ran longer than TAO_TEST_TIMEOUT: almost always a loop that never ends."""


def pytest_configure(config):
    problem = mode_problem()
    if problem:
        raise pytest.UsageError(problem)


def _exercise_of(item) -> str:
    return item.module.__name__.removeprefix("test_")


def pytest_generate_tests(metafunc):
    if MUTANT_MODE and "ex" in metafunc.fixturenames:
        paths = mutants_of(metafunc.module.__name__.removeprefix("test_"))
        metafunc.parametrize("ex", paths, indirect=True,
                             ids=[p.stem.split("__", 1)[1] for p in paths])


@pytest.fixture
def ex(request):
    """The code under test for this file (test_e03_x.py -> exercises/e03_x.py), imported
    afresh for every test, so that no test passes or fails on what another left behind."""
    name = request.module.__name__.removeprefix("test_")
    path = getattr(request, "param", None)
    try:
        return load_exercise(name, path)
    except pytest.fail.Exception:
        if path is not None:
            _mutant_broken.add(path.stem)
        raise


def _is_stub(item, error: NotImplementedError) -> bool:
    """Whether this is the untouched stub's own NotImplementedError: its words, raised from
    the exercise file itself."""
    name = _exercise_of(item)
    if not str(error).startswith(f"exercise {exercise_number(name):02d}: "):
        return False
    where = pytest.ExceptionInfo.from_exception(error).traceback[-1].path
    return Path(str(where)).resolve() == exercise_file(name).resolve()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """The timer around each test, and the untouched stub's own NotImplementedError turned
    into an xfail before pytest writes its traceback (which no xfail shows: 168 of them on
    a fresh clone were a second of every run)."""
    try:
        return (yield from _timed(item))
    except NotImplementedError as stub:
        if STRICT or not _is_stub(item, stub):
            raise
        item.stash[_NOT_ATTEMPTED] = str(stub)
        raise pytest.xfail.Exception(f"not attempted yet: {stub}", pytrace=False) from None


def _timed(item):
    """Run the test (the hook's yield) under TAO_TEST_TIMEOUT, unless it already hung."""
    name = _exercise_of(item)
    if name in _timed_out:
        pytest.fail(f"not run: an earlier test of exercise {name[1:3]} never finished",
                    pytrace=False)
    if not hasattr(signal, "setitimer"):
        return (yield)

    def hang(signum, frame):
        _timed_out.add(name)
        raise ExerciseTimeout(
            f"exercise {name[1:3]}: still running after {TIMEOUT:g} s, so probably a loop "
            f"that never ends: check the `while` and `for` loops in {name}.py")

    previous = signal.signal(signal.SIGALRM, hang)
    outer, _ = signal.setitimer(signal.ITIMER_REAL, TIMEOUT)  # another timer: resumed below
    started = time.monotonic()
    try:
        return (yield)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - started),
                                                     0.001))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.when == "call" and report.passed and STUB_CHECK and MODE == "":
        _passed_on_stubs.append(item.nodeid)
    params = getattr(getattr(item, "callspec", None), "params", {})
    if MUTANT_MODE and "ex" in params:
        key = params["ex"].stem
        _mutant_caught[key] = _mutant_caught.get(key, False) or report.failed
    if RESULTS and (call.when == "call" or not report.passed):
        _record(item, call, report)


def _record(item, call, report) -> None:
    """One JSON line for `tao check`: what this test said, in the learner's terms."""
    if _NOT_ATTEMPTED in item.stash:
        outcome, message = "not attempted", item.stash[_NOT_ATTEMPTED]
    elif report.skipped:
        outcome, message = "skipped", str(report.longrepr[-1] if isinstance(
            report.longrepr, tuple) else report.longrepr)
    elif report.failed:
        outcome, message = "failed", _message(call.excinfo, report)
    else:
        outcome, message = "passed", ""
    line = {"exercise": _exercise_of(item), "test": item.originalname, "outcome": outcome,
            "message": message}
    with open(RESULTS, "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def _message(excinfo, report) -> str:
    """What a failed test said: its own message, without pytest's traceback."""
    if excinfo is None:
        return str(report.longrepr)
    own = (AssertionError, pytest.fail.Exception, ExerciseTimeout)
    if excinfo.errisinstance(own):
        return str(excinfo.value).strip()
    text = excinfo.exconly()  # a crash: say where in the learner's code it happened
    folders = {folder.resolve() for folder in FOLDERS.values()}
    where = next((entry for entry in reversed(excinfo.traceback)
                  if Path(str(entry.path)).resolve().parent in folders), None)
    if where is not None:
        text += f"\n  (raised at {Path(str(where.path)).name} line {where.lineno + 1})"
    return text.strip()


def pytest_sessionfinish(session, exitstatus):
    if _passed_on_stubs:
        names = "\n  ".join(_passed_on_stubs)
        print(f"\nTAO_STUB_CHECK: these exercise tests pass on the untouched stubs, so they "
              f"prove nothing:\n  {names}", file=sys.stderr)
        session.exitstatus = 1
    if MUTANT_MODE:
        session.exitstatus = _judge_mutants(session)


def _judge_mutants(session) -> int:
    """0 if every mutant failed some test and every exercise has enough of them."""
    survivors = sorted(name for name, caught in _mutant_caught.items()
                       if not caught or name in _mutant_broken)
    tests = {Path(str(item.path)).stem.removeprefix("test_") for item in session.items}
    thin = sorted(name for name in tests if len(mutants_of(name)) < MIN_MUTANTS)
    print(f"\nmutants: {len(_mutant_caught) - len(survivors)} of {len(_mutant_caught)} "
          "rejected by their exercise's tests", file=sys.stderr)
    for name in survivors:
        why = ("it does not import, so no test judged what it does" if name in _mutant_broken
               else "no test failed on this wrong answer")
        print(f"  SURVIVED {name}: {why}", file=sys.stderr)
    for name in thin:
        print(f"  TOO FEW {name}: {len(mutants_of(name))} mutants, want {MIN_MUTANTS}",
              file=sys.stderr)
    return 1 if survivors or thin or not _mutant_caught else 0

