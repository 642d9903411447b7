"""Mutation score: how many small wrong versions of the kit its own tests notice.

    uv run benchmarks/mutation.py                       # every module in TARGETS (slow)
    uv run benchmarks/mutation.py shared/calc.py        # one module
    uv run benchmarks/mutation.py --rev 78e2fed shared/calc.py   # the tests of an older commit
    uv run benchmarks/mutation.py --json run.json ...   # keep every outcome, then, after
    uv run benchmarks/mutation.py --recheck run.json    # writing tests: only its survivors
    uv run benchmarks/mutation.py --changed HEAD~2      # smoke: a sample of the mutants on
                                                        # lines changed since HEAD~2
    uv run benchmarks/mutation.py --probes              # every behaviour probe (below)
    uv run benchmarks/mutation.py --probes benchmarks/probes/capstone.toml --json run.json
    uv run benchmarks/mutation.py --probes --recheck run.json   # only what was not caught

cosmic-ray makes each one-token change ("mutant") to a module in turn (`>` to `>=`,
`and` to `or`, a number to another, `break` to `continue`, ...) and runs a test command
against it. A mutant the tests fail on is killed; one they pass on survived, and either
a test is missing or the mutant behaves exactly like the original (an equivalent
mutant). Equivalent survivors are kept, with a one-line reason each, in
`mutation_survivors.toml` beside this script, named by module, function and operator (not
by their text, so a change that keeps behaviour leaves the file alone); any other survivor
is news and is listed, with the line that would accept it.

The whole suite per mutant would take hours on a small machine, so each module in
TARGETS names the fast tests that cover it. All work happens in a temporary copy of
the repository (cosmic-ray edits files in place): your working tree is never touched.
Operators that swap arithmetic for bit operations (`+` to `<<`, `|`, ...) are left out:
on this code they either crash at once or mean nothing, and they would triple the run.
CI does not run this script: the whole table takes two to three hours on two busy cores
(from about 1 s a mutant for planning.py to 6 s for modules the exercise CLI tests
cover). Before you stop, run `--changed` over what you changed (tests/README.md); after
changing a module or its tests, run that module whole.

`--probes` is the second kind: behaviour probes, written by hand. A mutant is a token
swapped; a probe is a slip a developer could plausibly make (a check dropped, a default
flipped, a limit lifted) that a user or a caller would see. Each file in
benchmarks/probes/ (one per area) holds `[[probe]]` tables: `file`, `old` (text that must
occur exactly once in it: a probe whose text is gone, or found twice, is an error that
stops the run, never a survivor), `new`, `sees` (what a user would notice), and `tests`,
the test files that run first. Every probe runs the WHOLE suite (pyproject's options, as
`uv run pytest` has them), not a sample; its `tests` only come first, so a caught probe
stops at its first failing test (a plugin ends the run there) instead of late. A test
catches a probe only if it also fails alone with the change and passes alone without it:
one that fails under load for another reason is left out and the suite runs again (at
most ATTEMPTS times; then the probe is `unsure`). Each run of the suite is stopped after
--timeout seconds: a probe that hangs the suite is caught. Progress is printed per probe,
then the score by probe file and by module; `--json` keeps every outcome. All of it in a
temporary copy, as above: the working tree is never touched.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEPT = Path(__file__).resolve().parent / "mutation_survivors.toml"
PROBES = Path(__file__).resolve().parent / "probes"

JSON_LOOPS = "tests/test_stages_04_06.py tests/test_parse_tool_call.py tests/test_stage_claims.py"
# module -> the pytest arguments that cover it quickly (paths missing at --rev are dropped)
OFFLINE = "tests/test_offline_model.py tests/test_offline_french.py"
# each file's SDK-free tests come first: a mutant they kill costs no SDK import
WIRE = "tests/test_wire.py tests/test_wire_faults.py"
# the stage 08-10 tests without the few that import a real SDK (seconds of start-up each)
STAGES_08_10 = "tests/test_stages_08_10.py -m 'not sdk'"
# module -> the pytest arguments that cover it quickly (paths missing at --rev are dropped)
TARGETS = {
    "shared/calc.py": "tests/test_calc.py tests/test_stages_04_06.py -k calculator",
    "shared/providers/base.py": "tests/test_provider_base.py tests/test_providers.py",
    "shared/providers/offline/__init__.py": f"{OFFLINE} tests/test_providers.py",
    "shared/providers/offline/planning.py": OFFLINE,
    "shared/providers/offline/conversation.py": OFFLINE,
    "shared/providers/offline/words.py": OFFLINE,
    "shared/providers/offline/writing.py": OFFLINE,
    "shared/providers/offline/quirks.py": OFFLINE,
    "shared/providers/offline/rules.py": OFFLINE,
    "shared/providers/scripted.py": "tests/test_providers.py",
    "shared/providers/fallback.py": "tests/test_providers.py",
    "shared/providers/__init__.py": "tests/test_providers.py",
    "shared/providers/sdk_base.py": "tests/test_wire_faults.py tests/test_sdk_providers.py",
    "shared/providers/anthropic_provider.py": "tests/test_sdk_providers.py",
    "shared/providers/openai_provider.py": "tests/test_sdk_providers.py "
                                           "tests/test_compat_servers.py",
    "shared/providers/compat.py": "tests/test_compat_servers.py tests/test_sdk_providers.py",
    "shared/providers/sanitize.py": "tests/test_sanitize.py",
    "shared/trace.py": "tests/test_trace.py tests/test_trace_calls.py",
    "shared/stage_main.py": "tests/test_stage_main.py tests/test_config_errors.py "
                            "tests/test_stages_01_03.py tests/test_replay.py",
    "shared/terminal.py": "tests/test_terminal.py",
    "shared/wire/__init__.py": WIRE,
    "shared/wire/body.py": WIRE,
    "shared/wire/events.py": WIRE,
    "shared/wire/render.py": WIRE,
    "tao/stage_verbs.py": "tests/test_cli.py tests/test_i18n.py",
    "tao/exercise_verbs.py": "tests/test_exercise_cli.py tests/test_i18n.py",
    "tao/exercise_state.py": "tests/test_exercise_state.py tests/test_exercise_cli.py "
                             "tests/test_i18n.py",
    "tao/exercise_runner.py": "tests/test_exercise_runner.py tests/test_exercise_cli.py",
    "tao/exercise_screen.py": "tests/test_exercise_cli.py tests/test_i18n.py",
    "tao/exercise_watch.py": "tests/test_exercise_cli.py tests/test_i18n.py",
    "tao/repo.py": "tests/test_cli.py",
    "tao/i18n.py": "tests/test_i18n.py",
    "shared/providers/replay.py": "tests/test_replay.py tests/test_compare.py",
    "tao/replay.py": "tests/test_replay.py",
    "tao/compare.py": "tests/test_compare.py",
    "tao/book.py": "tests/test_book.py",
    # the parser's property test alone takes seconds: the corpus tests cover the same code
    "stages/04_json_tool_call/loop.py": f"{JSON_LOOPS} -k 'not never_raises'",
    "stages/05_react_loop/loop.py": f"{JSON_LOOPS} -k 'not never_raises'",
    "stages/06_tool_registry/loop.py": f"{JSON_LOOPS} -k 'not never_raises'",
    "stages/07_native_tools/loop.py": "tests/test_stage07.py tests/test_stage_claims.py",
    # stage 08's own tests, and the context tests on stage 08's copy ([08])
    "stages/08_memory_budget/context.py": f"{STAGES_08_10} -k 'stage08 or [08]'",
    "stages/09_stop_reasons/loop.py": f"{STAGES_08_10} -k 'not stage08 and not stage10'",
    "stages/10_concurrent_tools/loop.py": f"{STAGES_08_10} -k 'not stage08 and not stage09'",
}
SMOKE = 12  # mutants per module a --changed run tries: about half a minute per module
ATTEMPTS = 3  # suite runs per probe, when a test fails that the probe did not make fail
SEED = 26  # --sample picks the same mutants on every run of the same code
EXCLUDED_OPERATORS = [r"core/ReplaceBinaryOperator_.*_(BitOr|BitAnd|BitXor|LShift|RShift)",
                      r"core/ReplaceBinaryOperator_(BitOr|BitAnd|BitXor|LShift|RShift)_.*"]


def copy_repository(rev: str | None, into: Path) -> None:
    """The tracked files (and new, unignored ones) of the working tree, or of commit `rev`."""
    if rev:
        archive = subprocess.run(["git", "archive", rev], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
        return
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)


def no_bytecode_for(module: str, copy: Path) -> None:
    """Make Python compile `module`'s folder from source on every import, in the copy.

    The test processes keep bytecode in __pycache__ (tests/conftest.py), and Python trusts
    a cached .pyc while the source's size and modification second match it: a mutant the
    same size as the one before it (`==` to `!=`), written in the same second, would be
    tested as the one before. A plain file named __pycache__ leaves Python nowhere to read
    or write that folder's bytecode; every other folder keeps its cache."""
    cache = copy / Path(module).parent / "__pycache__"
    shutil.rmtree(cache, ignore_errors=True)
    cache.write_text("compile this folder from source: see benchmarks/mutation.py\n",
                     encoding="utf-8")


