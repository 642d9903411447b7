# Don't change the tests! They tell you when exercises/e08_schema_args.py is done.
import copy

import pytest
from exercise_support import need

from shared.providers import Tool

GOOD = [{"low": 1, "high": 6}, {"low": 1000, "high": 1000}, {"low": 5, "high": 500}]
BAD = [  # arguments, then words the one-line problem must contain
    ({"low": 1}, ["high"]),                               # missing
    ({}, ["low"]),                                        # both missing: the first is named
    ({"low": 1, "high": 6, "seed": 3}, ["seed"]),         # unknown argument
    ({"low": "1", "high": 6}, ["low", "integer"]),        # a string, not an integer
    ({"low": 1.5, "high": 6}, ["low", "integer"]),        # a float, not an integer
    ({"low": True, "high": 6}, ["low", "integer"]),       # a bool is not an integer
    ({"low": 0, "high": 6}, ["low", "1"]),                # below minimum: name the bound
    ({"low": 1, "high": 1001}, ["high", "1000"]),         # above maximum: name the bound
]



def mixed():
    """A schema of every other type; a new copy on every call."""
    return {"type": "object", "properties": {
        "text": {"type": "string"}, "ratio": {"type": "number", "minimum": 0, "maximum": 2},
        "loud": {"type": "boolean"}, "note": {}}, "required": ["text"]}


MIXED_GOOD = [{"text": "hi"}, {"text": "hi", "ratio": 0.5, "loud": False},
              {"text": "", "ratio": 2}, {"text": "", "ratio": 0.0, "loud": True},
              {"text": "x", "note": [1, 2]}, {"text": "x", "extra": 1}]
MIXED_BAD = [
    ({"text": 5}, ["text", "string"]), ({"text": "x", "ratio": "0.5"}, ["ratio", "number"]),
    ({"text": "x", "ratio": True}, ["ratio", "number"]), ({"text": "x", "loud": 1}, ["loud",
                                                                                  "boolean"]),
    ({"text": "x", "loud": "true"}, ["loud", "boolean"]),
    ({"text": "x", "ratio": -3}, ["ratio", "0"]), ({"text": "x", "ratio": 7.5}, ["ratio", "2"]),
    ({"ratio": 0.5}, ["text"]),
]


def validate(ex, schema, args):
    """The learner's validate on copies of the test's data, so no test sees another's."""
    return need(ex, "validate", "schema", "args")(copy.deepcopy(schema), copy.deepcopy(args))


@pytest.mark.parametrize("args", GOOD)
def test_arguments_that_fit_pass(ex, args):
    problem = validate(ex, ex.RANDOM_INT.schema, args)
    assert problem == "", f"{args} fits random_int's schema; validate said {problem!r}"


@pytest.mark.parametrize(("args", "words"), BAD)
def test_arguments_that_do_not_fit_are_named(ex, args, words):
    problem = validate(ex, ex.RANDOM_INT.schema, args)
    assert problem and all(w in problem for w in words), (
        f"validate should reject {args} with a line containing {words}; it said {problem!r}")
    assert "\n" not in problem.strip(), "one line, please"


@pytest.mark.parametrize("args", MIXED_GOOD)
def test_other_types_that_fit_pass(ex, args):
    problem = validate(ex, mixed(), args)
    assert problem == "", (
        f"{args} fits the schema (strings, numbers, booleans, an integer as a number, the "
        f"bounds themselves, an untyped property, extra arguments allowed); validate said "
        f"{problem!r}")


@pytest.mark.parametrize(("args", "words"), MIXED_BAD)
def test_other_types_that_do_not_fit_are_named(ex, args, words):
    problem = validate(ex, mixed(), args)
    assert problem and all(w in problem for w in words), (
        f"validate should reject {args} with a line containing {words}; it said {problem!r}")
    assert "\n" not in problem.strip(), "one line, please"


def test_checked_run_never_runs_a_tool_with_bad_arguments(ex):
    ran = []
    spy = Tool("spy", "records calls", ex.RANDOM_INT.schema, lambda args: ran.append(args) or "ok")
    checked_run = need(ex, "checked_run", "tool", "args")
    refused = checked_run(spy, {"low": 0, "high": 2})
    expected = "Error: " + validate(ex, ex.RANDOM_INT.schema, {"low": 0, "high": 2})
    assert refused == expected, (
        f"checked_run should return 'Error: ' and validate's line, {expected!r}; got "
        f"{refused!r}")
    assert ran == [], "the tool must not run when its arguments are refused"
    assert checked_run(spy, {"low": 1, "high": 2}) == "ok" and ran == [{"low": 1, "high": 2}]


def test_random_int_stays_in_range(ex):
    checked_run = need(ex, "checked_run", "tool", "args")
    rolls = {int(checked_run(ex.RANDOM_INT, {"low": 3, "high": 5})) for _ in range(200)}
    assert rolls == {3, 4, 5}
