# Don't change the tests! They tell you when exercises/e13_merge_same_role.py is done.
import copy

from exercise_support import need
from fake_api import check_anthropic

TOOL_USE = {"type": "tool_use", "id": "t1", "name": "now", "input": {}}
RESULT = {"type": "tool_result", "tool_use_id": "t1", "content": "noon"}


def text(t):
    return {"type": "text", "text": t}


def accepted(messages):
    return check_anthropic({"model": "m", "max_tokens": 5, "stream": True, "messages": messages},
                           {"x-api-key": "k", "anthropic-version": "1"})


def test_turns_alternate_and_nothing_is_lost(ex):
    messages = [
        {"role": "user", "content": "first"}, {"role": "user", "content": "second"},
        {"role": "assistant", "content": [text("let me check")]},
        {"role": "assistant", "content": [TOOL_USE]},
        {"role": "user", "content": "by the way"}, {"role": "user", "content": [RESULT]},
        {"role": "assistant", "content": "noon"},
    ]
    before = copy.deepcopy(messages)
    merged = need(ex, "merge_same_role", "messages")(messages)
    assert messages == before, "merge_same_role must not change its input"
    assert [m["role"] for m in merged] == ["user", "assistant", "user", "assistant"]
    assert merged[0]["content"] == [text("first"), text("second")], (
        "two user strings become one turn of two text blocks, in order")
    assert merged[1]["content"] == [text("let me check"), TOOL_USE], (
        "an assistant's text and tool_use join one turn, in order")
    assert merged[2]["content"] == [RESULT, text("by the way")], (
        "the tool_result must come first in the merged user turn, then the text")
    assert merged[3]["content"] == [text("noon")], (
        "every turn's content becomes a list of blocks, merged or not")
    assert accepted(merged) is None, f"the API would refuse the merge: {accepted(merged)}"


def test_two_results_keep_their_order(ex):
    first = {"type": "tool_result", "tool_use_id": "t1", "content": "noon"}
    second = {"type": "tool_result", "tool_use_id": "t2", "content": "3"}
    messages = [
        {"role": "user", "content": "time and words?"},
        {"role": "assistant", "content": [TOOL_USE, {**TOOL_USE, "id": "t2",
                                                     "name": "wordcount"}]},
        {"role": "user", "content": [first]}, {"role": "user", "content": "and then?"},
        {"role": "user", "content": [second]},
    ]
    merged = need(ex, "merge_same_role", "messages")(messages)
    assert merged[2]["content"] == [first, second, text("and then?")], (
        "results first, in the order they came (t1 then t2), then the text; got "
        f"{merged[2]['content']}")
    assert accepted(merged) is None, f"the API would refuse the merge: {accepted(merged)}"


def test_an_alternating_history_only_gains_block_lists(ex):
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    got = need(ex, "merge_same_role", "messages")(messages)
    assert got == [{"role": "user", "content": [text("hi")]},
                   {"role": "assistant", "content": [text("hello")]}], (
        f"nothing to merge, but every content still becomes a list of blocks; got {got}")