def test_command(spec: str, copy: Path) -> list[str]:
    """pytest, stopping at the first failure, on the parts of `spec` present in `copy`."""
    args = shlex.split(spec)
    kept = [a for i, a in enumerate(args)
            if not a.startswith("tests/") or (copy / a.split("::")[0]).exists()
            or (i and args[i - 1] == "-k")]
    # hypothesis's plugin alone costs seconds of start-up per mutant; @given works without it.
    # One process (-n 0): on a subset this small, starting xdist workers costs more than they
    # save, and each mutant would take every core of a shared machine.
    return [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
            "-p", "no:hypothesispytest", "-n", "0", *kept]


def in_own_group(command: list[str], seconds: float) -> list[str]:
    """`command` in a process group that is ended with it (in_own_group.py says why)."""
    return [sys.executable, str(Path(__file__).with_name("in_own_group.py")), f"{seconds:.0f}",
            *command]


def write_config(copy: Path, module: str, command: list[str], timeout: float) -> Path:
    """A cosmic-ray session config for one module: the tests stopped after `timeout`
    seconds by in_own_group.py, cosmic-ray's own limit later, as a last resort."""
    config = copy / "cosmic-ray.toml"
    config.write_text(
        "[cosmic-ray]\n"
        f"module-path = {json.dumps(module)}\n"
        f"timeout = {timeout + 30:.0f}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(shlex.join(in_own_group(command, timeout)))}\n"
        "[cosmic-ray.distributor]\nname = \"local\"\n"
        "[cosmic-ray.filters.operators-filter]\n"
        f"exclude-operators = {json.dumps(EXCLUDED_OPERATORS)}\n", encoding="utf-8")
    return config


