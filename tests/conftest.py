"""Every test runs offline: no provider keys, and no connection beyond this machine.

The socket guard (`network_guard/netguard.py`) is installed here for the test process,
and reaches every subprocess through `network_guard/sitecustomize.py` on PYTHONPATH:
`helpers.clean_env` puts it there, and so does this file for subprocesses that inherit
the environment as it is.
"""

from __future__ import annotations

import functools
import gc
import os
import signal
import sys
import warnings
from pathlib import Path

import pytest

# Keep what this process compiles (the test modules with pytest's assertions rewritten,
# shared/, the stages' modules) in __pycache__, as Python does unless PYTHONDONTWRITEBYTECODE
# is set, as it is on the machines the kit is built on: every later run, and each of its
# workers, then skips the compiling (about 3 s of a run). Subprocesses keep the setting.
sys.dont_write_bytecode = False

TESTS = Path(__file__).resolve().parent
GUARD_DIR = TESTS / "network_guard"
sys.path.insert(0, str(TESTS))  # tests/ helpers: fake_api
sys.path.insert(0, str(GUARD_DIR))

import netguard  # noqa: E402  (network_guard/ is on sys.path from the line above)
from helpers import REMOVED, Terminal  # noqa: E402

netguard.install()
# A shell starts a background job (`uv run pytest &` in a script) with Ctrl-C ignored, and
# every process the tests start would inherit that: Python then installs no
# KeyboardInterrupt at all, and the tests of what Ctrl-C does could not pass. Tests run
# with Ctrl-C as a terminal has it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
# tao speaks the language of TAO_LANG or the locale (tao/i18n.py): the tests read
# its English, whatever the developer's shell says; a test of the French sets TAO_LANG=fr
os.environ["TAO_LANG"] = "en"
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(GUARD_DIR), *(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                       if p and p != str(GUARD_DIR))])


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    """The last thing a test process does: freeze whatever is left (gc.freeze), after
    pytest's own last collections, which look for exceptions no one could raise. The
    interpreter's exit then walks none of it: that walk was about 0.5 s in every process
    (tryfirst: pytest runs the cleanups in reverse, so this one, added first, runs last)."""
    config.add_cleanup(gc.freeze)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    """What collecting built (every test module, the 2,500 tests and their parameters)
    lives until the run ends: frozen, no garbage collection walks it again, which every
    collection of the oldest generation did, in every worker: about 2 CPU-s a run."""
    gc.freeze()


NOT_DONE = "not attempted yet: "  # how tests/exercises/conftest.py marks a test on a stub


def pytest_terminal_summary(terminalreporter):
    """Say in one line what the `x`s are: the exercises' tests on stubs not done yet."""
    waiting = [r for r in terminalreporter.stats.get("xfailed", [])
               if NOT_DONE in str(getattr(r, "wasxfail", ""))]
    if waiting:
        exercises = {r.nodeid.split("::")[0] for r in waiting}
        terminalreporter.write_line(
            f"x: {len(waiting)} tests of {len(exercises)} exercises you have not done yet "
            "(not failures); go on with `uv run tao check`")


@pytest.fixture(autouse=True)
def offline_only(monkeypatch):
    """No keys from the developer's shell."""
    for name in REMOVED:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def one_tls_context():
    """Every SDK client built here shares one TLS context. The SDKs' transport builds a
    new one per client, reading the system's CA store each time (about 30 ms, 150 clients
    in the suite), and no test speaks TLS: the fake API is plain HTTP on 127.0.0.1."""
    httpcore2 = sys.modules.get("httpcore2")  # only once an SDK is imported: never import it
    if httpcore2 is not None and not hasattr(httpcore2.default_ssl_context, "cache_info"):
        httpcore2.default_ssl_context = functools.lru_cache(httpcore2.default_ssl_context)


@pytest.fixture
def terminal():
    """Open programs on pseudo-terminals (`terminal(code)`, or `terminal(argv=[...],
    **env)`: helpers.Terminal); every one is stopped when the test ends."""
    pytest.importorskip("pty")
    opened = []

    def open_terminal(code: str = "", argv: list[str] | None = None, **env) -> Terminal:
        """Start a program on a new pseudo-terminal."""
        opened.append(Terminal(code, argv, **env))
        return opened[-1]

    yield open_terminal
    for term in opened:
        term.close()


@pytest.fixture
def sdk(monkeypatch):
    """Both SDKs stood in for in this process, for one test (fake_api/sdk.py): a provider
    built then runs on it, with no real SDK imported."""
    from fake_api.sdk import InProcessSDK

    return InProcessSDK(monkeypatch)


SDKS = ("anthropic", "openai")


@pytest.hookimpl(wrapper=True)  # around xdist's hook, which reads the groups
def pytest_collection_modifyitems(config, items):
    """Tests marked `sdk` share one xdist worker (`--dist loadgroup`): importing the SDKs
    costs that worker about 3 s, and every other worker nothing."""
    marked = [item for item in items if item.get_closest_marker("sdk")]
    for item in marked:
        item.add_marker(pytest.mark.xdist_group("sdk"))
    result = yield
    if getattr(config.option, "loadgroup", False) and not all(
            item.nodeid.endswith("@sdk") for item in marked):  # xdist names the group so
        warnings.warn(pytest.PytestWarning(
            "--dist loadgroup did not group the SDK tests (this pytest and pytest-xdist do "
            "not work together there): every worker imports the SDKs, which is slower"),
            stacklevel=1)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Say so when a test without the `sdk` mark is the first to import an SDK."""
    before = any(name in sys.modules for name in SDKS)
    try:
        return (yield)
    finally:
        if (not before and not item.get_closest_marker("sdk")
                and any(name in sys.modules for name in SDKS)):
            item.warn(pytest.PytestWarning(
                "this test imports a real SDK: mark it @pytest.mark.sdk, so that only one "
                "worker pays for the import"))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """`-n auto` (pyproject's addopts) means one process when a verdict over the whole run
    is asked for (TAO_STUB_CHECK, TAO_EXERCISES: tests/exercises/conftest.py adds up every
    test's result in the process that ran it). Else one worker more than there are cores:
    about a fifth of a worker's time is spent waiting (on a stage process, a pty, a
    deliberate stall), and the extra worker runs tests meanwhile."""
    if os.environ.get("TAO_STUB_CHECK") or os.environ.get("TAO_EXERCISES"):
        return 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) + 1
