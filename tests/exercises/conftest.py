"""How exercise tests find the learner's code, and how an untouched stub is reported.

By default the tests import exercises/eNN_name.py; with TAO_EXERCISES=solutions they
import exercises/solutions/eNN_name.py (CI runs both). A test that reaches a stub's
NotImplementedError is reported as not attempted (xfail), so a fresh clone passes;
with solutions, or with TAO_EXERCISES_STRICT=1 (how `tao check` runs them), it fails.
With TAO_STUB_CHECK=1 the run also fails if any exercise test passes: a test that
passes on an untouched stub proves nothing.
"""

from __future__ import annotations

import os
import sys

import pytest
from exercise_support import SOLUTIONS, load_exercise

STUB_CHECK = os.environ.get("TAO_STUB_CHECK") == "1"
STRICT = SOLUTIONS or os.environ.get("TAO_EXERCISES_STRICT") == "1"  # no "not attempted"
_passed_on_stubs: list[str] = []


@pytest.fixture(scope="module")
def ex(request):
    """The learner's module for this test file (test_e03_x.py -> exercises/e03_x.py)."""
    return load_exercise(request.module.__name__.removeprefix("test_"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.when != "call":
        return
    if call.excinfo is not None and call.excinfo.errisinstance(NotImplementedError):
        if not STRICT:
            report.outcome = "skipped"
            report.wasxfail = f"not attempted yet: {call.excinfo.value}"
    elif report.passed and STUB_CHECK and not SOLUTIONS:
        _passed_on_stubs.append(item.nodeid)


def pytest_sessionfinish(session, exitstatus):
    if _passed_on_stubs:
        names = "\n  ".join(_passed_on_stubs)
        print(f"\nTAO_STUB_CHECK: these exercise tests pass on the untouched stubs, so they "
              f"prove nothing:\n  {names}", file=sys.stderr)
        session.exitstatus = 1
