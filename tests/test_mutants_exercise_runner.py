"""How `tao check` turns an exercise's test outcomes into its status
(tao/exercise_runner.py): the questions the surviving mutants of
benchmarks/mutation.py asked. Is one failing test among passes "failing"? Is a stub
left in one part of an exercise "not attempted" or "failing"? Does a hang that also
failed a test count as a failure? Does the time allowed grow with the exercises run?"""

from __future__ import annotations

import json
import os
import sys
import time

import pytest
from test_mutants_exercise_state import kit, solve  # noqa: F401  (the fixture, shared)

from tao import exercise_runner as runner
from tao import exercise_state as state
from tao.repo import CLIError

E = state.Exercise(3, "e03_third", "Title 3", "06", "hint 3")


def record(outcome, test="test_a", message=""):
    return {"exercise": E.name, "test": test, "outcome": outcome, "message": message}


def judged(*records, hung=False):
    result = runner._judge(E, list(records), hung, runner.run_timeout())
    return None if result is None else (result.status, result.test)


# ---------------------------------------------------------------- one exercise's status


def test_every_test_passing_is_done_and_no_test_at_all_is_no_answer():
    assert judged(record("passed"), record("passed", "test_b")) == ("done", "")
    assert judged() is None


def test_one_failing_test_among_passes_is_failing_and_names_that_test():
    assert judged(record("passed"), record("failed", "test_b", "assert 1 == 2"),
                  record("passed", "test_c")) == ("failing", "test_b")


def test_a_failure_that_says_it_was_still_running_is_a_timeout():
    still = f"exercise 03: still running after {runner.run_timeout():g} s, so probably a loop"
    assert judged(record("passed"), record("failed", "test_b", still)) == ("timeout", "test_b")


def test_only_the_first_failure_is_reported():
    assert judged(record("failed", "test_a", "x"), record("failed", "test_b", "y")) == (
        "failing", "test_a")


def test_an_exercise_all_stub_is_not_attempted_and_part_stub_is_failing():
    waiting = record("not attempted", "test_a", "write me")
    assert judged(waiting, record("not attempted", "test_b")) == ("not attempted", "test_a")
    assert judged(record("passed"), record("not attempted", "test_b")) == ("failing", "test_b")
    assert judged(record("not attempted", "test_b"), record("passed")) == ("failing", "test_b")


def test_a_real_failure_outranks_a_stub_part_and_a_skip():
    failed = record("failed", "test_c", "assert False")
    assert judged(record("not attempted", "test_a"), failed) == ("failing", "test_c")
    assert judged(record("skipped", "test_a"), failed) == ("failing", "test_c")


def test_a_stub_part_is_reported_before_a_skipped_test():
    assert judged(record("skipped", "test_a"), record("not attempted", "test_b")) == (
        "failing", "test_b")


def test_a_skipped_test_is_not_a_pass():
    assert judged(record("passed"), record("skipped", "test_b", "no network")) == (
        "failing", "test_b")


def test_what_an_exercise_says_comes_from_its_first_stub_part_or_skip():
    def said(*records):
        return runner._judge(E, list(records), False, runner.run_timeout()).message

    first, second = record("not attempted", "test_a", "write part one"), record(
        "not attempted", "test_b", "write part two")
    assert said(first, second) == "write part one"
    partly = said(record("passed"), first, second)
    assert judged(record("passed"), first, second) == ("failing", "test_a")
    assert "write part one" in partly and "write part two" not in partly
    skips = said(record("skipped", "test_a", "needs network"),
                 record("skipped", "test_b", "needs a GPU"))
    assert "needs network" in skips and "needs a GPU" not in skips
    assert judged(record("skipped", "test_a"), record("skipped", "test_b")) == ("failing",
                                                                                "test_a")


def test_a_hang_is_a_timeout_unless_a_test_failed_before_it():
    assert judged(hung=True)[0] == "timeout"
    assert judged(record("passed"), hung=True)[0] == "timeout"
    assert judged(record("not attempted"), hung=True)[0] == "timeout"
    assert judged(record("passed"), record("failed", "test_b", "boom"), hung=True) == (
        "failing", "test_b")


