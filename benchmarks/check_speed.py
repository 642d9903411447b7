"""Feedback speed: how long `tao check` takes on the current exercise.

    uv run benchmarks/check_speed.py [--runs 7] [--no-uv]

Works in a throw-away copy of the kit (the files git knows), with exercises 1..N-1
solved and exercise N solved too, so each run checks one real exercise and finds it
done. Between runs the progress file is removed, so every run really runs the tests.
Three exercises are measured: a pure-Python one (01), one that drives a provider (07)
and one that reads a provider's stream events (11), each both ways: a fresh `tao check`,
and a re-check as `tao watch` makes it after a save (a fork of a process that has
already imported pytest, timed inside that process). Runs are interleaved, so all see
the same machine load, next to the floor: `python -m pytest --version`, started the way
the runner starts pytest (no plugin autoloading).

Then, side by side, `uv run tao check` as a learner types it, in two fresh clones with
environments of their own: one with `compile-bytecode = true` in `[tool.uv]` (as the
kit had it: every `uv run` compiled all of site-packages again), one as committed (no
compile at sync; what a fresh clone's `uv sync` gives). `--no-uv` leaves that out.

The target is a median of at most 2 s of wall time. Wall time on a shared machine
depends on everyone else's load, so the CPU time of each check (its own and its
children's) and the load average are printed too; with a spread wider than the
margin left under the target, the verdict says "within noise".
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 2.0
MEASURED = ("e01_strict_parser", "e07_error_flag", "e11_tool_call_start")


def make_kit(folder: Path) -> None:
    """A copy of the committed kit, every exercise up to the last measured one solved."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    for solution in sorted((folder / "exercises" / "solutions").glob("e*.py")):
        if solution.stem <= MEASURED[-1]:
            shutil.copy(solution, folder / "exercises" / solution.name)


def timed(command: list[str], cwd: Path, env: dict | None = None,
          **extra) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and its children) for one run, in `env`
    (default: this process's) with `extra` added."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True,
                          env={**(os.environ if env is None else env), **extra})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def check_one(kit: Path, name: str) -> tuple[float, float]:
    """One `tao check` whose current exercise is `name`, run for real."""
    (kit / ".tao-progress.json").unlink(missing_ok=True)
    later = [e for e in MEASURED if e > name]
    for other in later:  # later measured exercises back to their stubs for this run
        shutil.copy(kit / "exercises" / ".stubs" / f"{other}.py", kit / "exercises")
    # the exercises before `name` are marked done without running, as a learner's
    # earlier checks would have left them
    seed = [sys.executable, "-c", "import sys; from tao import exercise_state as v; "
            "es = v.load(); n = sys.argv[1]; done = [e for e in es if e.name < n]; "
            "v.save_results({e.name: v.Result('done') for e in done}, done)", name]
    subprocess.run(seed, cwd=kit, check=True)
    result = timed([sys.executable, "-m", "tao", "check"], kit)
    for other in later:
        shutil.copy(kit / "exercises" / "solutions" / f"{other}.py", kit / "exercises")
    return result


WATCH = """
import json, resource, sys, time
from tao import exercise_runner as r, exercise_state as v
exercise = v.find(sys.argv[1])
r.run_tests([exercise])  # tao watch's first check: pytest gets imported here
def cpu():
    own, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF,
                                                 resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
start, used = time.perf_counter(), cpu()
assert r.run_tests([exercise])[exercise.name].status == "done"
print(json.dumps([time.perf_counter() - start, cpu() - used]))
"""


def rewatch_one(kit: Path, name: str) -> tuple[float, float]:
    """(wall, cpu) of one re-check as `tao watch` makes it after a save."""
    done = subprocess.run([sys.executable, "-c", WATCH, name], cwd=kit, capture_output=True,
                          text=True, check=True)
    wall, cpu = json.loads(done.stdout)
    return wall, cpu


def with_compile_bytecode(pyproject: str) -> str:
    """pyproject.toml's text with `compile-bytecode = true` in its [tool.uv] table."""
    if "[tool.uv]\n" not in pyproject:
        return pyproject + "\n[tool.uv]\ncompile-bytecode = true\n"
    return pyproject.replace("[tool.uv]\n", "[tool.uv]\ncompile-bytecode = true\n", 1)


