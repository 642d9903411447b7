"""How `tao check` runs an exercise's tests and turns their outcomes into its status
(tao/exercise_runner.py), on a small kit (`helpers.small_kit`). Is one failing test among
passes "failing"? Is a stub left in one part of an exercise "not attempted" or "failing"?
Does a hang that also failed a test count as a failure? Does the time allowed grow with
the exercises run? Then the two ways a run is made: a fork of this process, or a fresh
interpreter where there is no fork.

What a learner (and the exercise's tests) see of the run, each held by a test below:
- each exercise's status from its own records: done, failing (naming the first failure),
  not attempted (all stub), timeout; a skip is no pass; no record at all is an error
  unless the run hung;
- the time allowed grows with the number of exercises, read at each run;
- the tests run with the learner's environment, less the maintainers' check settings
  (TAO_EXERCISES, TAO_STUB_CHECK, TAO_EXERCISES_STRICT), plus where to write results and
  no plugin autoload, in the kit's folder; whether forked or in a fresh interpreter;
- the forked run says nothing on the screen, ends on its own or is stopped at its limit.
"""

from __future__ import annotations

import json
import os
import sys
import time

import pytest
from helpers import small_kit, solve

from tao import exercise_runner as runner
from tao import exercise_state as state
from tao.repo import CLIError


@pytest.fixture
def kit(tmp_path, monkeypatch):
    return small_kit(tmp_path, monkeypatch)


class FakePytest:
    """Stands in for the pytest run: writes the given records where TAO_RESULTS says
    (as tests/exercises/conftest.py does), and keeps what it was asked to run."""

    def __init__(self, records, hung=False):
        self.records, self.hung, self.calls = records, hung, []

    def __call__(self, argv, env, limit):
        self.calls.append((argv, env, limit))
        if self.records:  # a run that never got to a test writes no file at all
            with open(env["TAO_RESULTS"], "a", encoding="utf-8") as out:
                out.writelines(json.dumps(r) + "\n" for r in self.records)
        return self.hung


@pytest.fixture
def fake_run(monkeypatch):
    """install(outcomes or records, hung=False) -> the FakePytest now standing in."""
    def install(outcomes=None, hung=False, records=()):
        records = [*records, *({"exercise": name, "test": "test_x", "outcome": outcome,
                                "message": ""} for name, outcome in (outcomes or {}).items())]
        fake = FakePytest(records, hung)
        # private: a real run is a fork and a pytest session per check (test_exercise_cli's)
        monkeypatch.setattr(runner, "_forked_pytest", fake)
        return fake
    return install


def record(outcome, test="test_a", message=""):
    """One test's outcome for the kit's third exercise, as its tests report it."""
    return {"exercise": "e03_third", "test": test, "outcome": outcome, "message": message}


@pytest.fixture
def judge(kit, fake_run):
    """records -> the Result `tao check` gives the third exercise after a run that wrote
    them (None: the run says the tests never ran)."""
    def run(*records, hung=False):
        fake_run(records=records, hung=hung)
        try:
            return runner.run_tests([kit[2]])["e03_third"]
        except CLIError as error:
            assert "did not run" in str(error)
            return None
    return run


@pytest.fixture
def judged(judge):
    """records -> (status, test) of the third exercise, or None."""
    def run(*records, hung=False):
        result = judge(*records, hung=hung)
        return None if result is None else (result.status, result.test)
    return run


# ---------------------------------------------------------------- one exercise's status


def test_every_test_passing_is_done_and_no_test_at_all_is_no_answer(judged):
    assert judged(record("passed"), record("passed", "test_b")) == ("done", "")
    assert judged() is None


def test_one_failing_test_among_passes_is_failing_and_names_that_test(judged):
    assert judged(record("passed"), record("failed", "test_b", "assert 1 == 2"),
                  record("passed", "test_c")) == ("failing", "test_b")


def test_a_failure_that_says_it_was_still_running_is_a_timeout(judged):
    still = f"exercise 03: still running after {runner.run_timeout():g} s, so probably a loop"
    assert judged(record("passed"), record("failed", "test_b", still)) == ("timeout", "test_b")


