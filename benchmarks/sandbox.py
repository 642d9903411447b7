"""What stage 12's wall costs: `run("true")` through the stage against its floor.

    uv run benchmarks/sandbox.py [--runs 40]

The floor is the same bubblewrap command line (`shared.sandbox.bwrap.bwrap_argv`) started
directly with subprocess, with the same environment, output to a file: what any confined
command costs here. Stage 12's `run` adds its own work around it (the allowlisted
environment, the limits set in the child, the kill of the group, the timer, the capped
output); the target is at most 1.5x the floor. The floor is shown a second time started
in a session of its own, as `run` starts every command (against a terminal's keystrokes):
that part of the cost is the kernel's and bubblewrap's, not tao's. The Landlock path is
timed too, beside a bare `bash -c true` (its own floor: that wall is a few system calls
in the child). Each round runs every path once, in a rotated order; the ratio is taken
round by round, its median and spread reported (verdict.py), with the machine's load,
since other work on a 2-core machine moves every figure. Each run works in a temporary
folder; nothing leaves the machine.
"""

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from verdict import ratio_line, rotated, spread

from shared.sandbox import find_wall
from shared.sandbox.bwrap import bwrap_argv
from tao.repo import load_stage

TARGET = 1.5  # stage 12's run("true") against the bare bwrap command line


def timed(action) -> float:
    """Seconds `action()` takes."""
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def started(argv: list[str], workspace: Path, env: dict, session: bool = False) -> None:
    """`argv` run directly, as a floor: output to a file, stdin closed, nothing else (in a
    session of its own, with `session`)."""
    with tempfile.TemporaryFile() as out:
        subprocess.run(argv, cwd=workspace, env=env, stdin=subprocess.DEVNULL, stdout=out,
                       stderr=subprocess.STDOUT, check=True, start_new_session=session)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40, help="rounds: each path once a round")
    args = parser.parse_args()
    shell = load_stage("12", "shell")
    walls = [wall for wall in (find_wall(name)[0] for name in ("bwrap", "landlock")) if wall]
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder).resolve()
        shell.workspace.ROOT = workspace
        env = shell.command_env()  # the same environment: LANG alone costs bash its locale
        paths = {"bare bash -c true": lambda: started(["bash", "-c", "true"], workspace, env)}
        if any(wall.name == "bwrap" for wall in walls):
            argv = bwrap_argv(["bash", "-c", "true"], workspace)
            paths["bwrap argv directly"] = lambda: started(argv, workspace, env)
            paths["the same, own session"] = lambda: started(argv, workspace, env, True)
        for wall in walls:
            paths[f"stage 12 run, {wall.name}"] = lambda wall=wall: through(shell, wall)
        times = {label: [] for label in paths}
        for n in range(args.runs):
            for label in rotated(list(paths), n):  # no path always first
                times[label].append(timed(paths[label]))
    return report(times)


def through(shell, wall) -> None:
    """`run("true")` as the model calls it, inside `wall`."""
    shell.WALL = wall
    result = shell.run({"command": "true"})
    assert result == "exit 0\n", result


def report(times: dict[str, list[float]]) -> int:
    """Each path's median, and each wall's ratio to its floor round by round; 1 if the
    bwrap path misses its target."""
    load = ", ".join(f"{n:.2f}" for n in os.getloadavg())
    print(f"load average {load} on {os.cpu_count()} cores")
    for label, seconds in times.items():
        print(f"  {label:32} median {statistics.median(seconds) * 1000:7.2f} ms, "
              f"spread {spread(seconds) * 1000:6.2f} ms")
    code = 0
    for label, seconds in times.items():
        if label.endswith(", bwrap"):
            ratios = [a / b for a, b in zip(seconds, times["bwrap argv directly"], strict=True)]
            line = ratio_line("bwrap: stage 12's run / the same argv directly", ratios,
                              TARGET, TARGET - 1)
            print(line)
            code = int("MISSES" in line)
            ratios = [a / b for a, b in zip(seconds, times["the same, own session"],
                                            strict=True)]
            print(f"  and / the same argv in a session of its own: median "
                  f"{statistics.median(ratios):.2f}x, spread {spread(ratios):.2f}")
        elif "landlock" in label:
            ratios = [a / b for a, b in zip(seconds, times["bare bash -c true"], strict=True)]
            print(f"landlock: stage 12's run / bare bash: median "
                  f"{statistics.median(ratios):.2f}x, spread {spread(ratios):.2f} "
                  f"(no target: the floor has no wall at all)")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