def tool(name: str) -> str:
    """A console script installed beside this interpreter (cosmic-ray, cr-...)."""
    return str(Path(sys.executable).parent / name)


def run_module(module: str, rev: str | None, lines: set[int] | None = None,
               sample: int = 0) -> list[dict]:
    """Mutate one module in a fresh copy; the finished work items with their outcomes.
    Only mutants on `lines` when given, and at most `sample` of them (at random) when set."""
    with tempfile.TemporaryDirectory(prefix="tao-mutation-") as tmp:
        copy = Path(tmp)
        copy_repository(rev, copy)
        no_bytecode_for(module, copy)
        env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
        command = test_command(TARGETS[module], copy)
        config = write_config(copy, module, command, timeout=30)  # until the baseline's time
        session = copy / "session.sqlite"
        for step in ([tool("cosmic-ray"), "init", str(config), str(session)],
                     [tool("cr-filter-operators"), str(session), str(config)]):
            subprocess.run(step, cwd=copy, env=env, check=True, capture_output=True)
        if (lines is not None or sample) and not keep_only(session, lines, sample):
            return []  # no mutant on the lines asked for: no need to run the tests at all
        start = time.perf_counter()
        baseline = subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True)
        took = time.perf_counter() - start
        if baseline.returncode != 0:
            tail = "\n".join(baseline.stdout.splitlines()[-5:])
            raise SystemExit(f"{module}: its tests fail before any mutation:\n{tail}")
        write_config(copy, module, command, timeout=max(30, 5 * took))
        subprocess.run([tool("cosmic-ray"), "exec", str(config), str(session)], cwd=copy,
                       env=env, check=True, capture_output=True)
        dump = subprocess.run([tool("cosmic-ray"), "dump", str(session)], cwd=copy, env=env,
                              check=True, capture_output=True, text=True).stdout
        source = (copy / module).read_text(encoding="utf-8")
    return described([json.loads(line) for line in dump.splitlines() if line.strip()], source)


