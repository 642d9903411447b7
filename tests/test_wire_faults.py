"""What real networks and servers do to a streamed reply, through the real SDKs.

Each fault is served by the local fake API. Each test asserts the one-line
`ProviderError` (or the recovery), what was shown, and that the history is as it was.
"""

from __future__ import annotations

import json
import time

import pytest
from fake_api import SSE, FakeAPI, Page, anthropic_stream, api_error, openai_stream

from shared.providers import ProviderError, Tool
from shared.providers.anthropic_provider import AnthropicProvider
from shared.providers.openai_provider import OpenAIProvider
from shared.providers.sdk_base import asked_wait, timeout_from

pytestmark = pytest.mark.sdk  # real SDKs at work: these run in the SDK worker (conftest.py)

KEY = "sk-test-0123456789-secret"
KINDS = ["anthropic", "openai"]
WORDCOUNT = Tool("wordcount", "Count the words in a text.",
                 {"type": "object", "properties": {"text": {"type": "string"}}},
                 lambda args: str(len(str(args.get("text", "")).split())))


def provider(kind, api, **kwargs):
    """The real provider of this kind, pointed at the fake, recording its notes."""
    cls = AnthropicProvider if kind == "anthropic" else OpenAIProvider
    p = cls(api_key=KEY, base_url=api.base_url, **kwargs)
    p.retry_base = 0.01  # keep the backoff short in tests
    p.notes = []  # retry notes, as the trace would receive them
    p.on_notice = p.notes.append
    return p


def story(kind, **kwargs) -> SSE:
    """A four-delta reply of this kind."""
    parts = ["Once", " upon", " a", " time"]
    return (anthropic_stream if kind == "anthropic" else openai_stream)(parts, **kwargs)


def text_events(sse: SSE) -> list[int]:
    """Positions of the events that carry answer text."""
    def has_text(data):
        """Whether this event carries answer text."""
        if not isinstance(data, dict):
            return False
        if data.get("type") == "content_block_delta":
            return data["delta"].get("type") == "text_delta"
        return any((c.get("delta") or {}).get("content") for c in data.get("choices") or ())
    return [n for n, (_, data) in enumerate(sse.events) if has_text(data)]


def cut(sse: SSE, n: int) -> SSE:
    """The first n events, then the connection closes (no chunked encoding: a clean EOF)."""
    return SSE(sse.events[:n])


def ask(messages, p, **kwargs):
    """call() with a record of what reached the screen; (reply or error, shown)."""
    shown: list[str] = []
    before = json.dumps(messages)
    try:
        result = p.call(messages, "", (), shown.append, **kwargs)
    except ProviderError as exc:
        result = exc
    assert json.dumps(messages) == before, "a failed turn must leave the history alone"
    return result, shown


def one_line(error) -> str:
    """The error's text, after checking it is one line without the key."""
    text = str(error)
    assert isinstance(error, ProviderError), f"expected a ProviderError, got {error!r}"
    assert "\n" not in text and KEY not in text, text
    return text


# ---------------------------------------------------------------- cut short


@pytest.mark.parametrize("kind", KINDS)
def test_a_stream_closed_mid_reply_is_an_error_with_the_partial_text(kind):
    sse = story(kind)
    with FakeAPI(kind) as api:
        api.queue(cut(sse, text_events(sse)[1] + 1))  # two deltas, then EOF
        error, shown = ask([{"role": "user", "content": "a story"}], provider(kind, api))
    assert "broke off" in one_line(error)
    assert shown == ["Once", " upon"]
    assert error.partial == "Once upon"  # the stage shows it as cut off, keeps it out
    assert len(api.requests) == 1  # text was shown: no retry, it would repeat it


@pytest.mark.parametrize("kind", KINDS)
def test_a_stream_closed_before_any_text_is_retried(kind):
    sse = story(kind)
    with FakeAPI(kind) as api:
        api.queue(cut(sse, text_events(sse)[0]), story(kind))
        p = provider(kind, api)
        reply, shown = ask([{"role": "user", "content": "a story"}], p)
    assert reply.text == "Once upon a time" and "".join(shown) == reply.text
    assert len(api.requests) == 2
    assert p.notes and "attempt 2 of 3" in p.notes[0]