def test_only_the_first_failure_is_reported(judged):
    assert judged(record("failed", "test_a", "x"), record("failed", "test_b", "y")) == (
        "failing", "test_a")


def test_an_exercise_all_stub_is_not_attempted_and_part_stub_is_failing(judged):
    waiting = record("not attempted", "test_a", "write me")
    assert judged(waiting, record("not attempted", "test_b")) == ("not attempted", "test_a")
    assert judged(record("passed"), record("not attempted", "test_b")) == ("failing", "test_b")
    assert judged(record("not attempted", "test_b"), record("passed")) == ("failing", "test_b")


def test_a_real_failure_outranks_a_stub_part_and_a_skip(judged):
    failed = record("failed", "test_c", "assert False")
    assert judged(record("not attempted", "test_a"), failed) == ("failing", "test_c")
    assert judged(record("skipped", "test_a"), failed) == ("failing", "test_c")


def test_a_stub_part_is_reported_before_a_skipped_test(judged):
    assert judged(record("skipped", "test_a"), record("not attempted", "test_b")) == (
        "failing", "test_b")


def test_a_skipped_test_is_not_a_pass(judged):
    assert judged(record("passed"), record("skipped", "test_b", "no network")) == (
        "failing", "test_b")


def test_what_an_exercise_says_comes_from_its_first_stub_part_or_skip(judged, judge):
    def said(*records):
        return judge(*records).message

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


def test_a_hang_is_a_timeout_unless_a_test_failed_before_it(judged):
    assert judged(hung=True)[0] == "timeout"
    assert judged(record("passed"), hung=True)[0] == "timeout"
    assert judged(record("not attempted"), hung=True)[0] == "timeout"
    assert judged(record("passed"), record("failed", "test_b", "boom"), hung=True) == (
        "failing", "test_b")


def test_records_are_told_apart_by_exercise_and_kept_in_the_order_written(kit, fake_run):
    fake_run(records=[
        {"exercise": "e01_first", "test": "t1", "outcome": "failed", "message": "first"},
        {"exercise": "e02_second", "test": "t1", "outcome": "passed", "message": ""},
        {"exercise": "e01_first", "test": "t2", "outcome": "failed", "message": "second"}])
    results = runner.run_tests(kit[:2])
    assert (results["e01_first"].test, results["e01_first"].message) == ("t1", "first")
    assert results["e02_second"].status == "done"


# ---------------------------------------------------------------- one run for several


def test_one_run_judges_each_exercise_by_its_own_records(kit, fake_run):
    fake = fake_run({"e01_first": "passed", "e02_second": "failed"})
    results = runner.run_tests(kit[:2])
    assert {n: r.status for n, r in results.items()} == {"e01_first": "done",
                                                         "e02_second": "failing"}
    (argv, env, limit), = fake.calls
    assert [a for a in argv if a.endswith(".py")] == [str(e.tests) for e in kit[:2]]
    assert limit == pytest.approx(2 * runner.run_timeout())


def test_the_time_allowed_grows_with_the_number_of_exercises(kit, fake_run):
    fake = fake_run({e.name: "passed" for e in kit})
    runner.run_tests(kit[:1])
    runner.run_tests(kit)
    assert [call[2] for call in fake.calls] == pytest.approx(
        [runner.run_timeout(), 3 * runner.run_timeout()])


def test_the_run_is_not_told_to_act_as_the_stub_check(kit, fake_run, monkeypatch):
    for name in ("TAO_EXERCISES", "TAO_STUB_CHECK", "TAO_EXERCISES_STRICT"):
        monkeypatch.setenv(name, "1")
    monkeypatch.setenv("TAO_KEPT_FOR_THE_TEST", "yes")
    fake = fake_run({"e01_first": "passed"})
    runner.run_tests(kit[:1])
    env = fake.calls[0][1]
    assert not {"TAO_EXERCISES", "TAO_STUB_CHECK", "TAO_EXERCISES_STRICT"} & env.keys()
    assert env["TAO_KEPT_FOR_THE_TEST"] == "yes" and env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]


