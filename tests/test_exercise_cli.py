"""`tao check / list / hint / watch / reset / solution`, each run in a copy of the kit
(without git), so the learner's files here are never touched or read; then, at the end,
the same verbs in process on a kit of three exercises, with the test run stood in for."""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import re
import select
import shutil
import subprocess
import sys
import threading
import time
import tomllib

import pytest
from helpers import ROOT, clean_env, run_tao, small_kit, solve
from rich.console import Console

from tao import exercise_runner as runner
from tao import exercise_screen as screen
from tao import exercise_state, i18n
from tao import exercise_verbs as verbs
from tao import exercise_watch as watching
from tao.repo import CLIError

STUBS = ROOT / "exercises" / ".stubs"
MUTANTS = ROOT / "tests" / "exercises" / "mutants"
COUNT = len(exercise_state.load())  # every listed exercise, whoever adds the next one


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    """A copy of the kit with every exercise at its shipped stub, and no git. Removed
    when the module's tests are done, in the worker: left to pytest, the next run
    would delete its few hundred files before starting any worker."""
    copy = tmp_path_factory.mktemp("kit")
    for part in ("shared", "tao", "stages", "exercises", "tests", "pyproject.toml"):
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, copy / part, ignore=shutil.ignore_patterns(
                ".hypothesis", ".tao-progress.json"))
        else:
            shutil.copy(source, copy / part)
    yield copy
    server = _SERVERS.pop(copy, None)
    if server is not None:
        server.stdin.close()  # its loop ends; it removes its own temporary folder
        try:
            server.wait(timeout=30)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
    shutil.rmtree(copy, ignore_errors=True)


_SERVERS: dict = {}  # kit folder -> the tests/kit_tao.py process serving its `tao` commands


def start(kit, **files):
    """Put the kit in a known state: every exercise a stub, except `files`
    (name -> "solution" or source text); no progress remembered."""
    (kit / ".tao-progress.json").unlink(missing_ok=True)
    for stub in STUBS.glob("e*.py"):
        shutil.copy(stub, kit / "exercises" / stub.name)
    for name, text in files.items():
        if text == "solution":
            text = (ROOT / "exercises" / "solutions" / f"{name}.py").read_text()
        (kit / "exercises" / f"{name}.py").write_text(text)


def wrong_trace():
    """Exercise 03's solution with its last trace line wrong."""
    solution = (ROOT / "exercises/solutions/e03_iteration_trace.py").read_text()
    return solution.replace('print(f"[{iteration}] answer")', 'print("done")')


def kit_env(**extra) -> dict:
    """The environment of a `tao` in the kit: as `clean_env`, but Python keeps what it
    compiles there, as it does on a learner's machine. With PYTHONDONTWRITEBYTECODE (set
    on the machines the kit is built on) every `tao` would compile shared/ and the exercise
    tests anew: a third of what a check costs."""
    env = clean_env(**extra)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def tao(kit, *args, stdin="", **env) -> subprocess.CompletedProcess:
    """Run `tao ARGS` in the kit, as a learner would: `python -m tao ARGS` there, in
    a fork of one process per kit that has loaded the kit's `tao` (tests/kit_tao.py)."""
    server = _SERVERS.get(kit)
    if server is None:
        server = _SERVERS[kit] = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "kit_tao.py")], cwd=kit, env=kit_env(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")
    request = {"args": list(args), "env": kit_env(**env), "stdin": stdin, "timeout": 300}
    server.stdin.write(json.dumps(request) + "\n")
    server.stdin.flush()
    answer = server.stdout.readline()
    assert answer, f"tests/kit_tao.py stopped (exit {server.wait()}) on `tao {' '.join(args)}`"
    done = json.loads(answer)
    return subprocess.CompletedProcess(["tao", *args], done["returncode"], done["stdout"],
                                       done["stderr"])


def row(screen: str, file: str) -> str:
    """The one line of `screen` that names `file`."""
    lines = [line for line in screen.splitlines() if file in line]
    assert len(lines) == 1, f"expected one line naming {file}:\n{screen}"
    return lines[0]


def progress(kit) -> dict:
    """What the kit's .tao-progress.json remembers."""
    return json.loads((kit / ".tao-progress.json").read_text())


def test_check_runs_only_the_current_exercise(kit):
    start(kit, e01_strict_parser="solution", e02_wordcount="solution",
          e03_iteration_trace=wrong_trace())
    first = tao(kit, "check")
    assert first.returncode == 0, "the exercise checked passes: exit 0, as rustlings' run"
    assert "Exercise 1 (A strict TOOL: wire format) is done!" in first.stdout
    assert list(progress(kit)) == ["e01_strict_parser"], (
        "tao check should run the current exercise only, not the ones after it")
    assert "Progress: [" in first.stdout and f"1/{COUNT}" in first.stdout
    assert "▶  2 Add a wordcount tool" in first.stdout and "changed since" in first.stdout
    tao(kit, "check")
    third = tao(kit, "check")
    assert third.returncode == 1, "the exercise checked fails: exit 1"
    assert "✓  2 Add a wordcount tool" in third.stdout and f"2/{COUNT}" in third.stdout
    assert "▶  3 A one-line trace per iteration" in third.stdout
    assert "the last iteration should print '[3] answer'" in third.stdout
    assert "exercises/e03_iteration_trace.py" in third.stdout


def test_status_is_per_exercise_not_an_unbroken_run(kit):
    start(kit, e02_wordcount="solution", e03_iteration_trace="solution",
          e04_dice="solution")
    done = tao(kit, "check", "--all")
    assert done.returncode == 1 and f"3/{COUNT}" in done.stdout, (
        f"exercises 2-4 pass while 1 is untouched: that is 3 done\n{done.stdout}")
    assert "▶  1 A strict TOOL: wire format" in done.stdout
    listed = tao(kit, "list", COLUMNS="100")
    assert "tao stages" in listed.stdout
    assert row(listed.stdout, "e04_dice.py").split()[:2] == ["✓", "4"], listed.stdout
    assert "done" in row(listed.stdout, "e04_dice.py").split()
    assert "not attempted" in row(listed.stdout, "e05_orphans.py"), (
        f"tao list names each exercise's file, with its status:\n{listed.stdout}")


def test_an_endless_loop_ends_in_one_line_naming_the_exercise(kit):
    looping = (ROOT / "exercises/solutions/e01_strict_parser.py").read_text().replace(
        '    first, _, rest = text.strip().partition("\\n")',
        '    while True:\n        pass\n    first, _, rest = text.strip().partition("\\n")')
    start(kit, e01_strict_parser=looping)
    soft = tao(kit, "check", TAO_TEST_TIMEOUT="0.3")
    assert soft.returncode == 1
    assert "exercise 01: still running after 0.3 s, so probably a loop that never ends" in (
        soft.stdout.replace("\n", " ")), soft.stdout
    hard = (ROOT / "exercises/solutions/e01_strict_parser.py").read_text().replace(
        '    first, _, rest = text.strip().partition("\\n")',
        '    sum(range(10**12))  # pure C: no signal gets in\n'
        '    first, _, rest = text.strip().partition("\\n")')
    start(kit, e01_strict_parser=hard)
    # the loop never ends, so any check timeout is reached: a short one wastes no CPU
    killed = tao(kit, "check", TAO_TEST_TIMEOUT="60", TAO_CHECK_TIMEOUT="0.5")
    assert "exercise 01 did not finish within 0.5 s: most likely a loop that never ends" in (
        killed.stdout.replace("\n", " ")), killed.stdout
    assert "Traceback" not in killed.stdout + killed.stderr


def test_only_the_stubs_own_not_implemented_error_means_not_attempted(kit):
    (kit / "shared" / "unfinished.py").write_text(
        'def helper():\n    raise NotImplementedError("exercise 02: not the stub")\n')
    borrowed = (ROOT / "exercises/solutions/e02_wordcount.py").read_text().replace(
        '    return str(len(args["text"].split()))',
        '    from shared.unfinished import helper\n    return helper()')
    start(kit, e02_wordcount=borrowed)
    done = tao(kit, "check", "--all")
    assert "stage 05 · failing" in done.stdout, (
        f"a NotImplementedError from shared code is a failure, not 'not attempted':\n"
        f"{done.stdout}")


def test_a_skipped_test_is_not_done(kit):
    start(kit, e01_strict_parser="solution")
    tests = kit / "tests/exercises/test_e01_strict_parser.py"
    original = tests.read_text()
    tests.write_text(original.replace("    got = need(ex,", "    pytest.skip('later')\n"
                                      "    got = need(ex,", 1))
    try:
        done = tao(kit, "check")
    finally:
        tests.write_text(original)
    assert "skipped test is not a pass" in done.stdout and f"0/{COUNT}" in done.stdout


def test_hint_and_reset_act_on_the_current_exercise_without_git(kit):
    start(kit, e01_strict_parser="solution", e02_wordcount="def wordcount(args): pass\n")
    tao(kit, "check")
    hint = tao(kit, "hint")
    assert "Hint for exercise 2: Add a wordcount tool" in hint.stdout
    assert not (kit / ".git").exists()
    refused = tao(kit, "reset")
    assert refused.returncode == 2 and "--yes" in refused.stderr
    done = tao(kit, "reset", "--yes")
    assert done.returncode == 0 and "exercises/e02_wordcount.py is the stub again" in done.stdout
    assert (kit / "exercises/e02_wordcount.py").read_text() == (
        STUBS / "e02_wordcount.py").read_text()
    again = tao(kit, "reset", "2", "--yes")
    assert "already the original stub" in again.stdout


def test_hints_wrap_to_the_terminal_and_solutions_come_out_as_files(kit):
    start(kit, e14_normalise_ids="solution")
    hint = tao(kit, "hint", "14", COLUMNS="50")
    lines = hint.stdout.splitlines()
    assert max(map(len, lines)) <= 50, f"the hint should wrap at 50 columns:\n{hint.stdout}"
    assert "hexdigest()[:16] is the new id" in " ".join(hint.stdout.split())
    shown = tao(kit, "solution", "14", COLUMNS="40")
    assert shown.returncode == 0
    solution = (ROOT / "exercises/solutions/e14_normalise_ids.py").read_text()
    assert shown.stdout == solution, (
        "piped, tao solution prints the file exactly (no wrapping at 40 columns, no trailing "
        "spaces), so it can be saved and diffed; what it says goes to stderr")
    assert "Reference solution for exercise 14" in shown.stderr
    refused = tao(kit, "solution", "2")
    assert refused.returncode == 2 and "does not pass yet" in refused.stderr


def test_watch_redraws_takes_keys_and_never_exits_on_its_own(kit):
    start(kit, e01_strict_parser="solution")
    watch = subprocess.Popen([sys.executable, "-m", "tao", "watch", "--interval",
                              "0.2"], cwd=kit, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, bufsize=0, env=kit_env())
    try:
        seen = _read_until(watch, "q quit", 60)
        assert "Exercise 1 (A strict TOOL: wire format, stage 04) is done." in seen
        time.sleep(0.5)  # two and a half redraw intervals
        assert watch.poll() is None, "watch must keep watching until q"
        for key, expected in (("l", "e03_iteration_trace.py"), ("n", "Next: Exercise 2"),
                              ("h", "Hint for exercise 2:")):
            watch.stdin.write(key.encode())
            assert expected in _read_until(watch, "q quit", 60), f"after {key!r}"
    finally:
        quit_watch(watch)


def _read_until(process, marker: str, timeout: float) -> str:
    """Output of `process` up to the next screen that ends with `marker`."""
    seen, deadline = b"", time.monotonic() + timeout
    while marker.encode() not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.5)
        if ready:
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                break
            seen += chunk
    return seen.decode()


