"""What a reply left in the history, made sendable again (shared/providers/sanitize.py).

The end-to-end proof is in test_wire_faults.py ("sessions that recover"): the real SDKs
against the fake API's request rules. These are the pieces, case by case.

What a caller (a provider about to send a history) gets, each held by a test below:
- text UTF-8 can carry: a lone surrogate becomes U+FFFD; a value that is no string, its text;
- an assistant message's text: blank or null becomes "" (never "None"), words stay as they are;
- tool names in the APIs' pattern; arguments as a JSON object, or {} when they cannot be sent;
- call ids of 1 to 40 letters, digits, `_` and `-`: a longer or stranger one is replaced
  by its hash; a repeated one gets `_2`, `_3`... cut to stay within 40; a missing one
  `call_tao_1`...; each tool result follows its call's new id;
- the history given is never changed, and the same history is cleaned the same way;
- token counts as whole numbers, or None.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re

import pytest

from shared.providers.sanitize import (
    as_text,
    call_id,
    encodable,
    sendable,
    sendable_args,
    tool_name,
    unique_id,
    usage_count,
    usage_counts,
)

VALID_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")  # Anthropic's pattern, OpenAI's length


class Unprintable:
    def __str__(self):
        raise RuntimeError("no text for you")


@pytest.mark.parametrize(("raw", "sent"), [
    ("plain", "plain"),
    ("a\ud800b", "a\ufffdb"),  # a lone high surrogate, from a \ud800 escape
    ("caf\udce9", "caf\ufffd"),  # a lone low one, from surrogateescape input
    ("\udfff\ud800", "\ufffd\ufffd"),  # the two halves in the wrong order pair nothing
    ("😀 ünï", "😀 ünï"),  # real characters outside ASCII are kept
    (42, "42"),  # not a string: its text
    (Unprintable(), "<Unprintable>"),  # a str() that raises still leaves text to send
])
def test_encodable(raw, sent):
    assert encodable(raw) == sent
    encodable(raw).encode("utf-8")


def test_sendable_args_keeps_good_arguments_as_they_are():
    args = {"text": "a b", "n": [1, 2.5, {"deep": None}]}
    assert sendable_args(args) is args


@pytest.mark.parametrize(("args", "sent"), [
    ({"t\ud800": "x\udc80"}, {"t\ufffd": "x\ufffd"}),  # keys and values both cleaned
    (["a", "b"], {}),  # not an object: the APIs want one
    ("{}", {}),
    (None, {}),
    ({"n": float("nan")}, {}),  # NaN is not JSON: the API would refuse the body
    ({"f": object()}, {}),  # not JSON at all
])
def test_sendable_args_makes_an_object_the_apis_accept(args, sent):
    assert sendable_args(args) == sent


def test_sendable_args_at_a_depth_no_encoder_can_write_gives_an_empty_object():
    deep: dict = {}
    for _ in range(100_000):
        deep = {"a": deep}
    assert sendable_args(deep) == {}


@pytest.mark.parametrize(("name", "sent"), [
    ("wordcount", "wordcount"),
    ("functions.word count", "functions_word_count"),  # dots and spaces the APIs refuse
    ("", "unnamed_tool"),
    (None, "None"),
    ("x" * 100, "x" * 64),
])
def test_tool_name(name, sent):
    assert tool_name(name) == sent


def test_call_id_keeps_a_valid_free_id_and_takes_it():
    taken: set = set()
    assert call_id("toolu_01A", taken) == "toolu_01A" and taken == {"toolu_01A"}


def test_call_id_replaces_an_invalid_id_by_its_hash():
    raw = "gw:" + "f" * 300
    expected = "call_" + hashlib.sha1(raw.encode()).hexdigest()[:16]
    assert call_id(raw, set()) == expected
    assert call_id("", set()).startswith("call_")  # an empty id gets one too


def test_call_id_gives_a_taken_id_a_new_valid_one_each_time():
    taken: set = set()
    ids = [call_id("c" * 40, taken) for _ in range(12)]
    assert len(set(ids)) == 12 and all(VALID_ID.match(i) for i in ids)
    # the id, cut to leave room, then _2, _3...: still under OpenAI's 40 characters
    assert ids[:3] == ["c" * 40, "c" * 34 + "_2", "c" * 34 + "_3"]


def test_a_call_with_no_id_gets_a_numbered_one_from_1():
    taken: set = set()
    assert [unique_id("", taken) for _ in range(3)] == ["call_tao_1", "call_tao_2",
                                                        "call_tao_3"]
    assert taken == {"call_tao_1", "call_tao_2", "call_tao_3"}


def test_a_made_up_id_is_never_one_to_avoid_but_an_id_given_is_kept():
    # `avoid`: the ids a server gave later calls of the same reply
    assert unique_id("a", set(), avoid={"a"}) == "a"  # free: the call keeps its own
    assert unique_id("a", {"a"}, avoid={"a_2"}) == "a_3"
    cut = "x" * 34  # a long id is cut before its number, whichever way the two sort
    assert unique_id("x" * 40, {"x" * 40}, avoid={cut + "_2"}) == cut + "_3"
    assert unique_id("", set(), avoid={"call_tao_1"}) == "call_tao_2"


def round_of(*ids, words=("a",)):
    """An assistant turn calling wordcount once per id, then a result per call."""
    both = list(zip(ids, words, strict=True))
    calls = [{"id": i, "name": "wordcount", "args": {"text": w}} for i, w in both]
    return [{"role": "assistant", "content": "", "tool_calls": calls},
            *[{"role": "tool", "tool_call_id": i, "name": "wordcount", "content": f"r{w}"}
              for i, w in both]]


def pairs(messages):
    """(id, args, result) per call, results matched by id."""
    results = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
    return [(c["id"], c["args"], results[c["id"]])
            for m in messages if m.get("tool_calls") for c in m["tool_calls"]]


def test_one_id_for_two_calls_of_one_reply_gives_each_its_own_and_keeps_results_paired():
    history = [{"role": "user", "content": "go"}, *round_of("c1", "c1", words=("a", "b"))]
    sent = sendable(history)
    assert [(args, result) for _, args, result in pairs(sent)] == [
        ({"text": "a"}, "ra"), ({"text": "b"}, "rb")]
    assert len({i for i, _, _ in pairs(sent)}) == 2


def test_an_id_reused_in_a_later_round_is_renamed_there_only():
    history = [{"role": "user", "content": "go"}, *round_of("call_0", words=("a",)),
               {"role": "user", "content": "again"}, *round_of("call_0", words=("b",))]
    sent = sendable(history)
    ids = [i for i, _, _ in pairs(sent)]
    assert ids[0] == "call_0" and ids[1] != "call_0" and VALID_ID.match(ids[1])
    assert [result for _, _, result in pairs(sent)] == ["ra", "rb"]


def test_the_same_history_is_cleaned_the_same_way_every_time():
    """The history is sent again on every turn: a prompt cache needs the same prefix."""
    history = [{"role": "user", "content": "go"}, *round_of("x:1", "x:1", words="ab")]
    assert sendable(history) == sendable(copy.deepcopy(history))


@pytest.mark.parametrize("text", [" ", "\n\n", "\t \n"])
def test_whitespace_only_assistant_text_is_sent_as_no_text(text):
    history = [{"role": "user", "content": "go"},
               {"role": "assistant", "content": text, "tool_calls": [
                   {"id": "c1", "name": "now", "args": {}}]},
               {"role": "tool", "tool_call_id": "c1", "name": "now", "content": "noon"}]
    assert sendable(history)[1]["content"] == ""


def test_a_null_assistant_text_is_sent_as_empty_text():
    # a server that sends `"content": null` beside its tool calls (OpenAI does)
    history = [{"role": "user", "content": "go"},
               {"role": "assistant", "content": None, "tool_calls": [
                   {"id": "c1", "name": "now", "args": {}}]},
               {"role": "tool", "tool_call_id": "c1", "name": "now", "content": "noon"}]
    assert sendable(history)[1]["content"] == ""


def test_a_call_id_past_forty_characters_is_replaced():
    fine, long = "a" * 40, "a" * 41  # OpenAI refuses an id of more than 40 characters
    assert call_id(fine, set()) == fine
    assert call_id(long, set()) == "call_" + hashlib.sha1(long.encode()).hexdigest()[:16]


def test_text_with_words_is_sent_as_it_is():
    history = [{"role": "user", "content": " hi "}, {"role": "assistant", "content": " ok\n"}]
    assert sendable(history) == history


def test_the_history_given_is_never_changed():
    history = [{"role": "user", "content": "caf\udce9"},
               {"role": "assistant", "content": "\n", "tool_calls": [
                   {"id": "a.b", "name": "x y", "args": [1]}]},
               {"role": "tool", "tool_call_id": "a.b", "name": "x y", "content": "r"}]
    before = copy.deepcopy(history)
    sendable(history)
    assert history == before


def test_a_history_read_back_from_json_is_cleaned_the_same_way():
    """Roles and keys that come from a file are equal to the literals, not the same
    objects: the checks must compare values."""
    history = [{"role": "user", "content": "go"}, *round_of("a.b", words=("x",))]
    assert sendable(json.loads(json.dumps(history))) == sendable(history)
    assert sendable(json.loads(json.dumps(history)))[1]["tool_calls"][0]["id"] != "a.b"
    usage = json.loads('{"estimated": 1, "input_tokens": "5"}')
    assert usage_counts(usage) == {"estimated": True, "input_tokens": 5}
    assert usage_counts(usage)["estimated"] is True  # a flag, not a count (1 == True)
    built = "".join(["esti", "mated"])  # a key built at run time: another object
    assert usage_counts({built: 1})["estimated"] is True


def test_a_result_for_no_call_keeps_its_id():
    """Not something a reply can cause: a loop bug stays visible, as the API's refusal."""
    history = [{"role": "user", "content": "go"},
               {"role": "tool", "tool_call_id": "ghost", "name": "now", "content": "r"}]
    assert sendable(history)[1]["tool_call_id"] == "ghost"


