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
    """One assistant turn calling `now` once per id (wordcount for an id starting with w)."""
    return {"role": "assistant", "content": text,
            "tool_calls": [{"id": i, "name": name(i), "args": {}} for i in ids]}


def name(i):
    return "wordcount" if i.startswith("w") else "now"


def result(i, content="noon"):
    return {"role": "tool", "tool_call_id": i, "name": name(i), "content": content}


def lost(i):
    """The result a careful repair backfills for call `i`."""
    return result(i, "Error: no result: the call was interrupted or lost")


def accepted(messages):
    """None if both APIs would take this history, else what they object to."""
    return (check_openai({"model": "m", "stream": True, "messages": to_openai(messages)},
                         {"authorization": "Bearer k"})
            or check_anthropic({"model": "m", "max_tokens": 5, "stream": True,
                                "messages": to_anthropic(messages)},
                               {"x-api-key": "k", "anthropic-version": "1"}))


def broken():
    """Each broken history (a new copy on every call), and what a careful repair gives."""
    answer, done = {"role": "assistant", "content": "hello"}, {"role": "assistant",
                                                               "content": "done"}
    noon = {"role": "assistant", "content": "noon"}
    return {
        "orphan result": ([user("hi"), result("ghost"), answer, user("bye")],
                          [user("hi"), answer, user("bye")]),
        "missing result": ([user("time?"), calls("a"), user("well?")],
                           [user("time?"), calls("a"), lost("a"), user("well?")]),
        "one of two missing": ([user("time?"), calls("a", "w"), result("w", "3"), user("and?")],
                               [user("time?"), calls("a", "w"), result("w", "3"), lost("a"),
                                user("and?")]),
        "missing at the end": ([user("time?"), calls("a", "w"), result("a")],
                               [user("time?"), calls("a", "w"), result("a"), lost("w")]),
        "orphan and missing": ([user("x"), result("zz"), calls("a"), user("y"), calls("b"),
                                result("b"), done, user("z")],
                               [user("x"), calls("a"), lost("a"), user("y"), calls("b"),
                                result("b"), done, user("z")]),
        "late result": ([user("time?"), calls("a"), user("well?"), result("a", "late")],
                        [user("time?"), calls("a"), lost("a"), user("well?")]),
        "duplicate result": ([user("time?"), calls("a"), result("a"), result("a", "again")],
                             [user("time?"), calls("a"), result("a")]),
        "result of an older turn": ([user("t?"), calls("a"), result("a"), noon, user("again?"),
                                     calls("b"), result("a", "stale"), result("b")],
                                    [user("t?"), calls("a"), result("a"), noon,
                                     user("again?"), calls("b"), result("b")]),
        "two turns missing": ([user("t?"), calls("a", "w"), user("again?"), calls("b")],
                              [user("t?"), calls("a", "w"), lost("a"), lost("w"),
                               user("again?"), calls("b"), lost("b")]),
    }


def repair(ex, messages):
    return need(ex, "repair", "messages")(messages)


@pytest.mark.parametrize("name", list(broken()))
def test_repaired_histories_are_accepted_by_both_apis(ex, name):
    messages, _ = broken()[name]
    assert accepted(messages), f"the test's '{name}' history should be broken to begin with"
    problem = accepted(repair(ex, messages))
    assert problem is None, f"'{name}': the repaired history is still refused: {problem}"
    assert messages == broken()[name][0], "repair must leave the list it was given as it was"


@pytest.mark.parametrize("name", list(broken()))
def test_each_repair_message_by_message(ex, name):
    messages, expected = broken()[name]
    repaired = repair(ex, messages)
    assert repaired == expected, (
        f"'{name}': a tool message may only answer a call of the assistant turn just before "
        f"it, once, and a call with no result gets one (its id, its name, MISSING_RESULT) "
        f"right after its turn's results; expected roles {[m['role'] for m in expected]} "
        f"with contents {[m.get('content') for m in expected]}, got roles "
        f"{[m['role'] for m in repaired]} with contents {[m.get('content') for m in repaired]}")


def test_a_backfilled_result_sits_after_the_existing_ones(ex):
    repaired = repair(ex, broken()["one of two missing"][0])
    assert [m["role"] for m in repaired] == ["user", "assistant", "tool", "tool", "user"], (
        "the missing result belongs between the existing one and the next user message")
    assert repaired[2] == result("w", "3"), "the real result stays first, untouched"
    assert repaired[3] == {"role": "tool", "tool_call_id": "a", "name": "now",
                           "content": ex.MISSING_RESULT}, (
        f"the backfilled result carries the call's id and name, and MISSING_RESULT; got "
        f"{repaired[3]}")


def test_results_in_another_order_than_their_calls_stay_as_they_are(ex):
    given = [user("time and words?"), calls("a", "w"), result("w", "3"), result("a"),
             {"role": "assistant", "content": "noon, 3 words"}]
    repaired = repair(ex, [dict(m) for m in given])
    assert repaired == given, (
        "both calls have their result, once, right after their turn: nothing to repair, "
        "and the results keep the order they came in; got the tool_call_ids "
        f"{[m.get('tool_call_id') for m in repaired if m['role'] == 'tool']}")


def test_an_empty_history_stays_empty(ex):
    assert repair(ex, []) == [], "nothing to repair in an empty history"


def test_a_valid_history_comes_back_equal_and_the_input_is_unchanged(ex):
    valid = [user("t?"), calls("a", "b"), result("a"), result("b"),
             {"role": "assistant", "content": "noon twice"}]
    before = copy.deepcopy(valid)
    repaired = repair(ex, valid)
    assert repaired == before, "a valid history needs no change"
    assert valid == before and repaired is not valid, (
        "repair must return a new list and leave its input alone")
    for message in repaired:
        message["content"] = "edited later"
    assert valid == before, (
        "the messages returned are copies: editing the repaired history later must not edit "
        "the caller's; build each with dict(message)")
