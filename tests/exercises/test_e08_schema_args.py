# Don't change the tests! They tell you when exercises/e08_schema_args.py is done.
import pytest
from exercise_support import need

from shared.providers import Tool

GOOD = [{"low": 1, "high": 6}, {"low": 1000, "high": 1000}, {"low": 5, "high": 500}]
BAD = [
    ({"low": 1}, "high"),                        # missing
    ({}, "low"),                                 # both missing: the first is named
    ({"low": 1, "high": 6, "seed": 3}, "seed"),  # unknown argument
    ({"low": "1", "high": 6}, "low"),            # a string, not an integer
    ({"low": 1.5, "high": 6}, "low"),            # a float, not an integer
    ({"low": True, "high": 6}, "low"),           # a bool is not an integer
    ({"low": 0, "high": 6}, "low"),              # below minimum
    ({"low": 1, "high": 1001}, "high"),          # above maximum
]


@pytest.mark.parametrize("args", GOOD)
def test_arguments_that_fit_pass(ex, args):
    assert need(ex, "validate", "schema", "args")(ex.RANDOM_INT.schema, args) == ""


@pytest.mark.parametrize(("args", "culprit"), BAD)
def test_arguments_that_do_not_fit_are_named(ex, args, culprit):
    problem = need(ex, "validate", "schema", "args")(ex.RANDOM_INT.schema, args)
    assert problem and culprit in problem, (
        f"validate should reject {args} and name {culprit!r}; it said {problem!r}")


def test_checked_run_never_runs_a_tool_with_bad_arguments(ex):
    ran = []
    spy = Tool("spy", "records calls", ex.RANDOM_INT.schema, lambda args: ran.append(args) or "ok")
    checked_run = need(ex, "checked_run", "tool", "args")
    assert checked_run(spy, {"low": 0, "high": 2}).startswith("Error: ")
    assert ran == [], "the tool must not run when its arguments are refused"
    assert checked_run(spy, {"low": 1, "high": 2}) == "ok" and ran == [{"low": 1, "high": 2}]


def test_random_int_stays_in_range(ex):
    checked_run = need(ex, "checked_run", "tool", "args")
    rolls = {int(checked_run(ex.RANDOM_INT, {"low": 3, "high": 5})) for _ in range(200)}
    assert rolls == {3, 4, 5}