def keep_only(session: Path, lines: set[int] | None, sample: int) -> int:
    """Mark as skipped, the way cosmic-ray's own filters do, every pending mutant off
    `lines` (None: any line will do), then all but `sample` of the rest (0: keep all);
    how many are left to run."""
    from cosmic_ray.work_db import use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    with use_db(str(session)) as db:
        # by where and what each mutant is: cosmic-ray's job ids are random on every init,
        # so sorting by them would give the same seed another sample on every run
        pending = sorted(db.pending_work_items, key=lambda item: (
            tuple(item.mutations[0].start_pos), item.mutations[0].operator_name,
            item.mutations[0].occurrence))
        wanted = [item for item in pending
                  if lines is None or item.mutations[0].start_pos[0] in lines]
        if sample and len(wanted) > sample:
            wanted = random.Random(SEED).sample(wanted, sample)
        chosen = {item.job_id for item in wanted}
        for item in pending:
            if item.job_id not in chosen:
                db.set_result(item.job_id, WorkResult(output="not sampled",
                                                      worker_outcome=WorkerOutcome.SKIPPED))
    return len(chosen)


def changed_lines(rev: str) -> dict[str, set[int]]:
    """module -> the numbers of its lines added or changed since `rev` (the working tree,
    committed or not, against that commit), for the modules in TARGETS."""
    diff = subprocess.run(["git", "diff", "-U0", rev, "--", *TARGETS], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout
    changed: dict[str, set[int]] = {}
    module = None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            module = line[6:] if line.startswith("+++ b/") else None
        elif line.startswith("@@") and module:
            # @@ -old[,n] +new[,count] @@: count 0 is a pure deletion, nothing to mutate
            new = line.split()[2][1:].split(",")
            start, count = int(new[0]), int(new[1]) if len(new) > 1 else 1
            changed.setdefault(module, set()).update(range(start, start + count))
    return {m: rows for m, rows in changed.items() if rows}


def described(entries: list, source: str) -> list[dict]:
    """Every work item as {operator, function, occurrence, line, column, text, mutant,
    outcome}: `function` is the qualified name of the def or class it is in ("<module>"
    outside any), `occurrence` its place among that operator's mutants in that function,
    counted from 0 in reading order (cosmic-ray's own occurrence counts over the module)."""
    spans, lines = definitions(source), source.splitlines()
    mutants, seen = [], {}
    # cosmic-ray numbers each operator's mutants in reading order: keep that order
    for item, result in sorted(entries, key=lambda e: e[0]["mutations"][0]["occurrence"]):
        mutation, result = item["mutations"][0], result or {}
        row, column = mutation["start_pos"]
        where = (function_at(spans, (row, column)), mutation["operator_name"])
        seen[where] = seen.get(where, -1) + 1
        outcome = result.get("test_outcome") or result.get("worker_outcome")
        if result.get("worker_outcome") == "skipped":
            outcome = "skipped"
        added = [line[1:].strip() for line in (result.get("diff") or "").splitlines()
                 if line.startswith("+") and not line.startswith("+++")]
        mutants.append({"operator": where[1], "function": where[0], "occurrence": seen[where],
                        "line": row, "column": column, "text": lines[row - 1].strip(),
                        "mutant": added[0] if added else "", "outcome": outcome})
    return sorted(mutants, key=lambda m: (m["line"], m["column"], m["operator"]))


def definitions(source: str) -> list[tuple[tuple[int, int], tuple[int, int], str]]:
    """(start, end, qualified name) of each def and class in `source`, outer before inner:
    `Class.method`, `function.inner`."""
    spans = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                spans.append(((child.lineno, child.col_offset),
                              (child.end_lineno, child.end_col_offset), name))
                walk(child, name + ".")
            else:
                walk(child, prefix)
    walk(ast.parse(source), "")
    return spans


def function_at(spans: list, position: tuple[int, int]) -> str:
    """The innermost definition holding `position` (line, column), or "<module>"."""
    holding = [name for start, end, name in spans if start <= position <= end]
    return holding[-1] if holding else "<module>"


def key(module: str, mutant: dict) -> tuple:
    """What identifies a mutant across edits that keep behaviour (a line moved, renamed,
    reformatted, another function changed): where it is and what kind it is, not its text."""
    return module, mutant["function"], mutant["operator"], mutant["occurrence"]


def kept_survivors() -> dict[tuple, str]:
    """key() of each accepted survivor -> the one-line reason it is accepted."""
    if not KEPT.exists():
        return {}
    kept = {}
    modules = tomllib.loads(KEPT.read_text(encoding="utf-8")).get("survivors", {})
    for module, functions in modules.items():
        for function, kinds in functions.items():
            for kind, reason in kinds.items():
                operator, occurrence = kind.rsplit(" ", 1)
                kept[module, function, operator, int(occurrence)] = reason
    return kept


def report(module: str, mutants: list[dict], kept: dict, what: str = "",
           whole: bool = False) -> int:
    """Print the score and the survivors; the number of survivors nobody accepted. After a
    `whole` run (every mutant of the module tried), also the accepted survivors that did
    not survive: killed now, or their function changed; the list needs them no more."""
    tried = [m for m in mutants if m["outcome"] in ("killed", "survived")]
    survived = [m for m in tried if m["outcome"] == "survived"]
    score = 1 - len(survived) / len(tried) if tried else 1.0
    news = [m for m in survived if key(module, m) not in kept]
    print(f"{module}{what}: {len(tried) - len(survived)} of {len(tried)} mutants killed "
          f"({score:.1%}); {len(survived) - len(news)} accepted survivors, {len(news)} new")
    for m in news:
        print(f"  survived at line {m['line']}: {m['text']}\n               now: {m['mutant']}\n"
              f"    to accept it: [survivors.\"{module}\".\"{m['function']}\"] "
              f"\"{m['operator']} {m['occurrence']}\" = \"why it behaves the same\"")
    if whole:
        alive = {key(module, m) for m in survived}
        for gone in sorted(k for k in kept if k[0] == module and k not in alive):
            print(f"  accepted, but did not survive: [survivors.\"{module}\".\"{gone[1]}\"] "
                  f"\"{gone[2]} {gone[3]}\"")
    return len(news)


def recheck(module: str, survivors: list[dict], rev: str | None) -> list[dict]:
    """Only the given survivors of an earlier run, re-made by line and re-tested: a fast loop
    while writing the tests that kill them. Each comes back with its new outcome."""
    with tempfile.TemporaryDirectory(prefix="tao-mutation-") as tmp:
        copy = Path(tmp)
        copy_repository(rev, copy)
        no_bytecode_for(module, copy)
        env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
        path = copy / module
        original = path.read_text(encoding="utf-8").splitlines(keepends=True)
        for mutant in survivors:
            lines = list(original)
            index = next((i for i, text in enumerate(lines) if text.strip() == mutant["text"]),
                         None)
            if index is None:
                mutant["outcome"] = "gone"  # the line itself changed since
                continue
            indent = lines[index][:len(lines[index]) - len(lines[index].lstrip())]
            lines[index] = f"{indent}{mutant['mutant']}\n"
            path.write_text("".join(lines), encoding="utf-8")
            done = subprocess.run(in_own_group(test_command(TARGETS[module], copy), 300),
                                  cwd=copy, env=env, capture_output=True)
            mutant["outcome"] = "killed" if done.returncode else "survived"
    return survivors


# ---- behaviour probes: hand-written one-line changes a user would see ----------------

def probe_files(named: list[str]) -> list[Path]:
    """The probe files named, or every TOML file in benchmarks/probes/."""
    if named:
        return [Path(name).resolve() for name in named]
    return sorted(PROBES.glob("*.toml"))


def load_probes(files: list[Path]) -> list[dict]:
    """Every [[probe]] of `files`, in order, each with `where` (its file's name) added."""
    probes = []
    for path in files:
        for probe in tomllib.loads(path.read_text(encoding="utf-8")).get("probe", []):
            probes.append({"where": path.name, **probe})
    return probes


def stale(probe: dict, copy: Path) -> str:
    """Why `probe` cannot be made in `copy` ("" when it can): a field missing, its file
    gone, `old` found other than exactly once, or a Python file that no longer parses."""
    missing = [k for k in ("file", "old", "new", "sees") if not isinstance(probe.get(k), str)]
    if missing:
        return f"no {', '.join(missing)}"
    path = copy / probe["file"]
    if not path.is_file():
        return f"{probe['file']} does not exist"
    source = path.read_text(encoding="utf-8")
    found = source.count(probe["old"])
    if found != 1:
        return f"`old` occurs {found} times in {probe['file']}, not once"
    if path.suffix == ".py":
        try:
            ast.parse(source.replace(probe["old"], probe["new"]))
        except SyntaxError as error:
            return f"the changed {probe['file']} does not parse: {error.msg}, line {error.lineno}"
    return ""


def forget_bytecode(path: Path) -> None:
    """Remove the cached bytecode of `path`: the suite keeps bytecode, and Python trusts a
    .pyc while the source's size and second match, which a probe's change may keep."""
    for cached in path.parent.joinpath("__pycache__").glob(f"{path.stem}.*.pyc"):
        cached.unlink(missing_ok=True)


# a plugin for the suite's processes: the probe's own tests are collected first (the
# whole suite still runs), and the first failing test ends the run at once. xdist's -x
# lets each worker finish the tests already sent to it, a quarter of the suite at first
FIRST_PLUGIN = """
import os, signal
def pytest_collection_modifyitems(items):
    first = tuple(os.environ.get("TAO_PROBE_FIRST", "").split())
    items.sort(key=lambda item: not (first and item.nodeid.startswith(first)))
def pytest_runtest_logreport(report):
    if report.failed:
        with open(os.environ["TAO_PROBE_FAILED"], "a", encoding="utf-8") as caught:
            caught.write(report.nodeid + "\\n")
        os.killpg(os.getpgrp(), signal.SIGKILL)
"""


def suite(copy: Path, env: dict, seconds: float, first: str = "",
          skipped: tuple = ()) -> tuple[str, float]:
    """The whole suite in `copy`, as `uv run pytest` runs it (pyproject's options), the
    test files `first` names collected first and the tests in `skipped` left out, until
    the first failure: the test that failed ("" if none), and the seconds taken. Raises
    TimeoutError if it is still running after `seconds`."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "probe_first",
               *(f"--deselect={node}" for node in skipped)]
    start = time.perf_counter()
    with tempfile.NamedTemporaryFile("r", encoding="utf-8", suffix=".failed") as failed:
        done = subprocess.run(in_own_group(command, seconds), cwd=copy, capture_output=True,
                              env={**env, "TAO_PROBE_FIRST": first,
                                   "TAO_PROBE_FAILED": failed.name}, text=True)
        node = failed.read().split("\n")[0]
    took = time.perf_counter() - start
    if not node and done.returncode:
        if took >= seconds:
            raise TimeoutError(f"the suite was still running after {seconds:.0f} s")
        node = f"(pytest ended with exit {done.returncode} and no failing test: " \
               f"{done.stdout.strip()[-300:]})"
    return node, took


def alone(copy: Path, env: dict, node: str) -> bool:
    """Whether the one test `node` fails, run by itself in one process (without the
    `@group` xdist adds to the name of a test in an xdist_group: no test has that name)."""
    node = re.sub(r"@[\w-]+$", "", node)
    command = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", node]
    return subprocess.run(in_own_group(command, 300), cwd=copy, env=env,
                          capture_output=True).returncode != 0


def changed(probe: dict, copy: Path):
    """A context in which `probe`'s change is made in `copy` (undone on leaving)."""
    path, made = copy / probe["file"], probe["new"]

    @contextmanager
    def change():
        original = path.read_text(encoding="utf-8")
        path.write_text(original.replace(probe["old"], made), encoding="utf-8")
        forget_bytecode(path)
        try:
            yield
        finally:
            path.write_text(original, encoding="utf-8")
            forget_bytecode(path)
    return change()


def try_probe(probe: dict, copy: Path, env: dict, seconds: float) -> dict:
    """Make `probe`'s change, run the whole suite, undo it: the probe with its outcome,
    seconds and catching test. A test only catches it if it also fails alone with the
    change and passes alone without it; one that does not (a test that fails under load)
    is left out and the suite is run again, at most ATTEMPTS times."""
    skipped, took, outcome, by = [], 0.0, "unsure", ""
    for _ in range(ATTEMPTS):
        with changed(probe, copy):
            try:
                node, spent = suite(copy, env, seconds, probe.get("tests", ""), skipped)
            except TimeoutError as error:  # a change that hangs the suite is noticed
                return {**probe, "outcome": "caught", "seconds": seconds,
                        "caught_by": str(error), "left_out": skipped}
            fails_with = node.startswith("tests/") and alone(copy, env, node)
        took += spent
        if not node:
            outcome = "survived"
            break
        if not node.startswith("tests/") or (fails_with and not alone(copy, env, node)):
            outcome, by = "caught", node
            break
        skipped.append(node)
    return {**probe, "outcome": outcome, "seconds": round(took, 1), "caught_by": by,
            "left_out": skipped}


def run_probes(probes: list[dict], rev: str | None, timeout: float) -> list[dict]:
    """Every probe tried in turn on one temporary copy, each against the whole suite;
    stops before running anything if a probe is stale."""
    with tempfile.TemporaryDirectory(prefix="tao-probes-") as tmp:
        copy, plugin = Path(tmp, "repository"), Path(tmp, "plugin")
        copy.mkdir()
        plugin.mkdir()
        (plugin / "probe_first.py").write_text(FIRST_PLUGIN, encoding="utf-8")
        copy_repository(rev, copy)
        broken = [(p, why) for p in probes if (why := stale(p, copy))]
        for probe, why in broken:
            print(f"STALE PROBE in {probe['where']} ({probe.get('sees', '?')}): {why}",
                  file=sys.stderr)
        if broken:
            raise SystemExit(f"{len(broken)} stale probe(s): fix or remove them (a probe "
                             "that no longer applies is an error, not a survivor)")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(copy), str(plugin)])}
        print(f"{len(probes)} probes, each against the whole suite, stopped after "
              f"{timeout:.0f} s", flush=True)
        return [show_progress(n, len(probes), try_probe(probe, copy, env, timeout))
                for n, probe in enumerate(probes, 1)]