@pytest.mark.parametrize("kind", KINDS)
def test_a_stream_that_ends_without_its_final_event_is_not_complete(kind):
    """Every delta arrived, but not message_stop / a finish_reason: still broken off."""
    sse = story(kind)
    last = max(n for n, (_, d) in enumerate(sse.events)
               if isinstance(d, dict) and (d.get("type") == "message_delta" or any(
                   c.get("finish_reason") for c in d.get("choices") or ())))
    with FakeAPI(kind) as api:
        api.queue(cut(sse, last))
        error, shown = ask([{"role": "user", "content": "a story"}], provider(kind, api))
    assert "broke off" in one_line(error) and error.partial == "Once upon a time"


@pytest.mark.parametrize("kind", KINDS)
def test_an_error_event_before_any_text_is_retried(kind):
    """Anthropic's overloaded_error often arrives as the stream's first event."""
    with FakeAPI(kind) as api:
        api.queue(story(kind, error_after=1), story(kind))
        p = provider(kind, api)
        reply, _ = ask([{"role": "user", "content": "a story"}], p)
    assert reply.text == "Once upon a time" and len(api.requests) == 2
    assert p.notes and p.notes[0].startswith("the server reported an error in the stream: ")


# ---------------------------------------------------------------- reset and stall


@pytest.mark.parametrize("kind", KINDS)
def test_a_connection_reset_mid_reply_is_one_line(kind):
    sse = story(kind)
    sse.reset_after = text_events(sse)[2]
    with FakeAPI(kind) as api:
        api.queue(sse)
        error, shown = ask([{"role": "user", "content": "a story"}], provider(kind, api))
    message = one_line(error)
    assert "broke off mid-reply" in message and "connection" in message
    assert error.partial == "".join(shown) == "Once upon"


@pytest.mark.parametrize("kind", KINDS)
def test_a_reset_before_any_text_is_retried(kind):
    sse = story(kind)
    sse.reset_after = 0
    with FakeAPI(kind) as api:
        api.queue(sse, story(kind))
        reply, _ = ask([{"role": "user", "content": "a story"}], provider(kind, api))
    assert reply.text == "Once upon a time" and len(api.requests) == 2


@pytest.mark.parametrize("kind", KINDS)
def test_a_stall_mid_reply_is_bounded_by_the_timeout_and_names_the_wait(kind):
    sse = story(kind)
    sse.stall_after = text_events(sse)[1] + 1
    with FakeAPI(kind) as api:
        api.queue(sse)
        p = provider(kind, api, timeout=0.4)  # built first: the SDK import is not the stall
        start = time.monotonic()
        error, shown = ask([{"role": "user", "content": "a story"}], p)
        took = time.monotonic() - start
    assert "no data for 0.4 s" in one_line(error) and "TAO_TIMEOUT" in str(error)
    assert error.partial == "Once upon"
    assert took < 5, f"the stall was not cut at the timeout: {took:.1f} s"


@pytest.mark.parametrize("kind", KINDS)
def test_a_stall_before_any_text_counts_as_one_failed_attempt(kind, monkeypatch):
    monkeypatch.setenv("TAO_TIMEOUT", "0.4")
    sse = story(kind)
    sse.stall_after = 1
    with FakeAPI(kind) as api:
        api.queue(sse, story(kind))
        p = provider(kind, api)
        reply, _ = ask([{"role": "user", "content": "a story"}], p)
    assert p.timeout == 0.4
    assert reply.text == "Once upon a time" and len(api.requests) == 2
    assert p.notes == ["no data for 0.4 s: retrying in 0.01 s, attempt 2 of 3"]


@pytest.mark.parametrize("value", ["soon", "-3", "0"])
def test_a_bad_tao_timeout_is_one_line_naming_the_variable(value, monkeypatch):
    monkeypatch.setenv("TAO_TIMEOUT", value)
    with pytest.raises(ProviderError, match="TAO_TIMEOUT") as info:
        OpenAIProvider(api_key=KEY, base_url="http://127.0.0.1:9/v1")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("kind", KINDS)
