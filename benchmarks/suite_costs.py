"""Where the suite's time goes: CPU and wall seconds per test, per file and per process.

    uv run benchmarks/suite_costs.py [--top 25] [-- PYTEST_ARGS...]

The suite runs on every core (pytest-xdist), so on a small machine it is bound by CPU, not
by waiting: a test's wall time there says as much about the other workers as about the
test. This script runs `pytest` once with itself loaded as a plugin in every worker
(`-p suite_costs`), which notes each test's CPU seconds (its process's, and those of the
processes it started and waited for) and wall seconds. Then it prints:
- the run's whole CPU: inside tests, in each worker outside them (starting, collecting,
  sending reports), and in the controller;
- how much the heaviest tests carry, the heaviest by name, and every file's total.

A process that a test starts and leaves running is counted when it is waited for: a
module's server, stopped at the module's end, lands on that module's last test.
Arguments after `--` go to pytest, e.g. `-- tests/test_cli.py` or `-- -n 0`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTES = "TAO_SUITE_COSTS"  # the folder each process writes its lines to


def cpu_seconds(who: int = resource.RUSAGE_SELF) -> float:
    """CPU seconds of this process, or of its children that have been waited for."""
    used = resource.getrusage(who)
    return used.ru_utime + used.ru_stime


def all_cpu_seconds() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    return cpu_seconds() + cpu_seconds(resource.RUSAGE_CHILDREN)


def _note(line: list) -> None:
    folder = os.environ.get(NOTES)
    if folder:
        with open(Path(folder) / f"{os.getpid()}.jsonl", "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):  # the plugin's half: around every test
    """Note the test's CPU and wall seconds, setup and teardown included."""
    before, started = all_cpu_seconds(), time.perf_counter()
    try:
        return (yield)
    finally:
        _note(["test", item.nodeid, all_cpu_seconds() - before, time.perf_counter() - started])


def pytest_unconfigure(config):
    """Note the whole process from its start, its own CPU and with its children's: a
    worker's, or the main process's (the controller, or the only one with `-n 0`)."""
    _note(["process", "worker" if hasattr(config, "workerinput") else "main", cpu_seconds(),
           all_cpu_seconds()])


def main() -> int:
    """Run the suite with the plugin; print where its CPU went."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=25, help="how many tests to name")
    parser.add_argument("pytest_args", nargs="*", help="after --: arguments for pytest")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, NOTES: folder, "PYTHONPATH": os.pathsep.join(
            [str(ROOT / "benchmarks"), *filter(None, [os.environ.get("PYTHONPATH")])])}
        print("running the suite once, with the costs plugin in every process...",
              file=sys.stderr)
        done = subprocess.run([sys.executable, "-m", "pytest", "-p", "suite_costs",
                               "-p", "no:cacheprovider", *args.pytest_args],
                              cwd=ROOT, env=env, capture_output=True, text=True)
        lines = [json.loads(line) for path in Path(folder).glob("*.jsonl")
                 for line in path.read_text(encoding="utf-8").splitlines()]
    if done.returncode not in (0, 1):  # 1: some test failed, and its cost still counts
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise SystemExit(f"pytest exited {done.returncode}:\n{tail}")
    tests = [(nodeid, cpu, wall) for kind, nodeid, cpu, wall in lines if kind == "test"]
    if not tests:
        raise SystemExit("no test ran: nothing to count")
    in_tests = sum(cpu for _, cpu, _ in tests)
    processes = [line[1:] for line in lines if line[0] == "process"]
    workers = sum(every for name, _, every in processes if name == "worker")
    count = sum(name == "worker" for name, _, _ in processes)
    main_own, main_all = next(((own, every) for name, own, every in processes
                               if name == "main"), (0.0, 0.0))
    if count:  # the main process ran no test: it is the controller of `count` workers
        print(f"{len(tests)} tests: {in_tests:.1f} CPU-s inside them; {workers - in_tests:.1f}"
              f" CPU-s in {count} workers outside them (starting, collecting, reporting); "
              f"{main_own:.1f} CPU-s in the controller; and, once no test was left, "
              f"{main_all - main_own - workers:.1f} CPU-s in the workers' ending")
    else:
        print(f"{len(tests)} tests in one process: {in_tests:.1f} CPU-s inside them, "
              f"{main_all - in_tests:.1f} CPU-s outside them (starting, collecting)")
    heaviest = sorted(tests, key=lambda test: -test[1])
    for count in (10, 50, 200):
        if count < len(tests):
            share = sum(cpu for _, cpu, _ in heaviest[:count])
            print(f"  the {count} heaviest tests: {share:.1f} CPU-s, "
                  f"{share / in_tests:.0%} of the tests' CPU")
    print(f"\nthe {args.top} heaviest tests (CPU-s, wall s):")
    for nodeid, cpu, wall in heaviest[:args.top]:
        print(f"  {cpu:6.2f} {wall:6.2f}  {nodeid}")
    files, walls, counts = Counter(), Counter(), Counter()
    for nodeid, cpu, wall in tests:
        name = nodeid.split("::")[0]
        files[name] += cpu
        walls[name] += wall
        counts[name] += 1
    print("\nevery file (CPU-s, wall s, tests):")
    for name, cpu in files.most_common():
        print(f"  {cpu:6.2f} {walls[name]:6.2f} {counts[name]:5d}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