def test_records_are_grouped_by_exercise_in_the_order_written(tmp_path):
    path = tmp_path / "results.jsonl"
    lines = [{"exercise": "e01", "test": "t1", "outcome": "passed", "message": ""},
             {"exercise": "e02", "test": "t1", "outcome": "failed", "message": "m"},
             {"exercise": "e01", "test": "t2", "outcome": "failed", "message": "n"}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    read = runner._read_records(path)
    assert [r["test"] for r in read["e01"]] == ["t1", "t2"]
    assert [r["test"] for r in read["e02"]] == ["t1"]
    assert runner._read_records(tmp_path / "none.jsonl") == {}


# ---------------------------------------------------------------- one run for several


class FakePytest:
    """Stands in for the pytest run: writes the given outcomes where TAO_RESULTS says,
    and keeps what it was asked to run."""

    def __init__(self, outcomes, hung=False):
        self.outcomes, self.hung, self.calls = outcomes, hung, []

    def __call__(self, argv, env, limit):
        self.calls.append((argv, env, limit))
        with open(env["TAO_RESULTS"], "a", encoding="utf-8") as out:
            for name, outcome in self.outcomes.items():
                out.write(json.dumps({"exercise": name, "test": "test_x", "outcome": outcome,
                                      "message": ""}) + "\n")
        return self.hung


@pytest.fixture
def fake_run(monkeypatch):
    def install(outcomes, hung=False):
        fake = FakePytest(outcomes, hung)
        monkeypatch.setattr(runner, "_forked_pytest", fake)
        return fake
    return install


def test_one_run_judges_each_exercise_by_its_own_records(kit, fake_run):  # noqa: F811
    fake = fake_run({"e01_first": "passed", "e02_second": "failed"})
    results = runner.run_tests(kit[:2])
    assert {n: r.status for n, r in results.items()} == {"e01_first": "done",
                                                         "e02_second": "failing"}
    (argv, env, limit), = fake.calls
    assert [a for a in argv if a.endswith(".py")] == [str(e.tests) for e in kit[:2]]
    assert limit == pytest.approx(2 * runner.run_timeout())


def test_the_time_allowed_grows_with_the_number_of_exercises(kit, fake_run):  # noqa: F811
    fake = fake_run({e.name: "passed" for e in kit})
    runner.run_tests(kit[:1])
    runner.run_tests(kit)
    assert [call[2] for call in fake.calls] == pytest.approx(
        [runner.run_timeout(), 3 * runner.run_timeout()])


def test_the_run_is_not_told_to_act_as_the_stub_check(kit, fake_run, monkeypatch):  # noqa: F811
    for name in ("TAO_EXERCISES", "TAO_STUB_CHECK", "TAO_EXERCISES_STRICT"):
        monkeypatch.setenv(name, "1")
    monkeypatch.setenv("TAO_KEPT_FOR_THE_TEST", "yes")
    fake = fake_run({"e01_first": "passed"})
    runner.run_tests(kit[:1])
    env = fake.calls[0][1]
    assert not {"TAO_EXERCISES", "TAO_STUB_CHECK", "TAO_EXERCISES_STRICT"} & env.keys()
    assert env["TAO_KEPT_FOR_THE_TEST"] == "yes" and env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]


def test_an_exercise_whose_tests_never_ran_is_an_error_unless_the_run_hung(kit, fake_run):  # noqa: F811
    fake_run({"e01_first": "passed"})
    with pytest.raises(CLIError, match="did not run"):
        runner.run_tests(kit[:2])
    fake_run({"e01_first": "failed"}, hung=True)  # a hang: whatever never reported timed out
    results = runner.run_tests(kit[:2])
    assert (results["e01_first"].status, results["e02_second"].status) == ("failing",
                                                                          "timeout")


def test_without_fork_the_run_is_a_fresh_interpreter(kit, monkeypatch):  # noqa: F811
    monkeypatch.delattr(runner.os, "fork")
    calls = []

    def process(argv, env, limit):
        calls.append(limit)
        FakePytest({"e01_first": "failed"})(argv, env, limit)
        return False, "1 failed"
    monkeypatch.setattr(runner, "_pytest_process", process)
    assert runner.run_tests(kit[:1])["e01_first"].status == "failing"
    assert calls == [runner.run_timeout()]


# ---------------------------------------------------------------- check and remember


def test_a_check_runs_only_the_edited_and_remembers_their_results(kit, fake_run):  # noqa: F811
    first, second, third = kit
    solve(first)
    solve(third)
    second.path.unlink()
    fake = fake_run({"e01_first": "passed", "e03_third": "failed"})
    known = runner.check_and_save(kit)
    assert [a for a in fake.calls[0][0] if a.endswith(".py")] == [str(first.tests),
                                                                  str(third.tests)]
    assert {n: r.status for n, r in known.items()} == {
        "e01_first": "done", "e02_second": "missing", "e03_third": "failing"}
    assert {n: r.status for n, r in state.statuses(kit).items()} == {
        n: r.status for n, r in known.items()}


def test_a_check_of_stubs_only_runs_nothing(kit, fake_run):  # noqa: F811
    fake = fake_run({})
    known = runner.check_and_save(kit)
    assert fake.calls == [] and {r.status for r in known.values()} == {"not attempted"}


# ---------------------------------------------------------------- the two ways to run


@pytest.fixture
def fake_pytest_module(tmp_path, monkeypatch):
    """A folder whose `python -m pytest` is a stand-in that prints its arguments and
    sleeps as long as its first one says: the process path's plumbing, without pytest."""
    (tmp_path / "pytest.py").write_text(
        "import sys, time\nprint('args', *sys.argv[1:])\nprint('oops', file=sys.stderr)\n"
        "time.sleep(float(sys.argv[1]))\n")
    monkeypatch.setattr(runner, "ROOT", tmp_path)
    return tmp_path