def uv_rounds(runs: int) -> dict[str, list[tuple[float, float]]]:
    """`uv run tao check` in a fresh clone with compile-bytecode and in one without,
    each with its own environment, interleaved: (wall, cpu) per run."""
    uv = shutil.which("uv")
    if uv is None:
        raise SystemExit("uv is not on PATH: run with --no-uv")
    # each kit's own .venv, not the one this script runs in
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT", "UV_COMPILE_BYTECODE")}
    sides = {"uv run tao check, compile-bytecode": with_compile_bytecode,
             "uv run tao check, as committed": lambda text: text}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
    with tempfile.TemporaryDirectory() as tmp:
        kits = {}
        for n, (name, edit) in enumerate(sides.items()):
            kit = kits[name] = Path(tmp) / f"kit{n}"
            make_kit(kit)
            pyproject = kit / "pyproject.toml"
            pyproject.write_text(edit(pyproject.read_text(encoding="utf-8")), encoding="utf-8")
            subprocess.run([uv, "sync", "--quiet"], cwd=kit, env=env, check=True)
        for n in range(runs + 1):  # the first round only warms the caches
            for name in (list(sides) if n % 2 else list(reversed(sides))):
                (kits[name] / ".tao-progress.json").unlink(missing_ok=True)
                took = timed([uv, "run", "tao", "check"], kits[name], env)
                if n:
                    times[name].append(took)
            print(f"\ruv round {n}/{runs}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return times


def main() -> int:
    """Interleaved rounds on a throw-away kit, then the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per exercise")
    parser.add_argument("--no-uv", action="store_true",
                        help="leave out `uv run tao check` with and without compile-bytecode")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        kit = Path(tmp)
        make_kit(kit)
        runs = {name: [] for name in ("floor", *MEASURED, *(f"watch {e}" for e in MEASURED))}
        floor = [sys.executable, "-m", "pytest", "--version"]
        for n in range(args.runs + 1):  # the first round only warms the caches
            order = list(MEASURED) if n % 2 else list(reversed(MEASURED))
            times = {"floor": timed(floor, kit, None, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"),
                     **{e: check_one(kit, e) for e in order},
                     **{f"watch {e}": rewatch_one(kit, e) for e in order}}
            if n:
                for name, value in times.items():
                    runs[name].append(value)
            print(f"\rround {n}/{args.runs}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    if not args.no_uv:
        runs.update(uv_rounds(args.runs))
    return report(runs)


def report(runs: dict[str, list[tuple[float, float]]]) -> int:
    """Print medians, spreads and the verdict; 0 if the target is met."""
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores")
    rows = {}
    for name, values in runs.items():
        walls = sorted(w for w, _ in values)
        rows[name] = statistics.median(walls), walls[-1] - walls[0]
        cpu = statistics.median(c for _, c in values)
        print(f"{name:34} wall {rows[name][0]:5.2f} s (spread {rows[name][1]:4.2f} s)   "
              f"cpu {cpu:5.2f} s")
    before, after = "uv run tao check, compile-bytecode", "uv run tao check, as committed"
    if before in rows and after in rows:
        print(f"uv run tao check: {rows[after][0]:.2f} s as committed against "
              f"{rows[before][0]:.2f} s with compile-bytecode "
              f"({rows[after][0] / rows[before][0]:.2f}x)")
    judged = [name for name in rows if name not in ("floor", before)]  # baselines
    slowest = max(judged, key=lambda name: rows[name][0])
    wall, spread = rows[slowest]
    if spread > abs(TARGET - wall):
        print(f"verdict: within noise ({slowest}: median {wall:.2f} s, but a spread of "
              f"{spread:.2f} s is wider than its distance from the {TARGET:g} s target)")
        return 0
    if wall <= TARGET:
        print(f"verdict: meets the target (slowest median {wall:.2f} s <= {TARGET:g} s)")
        return 0
    cpu = statistics.median(c for _, c in runs[slowest])
    print(f"verdict: MISSES the target of {TARGET:g} s ({slowest}: median {wall:.2f} s of "
          f"wall time for {cpu:.2f} s of cpu time: the rest is waiting for a core)")
    return 1

if __name__ == "__main__":
    sys.exit(main())
