"""`tao check / hint / watch / reset / solution`, run in a copy of the kit so the
learner's files here are never touched."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from helpers import ROOT, clean_env

from shared import exercises

COUNT = len(exercises.load())  # every listed exercise, whoever adds the next one


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    """A committed copy of the kit: exercise 1 solved, exercise 2 attempted but wrong."""
    copy = tmp_path_factory.mktemp("kit")
    for part in ("shared", "stages", "exercises", "tests", "pyproject.toml"):
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, copy / part, ignore=shutil.ignore_patterns(
                "__pycache__", ".hypothesis"))
        else:
            shutil.copy(source, copy / part)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q"], cwd=copy, check=True)
    subprocess.run([*git, "add", "-A"], cwd=copy, check=True)
    subprocess.run([*git, "commit", "-qm", "kit"], cwd=copy, check=True)
    shutil.copy(copy / "exercises/solutions/e01_wordcount.py", copy / "exercises")
    wrong = (copy / "exercises/solutions/e02_iteration_trace.py").read_text()
    wrong = wrong.replace('print(f"[{iteration}] answer")', 'print("done")')
    (copy / "exercises/e02_iteration_trace.py").write_text(wrong)
    return copy


def tao(kit, *args, stdin=""):
    return subprocess.run([sys.executable, "-m", "shared.cli", *args], cwd=kit, input=stdin,
                          capture_output=True, text=True, env=clean_env(), timeout=300)


def test_check_shows_progress_and_the_failing_tests_own_message(kit):
    done = tao(kit, "check")
    assert done.returncode == 1
    assert "✓  1 Add a wordcount tool" in done.stdout
    assert "▶  2 A one-line trace per iteration" in done.stdout
    assert "·  3" in done.stdout and f"1 of {COUNT} done" in done.stdout
    assert "the last iteration should print '[3] answer'" in done.stdout
    assert "exercises/e02_iteration_trace.py" in done.stdout and "tao hint 2" in done.stdout


def test_watch_checks_once_per_save_and_is_bounded(kit):
    done = tao(kit, "watch", "--cycles", "2", "--interval", "0")
    assert done.returncode == 1 and done.stdout.count(f"of {COUNT} done") == 1


def test_solution_is_shown_only_once_the_exercise_passes(kit):
    shown = tao(kit, "solution", "1")
    assert shown.returncode == 0 and "def add_wordcount" in shown.stdout
    refused = tao(kit, "solution", "2")
    assert refused.returncode == 2 and "does not pass yet" in refused.stderr
    assert "def agent_step" not in refused.stdout


def test_reset_asks_first_and_restores_the_stub(kit):
    target = kit / "exercises/e01_wordcount.py"
    refused = tao(kit, "reset", "1")  # no terminal to ask on, no --yes: nothing happens
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert "NotImplementedError" not in target.read_text()
    done = tao(kit, "reset", "1", "--yes")
    assert done.returncode == 0 and "raise NotImplementedError" in target.read_text()
    again = tao(kit, "reset", "1", "--yes")
    assert "already the original stub" in again.stdout
    shutil.copy(kit / "exercises/solutions/e01_wordcount.py", target)  # as the fixture left it


@pytest.mark.parametrize("args", [("hint", "0"), ("hint", "x"), ("reset", str(COUNT + 1), "--yes"),
                                  ("solution", "99")])
def test_bad_exercise_numbers_are_one_line_errors(kit, args):
    done = tao(kit, *args)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1


def test_every_exercise_has_stub_solution_test_and_hint():
    listed = exercises.load()
    assert [e.number for e in listed] == list(range(1, COUNT + 1))
    for e in listed:
        stub = e.path.read_text(encoding="utf-8")
        assert e.path.name.startswith(f"e{e.number:02d}_"), e.name
        assert f'raise NotImplementedError("exercise {e.number:02d}' in stub, e.name
        assert e.solution.exists() and e.tests.exists() and len(e.hint.splitlines()) >= 3
        assert "NotImplementedError" not in e.solution.read_text(encoding="utf-8")
        assert e.tests.read_text(encoding="utf-8").startswith("# Don't change the tests!")
    assert sorted(p.name for p in exercises.EXERCISES.glob("e*.py")) == sorted(
        e.path.name for e in listed)