def show_progress(n: int, total: int, tried: dict) -> dict:
    """Print one line for a tried probe (n/N, outcome, seconds, what caught it); `tried`."""
    by = f" by {tried['caught_by']}" if tried["caught_by"] else ""
    print(f"{n}/{total} {tried['outcome']:8} {tried['seconds']:5.0f} s  {tried['where']}: "
          f"{tried['file']}: {tried['sees']}{by}", flush=True)
    for node in tried["left_out"]:
        print(f"    left out: {node} failed in the suite, but not for this probe", flush=True)
    return tried


def probe_score(tried: list[dict]) -> int:
    """Print the score by probe file and by probed module, then each survivor; how many
    survived."""
    for field, title in (("where", "by probe file"), ("file", "by module")):
        print(f"\n{title}:")
        for name in sorted({t[field] for t in tried}):
            some = [t for t in tried if t[field] == name]
            caught = sum(t["outcome"] == "caught" for t in some)
            print(f"  {name}: {caught} of {len(some)} caught")
    missed = [t for t in tried if t["outcome"] != "caught"]
    print(f"\n{len(tried) - len(missed)} of {len(tried)} probes caught by the whole suite")
    for t in missed:
        print(f"  {t['outcome'].upper()} {t['where']}: {t['file']}: {t['sees']}")
    if missed:
        print("  (for each, write the test a user's view needs, in the test file of its "
              "subject; `unsure`: only tests that fail without the change failed)")
    return len(missed)