def test_ctrl_c_mid_reply_stays_ctrl_c_and_the_next_turn_works(kind):
    """Ctrl-C is the learner's, not a fault: never retried, never turned into an error."""
    def interrupt(delta):
        raise KeyboardInterrupt

    with FakeAPI(kind) as api:
        api.queue(story(kind), story(kind))
        p = provider(kind, api)
        with pytest.raises(KeyboardInterrupt):
            p.call([{"role": "user", "content": "a story"}], "", (), interrupt)
        assert p.call([{"role": "user", "content": "again"}]).text == "Once upon a time"
    assert len(api.requests) == 2 and p.notes == []


# ---------------------------------------------------------------- bad events


@pytest.mark.parametrize("kind", KINDS)
def test_a_malformed_data_line_is_one_line_and_not_retried(kind):
    sse = story(kind)
    at = text_events(sse)[1]
    sse.events[at] = (sse.events[at][0], '{"type": "content_block_delta", "ind')
    with FakeAPI(kind) as api:
        api.queue(sse, story(kind))
        error, shown = ask([{"role": "user", "content": "a story"}], provider(kind, api))
    assert "not JSON" in one_line(error) and error.partial == "Once"
    assert len(api.requests) == 1


def test_an_anthropic_delta_for_a_block_never_started_is_one_line():
    sse = anthropic_stream(["fine"])
    sse.events.insert(4, ("content_block_delta", {
        "type": "content_block_delta", "index": 7,
        "delta": {"type": "input_json_delta", "partial_json": "{}"}}))
    with FakeAPI("anthropic") as api:
        api.queue(sse)
        error, _ = ask([{"role": "user", "content": "hi"}], provider("anthropic", api))
    assert "unexpected shape" in one_line(error)


def test_an_openai_chunk_of_the_wrong_shape_is_one_line():
    sse = openai_stream(["fine"])
    sse.events.insert(2, (None, {"id": "x", "object": "chat.completion.chunk",
                                 "choices": {"0": {"delta": {"content": "?"}}}}))
    with FakeAPI("openai") as api:
        api.queue(sse)
        error, _ = ask([{"role": "user", "content": "hi"}], provider("openai", api))
    assert "unexpected shape" in one_line(error)


def test_an_openai_choice_without_a_delta_is_read_as_an_empty_one():
    sse = openai_stream(["fine"])
    sse.events.insert(2, (None, {"id": "x", "object": "chat.completion.chunk",
                                 "choices": [{"index": 0, "finish_reason": None}]}))
    with FakeAPI("openai") as api:
        api.queue(sse)
        reply, _ = ask([{"role": "user", "content": "hi"}], provider("openai", api))
    assert reply.text == "fine"


# ---------------------------------------------------------------- retries and pages


@pytest.mark.parametrize("kind", KINDS)
def test_a_server_asking_for_a_long_wait_gets_an_error_at_once(kind):
    overloaded = api_error(kind, 529 if kind == "anthropic" else 429)
    overloaded.headers = {"retry-after": "3600"}
    with FakeAPI(kind) as api:
        api.queue(overloaded, story(kind))
        p = provider(kind, api)
        start = time.monotonic()
        error, _ = ask([{"role": "user", "content": "hi"}], p)
    assert "asked to wait 3600 s" in one_line(error)
    assert len(api.requests) == 1 and time.monotonic() - start < 5


@pytest.mark.parametrize("kind", KINDS)
def test_a_short_retry_after_is_honoured_and_announced(kind):
    busy = api_error(kind, 429)
    busy.headers = {"retry-after": "0.2"}
    with FakeAPI(kind) as api:
        api.queue(busy, story(kind))
        p = provider(kind, api)
        start = time.monotonic()
        reply, _ = ask([{"role": "user", "content": "hi"}], p)
    assert reply.text == "Once upon a time" and time.monotonic() - start >= 0.2
    assert p.notes == ["rate limited (429): retrying in 0.2 s, attempt 2 of 3"]


@pytest.mark.parametrize("kind", KINDS)
def test_max_retries_zero_turns_retries_off(kind):
    with FakeAPI(kind) as api:
        api.queue(api_error(kind, 500), story(kind))
        error, _ = ask([{"role": "user", "content": "hi"}],
                       provider(kind, api, max_retries=0))
    assert "server error (500)" in one_line(error) and len(api.requests) == 1