def test_an_exercise_whose_tests_never_ran_is_an_error_unless_the_run_hung(kit, fake_run):
    fake_run({"e01_first": "passed"})
    with pytest.raises(CLIError, match="did not run"):
        runner.run_tests(kit[:2])
    fake_run({"e01_first": "failed"}, hung=True)  # a hang: whatever never reported timed out
    results = runner.run_tests(kit[:2])
    assert (results["e01_first"].status, results["e02_second"].status) == ("failing",
                                                                          "timeout")
    fake_run({}, hung=True)  # hung before any test wrote a word
    assert {r.status for r in runner.run_tests(kit[:2]).values()} == {"timeout"}


def test_the_time_allowed_is_read_at_each_run_not_at_import(kit, fake_run, monkeypatch):
    """A long-lived process (tao watch, the tests' kit server) runs many checks: each takes
    TAO_CHECK_TIMEOUT as it is then."""
    fake = fake_run({e.name: "passed" for e in kit})
    monkeypatch.setenv("TAO_CHECK_TIMEOUT", "7")
    runner.run_tests(kit[:1])
    monkeypatch.setenv("TAO_CHECK_TIMEOUT", "3")
    runner.run_tests(kit[:1])
    assert [call[2] for call in fake.calls] == pytest.approx([7, 3])


# ---------------------------------------------------------------- check and remember


def test_a_check_runs_only_the_edited_and_remembers_their_results(kit, fake_run):
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


def test_a_check_of_stubs_only_runs_nothing(kit, fake_run):
    fake = fake_run({})
    known = runner.check_and_save(kit)
    assert fake.calls == [] and {r.status for r in known.values()} == {"not attempted"}


# ---------------------------------------------------------------- without fork: a fresh interpreter

FAKE_PYTEST = """import json, os, sys, time
print("args", *sys.argv[1:])
time.sleep(float(os.environ.get("FAKE_SLEEP", "0")))
outcome = os.environ.get("FAKE_OUTCOME")
for test in (a for a in sys.argv[1:] if outcome and a.endswith(".py")):
    with open(os.environ["TAO_RESULTS"], "a") as out:
        out.write(json.dumps({"exercise": test.rsplit("test_", 1)[1][:-3], "test": "test_x",
                              "outcome": outcome, "message": "said so"}) + "\\n")
print("first", file=sys.stderr)
print("ERROR the last", file=sys.stderr)
"""


@pytest.fixture
def without_fork(kit, tmp_path, monkeypatch):
    """A system without os.fork, whose `python -m pytest` (run in the kit's folder) is a
    stand-in: it prints, sleeps FAKE_SLEEP seconds and reports FAKE_OUTCOME for each file."""
    monkeypatch.delattr(runner.os, "fork")
    (tmp_path / "pytest.py").write_text(FAKE_PYTEST)
    monkeypatch.setattr(runner, "ROOT", tmp_path)
    return kit


def test_without_fork_a_fresh_interpreter_runs_the_tests(without_fork, monkeypatch):
    monkeypatch.setenv("FAKE_OUTCOME", "failed")
    result = runner.run_tests(without_fork[:1])["e01_first"]
    assert (result.status, result.message) == ("failing", "said so")


def test_tests_that_never_ran_are_explained_by_the_last_line_pytest_printed(without_fork):
    with pytest.raises(CLIError) as failed:
        runner.run_tests(without_fork[:1])
    assert "(ERROR the last)" in str(failed.value), "the line as text, in brackets"
    assert "first" not in str(failed.value) and "args" not in str(failed.value)


def test_without_fork_a_run_past_its_time_is_stopped_as_a_hang(without_fork, monkeypatch):
    monkeypatch.setenv("FAKE_SLEEP", "30")
    monkeypatch.setenv("TAO_CHECK_TIMEOUT", "0.15")
    started = time.monotonic()
    assert runner.run_tests(without_fork[:1])["e01_first"].status == "timeout"
    assert time.monotonic() - started < 10


# ---------------------------------------------------------------- with fork: this process, forked


