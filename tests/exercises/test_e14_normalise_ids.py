# Don't change the tests! They tell you when exercises/e14_normalise_ids.py is done.
import copy
import hashlib
import re

from exercise_support import need

LONG = "gw-route:eu-west:" + "f" * 300
ODD = "call:7/a"
ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]+$")


def history(*ids):
    return [{"role": "user", "content": "go"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": i, "name": "now", "args": {}} for i in ids]},
            *[{"role": "tool", "tool_call_id": i, "name": "now", "content": "noon"} for i in ids],
            {"role": "user", "content": "again"},
            # a later turn that reuses the first id: it must map the same way
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": ids[0], "name": "now", "args": {}}]},
            {"role": "tool", "tool_call_id": ids[0], "name": "now", "content": "noon"}]


def both_apis_accept(messages):
    # the providers clean ids themselves before sending (shared/providers/sanitize.py), so
    # the history's own ids are held to the two APIs' rules: Anthropic's pattern, and
    # OpenAI's 40 characters at most
    ids = [c["id"] for m in messages for c in m.get("tool_calls") or ()]
    ids += [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    return all(ANTHROPIC_ID.match(i) and len(i) <= 40 for i in ids)


def test_long_and_odd_ids_are_replaced_consistently(ex):
    messages = history(LONG, ODD, "call_ok")
    assert not both_apis_accept(messages), "the test history should be refused as it is"
    before = copy.deepcopy(messages)
    fixed = need(ex, "normalise_ids", "messages")(messages)
    assert messages == before, "normalise_ids must return a copy, not edit its input"
    assert both_apis_accept(fixed), "after normalising, both APIs should accept the history"
    expected = "call_" + hashlib.sha1(LONG.encode()).hexdigest()[:16]
    assert fixed[1]["tool_calls"][0]["id"] == expected, (
        f"use call_ + 16 hex digits of SHA-1: expected {expected}, got "
        f"{fixed[1]['tool_calls'][0]['id']}")
    assert fixed[2]["tool_call_id"] == expected and fixed[-1]["tool_call_id"] == expected, (
        "the same old id must become the same new id everywhere, in every turn")
    ids = [c["id"] for c in fixed[1]["tool_calls"]]
    assert ids[2] == "call_ok" and len(set(ids)) == 3, (
        "valid ids stay; different ids stay different")


def test_a_new_id_never_takes_one_already_in_use(ex):
    digest = hashlib.sha1(LONG.encode()).hexdigest()
    squatter = "call_" + digest[:16]  # a valid id that happens to be LONG's new id
    messages = history(LONG, squatter)
    fixed = need(ex, "normalise_ids", "messages")(messages)
    ids = [c["id"] for c in fixed[1]["tool_calls"]]
    assert ids[1] == squatter, "a valid id stays as it is"
    assert ids[0] == "call_" + digest[:17], (
        f"{squatter} is taken, so LONG needs one more hex digit: call_{digest[:17]}; got "
        f"{ids[0]}. Two calls with one id would get each other's results")
    assert [m["tool_call_id"] for m in fixed if m["role"] == "tool"] == [ids[0], ids[1], ids[0]]
    assert both_apis_accept(fixed)


def test_forty_characters_fit_and_forty_one_do_not(ex):
    forty, forty_one = "call_" + "a" * 35, "call_" + "b" * 36
    fixed = need(ex, "normalise_ids", "messages")(history(forty, forty_one, ODD))
    ids = [c["id"] for c in fixed[1]["tool_calls"]]
    new = {old: "call_" + hashlib.sha1(old.encode()).hexdigest()[:16]
           for old in (forty_one, ODD)}
    assert ids == [forty, new[forty_one], new[ODD]], (
        f"an id of exactly 40 characters is valid and stays; one of 41 becomes "
        f"{new[forty_one]}, and {ODD!r} (a ':' and a '/') becomes {new[ODD]}; got {ids}")
    assert [m["tool_call_id"] for m in fixed if m["role"] == "tool"] == [*ids, forty]


def test_a_history_without_calls_comes_back_equal(ex):
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    fixed = need(ex, "normalise_ids", "messages")(messages)
    assert fixed == messages and fixed is not messages, "no ids to fix: an equal copy"
    assert need(ex, "normalise_ids", "messages")([]) == [], "an empty history stays empty"


def test_an_id_with_a_final_newline_is_not_valid(ex):
    fixed = need(ex, "normalise_ids", "messages")(history("call_1\n"))
    expected = "call_" + hashlib.sha1(b"call_1\n").hexdigest()[:16]
    got = fixed[1]["tool_calls"][0]["id"]
    assert got == expected and both_apis_accept(fixed), (
        f"'call_1\\n' ends in a newline, outside [a-zA-Z0-9_-]: it becomes {expected}, not "
        f"{got!r} (VALID.match lets a final newline through; VALID.fullmatch does not)")


def test_each_history_is_normalised_on_its_own(ex):
    normalise = need(ex, "normalise_ids", "messages")
    squatter = "call_" + hashlib.sha1(LONG.encode()).hexdigest()[:16]
    crowded = normalise(history(LONG, squatter))  # here LONG needs a 17th digit
    alone = normalise(history(LONG))  # here nothing is in its way
    assert alone[1]["tool_calls"][0]["id"] == squatter, (
        f"in a history of its own, LONG becomes {squatter}; got "
        f"{alone[1]['tool_calls'][0]['id']} (after a history where that id was taken: a "
        "mapping kept from one call to the next?)")
    assert crowded[1]["tool_calls"][0]["id"] != squatter