def test_without_a_notice_callback_the_retry_note_goes_to_stderr(capsys):
    with FakeAPI("openai") as api:
        api.queue(api_error("openai", 500), story("openai"))
        p = OpenAIProvider(api_key=KEY, base_url=api.base_url)
        assert p.call([{"role": "user", "content": "hi"}]).text == "Once upon a time"
    assert capsys.readouterr().err == (
        "note: server error (500): retrying in 0.005 s, attempt 2 of 3\n")


PAGE = ("<!DOCTYPE html><html><head><title>Captive portal: please log in</title></head>"
        "<body>" + "<p>lots of markup</p>" * 200 + "</body></html>")


@pytest.mark.parametrize("kind", KINDS)
def test_an_html_page_with_status_200_is_summarised_in_one_line(kind):
    with FakeAPI(kind) as api:
        api.queue(Page(200, PAGE))
        error, shown = ask([{"role": "user", "content": "hi"}], provider(kind, api))
    message = one_line(error)
    assert "an HTML page (Captive portal: please log in)" in message
    assert "<" not in message and len(message) < 400 and shown == []


@pytest.mark.parametrize("kind", KINDS)
def test_an_html_error_page_is_summarised_in_one_line(kind):
    with FakeAPI(kind) as api:
        api.queue(*[Page(502, PAGE)] * 3)
        error, _ = ask([{"role": "user", "content": "hi"}], provider(kind, api))
    message = one_line(error)
    assert "bad gateway (502)" in message and "<" not in message and len(message) < 400


def test_nothing_listening_is_one_line_at_once_without_retries():
    """A refused connection is not a passing overload: waiting 3 s would only delay."""
    p = OpenAIProvider(api_key=KEY, base_url="http://127.0.0.1:9/v1")
    p.notes = []
    p.on_notice = p.notes.append
    error, _ = ask([{"role": "user", "content": "hi"}], p)
    assert one_line(error) == ("openai: could not connect (http://127.0.0.1:9): is the server "
                               "running and the address right?")
    assert p.notes == []


# ---------------------------------------------------------------- hostile arguments


HOSTILE = [
    ('{"text": NaN}', "NaN"),
    ('{"text": Infinity}', "Infinity"),
    ('{"text": -Infinity}', "Infinity"),
    ('{"text": ' + "9" * 5000 + "}", "digit"),
    ('["a", "b"]', "JSON object"),
    ('{"text": "cut', "not valid JSON"),
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("raw", "why"), HOSTILE)
def test_hostile_arguments_become_an_observation_and_the_next_request_is_valid(
        kind, raw, why):
    make = anthropic_stream if kind == "anthropic" else openai_stream
    messages = [{"role": "user", "content": "count"}]
    with FakeAPI(kind) as api:
        api.queue(make([], tools=[("call_h", "wordcount", [raw])]), make(["done"]))
        p = provider(kind, api)
        reply = p.call(messages, "", [WORDCOUNT])
        call = reply.tool_calls[0]
        assert call.args == {} and why in call.error, call.error
        messages += [reply.assistant_message(), {"role": "tool", "tool_call_id": call.id,
                                                 "name": call.name, "content": call.error}]
        assert p.call(messages, "", [WORDCOUNT]).text == "done"
    assert api.violations == []  # the second request was one the API accepts
    json.dumps(api.requests[-1], allow_nan=False)  # and plain JSON, no NaN inside


# ---------------------------------------------------------------- the small pieces




@pytest.mark.parametrize(("headers", "seconds"), [
    ({"retry-after-ms": "250"}, 0.25),
    ({"retry-after": "7"}, 7.0),
    ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),  # a date long past: no wait
    ({"retry-after": "soon"}, None),
    ({}, None),
])
def test_the_wait_a_server_asks_for(headers, seconds):
    assert asked_wait(headers) == seconds


def test_a_tao_timeout_value_is_read_and_the_keyword_wins():
    assert timeout_from(None, {}) == 60.0
    assert timeout_from(None, {"TAO_TIMEOUT": " 2.5 "}) == 2.5
    assert timeout_from(7, {"TAO_TIMEOUT": "2.5"}) == 7.0