@pytest.fixture
def real_tests(kit, tmp_path, monkeypatch):
    """test file name -> its source, written as the kit's first exercise's tests (no
    conftest reports outcomes: a run that ends on its own says the tests did not run)."""
    monkeypatch.setattr(runner, "ROOT", tmp_path)

    def write(source):
        kit[0].tests.parent.mkdir(parents=True, exist_ok=True)
        kit[0].tests.write_text(source)
        return kit[:1]
    return write


FORKED = pytest.mark.skipif(not hasattr(os, "fork"), reason="the forked run needs os.fork")


@FORKED
def test_the_forked_run_ends_on_its_own_or_is_stopped_at_the_limit(real_tests, capfd,
                                                                   monkeypatch):
    # a failing test: were pytest run in this process by mistake, its exit would end the
    # test run as failed (a passing one would end it as passed, the mistake unseen)
    with pytest.raises(CLIError, match="did not run"):
        runner.run_tests(real_tests("def test_quick():\n    assert False\n"))
    noisy = ("import os\n\ndef test_noisy(capfd):\n    with capfd.disabled():  # past pytest's "
             "own capture\n        os.write(1, b'OUT-LEAK')\n        os.write(2, b'ERR-LEAK')\n")
    with pytest.raises(CLIError, match="did not run"):
        runner.run_tests(real_tests(noisy))
    leaked = capfd.readouterr()
    assert "LEAK" not in leaked.out and "LEAK" not in leaked.err  # the fork says nothing
    monkeypatch.setenv("TAO_CHECK_TIMEOUT", "0.15")
    started = time.monotonic()
    slow = real_tests("import time\n\ndef test_slow():\n    time.sleep(30)\n")
    assert runner.run_tests(slow)["e01_first"].status == "timeout"
    assert time.monotonic() - started < 10


@FORKED
def test_the_limit_counts_from_the_start_and_the_stopped_run_is_reaped(real_tests,
                                                                       monkeypatch):
    slow = real_tests("import time\n\ndef test_slow():\n    time.sleep(30)\n")
    monkeypatch.setenv("TAO_CHECK_TIMEOUT", "2")
    clock = iter([1000.0])  # the start; every later reading is three seconds on
    monkeypatch.setattr(time, "monotonic", lambda: next(clock, 1003.0))
    forked, real_fork = [], os.fork

    def fork():
        pid = real_fork()
        if pid:
            forked.append(pid)
        return pid
    monkeypatch.setattr(runner.os, "fork", fork)
    assert runner.run_tests(slow)["e01_first"].status == "timeout"
    with pytest.raises(ChildProcessError):  # killed and waited for: no zombie left
        os.waitpid(forked[0], os.WNOHANG)


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


@FORKED
def test_pytest_is_imported_keeping_its_bytecode_and_the_setting_is_put_back(real_tests,
                                                                             monkeypatch):
    finder = Finder()  # an empty `pytest`: the fork fails at once, no test reports
    monkeypatch.delitem(sys.modules, "pytest")
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    with pytest.raises(CLIError, match="did not run"):
        runner.run_tests(real_tests("def test_it():\n    pass\n"))
    assert finder.seen == [False] and sys.dont_write_bytecode is True


@FORKED
def test_the_forked_check_gets_the_parents_environment_less_the_check_settings(
        real_tests, tmp_path, monkeypatch):
    seen = tmp_path / "seen.json"
    for name in ("TAO_EXERCISES", "TAO_STUB_CHECK", "TAO_EXERCISES_STRICT"):
        monkeypatch.setenv(name, "1")  # a maintainer's settings, left in the shell
    monkeypatch.setenv("LEARNER_SETTING", "kept")
    source = ("import json, os\n\ndef test_env():\n"
              f"    open({str(seen)!r}, 'w').write(json.dumps([dict(os.environ), os.getcwd()]))\n")
    with pytest.raises(CLIError, match="did not run"):  # no conftest here reports outcomes
        runner.run_tests(real_tests(source))
    env, where = json.loads(seen.read_text())
    assert env["LEARNER_SETTING"] == "kept" and where == str(tmp_path)
    assert not {"TAO_EXERCISES", "TAO_STUB_CHECK", "TAO_EXERCISES_STRICT"} & set(env)
    assert env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] == "1" and env["TAO_RESULTS"].endswith(
        "results.jsonl")
