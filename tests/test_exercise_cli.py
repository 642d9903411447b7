"""`tao check / list / hint / watch / reset / solution`, each run in a copy of the kit
(without git), so the learner's files here are never touched or read."""

from __future__ import annotations

import hashlib
import json
import os
import select
import shutil
import subprocess
import sys
import time
import tomllib

import pytest
from helpers import ROOT, clean_env, run_tao

from tao import exercise_state

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


def test_every_exercise_has_stub_solution_tests_mutants_and_hint():
    """Read from the shipped stubs, so a learner's edits never turn this red."""
    listed = exercise_state.load()
    assert [e.number for e in listed] == list(range(1, len(listed) + 1))
    assert len(listed) >= 14
    stages = [e.stage for e in listed]
    assert stages == sorted(stages), "exercises are numbered in stage order"
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