@pytest.mark.parametrize("args", [("hint", "0"), ("hint", "x"), ("reset", "99", "--yes"),
                                  ("solution", "99")])
def test_bad_exercise_numbers_are_one_line_errors(args):
    done = run_tao(*args)  # refused before any exercise file is touched: no kit copy needed
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1


def test_an_unknown_exercise_mode_is_an_error_not_the_stubs():
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "tests/exercises"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=clean_env(TAO_EXERCISES="solution"))
    assert done.returncode != 0
    assert "TAO_EXERCISES='solution' is not a known value" in done.stdout + done.stderr


ADDED_LATER = {"e29_build_examples"}  # after the numbers were fixed: see below


def test_every_exercise_has_stub_solution_tests_mutants_and_hint():
    """Read from the shipped stubs, so a learner's edits never turn this red."""
    listed = exercise_state.load()
    assert [e.number for e in listed] == list(range(1, len(listed) + 1))
    assert len(listed) >= 14
    # in stage order; one added later to an earlier stage takes the next free number, since
    # renumbering would rename files learners have edited (their progress is kept by name)
    stages = [e.stage for e in listed if e.name not in ADDED_LATER]
    assert stages == sorted(stages), "exercises are numbered in stage order"
    assert [e.name for e in listed[-len(ADDED_LATER):]] == sorted(ADDED_LATER)
    for e in listed:
        stub = e.stub.read_text(encoding="utf-8")
        assert e.stub.name.startswith(f"e{e.number:02d}_"), e.name
        assert stub.startswith(f'"""Exercise {e.number:02d} (stage {e.stage}'), (
            f"{e.name}: the docstring should start 'Exercise {e.number:02d} (stage {e.stage}'")
        assert f'raise NotImplementedError("exercise {e.number:02d}: ' in stub, e.name
        assert e.solution.exists() and e.tests.exists() and len(e.hint.split("\n\n")) >= 2
        assert "NotImplementedError" not in e.solution.read_text(encoding="utf-8")
        assert e.tests.read_text(encoding="utf-8").startswith("# Don't change the tests!")
        table = tomllib.loads((MUTANTS / f"{e.name}.toml").read_text(encoding="utf-8"))
        # issue 23 asked the stage 08-10 exercises for eight wrong answers each, at least
        assert len(table["mutant"]) >= (8 if e.stage >= "08" else 3), f"{e.name}: too few mutants"
        unexplained = [m["what"] for m in table["mutant"] if not m.get("why")]
        assert not unexplained, f"{e.name}: say `why` each of {unexplained} is wrong"
    assert sorted(p.name for p in STUBS.glob("e*.py")) == sorted(
        e.stub.name for e in listed), "exercises/.stubs/ and info.toml list the same files"