def test_everything_sent_encodes_as_utf8():
    history = [{"role": "user", "content": "a\ud800"},
               {"role": "assistant", "content": "b\udfff", "tool_calls": [
                   {"id": "c\ud800", "name": "n\ud800", "args": {"k\ud800": "v\udc00"}}]},
               {"role": "tool", "tool_call_id": "c\ud800", "name": "n", "content": "r\udc00"}]
    sent = sendable(history)
    json.dumps(sent, ensure_ascii=False).encode("utf-8")
    assert sent[2]["tool_call_id"] == sent[1]["tool_calls"][0]["id"]  # still paired


@pytest.mark.parametrize(("value", "count"), [
    (25, 25), (0, 0), (25.0, 25), (0.0, 0), (" 7 ", 7), ("12", 12), ("9" * 19, 10**19 - 1),
    (25.5, None), (-1, None), (-1.0, None), (-2.0, None), (True, None), (False, None),
    ("lots", None), ("-3", None), ("9" * 20, None), (None, None), ([25], None),
    ({"n": 1}, None), (float("nan"), None), (float("inf"), None),
])
def test_usage_count(value, count):
    assert usage_count(value) == count


def test_usage_counts_keeps_whole_numbers_and_the_estimated_flag():
    usage = {"input_tokens": "25", "output_tokens": None, "cache_read_input_tokens": 3.0,
             "estimated": 1, "junk": "x"}
    assert usage_counts(usage) == {"input_tokens": 25, "cache_read_input_tokens": 3,
                                   "estimated": True}
    assert usage_counts(usage)["estimated"] is True
    assert usage_counts(["25"]) == {} and usage_counts(None) == {}


@pytest.mark.parametrize(("value", "text"), [
    ("end_turn", "end_turn"), (7, "7"), (["stop"], '["stop"]'), ({"a": 1}, '{"a": 1}'),
    (None, "null"), (["ünï"], '["ünï"]'),
])
def test_as_text(value, text):
    assert as_text(value) == text


def test_as_text_of_a_list_no_json_text_can_hold_is_the_type_name():
    circular: list = []
    circular.append(circular)
    deep_list: list = []  # built here: alive for the whole run, it slows every collection
    for _ in range(100_000):
        deep_list = [deep_list]
    assert as_text(circular) == "<list>" and as_text(deep_list) == "<list>"
