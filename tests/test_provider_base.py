"""The provider contract's own logic (shared/providers/base.py), one rule per test.

These run in-process and fast, so benchmarks/mutation.py can use them per mutant. How
SDK failures become one line is tested through the real SDKs in tests/test_wire_faults.py.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from shared.providers.base import (
    Provider,
    ProviderError,
    Reply,
    Tool,
    ToolCall,
    parse_args,
    redact,
    tool_calls_from,
)

# ---------------------------------------------------------------- records


def test_an_assistant_message_carries_its_tool_calls_in_order():
    reply = Reply("Checking.", [ToolCall("a", "now", {}), ToolCall("b", "wc", {"text": "x"})])
    assert reply.assistant_message() == {
        "role": "assistant", "content": "Checking.",
        "tool_calls": [{"id": "a", "name": "now", "args": {}},
                       {"id": "b", "name": "wc", "args": {"text": "x"}}]}


def test_a_plain_reply_has_no_tool_calls_key_and_ends_the_turn():
    reply = Reply("Hi.")
    assert reply.assistant_message() == {"role": "assistant", "content": "Hi."}
    assert reply.stop_reason == "end_turn" and reply.tool_calls == [] and reply.usage == {}


def test_a_tool_is_a_fixed_record():
    tool = Tool("now", "the time", {"type": "object"}, lambda args: "noon")
    with pytest.raises(dataclasses.FrozenInstanceError):
        tool.name = "later"


# ---------------------------------------------------------------- streamed arguments


@pytest.mark.parametrize("raw", ["", "   ", "\n"])
def test_no_streamed_arguments_mean_no_arguments(raw):
    assert parse_args(raw) == ({}, "")


def test_streamed_arguments_decode_to_a_dict():
    assert parse_args('{"text": "a b", "n": 2}') == ({"text": "a b", "n": 2}, "")


@pytest.mark.parametrize(("raw", "why"), [
    ('{"text": "unfinished', "not valid JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('"just a string"', "must be a JSON object"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_broken_arguments_are_refused_with_the_reason(raw, why):
    args, error = parse_args(raw)
    assert args == {} and why in error, error


@pytest.mark.parametrize("raw", [
    '{"text": "' + "a" * 190 + "b" * 20 + "XYZ",         # not valid JSON
    json.dumps(["a" * 190 + "b" * 20]),                  # not an object
    "[" * 100_000 + "]" * 100_000,                       # nested too deeply
])
def test_a_refusal_quotes_exactly_200_characters_of_the_arguments(raw):
    _, error = parse_args(raw)
    assert error.endswith(repr(raw[:200])), f"not the first 200 characters: {error[-60:]}"


def test_tool_calls_come_back_in_the_order_given_with_their_errors():
    slots = [{"id": "c", "name": "third", "json": "{}"},
             {"id": "a", "name": "first", "json": '{"x": 1}'},
             {"id": "b", "name": "second", "json": "{oops"}]
    calls = tool_calls_from(slots)
    assert [(c.id, c.name, c.args) for c in calls] == [
        ("c", "third", {}), ("a", "first", {"x": 1}), ("b", "second", {})]
    calls = [calls[1], calls[2], calls[0]]  # the same checks as before, in a, b, c order
    assert calls[0].error == "" and "not valid JSON" in calls[1].error and calls[2].error == ""


# ---------------------------------------------------------------- stream() and call()


class Canned(Provider):
    """A provider whose turn yields the given items, for testing the base class alone."""

    name = "canned"

    def __init__(self, *items):
        self.items = items
        self.seen = []

    def turn(self, messages, system, tools, options=None):
        self.seen.append((messages, system, tools))
        yield from self.items


def test_stream_yields_the_text_deltas_and_drops_the_reply():
    model = Canned("Hel", "lo", Reply("Hello"))
    assert list(model.stream([{"role": "user", "content": "hi"}], "SYS")) == ["Hel", "lo"]
    assert model.seen == [([{"role": "user", "content": "hi"}], "SYS", ())]


def test_call_sends_each_delta_live_and_returns_the_reply():
    final = Reply("Hello", stop_reason="end_turn")
    model, deltas = Canned("Hel", "lo", final), []
    assert model.call([], "SYS", [1, 2], on_text_delta=deltas.append) is final
    assert deltas == ["Hel", "lo"] and model.seen[0][2] == (1, 2)


def test_call_without_a_callback_still_returns_the_reply():
    assert Canned("x", Reply("x")).call([]).text == "x"


def test_a_turn_that_never_delivers_its_reply_is_a_provider_error():
    with pytest.raises(ProviderError, match="canned: the reply ended without a result"):
        Canned("half a ").call([])


def test_describe_names_the_model_when_there_is_one():
    model = Canned()
    assert model.describe() == "canned"
    model.model = "m-1"
    assert model.describe() == "canned (m-1)"


# ---------------------------------------------------------------- redact


@pytest.mark.parametrize(("text", "secrets", "expected"), [
    ("key=abcdefgh1234 rest", ["abcdefgh1234"], "key=[key hidden] rest"),
    ("the word secret stays", ["secret"], "the word secret stays"),   # under 8: not a key
    ("sk-abc123XYZ and sk-proj-Q_w-e", [], "[key hidden] and [key hidden]"),
    ("sk-short", [], "sk-short"),                                       # 5 after sk-: no key
    ("a task-abcdefgh name", [], "a task-abcdefgh name"),             # sk- inside a word
    ("nothing here", [None, ""], "nothing here"),
    ("abc1234 stays", ["abc1234"], "abc1234 stays"),                  # 7 characters: too short
    ("abcd1234 goes", ["abcd1234"], "[key hidden] goes"),              # 8: long enough
    ("abcdefgh twice abcdefgh", ["abcdefgh"], "[key hidden] twice [key hidden]"),
])
def test_redact_hides_given_keys_and_key_shaped_strings_only(text, secrets, expected):
    assert redact(text, secrets) == expected


def test_redacted_text_never_holds_the_key_even_inside_json():
    key = "sk-live-0123456789abcdef"
    text = json.dumps({"error": {"message": f"bad key {key}", "key": key}})
    assert key not in redact(text) and key not in redact(text, [key])