# ---------------------------------------------------------------- sessions that recover
# A reply joins the history and is sent back on every later request: whatever it held,
# the next request must be one the API accepts (the fake refuses what the API refuses).


def make(kind, *args, **kwargs) -> SSE:
    """A documented stream of this kind."""
    return (anthropic_stream if kind == "anthropic" else openai_stream)(*args, **kwargs)


def answered(messages: list[dict], reply) -> list[dict]:
    """`messages` with the reply and a result per call appended, as a stage's loop does
    (a call it cannot run is answered with its error), or a new question if none."""
    messages = messages + [reply.assistant_message()]
    for call in reply.tool_calls:
        messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                         "content": call.error or WORDCOUNT.run(call.args)})
    return messages if reply.tool_calls else messages + [{"role": "user", "content": "and?"}]


def session(kind, *replies: SSE):
    """Each reply in turn, kept in the history; then one more turn that must be accepted.
    Returns (the fake, the last reply, the history)."""
    messages = [{"role": "user", "content": "count 'a b c'"}]
    with FakeAPI(kind) as api:
        api.queue(*replies, make(kind, ["done"]))
        p = provider(kind, api, max_retries=0)
        for _ in replies:
            messages = answered(messages, p.call(messages, "", [WORDCOUNT]))
        last = p.call(messages, "", [WORDCOUNT])
    return api, last, messages


