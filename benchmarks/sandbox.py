"""What stage 12's wall costs: `run("true")` through the stage against its floor.

    uv run benchmarks/sandbox.py [--runs 30]

The floor is the same bubblewrap command line (`shared.sandbox.bwrap.bwrap_argv`) started
directly with subprocess, with the same environment, output to a file: what any
confined command costs here. Stage
12's `run` adds its own work around it (the allowlisted environment, the process group,
the limits set in the child, the kill of the group, the capped output); the target is
at most 1.5x the floor. The Landlock path is timed too, beside a bare `bash -c true`
(its own floor: the wall is a few system calls in the child). Runs interleaved, median
reported, with the machine's load, since other work on a 2-core machine moves every
figure. Each run works in a temporary folder; nothing leaves the machine.
"""

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from shared.sandbox import find_wall
from shared.sandbox.bwrap import bwrap_argv
from tao.repo import load_stage

TARGET = 1.5  # stage 12's run("true") against the bare bwrap command line


def timed(action) -> float:
    """Seconds `action()` takes."""
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def started(argv: list[str], workspace: Path, env: dict) -> None:
    """`argv` run directly, as a floor: output to a file, stdin closed, nothing else."""
    with tempfile.TemporaryFile() as out:
        subprocess.run(argv, cwd=workspace, env=env, stdin=subprocess.DEVNULL, stdout=out,
                       stderr=subprocess.STDOUT, check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="commands through each path")
    args = parser.parse_args()
    shell = load_stage("12", "shell")
    walls = {name: find_wall(name)[0] for name in ("bwrap", "landlock")}
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder).resolve()
        shell.workspace.ROOT = workspace
        env = shell.command_env()  # the same environment: LANG alone costs bash its locale
        paths = {"bare bash -c true": lambda: started(["bash", "-c", "true"], workspace, env)}
        if walls["bwrap"]:
            paths["bwrap argv directly"] = lambda: started(
                bwrap_argv(["bash", "-c", "true"], workspace), workspace, env)
        for wall in filter(None, walls.values()):
            paths[f"stage 12 run, {wall.name}"] = lambda wall=wall: through(shell, wall)
        times = {label: [] for label in paths}
        for _ in range(args.runs):
            for label, action in paths.items():
                times[label].append(timed(action))
    return report({label: statistics.median(t) for label, t in times.items()}, args.runs)


def through(shell, wall) -> None:
    """`run("true")` as the model calls it, inside `wall`."""
    shell.WALL = wall
    result = shell.run({"command": "true"})
    assert result == "exit 0\n", result


def report(medians: dict[str, float], runs: int) -> int:
    """Print every path's median and the ratio to its floor; 1 if the target is missed."""
    load = ", ".join(f"{n:.2f}" for n in os.getloadavg())
    print(f"median of {runs} runs each; load average {load} on {os.cpu_count()} cores")
    for label, seconds in medians.items():
        print(f"  {label:32} {seconds * 1000:8.2f} ms")
    code = 0
    bwrap = next((s for label, s in medians.items() if label.endswith(", bwrap")), None)
    if bwrap is not None:
        ratio = bwrap / medians["bwrap argv directly"]
        verdict = "meets" if ratio <= TARGET else "MISSES"
        print(f"bwrap: stage 12's run / the same argv started directly = {ratio:.2f}x "
              f"({verdict} the target of at most {TARGET}x)")
        code = 0 if ratio <= TARGET else 1
    landlock = next((s for label, s in medians.items() if "landlock" in label), None)
    if landlock is not None:
        print(f"landlock: stage 12's run / bare bash = "
              f"{landlock / medians['bare bash -c true']:.2f}x")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