def test_the_process_run_gives_its_output_or_says_it_hung(fake_pytest_module):
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": ""}
    hung, output = runner._pytest_process(["0", "x"], env, limit=10)
    assert not hung and "args 0 x" in output and "oops" in output
    started = time.monotonic()
    assert runner._pytest_process(["30"], env, limit=0.15) == (True, "")
    assert time.monotonic() - started < 10


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the forked run needs os.fork")
def test_the_forked_run_ends_on_its_own_or_is_stopped_at_the_limit(tmp_path, monkeypatch,
                                                                   capfd):
    # a failing test: were pytest run in this process by mistake, its exit would end the
    # test run as failed (a passing one would end it as passed, the mistake unseen)
    quick = tmp_path / "test_quick.py"
    quick.write_text("def test_quick():\n    assert False\n")
    slow = tmp_path / "test_slow.py"
    slow.write_text("import time\n\ndef test_slow():\n    time.sleep(30)\n")
    monkeypatch.setattr(runner, "ROOT", tmp_path)
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    argv = ["-q", "-p", "no:cacheprovider", "-o", "addopts="]
    assert runner._forked_pytest([*argv, str(quick)], env, limit=20) is False
    noisy = tmp_path / "test_noisy.py"
    noisy.write_text("import os\n\ndef test_noisy():\n    os.write(1, b'OUT-LEAK')\n"
                     "    os.write(2, b'ERR-LEAK')\n")
    assert runner._forked_pytest([*argv, "-s", str(noisy)], env, limit=20) is False
    leaked = capfd.readouterr()
    assert "LEAK" not in leaked.out and "LEAK" not in leaked.err  # the fork says nothing
    started = time.monotonic()
    assert runner._forked_pytest([*argv, str(slow)], env, limit=0.15) is True
    assert time.monotonic() - started < 10


def test_tests_that_never_ran_are_explained_by_the_last_line_pytest_printed(kit,  # noqa: F811
                                                                             monkeypatch):
    monkeypatch.delattr(runner.os, "fork")
    monkeypatch.setattr(runner, "_pytest_process",
                        lambda argv, env, limit: (False, "first\nsecond\nERROR the last\n"))
    with pytest.raises(CLIError) as failed:
        runner.run_tests(kit[:1])
    assert "ERROR the last" in str(failed.value)
    assert "second" not in str(failed.value) and "first" not in str(failed.value)


class Finder:
    """An import of `pytest` that notes whether bytecode may be written meanwhile."""

    def __init__(self):
        self.seen = []

    def find_spec(self, name, path=None, target=None):
        import importlib.util

        return importlib.util.spec_from_loader(name, self) if name == "pytest" else None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        self.seen.append(sys.dont_write_bytecode)


def test_pytest_is_imported_keeping_its_bytecode_and_the_setting_is_put_back(monkeypatch):
    finder = Finder()
    monkeypatch.delitem(sys.modules, "pytest")
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    runner._import_pytest()
    assert finder.seen == [False] and sys.dont_write_bytecode is True


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the forked run needs os.fork")
def test_the_limit_counts_from_the_start_and_the_stopped_run_is_reaped(tmp_path, monkeypatch):
    slow = tmp_path / "test_slow.py"
    slow.write_text("import time\n\ndef test_slow():\n    time.sleep(30)\n")
    monkeypatch.setattr(runner, "ROOT", tmp_path)
    clock = iter([1000.0])  # the start; every later reading is three seconds on
    monkeypatch.setattr(time, "monotonic", lambda: next(clock, 1003.0))
    forked, real_fork = [], os.fork

    def fork():
        pid = real_fork()
        if pid:
            forked.append(pid)
        return pid
    monkeypatch.setattr(runner.os, "fork", fork)
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    assert runner._forked_pytest(["-q", "-p", "no:cacheprovider", str(slow)], env,
                                 limit=2) is True
    with pytest.raises(ChildProcessError):  # killed and waited for: no zombie left
        os.waitpid(forked[0], os.WNOHANG)


def test_the_time_allowed_is_read_at_each_run_not_at_import(kit, fake_run, monkeypatch):  # noqa: F811
    """A long-lived process (tao watch, the tests' kit server) runs many checks: each takes
    TAO_CHECK_TIMEOUT as it is then."""
    fake = fake_run({e.name: "passed" for e in kit})
    monkeypatch.setenv("TAO_CHECK_TIMEOUT", "7")
    runner.run_tests(kit[:1])
    monkeypatch.setenv("TAO_CHECK_TIMEOUT", "3")
    runner.run_tests(kit[:1])
    assert [call[2] for call in fake.calls] == pytest.approx([7, 3])