RECOVERABLE = {
    # a `\ud800` escape in the server's JSON: a lone surrogate UTF-8 cannot encode
    "lone surrogate in text": lambda kind: make(kind, ["bad \ud800 text"]),
    "lone surrogate in arguments": lambda kind: make(
        kind, [], tools=[("call_s1", "wordcount", ['{"text": "a \\ud800 b"}'])]),
    "whitespace-only text before a call": lambda kind: make(
        kind, ["\n\n  "], tools=[("call_w1", "wordcount", ['{"text": "a b"}'])]),
    "a call id of 10 KB": lambda kind: make(
        kind, [], tools=[("call_" + "x" * 10_000, "wordcount", ['{"text": "a"}'])]),
    "a call id with characters the API refuses": lambda kind: make(
        kind, [], tools=[("functions.wordcount:0", "wordcount", ['{"text": "a"}'])]),
    "a call with no name": lambda kind: make(kind, [], tools=[("call_n1", "", ["{}"])]),
    "a name with dots and spaces": lambda kind: make(
        kind, [], tools=[("call_n2", "functions.word count", ["{}"])]),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fault", list(RECOVERABLE))
def test_after_a_hostile_reply_the_next_request_is_accepted(kind, fault):
    api, last, _ = session(kind, RECOVERABLE[fault](kind))
    assert api.violations == [], api.violations
    assert last.text == "done" and len(api.requests) == 2


@pytest.mark.parametrize("kind", KINDS)
def test_a_server_that_reuses_call_ids_across_rounds_is_still_answered(kind):
    """Small local models number their calls afresh each reply (call_0 every time)."""
    rounds = [make(kind, [], tools=[("call_0", "wordcount", [json.dumps({"text": words})])])
              for words in ("a", "a b", "a b c")]
    api, last, history = session(kind, *rounds)
    assert api.violations == [], api.violations
    assert last.text == "done" and len(api.requests) == 4
    assert [m["tool_call_id"] for m in history if m["role"] == "tool"] == ["call_0"] * 3


@pytest.mark.parametrize("kind", KINDS)
def test_what_is_sent_back_keeps_each_result_with_its_own_call(kind):
    """Renamed ids stay paired: the k-th result naming an id answers the k-th call."""
    rounds = [make(kind, [], tools=[("call_0", "wordcount", [json.dumps({"text": words})])])
              for words in ("a", "a b")]
    api, _, _ = session(kind, *rounds)
    pairs = _sent_pairs(kind, api.requests[-1]["messages"])
    assert [(args, result) for _, args, result in pairs] == [
        ({"text": "a"}, "1"), ({"text": "a b"}, "2")]
    assert len({call_id for call_id, _, _ in pairs}) == 2  # unique on the wire


def _sent_pairs(kind, wire: list[dict]) -> list[tuple]:
    """(id, arguments, result) for each call in a request body, results found by id."""
    if kind == "anthropic":
        blocks = [b for m in wire if isinstance(m["content"], list) for b in m["content"]]
        results = {b["tool_use_id"]: b["content"] for b in blocks if b["type"] == "tool_result"}
        return [(b["id"], b["input"], results[b["id"]]) for b in blocks
                if b["type"] == "tool_use"]
    results = {m["tool_call_id"]: m["content"] for m in wire if m["role"] == "tool"}
    return [(c["id"], json.loads(c["function"]["arguments"]), results[c["id"]])
            for m in wire if m.get("tool_calls") for c in m["tool_calls"]]


@pytest.mark.parametrize("kind", KINDS)
def test_the_history_itself_is_never_changed_by_what_is_sent(kind):
    api, _, history = session(kind, RECOVERABLE["lone surrogate in text"](kind))
    assert history[1]["content"] == "bad \ud800 text"  # the stage's record stays as it came
    assert "\ufffd" in json.dumps(api.requests[-1], ensure_ascii=False)


# ---------------------------------------------------------------- usage that is not numbers


def _with_usage(kind, usage) -> SSE:
    """A short reply whose usage block carries `usage` in the API's own field names."""
    sse = make(kind, ["fine"])
    for _, data in sse.events:
        if not isinstance(data, dict):
            continue
        if data.get("type") == "message_start":
            data["message"]["usage"] = usage["start"]
        elif data.get("type") == "message_delta":
            data["usage"] = usage["delta"]
        elif "usage" in data:
            data["usage"] = usage["chunk"]
    return sse


BAD_USAGE = {
    "strings and nulls": {"start": {"input_tokens": "25", "cache_read_input_tokens": "lots"},
                          "delta": {"output_tokens": None},
                          "chunk": {"prompt_tokens": "25", "completion_tokens": None,
                                    "prompt_tokens_details": {"cached_tokens": "x"}}},
    "floats, negatives and bools": {"start": {"input_tokens": 25.0, "output_tokens": -1},
                                    "delta": {"output_tokens": True},
                                    "chunk": {"prompt_tokens": 25.0, "completion_tokens": -3,
                                              "prompt_tokens_details": {"cached_tokens": True}}},
    "objects and lists": {"start": {"input_tokens": {"n": 1}}, "delta": {"output_tokens": [7]},
                          "chunk": {"prompt_tokens": [25], "completion_tokens": {"n": 1}}},
    "not a dict at all": {"start": "25 tokens", "delta": [7], "chunk": ["25", "7"]},
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fault", list(BAD_USAGE))
def test_usage_that_is_not_numbers_never_reaches_the_caller(kind, fault):
    """Stages 08-10 add the counts up: each one given must be a whole number, and a bad
    usage block costs the reply nothing."""
    with FakeAPI(kind) as api:
        api.queue(_with_usage(kind, BAD_USAGE[fault]))
        reply, _ = ask([{"role": "user", "content": "hi"}], provider(kind, api))
    assert not isinstance(reply, ProviderError), reply
    assert reply.text == "fine"
    counts = {k: n for k, n in reply.usage.items() if k not in ("not_reported", "estimated")}
    assert all(type(n) is int and n >= 0 for n in counts.values()), reply.usage
    if fault != "not a dict at all" and fault != "objects and lists":
        assert reply.usage["input_tokens"] == 25  # a count sent as "25" or 25.0 is kept
    elif kind == "openai":  # nothing usable came: said so, never made up
        assert reply.usage == {"not_reported": True}, reply.usage


# ---------------------------------------------------------------- secrets in notes


def _error_first(kind, message: str) -> SSE:
    """A stream whose first event is an error quoting `message` (no text shown yet)."""
    sse = story(kind, error_after=1)
    data = next(d for _, d in sse.events if isinstance(d, dict) and "error" in d)
    data["error"]["message"] = message
    return sse


@pytest.mark.parametrize("kind", KINDS)
def test_a_key_the_server_echoes_mid_stream_never_reaches_a_retry_note(kind):
    """A key not shaped like sk-...: only the provider's own list of secrets can hide it."""
    token = "local-token-abcdefgh"
    with FakeAPI(kind) as api:
        api.queue(_error_first(kind, f"bad credentials {token}, try again"), story(kind))
        p = (AnthropicProvider if kind == "anthropic" else OpenAIProvider)(
            api_key=token, base_url=api.base_url)
        p.retry_base = 0.01
        notes = []
        p.on_notice = notes.append
        reply, _ = ask([{"role": "user", "content": "hi"}], p)
    assert not isinstance(reply, ProviderError), reply
    assert reply.text == "Once upon a time" and len(notes) == 1
    assert token not in notes[0] and "bad credentials [key hidden]" in notes[0], notes[0]


@pytest.mark.parametrize("kind", KINDS)
def test_every_secret_a_provider_holds_is_in_its_secrets(kind):
    """The one documented list the trace (or anyone) can redact with."""
    url = "http://learner:hunter2pass@127.0.0.1:9/v1?key=query-secret-123"
    p = (AnthropicProvider if kind == "anthropic" else OpenAIProvider)(
        api_key="local-token-abcdefgh", base_url=url)
    assert {"local-token-abcdefgh", "hunter2pass", "query-secret-123"} <= set(p.secrets)
    assert all(isinstance(s, str) and s for s in p.secrets)


def test_a_fallback_exposes_every_provider_s_secrets():
    from shared.providers.fallback import FallbackProvider

    first = OpenAIProvider(api_key="local-token-abcdefgh", base_url="http://127.0.0.1:9/v1")
    second = AnthropicProvider(api_key=KEY, base_url="http://u:pw-secret-1@127.0.0.1:9")
    assert set(FallbackProvider([first, second]).secrets) >= {
        "local-token-abcdefgh", KEY, "pw-secret-1"}


# ---------------------------------------------------------------- odd fields, one reply each


def _anthropic_tool(block_extra=None, name="wordcount", deltas=('{"text": "a b"}',)):
    """An Anthropic stream with one tool_use block, its start block amended."""
    sse = anthropic_stream([], tools=[("toolu_odd", name, list(deltas))])
    for _, data in sse.events:
        if isinstance(data, dict) and data.get("type") == "content_block_start":
            data["content_block"].update(block_extra or {})
    return sse


def _openai_tool(name, arguments='{"text": "a b"}', finish="tool_calls"):
    """An OpenAI stream with one whole tool call in one chunk."""
    from fake_api import chat_chunk, chat_stream

    return chat_stream(chat_chunk({"tool_calls": [{"index": 0, "id": "call_odd", "type":
                                                   "function", "function": {
                                                       "name": name, "arguments": arguments}}]}),
                       chat_chunk({}, finish))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", [123, ["now"], {"name": "now"}])
def test_a_tool_name_that_is_not_a_string_arrives_as_one(kind, name):
    sse = _anthropic_tool(name=name) if kind == "anthropic" else _openai_tool(name)
    with FakeAPI(kind) as api:
        api.queue(sse)
        reply, _ = ask([{"role": "user", "content": "count"}], provider(kind, api))
    assert not isinstance(reply, ProviderError), reply
    assert isinstance(reply.tool_calls[0].name, str) and reply.tool_calls[0].name


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("reason", [7, {"type": "stop"}, ["stop"]])
def test_a_stop_reason_that_is_not_a_string_costs_no_reply(kind, reason):
    sse = story(kind)
    for _, data in sse.events:
        if not isinstance(data, dict):
            continue
        if data.get("type") == "message_delta":
            data["delta"]["stop_reason"] = reason
        for choice in data.get("choices") or ():
            if choice.get("finish_reason"):
                choice["finish_reason"] = reason
    with FakeAPI(kind) as api:
        api.queue(sse)
        reply, _ = ask([{"role": "user", "content": "hi"}], provider(kind, api))
    assert not isinstance(reply, ProviderError), reply
    assert reply.text == "Once upon a time" and isinstance(reply.stop_reason, str)


def test_an_anthropic_tool_input_sent_whole_in_its_start_block_is_used():
    """Some compatible servers put the input in content_block_start and stream none."""
    sse = _anthropic_tool({"input": {"text": "a b"}}, deltas=())
    with FakeAPI("anthropic") as api:
        api.queue(sse)
        reply, _ = ask([{"role": "user", "content": "count"}], provider("anthropic", api))
    assert reply.tool_calls[0].args == {"text": "a b"}


def test_an_anthropic_start_block_input_gives_way_to_streamed_deltas():
    sse = _anthropic_tool({"input": {"text": "stale"}}, deltas=('{"text": ', '"a b"}'))
    with FakeAPI("anthropic") as api:
        api.queue(sse)
        reply, _ = ask([{"role": "user", "content": "count"}], provider("anthropic", api))
    assert reply.tool_calls[0].args == {"text": "a b"}


def test_an_openai_done_before_any_choice_is_an_unfinished_reply_and_retried():
    from fake_api import chat_stream

    with FakeAPI("openai") as api:
        api.queue(chat_stream(), story("openai"))
        p = provider("openai", api)
        reply, _ = ask([{"role": "user", "content": "hi"}], p)
    assert reply.text == "Once upon a time" and len(api.requests) == 2
    assert p.notes and "broke off" in p.notes[0]


@pytest.mark.parametrize("kind", KINDS)
def test_usage_sent_twice_keeps_the_last_counts(kind):
    sse = story(kind)
    if kind == "openai":  # usage on the finish chunk as well as in its own chunk
        finish = next(d for _, d in sse.events if isinstance(d, dict) and any(
            c.get("finish_reason") for c in d.get("choices") or ()))
        finish["usage"] = {"prompt_tokens": 1, "completion_tokens": 1}
    else:  # message_delta's usage is cumulative: a second one supersedes the first
        delta = next(d for _, d in sse.events if isinstance(d, dict)
                     and d.get("type") == "message_delta")
        sse.events.insert(sse.events.index(("message_delta", delta)),
                          ("message_delta", {**delta, "usage": {"output_tokens": 1}}))
    with FakeAPI(kind) as api:
        api.queue(sse)
        reply, _ = ask([{"role": "user", "content": "hi"}], provider(kind, api))
    assert reply.usage == {"input_tokens": 25, "output_tokens": 12}


@pytest.mark.parametrize("kind", KINDS)
def test_undecodable_bytes_in_what_the_learner_typed_or_a_tool_read_are_sent(kind):
    """Terminal input and file reads with errors="surrogateescape" hold lone surrogates
    (\\udc80-\\udcff): the request must still be one the SDK can encode."""
    messages = [{"role": "user", "content": "count caf\udce9"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "call_u1", "name": "wordcount", "args": {"text": "caf\udce9"}}]},
                {"role": "tool", "tool_call_id": "call_u1", "name": "wordcount",
                 "content": "read caf\udce9: 1"}]
    with FakeAPI(kind) as api:
        api.queue(make(kind, ["1 word."]))
        reply, _ = ask(messages, provider(kind, api))
    assert not isinstance(reply, ProviderError), reply
    assert reply.text == "1 word." and api.violations == []


@pytest.mark.parametrize("kind", KINDS)
def test_stages_02_to_06_recover_too_their_stream_sends_the_same_cleaned_history(kind):
    """Stages 02-06 call stream(), not call(): the same translation, the same cleaning."""
    with FakeAPI(kind) as api:
        api.queue(make(kind, ["bad \ud800 text"]), make(kind, ["fine"]))
        p = provider(kind, api, max_retries=0)
        first = "".join(p.stream([{"role": "user", "content": "hi"}]))
        history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": first},
                   {"role": "user", "content": "again"}]
        assert "".join(p.stream(history)) == "fine"
    assert api.violations == [] and len(api.requests) == 2


def test_escape_codes_a_server_sends_in_a_retried_error_never_reach_stderr_raw(capsys):
    with FakeAPI("openai") as api:
        api.queue(_error_first("openai", "overloaded \x1b[2J\x9b31m"), story("openai"))
        p = OpenAIProvider(api_key=KEY, base_url=api.base_url)
        p.retry_base = 0.01
        assert p.call([{"role": "user", "content": "hi"}]).text == "Once upon a time"
    err = capsys.readouterr().err
    assert "overloaded" in err and "\x1b" not in err and "\x9b" not in err, err
