# Don't change the tests! They tell you when exercises/e05_orphans.py is done.
import copy

import pytest
from exercise_support import need
from fake_api import check_anthropic, check_openai

from shared.providers.anthropic_provider import to_anthropic
from shared.providers.openai_provider import to_openai


def user(text):
    return {"role": "user", "content": text}


def calls(*ids, text=""):
    return {"role": "assistant", "content": text,
            "tool_calls": [{"id": i, "name": "now", "args": {}} for i in ids]}


def result(i, content="noon"):
    return {"role": "tool", "tool_call_id": i, "name": "now", "content": content}


def accepted(messages):
    """None if both APIs would take this history, else what they object to."""
    return (check_openai({"model": "m", "stream": True, "messages": to_openai(messages)},
                         {"authorization": "Bearer k"})
            or check_anthropic({"model": "m", "max_tokens": 5, "stream": True,
                                "messages": to_anthropic(messages)},
                               {"x-api-key": "k", "anthropic-version": "1"}))


BROKEN = {
    "orphan result": [user("hi"), result("ghost"), {"role": "assistant", "content": "hello"},
                      user("bye")],
    "missing result": [user("time?"), calls("a"), user("well?")],
    "one of two missing": [user("time?"), calls("a", "b"), result("b"), user("and?")],
    "missing at the end": [user("time?"), calls("a", "b"), result("a")],
    "orphan and missing": [user("x"), result("zz"), calls("a"), user("y"), calls("b"),
                           result("b"), {"role": "assistant", "content": "done"}, user("z")],
    "late result": [user("time?"), calls("a"), user("well?"), result("a", "late")],
    "duplicate result": [user("time?"), calls("a"), result("a"), result("a", "again")],
    "result of an older turn": [user("t?"), calls("a"), result("a"),
                                {"role": "assistant", "content": "noon"}, user("again?"),
                                calls("b"), result("a", "stale"), result("b")],
}

EXPECTED = {  # what a careful repair gives, message by message
    "late result": [user("time?"), calls("a"), result("a", "Error: no result: the call was "
                                                      "interrupted or lost"), user("well?")],
    "duplicate result": [user("time?"), calls("a"), result("a")],
    "result of an older turn": [user("t?"), calls("a"), result("a"),
                                {"role": "assistant", "content": "noon"}, user("again?"),
                                calls("b"), result("b")],
}


@pytest.mark.parametrize("name", BROKEN)
def test_repaired_histories_are_accepted_by_both_apis(ex, name):
    messages = BROKEN[name]
    assert accepted(messages), f"the test's '{name}' history should be broken to begin with"
    repaired = need(ex, "repair", "messages")(copy.deepcopy(messages))
    problem = accepted(repaired)
    assert problem is None, f"'{name}': the repaired history is still refused: {problem}"
    assert messages == BROKEN[name], "repair must leave the list it was given as it was"


@pytest.mark.parametrize("name", EXPECTED)
def test_late_and_repeated_results_are_dropped(ex, name):
    repaired = need(ex, "repair", "messages")(copy.deepcopy(BROKEN[name]))
    assert repaired == EXPECTED[name], (
        f"'{name}': a tool message may only answer a call of the assistant turn just before "
        f"it, once; got roles {[m['role'] for m in repaired]} with contents "
        f"{[m.get('content') for m in repaired]}")


def test_a_backfilled_result_sits_after_the_existing_ones(ex):
    repaired = need(ex, "repair", "messages")(BROKEN["one of two missing"])
    assert [m["role"] for m in repaired] == ["user", "assistant", "tool", "tool", "user"], (
        "the missing result belongs between the existing one and the next user message")
    assert repaired[2] == result("b"), "the real result stays first, untouched"
    assert repaired[3]["tool_call_id"] == "a" and repaired[3]["content"] == ex.MISSING_RESULT


def test_orphans_are_dropped_and_the_rest_kept(ex):
    repaired = need(ex, "repair", "messages")(BROKEN["orphan result"])
    assert repaired == [user("hi"), {"role": "assistant", "content": "hello"}, user("bye")]


def test_a_valid_history_comes_back_equal_and_the_input_is_unchanged(ex):
    valid = [user("t?"), calls("a", "b"), result("a"), result("b"),
             {"role": "assistant", "content": "noon twice"}]
    before = copy.deepcopy(valid)
    repaired = need(ex, "repair", "messages")(valid)
    assert repaired == before, "a valid history needs no change"
    assert valid == before and repaired is not valid, (
        "repair must return a new list and leave its input alone")
    repaired[0]["content"] = "edited"
    assert valid[0]["content"] == "t?", "copy each message: the caller's dicts must not change"
