# Don't change the tests! They tell you when exercises/e13_merge_same_role.py is done.
import copy

from exercise_support import need
from fake_api import check_anthropic


def tool_use(call_id="t1", name="now"):
    return {"type": "tool_use", "id": call_id, "name": name, "input": {}}


def result(call_id="t1", content="noon"):
    return {"type": "tool_result", "tool_use_id": call_id, "content": content}


def text(t):
    return {"type": "text", "text": t}


def accepted(messages):
    return check_anthropic({"model": "m", "max_tokens": 5, "stream": True, "messages": messages},
                           {"x-api-key": "k", "anthropic-version": "1"})


def test_turns_alternate_and_nothing_is_lost(ex):
    messages = [
        {"role": "user", "content": "first"}, {"role": "user", "content": "second"},
        {"role": "assistant", "content": [text("let me check")]},
        {"role": "assistant", "content": [tool_use()]},
        {"role": "user", "content": "by the way"}, {"role": "user", "content": [result()]},
        {"role": "assistant", "content": "noon"},
    ]
    before = copy.deepcopy(messages)
    merged = need(ex, "merge_same_role", "messages")(messages)
    assert messages == before, "merge_same_role must not change its input"
    assert [m["role"] for m in merged] == ["user", "assistant", "user", "assistant"]
    assert merged[0]["content"] == [text("first"), text("second")], (
        "two user strings become one turn of two text blocks, in order")
    assert merged[1]["content"] == [text("let me check"), tool_use()], (
        "an assistant's text and tool_use join one turn, in order")
    assert merged[2]["content"] == [result(), text("by the way")], (
        "the tool_result must come first in the merged user turn, then the text")
    assert merged[3]["content"] == [text("noon")], (
        "every turn's content becomes a list of blocks, merged or not")
    assert accepted(merged) is None, f"the API would refuse the merge: {accepted(merged)}"


def test_two_results_keep_their_order(ex):
    first, second = result("t2"), result("t1", "3")  # t2 was called first
    messages = [
        {"role": "user", "content": "time and words?"},
        {"role": "assistant", "content": [tool_use("t2"), tool_use("t1", "wordcount")]},
        {"role": "user", "content": [first]}, {"role": "user", "content": "and then?"},
        {"role": "user", "content": [second]},
    ]
    merged = need(ex, "merge_same_role", "messages")(messages)
    assert merged[2]["content"] == [first, second, text("and then?")], (
        "results first, in the order they came (t2 then t1), then the text; got "
        f"{merged[2]['content']}")
    assert accepted(merged) is None, f"the API would refuse the merge: {accepted(merged)}"


def test_an_alternating_history_only_gains_block_lists(ex):
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    got = need(ex, "merge_same_role", "messages")(messages)
    assert got == [{"role": "user", "content": [text("hi")]},
                   {"role": "assistant", "content": [text("hello")]}], (
        f"nothing to merge, but every content still becomes a list of blocks; got {got}")


def test_three_turns_in_a_row_become_one(ex):
    messages = [{"role": "user", "content": "one"}, {"role": "user", "content": [text("two")]},
                {"role": "user", "content": "three"}, {"role": "assistant", "content": "ok"},
                {"role": "assistant", "content": "then"}, {"role": "assistant", "content": "end"}]
    merged = need(ex, "merge_same_role", "messages")(messages)
    assert merged == [
        {"role": "user", "content": [text("one"), text("two"), text("three")]},
        {"role": "assistant", "content": [text("ok"), text("then"), text("end")]}], (
        f"three user turns in a row are one turn, and three assistant turns another; got "
        f"{[(m['role'], len(m['content'])) for m in merged]} (role, blocks)")


def test_a_turn_that_needs_no_merge_still_puts_its_results_first(ex):
    messages = [{"role": "user", "content": "time?"},
                {"role": "assistant", "content": [tool_use("t1"), text("checking")]},
                {"role": "user", "content": [text("here:"), result("t1")]}]
    merged = need(ex, "merge_same_role", "messages")(messages)
    assert merged[2]["content"] == [result("t1"), text("here:")], (
        "every user turn, merged or not, has its tool_result blocks first; got "
        f"{[b['type'] for b in merged[2]['content']]}")
    assert merged[1]["content"] == [tool_use("t1"), text("checking")], (
        "only user turns are reordered: an assistant turn keeps its blocks in their order")


def test_an_empty_turn_is_kept_too(ex):
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": ""},
                {"role": "user", "content": "still there?"}]
    merged = need(ex, "merge_same_role", "messages")(messages)
    assert [m["role"] for m in merged] == ["user", "assistant", "user"] and merged[1][
        "content"] == [text("")], (
        "nothing is dropped, not even an assistant turn with no text: it stays between the "
        "two user turns, as one empty text block, and they stay apart; got "
        f"{[(m['role'], m['content']) for m in merged]}")


def test_nothing_in_nothing_out(ex):
    assert need(ex, "merge_same_role", "messages")([]) == [], "an empty history stays empty"