def probes_main(args) -> int:
    """--probes: try the probes of the named files (or all), score, fail on a survivor."""
    probes = load_probes(probe_files(args.modules))
    if args.recheck:
        earlier = json.loads(args.recheck.read_text(encoding="utf-8"))
        again = {(e["file"], e["old"], e["new"]) for e in earlier
                 if e["outcome"] != "caught"}
        probes = [p for p in probes if (p.get("file"), p.get("old"), p.get("new")) in again]
    if not probes:
        print("no probe to try")
        return 0
    tried = run_probes(probes, args.rev, args.timeout)
    if args.json:
        args.json.write_text(json.dumps(tried, indent=1, ensure_ascii=False),
                             encoding="utf-8")
    return 1 if probe_score(tried) else 0


def main() -> int:
    """Mutate the named modules (or all), report, and fail on any new survivor."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help=f"modules to mutate (default: all "
                                                   f"{len(TARGETS)} in TARGETS); with "
                                                   "--probes, probe files (default: all "
                                                   "in benchmarks/probes/)")
    parser.add_argument("--probes", action="store_true",
                        help="try the hand-written behaviour probes instead, each against "
                             "the whole suite")
    parser.add_argument("--timeout", type=float, default=900, metavar="SECONDS",
                        help="with --probes: stop one run of the suite after this long "
                             "(default 900)")
    parser.add_argument("--rev", help="mutate the code and run the tests of this commit")
    parser.add_argument("--json", type=Path, help="also write every mutant's outcome here")
    parser.add_argument("--recheck", type=Path, metavar="JSON",
                        help="re-test only the new survivors recorded in an earlier --json, "
                             "and score each module with the earlier outcomes of the rest")
    parser.add_argument("--changed", nargs="?", const="HEAD", metavar="REV",
                        help="only the lines of TARGETS modules changed since REV (default "
                             "HEAD: what is not committed yet), e.g. --changed HEAD~3")
    parser.add_argument("--sample", type=int, default=0, metavar="N",
                        help=f"at most N mutants per module, picked at random (seed {SEED}); "
                             f"--changed alone samples {SMOKE}")
    args = parser.parse_args()
    if args.probes:
        return probes_main(args)
    unknown = [m for m in args.modules if m not in TARGETS]
    if unknown:
        parser.error(f"no test subset for {', '.join(unknown)}: add it to TARGETS")
    kept, news, everything = kept_survivors(), 0, {}
    earlier = json.loads(args.recheck.read_text(encoding="utf-8")) if args.recheck else {}
    changed = changed_lines(args.changed) if args.changed else None
    modules = args.modules or list(earlier or changed or ([] if changed is not None
                                                          else TARGETS))
    if changed is not None and not modules:
        print(f"no module in TARGETS changed since {args.changed}: nothing to mutate")
    sample = args.sample or (SMOKE if args.changed else 0)
    for module in modules:
        started = time.perf_counter()
        if args.recheck:
            survivors = [m for m in earlier.get(module, [])
                         if m["outcome"] == "survived" and key(module, m) not in kept]
            recheck(module, survivors, args.rev)  # their outcomes, updated in place
            everything[module] = earlier.get(module, [])
        elif changed is not None:
            everything[module] = run_module(module, args.rev, changed.get(module, set()),
                                            sample)
        else:
            everything[module] = run_module(module, args.rev, sample=sample)
        parts = [f"lines changed since {args.changed}"] if changed is not None else []
        parts += [f"at most {sample} mutants"] if sample and not args.recheck else []
        parts += ["earlier survivors re-tested"] if args.recheck else []
        what = f" ({', '.join(parts)})" if parts else ""
        whole = changed is None and not sample and not args.recheck
        news += report(module, everything[module], kept, what, whole)
        print(f"  ({time.perf_counter() - started:.0f} s)", flush=True)
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1), encoding="utf-8")
    return 1 if news else 0


if __name__ == "__main__":
    sys.exit(main())
