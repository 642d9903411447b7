"""The provider contract's own logic (shared/providers/base.py), one rule per test.

These run in-process and fast, so benchmarks/mutation.py can use them per mutant. The
SDK-shaped exceptions are stand-ins with the SDKs' class names: `sdk_error` reads only
the name, `status_code` and `body`, which is what these carry.
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
    sdk_error,
    tool_calls_from,
)


def sdk_exception(kind: str, message: str = "boom", status=None, body=None) -> Exception:
    """An exception shaped like the SDKs' own: class name, status_code, body.

    The class name is built at run time, as the SDKs' names reach sdk_error, so an
    `is` in place of `==` would fail here as it can in real use."""
    exc = type("".join(kind), (Exception,), {})(message)
    exc.status_code, exc.body = status, body
    return exc


def line(exc, provider="openai", base_url=None, secrets=()) -> str:
    """The one line sdk_error makes of `exc`."""
    return str(sdk_error(exc, provider=provider, key_var="OPENAI_API_KEY", base_url=base_url,
                         secrets=secrets))


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


def test_tool_calls_come_back_in_slot_order_with_their_errors():
    slots = {2: {"id": "c", "name": "third", "json": "{}"},
             0: {"id": "a", "name": "first", "json": '{"x": 1}'},
             1: {"id": "b", "name": "second", "json": "{oops"}}
    calls = tool_calls_from(slots)
    assert [(c.id, c.name, c.args) for c in calls] == [
        ("a", "first", {"x": 1}), ("b", "second", {}), ("c", "third", {})]
    assert calls[0].error == "" and "not valid JSON" in calls[1].error and calls[2].error == ""


# ---------------------------------------------------------------- stream() and call()


class Canned(Provider):
    """A provider whose turn yields the given items, for testing the base class alone."""

    name = "canned"

    def __init__(self, *items):
        self.items = items
        self.seen = []

    def turn(self, messages, system, tools):
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


# ---------------------------------------------------------------- sdk_error


@pytest.mark.parametrize(("exc", "expected"), [
    (sdk_exception("APIConnectionError"),
     "openai: could not reach the openai API: is the server running and the address right?"),
    (sdk_exception("APITimeoutError"),
     "openai: timed out talking to the openai API: is the server running and the address "
     "right?"),
    (sdk_exception("AuthenticationError", status=401),
     "openai: the API key was rejected (401): set OPENAI_API_KEY to a valid key"),
    (sdk_exception("PermissionDeniedError", status=403),
     "openai: the API key was rejected (403): set OPENAI_API_KEY to a valid key"),
    (sdk_exception("NotFoundError", "no such model", status=404),
     "openai: not found (404): check the model name (no such model)"),
    (sdk_exception("RateLimitError", status=429),
     "openai: rate limited (429), still after the SDK's retries: wait and retry"),
    (sdk_exception("APIStatusError", "bad request", status=418),
     "openai: request refused (418): bad request"),
    (sdk_exception("UnprocessableEntityError", "bad schema", status=422),  # sorts after "O"
     "openai: request refused (422): bad schema"),
    (sdk_exception("APIError", "stream ended", status=200),
     "openai: the stream broke off mid-reply: stream ended"),
    (sdk_exception("APIError", "connection reset"),
     "openai: the stream broke off: connection reset"),
])
def test_each_sdk_failure_becomes_its_own_line(exc, expected):
    assert line(exc) == expected


@pytest.mark.parametrize("status", [500, 502, 503, 529])
def test_a_failing_server_is_named_with_its_status(status):
    got = line(sdk_exception("InternalServerError", "down", status=status))
    assert got == (f"openai: the server is overloaded or failing ({status}), still after the "
                   "SDK's retries: try again shortly (down)")


def test_an_overloaded_error_without_a_status_is_still_overload():
    assert "overloaded or failing (None)" in line(sdk_exception("OverloadedError"))


@pytest.mark.parametrize(("provider", "base_url"), [
    ("OLLAMA".lower(), None), ("openai", "http://127.0.0.1:11434/v1")])
def test_an_unreachable_ollama_gets_the_ollama_hint(provider, base_url):
    got = line(sdk_exception("APIConnectionError"), provider=provider, base_url=base_url)
    assert got.endswith("is Ollama running? start it with `ollama serve`"), got
    assert (base_url or f"the {provider} API") in got


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_an_unreachable_cloud_api_gets_the_general_hint(provider):
    got = line(sdk_exception("APIConnectionError"), provider=provider)
    assert got == (f"{provider}: could not reach the {provider} API: is the server running "
                   "and the address right?")


def test_the_servers_own_message_is_preferred_to_the_exception_text():
    nested = {"error": {"message": "model 'x' not found", "type": "invalid"}}
    flat = {"message": "flat message"}
    assert line(sdk_exception("APIStatusError", "raw", 400, nested)).endswith("model 'x' not found")
    assert line(sdk_exception("APIStatusError", "raw", 400, flat)).endswith("flat message")
    assert line(sdk_exception("APIStatusError", "raw", 400, {"error": "text"})).endswith("raw")
    assert line(sdk_exception("APIStatusError", "raw", 400, "a string")).endswith("raw")
    assert line(sdk_exception("APIStatusError", "", 400)).endswith("APIStatusError")


def test_a_key_in_the_servers_message_is_hidden():
    body = {"error": {"message": "Incorrect API key provided: my-org-key-12345678"}}
    got = line(sdk_exception("APIStatusError", "", 400, body), secrets=["my-org-key-12345678"])
    assert "my-org-key" not in got and "[key hidden]" in got


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