def test_a_mutant_that_passes_every_test_fails_the_mutant_run(kit):
    table = kit / "tests/exercises/mutants/e02_wordcount.toml"
    kept = table.read_text(encoding="utf-8")
    # a "wrong answer" that changes nothing is the solution itself: it must survive
    table.write_text(kept + '\n[[mutant]]\nwhat = "same_as_the_solution"\n', encoding="utf-8")
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "--tb=no",
                               "-p", "no:cacheprovider", "tests/exercises/test_e02_wordcount.py"],
                              cwd=kit, capture_output=True, text=True, timeout=300,
                              env=clean_env(TAO_EXERCISES="mutants"))
    finally:
        table.write_text(kept, encoding="utf-8")
    assert done.returncode == 1, "a surviving mutant must fail the run"
    assert "SURVIVED e02_wordcount__same_as_the_solution" in done.stderr
    kept_count = kept.count("[[mutant]]")
    assert f"mutants: {kept_count} of {kept_count + 1} rejected" in done.stderr, done.stderr


def test_an_edit_is_seen_though_its_size_and_second_match_the_last_check(tmp_path,
                                                                        monkeypatch):
    """Python trusts a cached .pyc while the file's size and modification second match:
    an exercise must be compiled from its source on every check."""
    monkeypatch.syspath_prepend(str(ROOT / "tests" / "exercises"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # a cache gets written
    import exercise_support

    learner = tmp_path / "e99_edited.py"
    learner.write_text("def answer():\n    return 1\n")
    first = learner.stat()
    assert exercise_support.load_exercise("e99_edited", learner).answer() == 1
    learner.write_text("def answer():\n    return 2\n")  # same size, saved at once
    os.utime(learner, ns=(first.st_atime_ns, first.st_mtime_ns))
    assert exercise_support.load_exercise("e99_edited", learner).answer() == 2, (
        "the check ran the file as it was before the edit")


def test_check_n_checks_that_exercise_and_it_stays_the_current_one(kit):
    start(kit, e01_strict_parser="solution", e03_iteration_trace=wrong_trace())
    third = tao(kit, "check", "3")
    assert third.returncode == 1, "exercise 3 fails its tests: exit 1"
    assert list(progress(kit)) == ["current", "e03_iteration_trace"], (
        "tao check 3 runs exercise 3 only, and remembers it as the current one")
    assert "▶  3 A one-line trace per iteration" in third.stdout
    assert "Hint for exercise 3" in tao(kit, "hint").stdout, (
        "after tao check 3, tao hint is about exercise 3, though 1 and 2 come first")
    again = tao(kit, "check")
    assert again.returncode == 1 and "exercises/e03_iteration_trace.py" in again.stdout
    start(kit, e01_strict_parser="solution", e03_iteration_trace="solution")
    (kit / ".tao-progress.json").write_text('{"current": "e03_iteration_trace"}')
    fixed = tao(kit, "check")
    assert fixed.returncode == 0 and "Exercise 3 (A one-line trace" in fixed.stdout
    assert "▶  4 A non-deterministic tool" in fixed.stdout, (
        f"once 3 is done, the next one not done after it is current:\n{fixed.stdout}")
    assert tao(kit, "check", "1").returncode == 0, "exercise 1 passes: exit 0"
    both = tao(kit, "check", "3", "--all")
    assert both.returncode == 2 and len(both.stderr.strip().splitlines()) == 1


def test_check_all_says_why_each_failing_exercise_fails(kit):
    start(kit, e01_strict_parser="solution", e03_iteration_trace=wrong_trace())
    done = tao(kit, "check", "--all")
    assert done.returncode == 1, "not every exercise is done: exit 1"
    lines = done.stdout.splitlines()
    below = lines[lines.index(row(done.stdout, "A one-line trace per iteration")) + 1]
    assert "the last iteration should print '[3] answer'" in below, (
        f"under a failing exercise, the first line of its failure:\n{done.stdout}")


def test_with_every_exercise_done_reset_and_hint_name_their_own_command(kit):
    start(kit, **{e.name: "solution" for e in exercise_state.load()})
    (kit / ".tao-progress.json").write_text(json.dumps({  # as earlier checks leave it
        e.name: {"digest": hashlib.sha256(e.solution.read_bytes()).hexdigest(),
                 "status": "done", "test": "", "message": ""}
        for e in exercise_state.load()}))
    for verb in ("reset", "hint"):
        done = tao(kit, verb)
        assert done.returncode == 2 and f"`tao {verb} 3`" in done.stderr, done.stderr
    finished = tao(kit, "check")
    assert finished.returncode == 0 and "All exercises done" in finished.stdout


def watch(kit, *args):
    """`tao watch` in the kit, keys on a pipe."""
    return subprocess.Popen([sys.executable, "-m", "tao", "watch", "--interval", "0.2",
                             *args], cwd=kit, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, bufsize=0, env=kit_env())


def quit_watch(process) -> None:
    try:
        process.stdin.write(b"q")
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def shows(process, text: str, why: str) -> str:
    """The output of `process` up to `text`, which must appear within a minute."""
    seen = _read_until(process, text, 60)
    assert text in seen, f"{why}: expected {text!r} on the screen, it shows:\n{seen[-1500:]}"
    return seen


def test_watch_picks_from_its_list_and_starts_where_it_left_off(kit):
    start(kit, e01_strict_parser="solution")
    first = watch(kit, "5")
    try:
        shows(first, "Next: Exercise 5", "tao watch 5 starts at exercise 5")
        first.stdin.write(b"l")
        listed = shows(first, "Enter picks", "l shows the list, and how to pick from it")
        assert "e20_cancel_on_failure.py" in listed, "the list names every exercise's file"
        first.stdin.write(b"12\n")
        shows(first, "Next: Exercise 12", "in the list, 12 and Enter pick exercise 12")
        first.stdin.write(b"lkk\n")
        shows(first, "Next: Exercise 10", "k k moves up twice from 12, Enter picks 10")
    finally:
        quit_watch(first)
    assert progress(kit)["current"] == "e10_tool_choice"
    second = watch(kit)
    try:
        shows(second, "Next: Exercise 10", "a restarted watch carries on with the one picked")
        second.stdin.write(b"n")
        shows(second, "Next: Exercise 11", "n moves on to the next exercise not done")
    finally:
        quit_watch(second)
    assert "Next: Exercise 11" in tao(kit, "check").stdout.replace("\n", " "), (
        "and tao check goes where watch went")


def test_watch_resets_only_after_a_yes(kit):
    edited = "def wordcount(args):\n    return 'many'\n"
    start(kit, e01_strict_parser="solution", e02_wordcount=edited)
    shown = watch(kit, "2")
    try:
        screen = shows(shown, "q quit", "watch draws its screen")
        assert "`tao watch`" not in screen, "inside watch, no line telling you to run watch"
        shown.stdin.write(b"r")
        shows(shown, "Press y to reset", "r asks before it resets")
        shown.stdin.write(b"x")
        shows(shown, "left as it is", "any key but y keeps the learner's work")
        assert (kit / "exercises/e02_wordcount.py").read_text() == edited
        shown.stdin.write(b"r")
        shows(shown, "Press y to reset", "r asks again")
        shown.stdin.write(b"y")
        shows(shown, "is the stub again", "y resets")
        assert (kit / "exercises/e02_wordcount.py").read_bytes() == (
            STUBS / "e02_wordcount.py").read_bytes()
    finally:
        quit_watch(shown)


def pytest_in(kit, *paths) -> list[str]:
    """The lines `pytest -q PATHS` prints in the kit copy."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p",
                           "no:cacheprovider", *paths], cwd=kit, capture_output=True,
                          text=True, env=clean_env(), timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout.splitlines()


def test_pytest_says_in_one_line_that_the_xs_are_exercises_not_done_yet(kit):
    # `uv run pytest` printed some 170 `x` and never said what they were
    start(kit)
    said = [line for line in pytest_in(kit, "tests/exercises/test_e01_strict_parser.py",
                                       "tests/exercises/test_e02_wordcount.py")
            if line.startswith("x: ")]
    assert len(said) == 1, said
    assert "2 exercises you have not done yet" in said[0] and "uv run tao check" in said[0]
    assert not any(line.startswith("x: ") for line in pytest_in(kit, "tests/test_calc.py"))


# ======================================================================================
# In process, on a small kit of three exercises (`helpers.small_kit`), with the test run
# stood in for: which exit code a check gives, alone or with --all; whether `tao check N`
# moves the focus; whether a reset asks, and keeps the file on a no; what the screen shows
# (the progress bar, the rows, the table, what to do next); and `tao watch`'s keys, typed
# on a pipe (or a terminal) that stands for stdin. Milliseconds each, where the tests
# above cost a process.


@pytest.fixture
def three(tmp_path, monkeypatch):
    """Three exercises, each at its stub, nothing remembered."""
    return small_kit(tmp_path, monkeypatch)


@pytest.fixture
def outcomes(monkeypatch):
    """name -> "passed"/"failed": what the stood-in test run reports; the names it ran."""
    wanted, ran = {}, []

    def fake(argv, env, limit):
        names = [a.rsplit("test_", 1)[1][:-3] for a in argv if a.endswith(".py")]
        ran.append(names)
        with open(env["TAO_RESULTS"], "a", encoding="utf-8") as out:
            for name in names:
                out.write(json.dumps({"exercise": name, "test": "test_it", "message": "no",
                                      "outcome": wanted.get(name, "passed")}) + "\n")
        return False
    # private: a real run is a fork and a pytest session per check (the tests above)
    monkeypatch.setattr(runner, "_forked_pytest", fake)
    return wanted, ran


def console(terminal=False):
    return Console(file=io.StringIO(), width=80, force_terminal=terminal, highlight=False)


def check_here(exercise=None, all=False):
    return verbs.cmd_check(argparse.Namespace(exercise=exercise, all=all), console())


def current():
    """The exercise in focus, as .tao-progress.json remembers it (None: none picked)."""
    return exercise_state.read_progress().get(exercise_state.CURRENT)


# ---------------------------------------------------------------- tao check


def test_check_runs_the_current_exercise_and_exits_by_its_result(three, outcomes):
    wanted, ran = outcomes
    assert check_here() == 1 and ran == []  # a stub: nothing to run, and it does not pass
    solve(three[0])
    wanted["e01_first"] = "failed"
    assert check_here() == 1 and ran == [["e01_first"]]
    wanted["e01_first"] = "passed"
    solve(three[0], "def solved():\n    return 3\n")
    assert check_here() == 0 and exercise_state.statuses(three)["e01_first"].status == "done"


def test_check_n_checks_that_one_and_makes_it_the_current_one(three, outcomes):
    _, ran = outcomes
    solve(three[2])
    assert check_here("3") == 0 and ran == [["e03_third"]]
    assert current() == "e03_third"


def test_check_all_exits_zero_only_when_every_exercise_is_done(three, outcomes):
    wanted, ran = outcomes
    for e in three:
        solve(e)
    wanted["e02_second"] = "failed"
    assert check_here(all=True) == 1 and ran == [["e01_first", "e02_second", "e03_third"]]
    wanted["e02_second"] = "passed"
    solve(three[1], "def solved():\n    return 5\n")
    assert check_here(all=True) == 0


def test_check_with_a_number_and_all_is_refused(three):
    with pytest.raises(CLIError):
        check_here("2", all=True)


def test_with_every_exercise_done_a_verb_without_a_number_is_refused(three, outcomes):
    for e in three:
        solve(e)
    check_here(all=True)
    with pytest.raises(CLIError):
        verbs.cmd_hint(argparse.Namespace(exercise=None), console())
    with pytest.raises(CLIError):
        verbs.cmd_hint(argparse.Namespace(exercise="9"), console())
    assert verbs.cmd_hint(argparse.Namespace(exercise="2"), console()) == 0


def test_only_a_check_that_passes_is_announced_as_done(three, outcomes):
    wanted, _ = outcomes
    solve(three[0])
    wanted["e01_first"] = "failed"
    failing = console()
    assert verbs.cmd_check(argparse.Namespace(exercise="1", all=False), failing) == 1
    assert screen.MARKS["done"][0] not in failing.file.getvalue()
    wanted["e01_first"] = "passed"
    solve(three[0], "def solved():\n    return 4\n")
    passing = console()
    assert verbs.cmd_check(argparse.Namespace(exercise="1", all=False), passing) == 0
    assert screen.MARKS["done"][0] in passing.file.getvalue().splitlines()[1]


def test_a_hint_s_paragraphs_are_separated_by_one_blank_line(three):
    info = exercise_state.EXERCISES / "info.toml"
    info.write_text(info.read_text().replace("  hint 1\n", "  first part\n\n  second part\n"))
    shown = console()
    assert verbs.cmd_hint(argparse.Namespace(exercise="1"), shown) == 0
    assert shown.file.getvalue().splitlines()[1:] == ["first part", "", "second part"]


# ---------------------------------------------------------------- tao reset


def reset_here(exercise="1", yes=False):
    return verbs.cmd_reset(argparse.Namespace(exercise=exercise, yes=yes), console())


class Stdin:
    def __init__(self, tty):
        self.tty = tty

    def isatty(self):
        return self.tty


@pytest.mark.parametrize("answer", ["y", "Y", " yes "])
def test_reset_asks_and_a_yes_restores_the_stub(three, monkeypatch, answer):
    solve(three[0])
    monkeypatch.setattr(verbs.sys, "stdin", Stdin(True))
    monkeypatch.setattr("builtins.input", lambda *a: answer)
    assert reset_here() == 0 and three[0].path.read_bytes() == three[0].stub.read_bytes()


@pytest.mark.parametrize("answer", ["", "n", "yess"])
def test_reset_keeps_the_work_on_anything_but_yes(three, monkeypatch, answer):
    solve(three[0])
    monkeypatch.setattr(verbs.sys, "stdin", Stdin(True))
    monkeypatch.setattr("builtins.input", lambda *a: answer)
    assert reset_here() == 1 and three[0].path.read_bytes() != three[0].stub.read_bytes()


def test_reset_from_a_pipe_needs_yes(three, monkeypatch):
    solve(three[0])
    monkeypatch.setattr(verbs.sys, "stdin", Stdin(False))
    with pytest.raises(CLIError):
        reset_here()
    assert three[0].path.read_bytes() != three[0].stub.read_bytes()
    assert reset_here(yes=True) == 0 and three[0].path.read_bytes() == three[0].stub.read_bytes()


def test_reset_of_a_stub_or_a_deleted_file_needs_no_question(three, monkeypatch):
    monkeypatch.setattr(verbs.sys, "stdin", Stdin(False))
    assert reset_here() == 0  # already the stub: nothing to confirm
    three[0].path.unlink()
    assert reset_here(yes=True) == 0 and three[0].path.exists()
    three[0].stub.unlink()
    with pytest.raises(CLIError):
        reset_here(yes=True)


# ---------------------------------------------------------------- tao solution


def test_the_solution_opens_only_once_the_exercise_passes(three, outcomes, capsys):
    wanted, _ = outcomes
    first = three[0]
    first.solution.parent.mkdir(exist_ok=True)
    long_line = "    return 'the reference' + " + " + ".join(["'a long line'"] * 8) + "\n"
    first.solution.write_text("def solved():\n" + long_line)
    solve(first)
    wanted["e01_first"] = "failed"
    with pytest.raises(CLIError):
        verbs.cmd_solution(argparse.Namespace(exercise="1"), console())
    wanted["e01_first"] = "passed"
    solve(first, "def solved():\n    return 2\n")
    assert verbs.cmd_solution(argparse.Namespace(exercise="1"), console()) == 0
    assert capsys.readouterr().out == first.solution.read_text()  # piped: the file exactly
    shown = console(terminal=True)
    assert verbs.cmd_solution(argparse.Namespace(exercise="1"), shown) == 0
    on_screen = re.sub(r"\x1b\[[0-9;]*m", "", shown.file.getvalue())
    assert long_line in on_screen and capsys.readouterr().out == ""  # left whole to fold


# ---------------------------------------------------------------- what the verbs show


def bar_parts(bar):
    inside, counts = re.fullmatch(r"Progress: \[(.*)\] *(\d+)/(\d+)", bar.plain).group(1, 2), \
        bar.plain.rsplit(" ", 1)[1]
    return inside[0], counts


@pytest.mark.parametrize(("width", "cells"), [(20, 10), (32, 10), (33, 11), (50, 28),
                                              (82, 60), (83, 60), (200, 60)])
def test_the_progress_bar_is_sized_to_the_terminal_within_bounds(width, cells):
    for done in (0, 3, 7):
        inside, counts = bar_parts(screen.progress_bar(done, 7, width))
        assert len(inside) == cells and counts == f"{done}/7"


@pytest.mark.parametrize(("done", "total", "hashes"), [(0, 5, 0), (1, 5, 4), (4, 5, 16),
                                                       (5, 5, 20), (2, 3, 13), (0, 0, 20)])
def test_the_bar_fills_in_proportion_with_the_arrow_only_while_unfinished(done, total, hashes):
    inside, _ = bar_parts(screen.progress_bar(done, total, 42))  # 20 cells
    assert inside.count("#") == hashes
    assert inside.count(">") == (0 if hashes == 20 else 1)
    assert inside == "#" * hashes + ">" * (hashes < 20) + "-" * (20 - hashes - 1 * (hashes < 20))


def result(status, message=""):
    return exercise_state.Result(status, "test_it" if status != "done" else "", message)


def test_the_focus_is_marked_unless_done_and_each_status_has_its_mark(three):
    known = {"e01_first": result("done"), "e02_second": result("failing"),
             "e03_third": result("not attempted")}
    marks = [row.plain.split()[0] for row in screen.exercise_rows(three, known, three[1])]
    assert marks[1] == "▶" and marks[0] == screen.MARKS["done"][0]
    assert marks[2] == screen.MARKS["not attempted"][0]
    on_done = [row.plain.split()[0] for row in screen.exercise_rows(three, known, three[0])]
    assert on_done[0] == screen.MARKS["done"][0] and on_done[1] == screen.MARKS["failing"][0]
    known["e03_third"] = result("something new")  # a status this tao does not know yet
    assert screen.exercise_rows(three, known, None)[2].plain.split()[0] == "·"


def test_with_why_each_failing_or_hung_exercise_gets_one_more_row(three):
    known = {"e01_first": result("failing", "assert\n  1 == 2"),
             "e02_second": result("timeout", ""), "e03_third": result("edited")}
    assert len(screen.exercise_rows(three, known, None)) == 3
    rows = screen.exercise_rows(three, known, None, why=True)
    assert len(rows) == 5
    assert rows[1].plain.strip() == "assert 1 == 2" and "test_it" in rows[3].plain


def test_the_table_has_a_row_per_exercise_and_highlights_only_the_selected(three):
    known = {e.name: result("not attempted") for e in three}
    table = screen.exercise_table(three, known, three[0], selected=1)
    assert table.row_count == 3
    assert [row.style for row in table.rows] == [None, "reverse", None]


def test_the_table_keeps_one_line_per_exercise_from_the_edge(three):
    known = {e.name: result("not attempted") for e in three}
    shown = console()  # 80 columns
    shown.print(screen.exercise_table(three, known, None))
    lines = shown.file.getvalue().splitlines()
    assert len(lines) == 4 and all(len(line) <= 80 for line in lines)
    mark = screen.MARKS["not attempted"][0]
    assert all(line.startswith(mark) for line in lines[1:])  # no padding before the marks
    assert [line.split()[1] for line in lines[1:]] == ["1", "2", "3"]


@pytest.mark.parametrize("width", [60, 72])
def test_on_a_narrow_terminal_only_the_title_is_cut(width):
    """The kit's own exercises at 60 columns: every row keeps its number, its file
    and its stage (what a learner types and opens), and stays one line; the title gives."""
    real = exercise_state.load()
    known = {e.name: result("not attempted") for e in real}
    shown = Console(file=io.StringIO(), width=width, highlight=False)
    shown.print(screen.exercise_table(real, known, None))
    rows = shown.file.getvalue().splitlines()[1:]
    assert len(rows) == len(real), "one line per exercise"
    for e, row in zip(real, rows, strict=True):
        cells = row.split()
        assert cells[1:4] == [str(e.number), e.path.name, e.stage], (
            f"at {width} columns the row of exercise {e.number} lost a column: {row!r}")
        assert len(row) <= width


def test_a_hint_s_paragraphs_are_reflowed_and_blank_ones_dropped():
    paragraphs = screen.wrapped("one\n  two\n\n\n\nthree   four\n\n  \n")
    assert [p.plain for p in paragraphs] == ["one two", "three four"]


def test_the_overview_counts_only_the_done(three):
    shown = console()
    known = {"e01_first": result("done"), "e02_second": result("failing"),
             "e03_third": result("done")}
    screen.show_overview(shown, three, known, None, why=False)
    assert "2/3" in shown.file.getvalue()


def test_the_list_counts_only_the_done_and_shows_every_file(three):
    shown = console()
    known = {"e01_first": result("done"), "e02_second": result("edited"),
             "e03_third": result("done")}
    screen.show_list(shown, three, known, None)
    out = shown.file.getvalue()
    assert "2/3" in out and all(e.path.name in out for e in three)


def focus_text(e, status, in_watch=False, message=""):
    shown = console()
    screen.show_focus(shown, e, result(status, message), in_watch)
    return shown.file.getvalue()


def test_what_to_do_next_names_the_file_unless_it_is_done(three):
    first = three[0]
    for status in ("not attempted", "failing", "timeout"):
        assert first.where() in focus_text(first, status)
    assert first.where() not in focus_text(first, "done")


def test_in_watch_the_focus_leaves_out_what_its_keys_say(three):
    first = three[0]
    for status in ("not attempted", "failing", "edited"):
        alone, watching = focus_text(first, status), focus_text(first, status, in_watch=True)
        assert alone.startswith(watching) and len(alone) > len(watching)
    assert focus_text(first, "done") == focus_text(first, "done", in_watch=True)


def test_the_focus_outside_watch_is_the_default(three):
    shown = console()
    screen.show_focus(shown, three[0], result("failing", "boom"))
    assert shown.file.getvalue() == focus_text(three[0], "failing", message="boom")


@pytest.mark.parametrize(("lines", "cut"), [(1, False), (11, False), (12, False), (13, True)])
def test_a_failure_is_shown_whole_up_to_twelve_lines_then_cut_with_an_ellipsis(three, lines,
                                                                               cut):
    message = "\n".join(f"line {n}" for n in range(1, lines + 1))
    shown = [line for line in focus_text(three[0], "failing", message=message).splitlines()
             if re.fullmatch(r"line \d+|…", line)]
    assert shown[:12] == message.splitlines()[:12]
    assert (shown[-1] == "…") is cut and len(shown) == min(lines, 12) + cut


# ---------------------------------------------------------------- tao watch, keys on stdin

KEYS = {"up": "\x1b[A", "down": "\x1b[B", "enter": "\r"}  # as a terminal sends them


def watch_here(monkeypatch, *keys, exercise=None, cycles=None, shown=None):
    """`tao watch` in process, with `keys` typed on a pipe that is its stdin, closed behind
    them; (exit code, what it showed, what it left unread). One key is read a cycle."""
    read_end, write_end = os.pipe()
    os.write(write_end, "".join(KEYS.get(k, k) for k in keys).encode())
    os.close(write_end)
    shown = shown or console()
    cycles = len(keys) + 1 if cycles is None else cycles
    args = argparse.Namespace(exercise=exercise, interval=0, cycles=cycles)
    with open(read_end, "rb", buffering=0) as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        code = watching.cmd_watch(args, shown)
        return code, shown.file.getvalue(), stdin.read().decode()


def test_watch_ends_on_q_and_otherwise_after_its_cycles(three, outcomes, monkeypatch):
    assert watch_here(monkeypatch, "x", "q", "n", cycles=10)[0] == 0
    assert current() is None  # the n after q was never read
    assert watch_here(monkeypatch, cycles=3)[0] == 0


def test_watch_reads_one_key_a_cycle_and_none_when_given_no_cycles(three, outcomes,
                                                                   monkeypatch):
    for cycles, left in ((3, 2), (1, 4), (0, 5), (-1, 5)):
        code, _, unread = watch_here(monkeypatch, *"xxxxx", cycles=cycles)
        assert code == 0 and unread == "x" * left, cycles


def test_watch_n_moves_to_the_next_exercise_not_done_and_remembers_it(three, outcomes,
                                                                      monkeypatch):
    watch_here(monkeypatch, "n")
    assert current() == "e02_second"
    watch_here(monkeypatch, "n", "n")
    assert current() == "e01_first"  # round past the end


def test_watch_n_checks_the_new_focus(three, outcomes, monkeypatch):
    _, ran = outcomes
    for e in three:
        solve(e)
    watch_here(monkeypatch, "n")
    assert ran == [["e01_first"], ["e02_second"]]


def test_watch_n_skips_the_done_and_wraps_round_from_the_last(three, outcomes, monkeypatch):
    wanted, _ = outcomes
    first, second, third = three
    for e in three:
        solve(e)
    exercise_state.save_results({first.name: result("done")}, three)
    wanted[second.name] = "failed"
    watch_here(monkeypatch, "n", exercise="3")  # the third passes its check: n moves on
    assert current() == second.name, "past the end, and past the first, which is done"
    exercise_state.PROGRESS.unlink()
    exercise_state.save_results({second.name: result("done")}, three)
    wanted[third.name] = "failed"
    watch_here(monkeypatch, "n")  # the first, in focus, passes: n skips the second
    assert current() == third.name


def test_watch_n_stays_on_the_only_exercise_not_done_and_checks_it_again(three, outcomes,
                                                                         monkeypatch):
    wanted, ran = outcomes
    for e in three:
        solve(e)
    exercise_state.save_results({e.name: result("done") for e in three[::2]}, three)
    wanted["e02_second"] = "failed"
    watch_here(monkeypatch, "n")
    assert current() == "e02_second" and ran == [["e02_second"], ["e02_second"]]


def test_after_every_exercise_is_done_n_picks_the_first_one_edited_since(three, outcomes,
                                                                         monkeypatch):
    for e in three:
        solve(e)
    exercise_state.save_results({e.name: result("done") for e in three}, three)

    class EditedWhileShown(io.StringIO):
        """A screen during whose first drawing the learner edits every exercise again."""

        edited = False

        def write(self, s):
            if not self.edited:
                self.edited = True
                for e in three:
                    solve(e, "def solved():\n    return 9\n")
            return super().write(s)
    shown = Console(file=EditedWhileShown(), width=80, highlight=False)
    watch_here(monkeypatch, "n", shown=shown)  # nothing in focus: n starts at the first
    assert current() == "e01_first"


def test_watch_rechecks_the_focus_only_when_its_file_changes(three, outcomes, monkeypatch):
    _, ran = outcomes
    solve(three[0])
    watch_here(monkeypatch, cycles=3)
    assert ran == [["e01_first"]]


@pytest.mark.parametrize("edit", ["size", "time"])
def test_watch_rechecks_a_file_saved_again_though_only_its_size_or_time_changed(
        three, outcomes, monkeypatch, edit):
    _, ran = outcomes
    first = three[0]
    solve(first)
    was = first.path.stat()

    class SavedWhileShown(io.StringIO):
        """A screen during whose first drawing the learner saves the file again."""

        saved = False

        def write(self, s):
            if not self.saved:
                self.saved = True
                if edit == "size":  # a longer file, with the same time as before
                    solve(first, "def solved():\n    return 10\n")
                    os.utime(first.path, ns=(was.st_atime_ns, was.st_mtime_ns))
                else:  # the same bytes, a second later
                    os.utime(first.path, ns=(was.st_atime_ns, was.st_mtime_ns + 10**9))
            return super().write(s)
    shown = Console(file=SavedWhileShown(), width=80, highlight=False)
    watch_here(monkeypatch, cycles=3, shown=shown)
    assert ran == [["e01_first"], ["e01_first"]]


def test_watch_starts_on_the_exercise_asked_for(three, outcomes, monkeypatch):
    watch_here(monkeypatch, exercise="3", cycles=1)
    assert current() == "e03_third"
    with pytest.raises(CLIError):
        watch_here(monkeypatch, exercise="7", cycles=1)


def test_watch_with_every_exercise_done_shows_that_and_has_nothing_to_reset(
        three, outcomes, monkeypatch):
    for e in three:
        solve(e)
    exercise_state.save_results({e.name: result("done") for e in three}, three)
    code, out, _ = watch_here(monkeypatch, "r")
    assert code == 0 and i18n.text("watch.all_done") in out and i18n.text("watch.next") not in out


def test_watch_offers_the_next_exercise_only_while_one_is_left(three, outcomes, monkeypatch):
    wanted, _ = outcomes
    solve(three[0])
    out = watch_here(monkeypatch, cycles=1)[1]
    assert i18n.text("watch.next") in out, "the one in focus is done, others are not: n moves on"
    for e in three[1:]:
        solve(e)
    exercise_state.save_results({e.name: result("done") for e in three[1:]}, three)
    solve(three[0], "def solved():\n    return 2\n")
    out = watch_here(monkeypatch, cycles=1)[1]
    assert i18n.text("watch.next") not in out, "every exercise done: there is no next one"
    solve(three[0], "def solved():\n    return 3\n")
    wanted["e01_first"] = "failed"
    out = watch_here(monkeypatch, cycles=1)[1]
    assert i18n.text("watch.next") not in out, "the one in focus is not done yet"


# ---------------------------------------------------------------- watch's list


def test_the_list_picks_by_moving(three, outcomes, monkeypatch):
    watch_here(monkeypatch, "l", "down", "down", "down", "up", "enter")
    assert current() == "e02_second"


def test_the_list_selection_stays_within_the_list(three, outcomes, monkeypatch):
    watch_here(monkeypatch, "l", "up", "enter")
    assert current() == "e01_first", "up from the first stays on the first"
    watch_here(monkeypatch, "l", *["down"] * 5, "x", "enter")
    assert current() == "e03_third", "down past the last stays on the last; x does nothing"


def test_the_list_opens_on_the_focus_and_picks_by_number(three, outcomes, monkeypatch):
    watch_here(monkeypatch, "l", "3", "enter")
    assert current() == "e03_third"
    watch_here(monkeypatch, "l", "k", "j", "enter")  # opened on 3, the focus now
    assert current() == "e03_third"


def test_the_first_exercise_can_be_picked_by_its_number(three, outcomes, monkeypatch):
    code, out, _ = watch_here(monkeypatch, "l", "down", "down", "1", "enter")
    assert current() == "e01_first" and "no exercise" not in out


def test_a_number_out_of_range_picks_nothing_and_says_so(three, outcomes, monkeypatch):
    for number in ("0", "4", "12"):
        _, out, _ = watch_here(monkeypatch, "l", *number, "enter")
        assert current() is None and i18n.text("watch.no_such", number=int(number), total=3) in out
    _, out, _ = watch_here(monkeypatch, "l", "9", "enter", "2", "enter")
    assert current() == "e02_second", "after a number refused, the next one starts afresh"
    watch_here(monkeypatch, "l", *"03", "enter")
    assert current() == "e03_third"


def test_the_list_closes_on_a_second_l_and_then_takes_no_picks(three, outcomes, monkeypatch):
    watch_here(monkeypatch, "l", "l", "down", "enter")
    assert current() is None


def test_keys_are_read_in_both_forms_a_terminal_sends(three, outcomes, monkeypatch):
    watch_here(monkeypatch, "l", "\x1bOB", "\n")  # SS3's down arrow, and a bare newline
    assert current() == "e02_second"
    watch_here(monkeypatch, "Q", "n", cycles=5)  # a capital works as its small letter
    assert current() == "e02_second"


def test_without_a_stdin_to_read_watch_runs_its_cycles_and_ends(three, outcomes, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("q"))  # no file descriptor: no keys
    args = argparse.Namespace(exercise=None, interval=0, cycles=3)
    assert watching.cmd_watch(args, console()) == 0


# ---------------------------------------------------------------- watch's reset


def test_a_reset_in_watch_asks_only_when_there_is_work_to_lose(three, outcomes, monkeypatch):
    wanted, _ = outcomes
    first = three[0]
    wanted[first.name] = "failed"  # not done: it stays in focus from one watch to the next
    out = watch_here(monkeypatch, "r")[1]
    assert i18n.text("watch.is_stub", file=first.where()) in out  # already the stub: no question
    solve(first)
    out = watch_here(monkeypatch, "r", "n")[1]
    assert i18n.text("watch.kept", file=first.where()) in out
    assert first.path.read_bytes() != first.stub.read_bytes()
    watch_here(monkeypatch, "r")  # stdin ends before an answer: no answer, no reset
    assert first.path.read_bytes() != first.stub.read_bytes()
    out = watch_here(monkeypatch, "r", "y")[1]
    assert i18n.text("watch.reset", file=first.where()) in out
    assert first.path.read_bytes() == first.stub.read_bytes()


@pytest.mark.parametrize("key", ["n", "z", "enter", "up"])
def test_watch_resets_only_on_a_y_whatever_other_key_comes(three, outcomes, monkeypatch, key):
    solve(three[0])
    watch_here(monkeypatch, "r", key)
    assert three[0].path.read_bytes() != three[0].stub.read_bytes(), f"{key!r} reset the work"


class AskedScreen(io.StringIO):
    """A screen that sets `asked` once watch has asked whether to reset."""

    def __init__(self):
        super().__init__()
        self.asked = threading.Event()

    def write(self, s):
        if "Press y to reset" in s:
            self.asked.set()
        return super().write(s)


def test_watch_waits_as_long_as_it_takes_for_the_answer_to_a_reset(three, outcomes,
                                                                   monkeypatch):
    first = three[0]
    solve(first)
    read_end, write_end = os.pipe()
    os.write(write_end, b"r")
    screen_file = AskedScreen()
    shown = Console(file=screen_file, width=200, highlight=False)  # the question on one line

    def answer_slowly():  # after more than one of watch's half-second reads
        if screen_file.asked.wait(10):
            time.sleep(0.7)
            os.write(write_end, b"y")
        os.close(write_end)
    typist = threading.Thread(target=answer_slowly)
    typist.start()
    try:
        with open(read_end, "rb", buffering=0) as stdin:
            monkeypatch.setattr(sys, "stdin", stdin)
            args = argparse.Namespace(exercise=None, interval=0, cycles=2)
            assert watching.cmd_watch(args, shown) == 0
    finally:
        typist.join(timeout=20)
    assert first.path.read_bytes() == first.stub.read_bytes(), "the late y was waited for"


def test_watch_takes_single_keys_on_a_terminal_and_gives_it_back_as_it_was(three, outcomes,
                                                                          monkeypatch):
    import pty
    import termios

    leader, follower = pty.openpty()

    class TypesOnFirstDraw(io.StringIO):
        """A screen that, once watch has drawn, types n on the terminal: no Enter."""

        typed = False

        def write(self, s):
            if not self.typed:
                self.typed = True
                os.write(leader, b"n")
            return super().write(s)
    try:
        with open(follower, "rb", buffering=0, closefd=False) as stdin:
            before = termios.tcgetattr(follower)[3]
            assert before & termios.ICANON  # a terminal starts line by line
            monkeypatch.setattr(sys, "stdin", stdin)
            args = argparse.Namespace(exercise=None, interval=0.5, cycles=2)
            shown = Console(file=TypesOnFirstDraw(), width=80, highlight=False)
            assert watching.cmd_watch(args, shown) == 0
            assert current() == "e02_second", "the n came through without an Enter"
            assert termios.tcgetattr(follower)[3] == before
    finally:
        os.close(leader)
        os.close(follower)


# ---------------------------------------------------------------- issue 32: the exercise
# state under attack: a progress file of any shape, files that cannot be written, odd input


EDITED = ("def wordcount(args):\n    return 'many'\n\n\n"
          "def add_wordcount(tools):\n    return tools\n")


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("content", [
    "[1, 2, 3]", "null", '"text"', '{"current": [1], "e02_wordcount": 5}',
    '{"e02_wordcount": {"digest": "DIGEST"}}',  # an entry without its status
    '{"e02_wordcount": {"digest": "DIGEST", "status": ["done"]}}',
])
def test_a_progress_file_of_any_shape_is_read_as_nothing_known(content, kit):
    start(kit, e02_wordcount=EDITED)
    (kit / ".tao-progress.json").write_text(content.replace("DIGEST", digest(EDITED)))
    for args in (("list",), ("check",), ("hint",)):
        out = tao(kit, *args)
        assert out.returncode in (0, 1) and "Traceback" not in out.stderr, (args, out.stderr)


def test_a_progress_file_that_cannot_be_written_is_one_line_and_the_check_still_shows(kit):
    start(kit, e02_wordcount=EDITED)
    (kit / ".tao-progress.json").mkdir()
    try:
        out = tao(kit, "check", "2")
    finally:
        (kit / ".tao-progress.json").rmdir()
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert "failing" in row(out.stdout, "Add a wordcount tool")  # shown all the same
    assert ".tao-progress.json" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_reset_restores_a_file_that_is_not_utf8(kit):
    start(kit)
    learner = kit / "exercises" / "e02_wordcount.py"
    learner.write_bytes(b"# caf\xe9, in Latin-1\n")
    out = tao(kit, "reset", "2", "--yes")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert learner.read_bytes() == (STUBS / "e02_wordcount.py").read_bytes()


def test_ctrl_d_at_resets_question_keeps_the_work(kit):
    import pty

    start(kit, e02_wordcount=EDITED)
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "tao", "reset", "2"], cwd=kit,
                               stdin=follower, stdout=follower, stderr=follower,
                               env=kit_env(), start_new_session=True)
    os.close(follower)
    try:
        seen = _read_pty_until(leader, "[y/N]")
        assert "[y/N]" in seen, seen
        os.write(leader, b"\x04")  # Ctrl-D: the end of input
        seen += _read_pty_until(leader, "\x00never")  # to the end
        assert process.wait(timeout=30) == 1, seen
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(leader)
    assert "Traceback" not in seen and "EOFError" not in seen and "left as it is" in seen
    assert (kit / "exercises" / "e02_wordcount.py").read_text() == EDITED


def _read_pty_until(fd: int, marker: str, timeout: float = 30) -> str:
    """What the pty's other side wrote, up to `marker` (or its end, or `timeout`)."""
    seen, deadline = b"", time.monotonic() + timeout
    while marker.encode() not in seen and time.monotonic() < deadline:
        if select.select([fd], [], [], 0.2)[0]:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the other side closed
                break
            if not chunk:
                break
            seen += chunk
    return seen.decode(errors="replace")


def test_watch_r_without_a_shipped_stub_says_so_and_keeps_watching(kit):
    start(kit, e02_wordcount=EDITED)
    stub = kit / "exercises" / ".stubs" / "e02_wordcount.py"
    saved = stub.read_bytes()
    stub.unlink()
    shown = watch(kit, "2")
    try:
        shows(shown, "q quit", "watch draws its screen")
        shown.stdin.write(b"r")
        shows(shown, "is missing from exercises/.stubs/", "r says there is no stub to go to")
        assert shown.poll() is None, "and watch keeps watching"
    finally:
        quit_watch(shown)
        stub.write_bytes(saved)
    assert (kit / "exercises" / "e02_wordcount.py").read_text() == EDITED


@pytest.mark.parametrize("verb", ["check", "hint", "watch"])
def test_a_number_of_five_thousand_digits_is_no_exercise_in_one_line(verb, kit):
    out = tao(kit, verb, "9" * 5000)
    assert out.returncode == 2 and "no exercise" in out.stderr, out.stderr[-300:]
    assert "limit" not in out.stderr and len(out.stderr.strip().splitlines()) == 1



def test_a_full_disk_is_one_line_and_the_learners_file_stays_whole(kit):
    from helpers import file_limit

    start(kit, e02_wordcount=EDITED)
    out = subprocess.run([sys.executable, "-m", "tao", "reset", "2", "--yes"], cwd=kit,
                         env=kit_env(), capture_output=True, text=True, timeout=60,
                         preexec_fn=file_limit(100))
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert "File too large" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert (kit / "exercises" / "e02_wordcount.py").read_text() == EDITED


SPINS = ("import time\n\n\ndef wordcount(args):\n    while True:  # a retry that swallows "
         "everything, Ctrl-C too\n        try:\n            time.sleep(0.05)\n"
         "        except:  # noqa: E722\n            pass\n\n\n"
         "def add_wordcount(tools):\n    return tools\n")


def _children(pid: int) -> list[int]:
    """The processes `pid` started (Linux)."""
    path = f"/proc/{pid}/task/{pid}/children"
    try:
        with open(path) as file:
            return [int(child) for child in file.read().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    """True if process `pid` runs (a zombie waiting for its parent does not)."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("how", ["ctrl_c", "killed"])
def test_the_check_process_dies_with_tao_whatever_the_learners_code_does(how, kit):
    """The learner's code swallows every exception, KeyboardInterrupt too: Ctrl-C (sent to
    the terminal's whole process group) or a kill of tao must still end the forked test
    process, not leave it spinning with no parent."""
    import signal

    if not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"):
        pytest.skip("needs Linux's /proc")
    start(kit, e02_wordcount=SPINS)
    process = subprocess.Popen([sys.executable, "-m", "tao", "check", "2"], cwd=kit,
                               env=kit_env(TAO_CHECK_TIMEOUT="120"), start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    children = []
    try:
        deadline = time.monotonic() + 60
        while not children and time.monotonic() < deadline:
            children = _children(process.pid)
            time.sleep(0.1)
        assert children, "tao check started no test process"
        time.sleep(2)  # the test is in the learner's loop by now
        if how == "ctrl_c":
            os.killpg(process.pid, signal.SIGINT)
            assert process.wait(timeout=30) == 130
        else:
            process.kill()
            process.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(map(_alive, children)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(map(_alive, children)), "the test process outlived tao"
    finally:
        for pid in children:  # whatever happened above: nothing left behind
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if process.poll() is None:
            process.kill()
            process.wait()
